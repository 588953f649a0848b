#!/usr/bin/env bash
# How many seeds a conditioned sweep saves on a rare fault: the ledger-export example with
# only its monthly freezes (fault_generators/0: 10 to 25 s, about twice a month on each of
# three pods), so that every incident comes with a freeze and a plain sweep and a
# conditioned one measure the same rate. Prints both sweeps' rate per run with its 95 %
# interval and the interval's width, and the seeds each used.
#   scripts/given-fault-seeds.sh                   # 100000 plain seeds, 2000 conditioned
#   PLAIN=20000 GIVEN=500 LOCKSIM=/tmp/other/locksim scripts/given-fault-seeds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
locksim=${LOCKSIM:-build/locksim}
PLAIN=${PLAIN:-100000}
GIVEN=${GIVEN:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/freezes.json" <<'PY'
import json, sys
with open("scenarios/examples/ledger-export.json") as f:
    scenario = json.load(f)
scenario["$schema"] = "scenario.schema.json"
scenario["fault_generators"] = scenario["fault_generators"][:1]
# An hour of the service, as docs/performance.md measured it (the example runs ten minutes).
scenario["horizon"] = "70m"
scenario["job"]["until"] = "1h"
scenario["fault_generators"][0]["until"] = "1h"
scenario.pop("explore", None)
# Every bank call as fast as most are: no incident without a freeze.
for link in scenario["network"]["links"]:
    link["delay"] = {"uniform": ["20ms", "200ms"]}
scenario["designs"] = {"as-deployed": {}}
with open(sys.argv[1], "w") as f:
    json.dump(scenario, f)
PY

# rate low high (per run) from a sweep's JSON: the plain rate, or the weighed one.
rates() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
design = d["designs"][0]
if "given_fault" in d:
    rate, (low, high) = design["rate_with_given_fault"], design["rate_with_given_fault_95"]
else:
    rate, (low, high) = design["violation_rate"], design["wilson_95"]
runs, violated = design["runs"], design["runs_with_violation"]
print("%d seeds, %d with a violation: rate per run %.3g (95%% CI %.3g to %.3g), width %.3g"
      % (runs, violated, rate, low, high, high - low))'
}
echo "plain:       $("$locksim" sweep "$work/freezes.json" --seeds "$PLAIN" --format json | rates)"
echo "conditioned: $("$locksim" sweep "$work/freezes.json" --seeds "$GIVEN" --given-fault 0 --format json | rates)"
