#!/usr/bin/env bash
# The cost of one run as the work grows: gc-pause-40s with more servers and customers
# (10 ms of work per customer, the horizon long enough for every charge), all three
# designs in one process, two ways: `locksim run` (the trace kept for the output, each
# fault judged by runs without it) and a sweep of that one seed (checked as recorded, no
# trace kept). Prints wall time and peak memory per size, the median of REPS runs each.
#   scripts/work-growth.sh                     # build/locksim, 3 repetitions
#   LOCKSIM=/tmp/other/locksim scripts/work-growth.sh
#   SIZES="3x1000 3x10000" REPS=1 scripts/work-growth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
locksim=${LOCKSIM:-build/locksim}
REPS=${REPS:-3}
SIZES=${SIZES:-3x1000 3x10000 30x1000 30x10000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The flagship with S servers and C customers; its expectations and explore block are
# for three customers, so they go.
grown() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
servers, customers = int(sys.argv[1]), int(sys.argv[2])
with open("scenarios/gc-pause-40s.json") as f:
    scenario = json.load(f)
scenario.pop("explore", None)
scenario["servers"] = [f"server-{i}" for i in range(1, servers + 1)]
scenario["job"]["customers"] = list(range(1, customers + 1))
scenario["job"]["work_per_customer"] = "10ms"
scenario["horizon"] = f"{customers // 100 + 300}s"
for design in scenario["designs"].values():
    design.pop("expect", None)
json.dump(scenario, sys.stdout, indent=1)
EOF
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| servers × customers | run: time | run: peak memory | sweep of 1 seed: time | sweep of 1 seed: peak memory |\n'
printf '| --- | ---: | ---: | ---: | ---: |\n'
# The median wall time and peak memory of REPS runs of a command: "seconds megabytes".
measure() {
  local seconds=() kilobytes=() out
  for _ in $(seq 1 "$REPS"); do
    # Exit 1 is expected: the unfenced design double-charges.
    out=$( { /usr/bin/time -f "%e %M" "$@" > /dev/null || true; } 2>&1 | tail -1)
    seconds+=("${out% *}"); kilobytes+=("${out#* }")
  done
  echo "$(printf '%s\n' "${seconds[@]}" | median) $(( $(printf '%s\n' "${kilobytes[@]}" | median) / 1024 ))"
}
for size in $SIZES; do
  servers=${size%x*}; customers=${size#*x}
  file="$work/grown-$size.json"
  grown "$servers" "$customers" > "$file"
  read -r run_s run_mb < <(measure "$locksim" run "$file" --format json)
  read -r sweep_s sweep_mb < <(measure "$locksim" sweep "$file" --seeds 1 -j 1 --format json)
  printf '| %s × %s | %s s | %s MB | %s s | %s MB |\n' "$servers" \
    "$(echo "$customers" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$run_s" "$run_mb" "$sweep_s" "$sweep_mb"
done
