#!/usr/bin/env bash
# Every output of two builds, byte for byte: each shipped scenario (examples included)
# through `run` in every format, `explore` (text and JSON) where the file has an explore
# block, and `check`; every malformed file of tests/bad_scenarios through `run` (its one
# error line and exit code); and `shrink` of the flagship. Use it to show a refactoring
# changes nothing, or to list exactly what a fix changes.
#   scripts/compare-outputs.sh OLD_BUILD_DIR NEW_BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# = 2 ] || { echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR (each with locksim)" >&2; exit 2; }
old=$1/locksim
new=$2/locksim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
compared=0
differences=0

# Runs "$@" with each build (the word LOCKSIM stands for the program) and compares
# stdout, stderr and the exit code.
compare() {
  local label=$1
  shift
  for side in old new; do
    local program=$old
    [ "$side" = new ] && program=$new
    local args=("${@/#LOCKSIM/$program}")
    "${args[@]}" > "$out/$side.out" 2> "$out/$side.err"
    echo "exit $?" >> "$out/$side.err"
    sed -i "s|$program|LOCKSIM|g" "$out/$side.out" "$out/$side.err"
  done
  compared=$((compared + 1))
  if ! cmp -s "$out/old.out" "$out/new.out" || ! cmp -s "$out/old.err" "$out/new.err"; then
    differences=$((differences + 1))
    echo "DIFFERENT: $label"
    diff "$out/old.out" "$out/new.out" | head -6
    diff "$out/old.err" "$out/new.err" | head -6
  fi
}

while read -r file; do
  case "$file" in *.schema.json) continue ;; esac
  for format in text json trace mermaid perfetto; do
    compare "run $file --format $format" LOCKSIM run "$file" --format "$format"
  done
  if grep -q '"explore"' "$file"; then
    compare "explore $file" LOCKSIM explore "$file"
    compare "explore $file --format json" LOCKSIM explore "$file" --format json
  fi
  compare "check $file" LOCKSIM check "$file"
done < <(find scenarios -name '*.json' | sort)

for file in tests/bad_scenarios/*.json; do
  compare "run $file" LOCKSIM run "$file"
done
compare "shrink gc-pause-40s" LOCKSIM shrink scenarios/gc-pause-40s.json --design unfenced
compare "shrink random-gc-pauses" LOCKSIM shrink scenarios/random-gc-pauses.json --seed 57 --design unfenced
compare "shrink random-network-faults" LOCKSIM shrink scenarios/random-network-faults.json --seed 45 --design unfenced
echo "$compared outputs compared between $1 and $2: $differences differences"
[ "$differences" = 0 ]
