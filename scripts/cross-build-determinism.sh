#!/usr/bin/env bash
# Determinism across builds: builds locksim with g++ and clang++, at -O0 and -O2, runs
# every shipped scenario with each (--format json and --format trace, which holds every
# event with its clock readings), sweeps each scenario that draws its faults from the seed
# over 1,000 seeds (SWEEP_SEEDS), and compares the outputs byte for byte. Any difference
# is a bug: floating point in the time path, unordered iteration, uninitialised memory.
#   scripts/cross-build-determinism.sh
# Or compare builds you made, such as one of the commit before a change and one after:
#   BUILDS="/tmp/before build" scripts/cross-build-determinism.sh
# Needs Debian's clang (installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a builds <<< "${BUILDS:-}"
[ ${#builds[@]} -gt 0 ] || scripts/install-packages.sh clang
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
for compiler in g++ clang++; do
  [ -z "${BUILDS:-}" ] || break
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

# Runs "$@" with each build (the word LOCKSIM stands for the program) into
# $out/<label>.<build>, and counts each output that differs from the first build's. The
# provenance of a sweep names the build's commit, which differs between builds by design.
compare_builds() {
  local label=$1 reference=""
  shift
  for dir in "${builds[@]}"; do
    local tag
    tag=$(echo "$dir" | tr / _)
    "${@/#LOCKSIM/$dir/locksim}" | sed '/^    "commit": /d' > "$out/$label.$tag" || true
    if [ -z "$reference" ]; then
      reference="$out/$label.$tag"
    elif ! cmp -s "$reference" "$out/$label.$tag"; then
      echo "DIFFERENT: $label: $(basename "$reference") vs $tag"
      differences=$((differences + 1))
    fi
  done
}

scenarios=0
while read -r file; do
  case "$file" in *.schema.json) continue ;; esac
  scenarios=$((scenarios + 1))
  name=$(echo "${file#scenarios/}" | tr / _)
  for format in json trace; do compare_builds "$name.$format" LOCKSIM run "$file" --format "$format"; done
done < <(find scenarios -name '*.json' | sort)
# Sweeps: every file that draws faults from its seeds, so each seed runs another world.
sweeps=0
while read -r file; do
  sweeps=$((sweeps + 1))
  name=$(echo "${file#scenarios/}" | tr / _)
  compare_builds "$name.sweep" LOCKSIM sweep "$file" --seeds "${SWEEP_SEEDS:-1000}" --format json
done < <(grep -l '"mean_interval"' -r scenarios --include='*.json' | grep -v '\.schema\.json$' | sort)
echo "$scenarios scenarios × 2 formats and $sweeps sweeps of ${SWEEP_SEEDS:-1000} seeds × ${#builds[@]} builds (${BUILDS:-g++ and clang++, -O0 and -O2}): $differences differences"
[ "$differences" = 0 ]
