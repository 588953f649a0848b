#!/usr/bin/env bash
# Installs what locksim needs from Debian's packages (only what is missing), then
# configures and builds into build/. Safe to run again: it skips what is done.
#   ./setup.sh            # build the program, build/locksim
#   ./setup.sh --tests    # build everything, tests too, and install what the test suite
#                         # needs: python3-jsonschema,
#                         # chromium for the tests that open the HTML reports in a browser,
#                         # nodejs and npm, then tests/layout's pinned puppeteer-core (npm ci,
#                         # once) for the layout test that drives that chromium,
#                         # GNU parallel for the test of the sharded-sweep recipe,
#                         # libxml2-utils (xmllint) to check JUnit reports against a schema,
#                         # python3-yaml to run the CI recipes of docs/ci, and man-db to
#                         # render the man page
# With CI set in the environment, compiler warnings are errors.
set -euo pipefail
cd "$(dirname "$0")"

packages=(g++ cmake make libboost-graph-dev catch2 libfmt-dev nlohmann-json3-dev libcli11-dev)
case "${1:-}" in
  --tests) packages+=(python3-jsonschema chromium nodejs npm parallel libxml2-utils python3-yaml man-db) ;;
  "") ;;
  *) echo "setup: unknown option \"$1\"; use ./setup.sh, or ./setup.sh --tests" >&2; exit 2 ;;
esac
scripts/install-packages.sh "${packages[@]}"
# The layout test's puppeteer-core, at the version package-lock.json pins (it never
# downloads a browser: the test drives Debian's chromium).
if [ "${1:-}" = --tests ] && [ ! -d tests/layout/node_modules/puppeteer-core ]; then
  npm ci --prefix tests/layout --no-audit --no-fund
fi

werror=OFF
if [ -n "${CI:-}" ]; then werror=ON; fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f build/CMakeCache.txt ]; then
  # Built for /usr, where the Debian package installs (scripts/package-deb.sh): the program
  # looks there for its scenario library when run outside a checkout.
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSIM_WERROR="$werror" \
    -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
else
  cmake -S . -B build -DLOCKSIM_WERROR="$werror" >/dev/null
fi
# The first command needs only the program; the tests build everything.
targets=(--target locksim)
if [ "${1:-}" = --tests ]; then targets=(); fi
cmake --build build --parallel "$(nproc)" "${targets[@]}"
