#!/usr/bin/env bash
# Determinism across builds: builds locksim with g++ and clang++, at -O0 and -O2, runs
# every shipped scenario with each (--format json and --format trace, which holds every
# event with its clock readings), and compares the outputs byte for byte. Any difference
# is a bug: floating point in the time path, unordered iteration, uninitialised memory.
#   scripts/cross-build-determinism.sh
# Needs Debian's clang (installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-packages.sh clang
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
builds=()
for compiler in g++ clang++; do
  for level in O0 O2; do
    dir="build-cross/$compiler-$level"
    builds+=("$dir")
    if [ ! -f "$dir/CMakeCache.txt" ]; then
      cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None \
        -DCMAKE_CXX_FLAGS="-$level" -DLOCKSIM_TESTS=OFF >/dev/null
    fi
    echo "building $dir" >&2
    cmake --build "$dir" --target locksim --parallel "$(nproc)" >/dev/null
  done
done
out=build-cross/outputs
rm -rf "$out"
mkdir -p "$out"
differences=0
scenarios=0
for file in scenarios/*.json; do
  case "$file" in *.schema.json) continue ;; esac
  scenarios=$((scenarios + 1))
  name=$(basename "$file" .json)
  for format in json trace; do
    reference=""
    for dir in "${builds[@]}"; do
      tag=$(basename "$dir")
      "$dir/locksim" run "$file" --format "$format" > "$out/$name.$format.$tag" || true
      if [ -z "$reference" ]; then
        reference="$out/$name.$format.$tag"
      elif ! cmp -s "$reference" "$out/$name.$format.$tag"; then
        echo "DIFFERENT: $name --format $format: $(basename "$reference") vs $tag"
        differences=$((differences + 1))
      fi
    done
  done
done
echo "$scenarios scenarios × 2 formats × ${#builds[@]} builds (g++ and clang++, -O0 and -O2): $differences differences"
[ "$differences" = 0 ]
