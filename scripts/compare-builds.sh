#!/usr/bin/env bash
# Whole runs, two builds side by side: a sweep on one thread and build/scenario_runs on
# the flagship, each build's turn alternating, REPS times, then the medians. Use it for a
# change's before and after (build the commit before it elsewhere, e.g. with `git
# worktree add /tmp/before-src COMMIT` and cmake there).
#   scripts/compare-builds.sh /tmp/before build
#   REPS=5 SEEDS=20000 RUNS=2000 scripts/compare-builds.sh OLD_BUILD_DIR NEW_BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 2 ] || { echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR (each with locksim and scenario_runs)" >&2; exit 2; }
REPS=${REPS:-3}
SEEDS=${SEEDS:-20000}
RUNS=${RUNS:-2000}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for rep in $(seq 1 "$REPS"); do
  for dir in "$1" "$2"; do
    seconds=$( { /usr/bin/time -f "%e" "$dir/locksim" sweep scenarios/random-gc-pauses.json --seeds "$SEEDS" -j 1 \
                 > /dev/null; } 2>&1 | tail -1)
    echo "$dir sweep_s $seconds" >> "$out"
    "$dir/scenario_runs" scenarios/gc-pause-40s.json "$RUNS" | tr ' ' '\n' | grep '=' | grep -v '^scenario=' |
      sed "s|^|$dir |; s|=| |" >> "$out"
  done
  echo "repetition $rep of $REPS done" >&2
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '| figure | %s | %s |\n| --- | ---: | ---: |\n' "$1" "$2"
for figure in sweep_s traced_runs_per_s untraced_runs_per_s judged_runs_per_s traced_allocations_per_run \
              untraced_allocations_per_run judged_allocations_per_run; do
  old=$(awk -v d="$1" -v f="$figure" '$1 == d && $2 == f { print $3 }' "$out" | median)
  new=$(awk -v d="$2" -v f="$figure" '$1 == d && $2 == f { print $3 }' "$out" | median)
  all_old=$(awk -v d="$1" -v f="$figure" '$1 == d && $2 == f { printf "%s%s", s, $3; s = " / " }' "$out")
  all_new=$(awk -v d="$2" -v f="$figure" '$1 == d && $2 == f { printf "%s%s", s, $3; s = " / " }' "$out")
  if [ "$figure" = sweep_s ]; then
    printf '| sweep of %s seeds, -j 1: s (seeds/s) | %s (%.0f): %s | %s (%.0f): %s |\n' "$SEEDS" \
      "$old" "$(echo "$SEEDS / $old" | bc -l)" "$all_old" "$new" "$(echo "$SEEDS / $new" | bc -l)" "$all_new"
  else
    printf '| %s | %s: %s | %s: %s |\n' "$figure" "$old" "$all_old" "$new" "$all_new"
  fi
done
