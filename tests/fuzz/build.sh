#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz/CMakeLists.txt) with clang, ASan, UBSan and
# libFuzzer into $LOCKSIM_FUZZ_DIR (default build-fuzz/, which ignores itself in git),
# installing clang and its runtime from Debian when missing. Never touches build/.
#   tests/fuzz/build.sh            # prints the directory holding the two fuzz binaries
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out="${LOCKSIM_FUZZ_DIR:-$root/build-fuzz}"

# clang with its sanitizer and libFuzzer runtimes (Debian's libclang-rt-dev), and what
# ./setup.sh installs for the project itself; only what is missing.
packages=(clang libclang-rt-dev cmake make libboost-graph-dev libfmt-dev nlohmann-json3-dev libcli11-dev)
scripts/install-packages.sh "${packages[@]}"

mkdir -p "$out"
# build-fuzz/ sits in the work tree; it keeps itself out of git.
[ -f "$out/.gitignore" ] || echo '*' > "$out/.gitignore"
if [ ! -f "$out/cmake/CMakeCache.txt" ]; then
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  CC=clang CXX=clang++ cmake -S "$root/tests/fuzz" -B "$out/cmake" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
fi
cmake --build "$out/cmake" --parallel "$(nproc)" >&2
echo "$out/cmake"
