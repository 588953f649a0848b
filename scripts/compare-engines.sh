#!/usr/bin/env bash
# locksim's engine against hold-model baselines that are not part of this repository, read
# from the folder BASELINES names (src/hold_cpp.cc, src/hold_ns3.cc, src/hold_simpy2.py): the bare
# std::priority_queue loop, ns-3 with each of its schedulers, and SimPy 2. Every program
# fires the same event sequence (same RNG, same FIFO ties): the script checks that their
# final_t_ns and chk agree, then runs them interleaved, REPS times each, and prints the
# medians and the ratios locksim / bare heap, locksim / ns-3's fastest, locksim / SimPy.
#   BASELINES=DIR scripts/compare-engines.sh                 # P = 10, 1000, 100000; 3 repetitions
#   BASELINES=DIR REPS=5 scripts/compare-engines.sh
#   BASELINES=DIR SCALE=10 REPS=1 scripts/compare-engines.sh # a quick look: E divided by 10
# Needs g++, and for the ns-3 and SimPy columns Debian's libns3-dev and python3-simpy
# (installed when missing, through sudo when not root).
set -euo pipefail
cd "$(dirname "$0")/.."
baselines=${BASELINES:?set BASELINES to the folder of the hold-model baselines (src/hold_cpp.cc, src/hold_ns3.cc, src/hold_simpy2.py)}
REPS=${REPS:-3}
SCALE=${SCALE:-1}
out=build/compare-engines
mkdir -p "$out"

scripts/install-packages.sh libns3-dev python3-simpy

# Build: locksim's benchmark with the project, the baselines as their build.sh does.
[ -f build/CMakeCache.txt ] || ./setup.sh
cmake --build build --target hold_model >/dev/null
g++ -std=c++20 -O2 -o "$out/hold_cpp" "$baselines/src/hold_cpp.cc"
g++ -std=c++17 -O2 -I/usr/include -o "$out/hold_ns3" "$baselines/src/hold_ns3.cc" -lns3-core

# label, P, E, command; E per family as in the baselines' configs.tsv.
configs=()
for P in 10 1000 100000; do
  ns3_events=10000000; simpy_events=3000000
  [ "$P" = 100000 ] && { ns3_events=5000000; simpy_events=1000000; }
  configs+=("locksim|$P|30000000|build/hold_model $P {E}")
  configs+=("bare-heap|$P|30000000|$out/hold_cpp bheap $P {E}")
  for scheduler in Map Heap Calendar PriorityQueue; do
    events=$ns3_events; [ "$scheduler" = Calendar ] && [ "$P" = 100000 ] && events=2000000
    configs+=("ns3-$scheduler|$P|$events|$out/hold_ns3 $scheduler $P {E}")
  done
  configs+=("simpy|$P|$simpy_events|/usr/bin/python3 $baselines/src/hold_simpy2.py $P {E}")
done

# The same work: every xoshiro-based program fires the same sequence for the same P and E.
echo "checking that every engine fires the same events (1,000,000 events each)..."
for P in 10 1000 100000; do
  sums=$( { build/hold_model $P 1000000; "$out/hold_cpp" bheap $P 1000000
            for s in Map Heap Calendar PriorityQueue; do "$out/hold_ns3" $s $P 1000000; done; } |
          grep -o 'final_t_ns=[0-9]* chk=[0-9a-f]*' | sort -u)
  if [ "$(echo "$sums" | wc -l)" != 1 ]; then echo "P=$P: the engines disagree:"; echo "$sums"; exit 1; fi
  echo "  P=$P: locksim, the bare heap and 4 ns-3 schedulers agree: $sums"
done

raw="$out/raw.tsv"
: > "$raw"
for rep in $(seq 1 "$REPS"); do   # repetitions outermost: slow drifts spread over every program
  for config in "${configs[@]}"; do
    IFS='|' read -r label P E command <<< "$config"
    E=$(( E / SCALE ))
    line=$(${command//\{E\}/$E} 2>/dev/null | grep -E '^impl=' | tail -1)
    rate=$(echo "$line" | tr ' ' '\n' | grep '^ev_per_s=' | cut -d= -f2)
    printf '%s\t%s\t%s\t%s\n' "$label" "$P" "$rep" "$rate" >> "$raw"
    printf '\r  rep %s/%s %-18s P=%-7s %12s events/s\033[K' "$rep" "$REPS" "$label" "$P" "$rate" >&2
  done
done
printf '\r\033[K' >&2

python3 - "$raw" <<'PY'
import collections, statistics, sys
rates = collections.defaultdict(list)
for line in open(sys.argv[1]):
    label, P, _, rate = line.rstrip("\n").split("\t")
    if rate:
        rates[(int(P), label)].append(float(rate))
median = {key: statistics.median(values) for key, values in rates.items()}
print("| P | engine | events/s (median) | reps |")
print("|---:|---|---:|---:|")
for (P, label), value in sorted(median.items()):
    print(f"| {P} | {label} | {value / 1e6:.2f} M | {len(rates[(P, label)])} |")
print()
print("| P | locksim / bare heap | locksim / ns-3 fastest | locksim / SimPy |")
print("|---:|---:|---:|---:|")
targets = {10: (0.9, 2, 30), 1000: (1.0, 2, 30), 100000: (1.1, 2, 30)}
for P in sorted({P for P, _ in median}):
    ours = median[(P, "locksim")]
    ns3 = max((v, l) for (p, l), v in median.items() if p == P and l.startswith("ns3-"))
    cells = []
    for ratio, target in ((ours / median[(P, "bare-heap")], targets[P][0]), (ours / ns3[0], targets[P][1]),
                          (ours / median[(P, "simpy")], targets[P][2])):
        cells.append(f"{ratio:.2f}× ({'meets' if ratio >= target else 'misses'} ≥ {target}×)")
    cells[1] += f" vs {ns3[1]}"
    print(f"| {P} | " + " | ".join(cells) + " |")
PY
