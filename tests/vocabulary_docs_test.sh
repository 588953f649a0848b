#!/usr/bin/env bash
# The documents that list the trace's kinds are the code's declaration, not copies kept by
# hand: the README's table of kinds is `locksim kinds --format markdown`, and the JSON
# Schema's list of events a fault's "when" may name is every declared kind, in order.
#   tests/vocabulary_docs_test.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
declared=$("$1" kinds --format markdown)
in_readme=$(sed -n '/^<!-- kinds-table:/,/^<!-- end kinds-table -->/p' README.md | sed '1d;$d')
if [[ "$declared" != "$in_readme" ]]; then
  echo "README.md's table of trace kinds differs from what the code declares:"
  diff <(echo "$in_readme") <(echo "$declared") || true
  echo "Regenerate it: build/locksim kinds --format markdown, pasted between the kinds-table markers in README.md."
  exit 1
fi
"$1" kinds --format json | python3 -c '
import json, sys
declared = [kind["name"] for kind in json.load(sys.stdin)]
schema = json.load(open("scenarios/scenario.schema.json"))
listed = schema["$defs"]["trigger"]["properties"]["event"]["enum"]
if listed != declared:
    print("scenarios/scenario.schema.json lists the event kinds", listed)
    print("but the code declares", declared)
    sys.exit(1)
'
echo "README.md and the JSON Schema list the $(echo "$declared" | tail -n +3 | wc -l) declared kinds"
