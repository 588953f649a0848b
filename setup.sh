#!/usr/bin/env bash
# Installs what locksim needs from Debian's packages (only what is missing), then
# configures and builds into build/. Safe to run again: it skips what is done.
#   ./setup.sh            # build
#   ./setup.sh --tests    # also what the test suite needs: python3-jsonschema, and
#                         # chromium for the test that opens an HTML report in a browser
# With CI set in the environment, compiler warnings are errors.
set -euo pipefail
cd "$(dirname "$0")"

packages=(g++ cmake make libboost-graph-dev catch2 libfmt-dev nlohmann-json3-dev libcli11-dev)
case "${1:-}" in
  --tests) packages+=(python3-jsonschema chromium) ;;
  "") ;;
  *) echo "setup: unknown option \"$1\"; use ./setup.sh, or ./setup.sh --tests" >&2; exit 2 ;;
esac
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "setup: need root to install ${missing[*]}: run as root, or install sudo" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

werror=OFF
if [ -n "${CI:-}" ]; then werror=ON; fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCKSIM_WERROR="$werror" >/dev/null
else
  cmake -S . -B build -DLOCKSIM_WERROR="$werror" >/dev/null
fi
cmake --build build --parallel "$(nproc)"
