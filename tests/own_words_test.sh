#!/usr/bin/env bash
# A scenario that names its own things reads in its own words everywhere people read:
# no output of scenarios/examples/ledger-export.json (text, Mermaid, the HTML report and
# its pages of every step, explore's text and map, sweeps, check, a failing gate, the
# messages' labels in the trace) holds the renewals job's words or a misspelt form.
# Programs' contracts stay as they are: JSON keys, metric names, trace kinds and enumerated
# field values (docs/scenario-format.md, "vocabulary").
#   tests/own_words_test.sh path/to/locksim
set -euo pipefail
locksim=$(realpath "$1")
cd "$(dirname "$0")/.."
scenario=scenarios/examples/ledger-export.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
trap 'echo "failed: $BASH_COMMAND"' ERR

# A run in which the design without a key sends a batch twice: the first window explore finds.
"$locksim" explore "$scenario" --color never --report "$out/map" > "$out/explore.txt"
replay=$(grep -m1 -o "\-\-faults '.*'" "$out/explore.txt" | sed "s/^--faults '//; s/'\$//")
if [[ -z "$replay" ]]; then
    echo "explore found no window in $scenario: nothing to read the violation's words in"
    exit 1
fi
"$locksim" run "$scenario" --design all --color never > "$out/run.txt"
"$locksim" run "$scenario" --design all --color never --faults "$replay" > "$out/run-violating.txt" || true
"$locksim" run "$scenario" --design all --format mermaid --faults "$replay" > "$out/figure.md" || true
"$locksim" run "$scenario" --faults "$replay" --report "$out/report" > /dev/null || true
"$locksim" run "$scenario" --faults "$replay" --format trace |
    python3 -c 'import json, sys
for design in json.load(sys.stdin)["designs"]:
    for event in design["events"]:
        label = event["fields"].get("label")
        if label: print(label)' > "$out/labels.txt" || true
"$locksim" sweep "$scenario" --seeds 600 --color never --runs-per-day 144 > "$out/sweep.txt"
# A run the sweep found failing (a bank call slow past its timeout, sent again): the retry's story.
failing_seed=$(grep -m1 -o -- '--seed [0-9]*' "$out/sweep.txt" | cut -d' ' -f2)
if [[ -z "$failing_seed" ]]; then
    echo "the sweep of $scenario found no failing seed: nothing to read a retry's words in"
    exit 1
fi
"$locksim" run "$scenario" --seed "$failing_seed" --design all --color never > "$out/run-seed.txt" || true
"$locksim" run "$scenario" --seed "$failing_seed" --report "$out/report-seed" > /dev/null || true
"$locksim" sweep "$scenario" --seeds 40 --given-fault 0 --runs-per-day 144 --color never \
    --max-rate as-deployed=0 > "$out/gate.txt" 2>&1 || true
"$locksim" check "$scenario" --color never > "$out/check.txt" || true
"$locksim" sweep "$scenario" --seeds 20 --vary lock.renew_deadline=5s,10s --report "$out/study" --color never \
    > "$out/study.txt"
"$locksim" run "$scenario" --faults "$replay" --design as-deployed --color never > "$out/fail.txt" 2>&1 || true

# The words reach the outputs: the violation happened and is told in the file's words.
for expected in "double transfer" "transfer batch" "transferred" "partner-bank" "ledger-db" "UPDATE batches" \
    "its transfer request got no reply"; do
    if ! grep -rqF -- "$expected" "$out"; then
        echo "no output holds \"$expected\": the scenario's words did not reach them"
        exit 1
    fi
done
grep -q "FAIL" "$out/fail.txt" || { echo "the replayed window did not fail the design without a key"; exit 1; }

# HTML is read as the text a browser shows: markup (class names, ids) is not read.
for page in $(find "$out" -name '*.html'); do
    sed 's/<[^>]*>/ /g' "$page" > "$page.txt"
done
forbidden='customer|charg|renewals|transfered|batchs'
found=$( (grep -rinE "$forbidden" "$out" --include="*.txt" --include="*.md" || true) | sed "s|$out/||" | cut -c1-220 | head -20)
if [[ -n "$found" ]]; then
    echo "outputs of $scenario hold the renewals job's words or a misspelt form:"
    echo "$found"
    exit 1
fi
echo "every output of $scenario reads in its own words ($(find "$out" -type f | wc -l) files)"
