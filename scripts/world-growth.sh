#!/usr/bin/env bash
# The cost of one run as the world grows, four sizes of each: gc-pause-40s with more
# servers, with more fixed faults (pauses of 10 ms, one each half second, the horizon
# long enough for all), and with more customers × runs (a job of 100 hourly runs, cut by
# --max-events 1000: what the world costs before its events). Prints wall time and peak
# memory of `locksim run FILE --design fenced` per size, the median of REPS runs, so a
# reader can see that each grows linearly.
#   scripts/world-growth.sh                        # build/locksim, 1 repetition
#   REPS=3 LOCKSIM=/tmp/other/locksim scripts/world-growth.sh
#   SERVERS="1000 2000" FAULTS="" CUSTOMERS="" scripts/world-growth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
locksim=${LOCKSIM:-build/locksim}
REPS=${REPS:-1}
SERVERS=${SERVERS-1250 2500 5000 10000}
FAULTS=${FAULTS-625 1250 2500 5000}
CUSTOMERS=${CUSTOMERS-12500 25000 50000 100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The flagship grown along one axis: servers N, faults N or customers N (× 100 runs).
grown() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
axis, size = sys.argv[1], int(sys.argv[2])
with open("scenarios/gc-pause-40s.json") as f:
    scenario = json.load(f)
scenario.pop("explore", None)
for design in scenario["designs"].values():
    design.pop("expect", None)
if axis == "servers":
    scenario["servers"] = [f"server-{i}" for i in range(1, size + 1)]
elif axis == "faults":
    scenario["faults"] = [{"pause": "server-1", "at": f"{1000 + 500 * i}ms", "for": "10ms", "kind": "gc"}
                          for i in range(size)]
    scenario["horizon"] = f"{size // 2 + 600}s"
else:
    scenario["job"]["customers"] = list(range(1, size + 1))
    scenario["job"]["every"] = "1h"
    scenario["job"]["runs"] = 100
    scenario["horizon"] = "168h"
json.dump(scenario, sys.stdout, indent=1)
EOF
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| world | time | peak memory |\n| --- | ---: | ---: |\n'
measure() {
  local axis=$1 size=$2
  shift 2
  grown "$axis" "$size" > "$work/grown.json"
  local times=() memories=()
  for _ in $(seq "$REPS"); do
    # Exit 1 (a violation) is an answer, and so is the stop at --max-events the customers'
    # worlds are measured by; anything else is not a measurement.
    local status=0
    /usr/bin/time -f "%e %M" -o "$work/time" "$locksim" run "$work/grown.json" --design fenced "$@" > /dev/null \
      2> "$work/err" || status=$?
    if [ "$status" -gt 1 ] && ! grep -q "events by true time .* and was stopped" "$work/err"; then
      echo "world-growth: $size $axis: exit $status: $(head -c 300 "$work/err")" >&2
      exit 1
    fi
    read -r seconds kilobytes < <(tail -1 "$work/time")
    times+=("$seconds")
    memories+=("$kilobytes")
  done
  local seconds kilobytes
  seconds=$(printf '%s\n' "${times[@]}" | median)
  kilobytes=$(printf '%s\n' "${memories[@]}" | median)
  printf '| %s %s | %s s | %s MB |\n' "$size" "$axis" "$seconds" "$((kilobytes / 1024))"
}
for size in $SERVERS; do measure servers "$size"; done
for size in $FAULTS; do measure faults "$size"; done
for size in $CUSTOMERS; do measure "customers × 100 runs" "$size" --max-events 1000; done
