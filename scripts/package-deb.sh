#!/usr/bin/env bash
# Builds the Debian package of locksim from a build folder (./setup.sh makes build/), with
# CPack: BUILD/deb/locksim_<version>_<arch>.deb, whose path is the last line printed.
#   scripts/package-deb.sh [BUILD]      (default: build)
# The version is the program's, then the date and hash of the commit it was built from
# (0.1.0+git20261204223000.d88f829aa123; "+dirty.<hash>" for uncommitted sources), read
# from `locksim --version`. The program looks for its installed library where it was
# built to be, so a build configured for another prefix is moved to /usr first (one file
# recompiles). Installs dpkg-dev (dpkg-shlibdeps, for the Depends field) and file if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "package-deb: $build is not a configured build folder: run ./setup.sh first" >&2
  exit 2
fi
scripts/install-packages.sh dpkg-dev file
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
if [ "$prefix" != /usr ]; then
  echo "package-deb: $build was configured for $prefix; configuring it for /usr, where the package installs" >&2
  cmake -S . -B "$build" -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)" --target locksim locksim_package_files >&2
rm -rf "$build/deb"
(cd "$build" && cpack -G DEB) >&2
packages=("$build"/deb/locksim_*.deb)
if [ ${#packages[@]} -ne 1 ] || [ ! -f "${packages[0]}" ]; then
  echo "package-deb: cpack wrote no single $build/deb/locksim_*.deb" >&2
  exit 1
fi
echo "${packages[0]}"
