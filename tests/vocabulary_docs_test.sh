#!/usr/bin/env bash
# The documents that list the trace's kinds are the code's declaration, not copies kept by
# hand: the table of kinds in docs/outputs.md is `locksim kinds --format markdown`, and the
# JSON Schema's list of events a fault's "when" may name is every declared kind, in order.
#   tests/vocabulary_docs_test.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
document=docs/outputs.md
declared=$("$1" kinds --format markdown)
in_document=$(sed -n '/^<!-- kinds-table:/,/^<!-- end kinds-table -->/p' "$document" | sed '1d;$d')
if [[ -z "$in_document" ]]; then
  echo "$document has no table of trace kinds between the markers <!-- kinds-table: … --> and <!-- end kinds-table -->"
  exit 1
fi
if [[ "$declared" != "$in_document" ]]; then
  echo "$document's table of trace kinds differs from what the code declares:"
  diff <(echo "$in_document") <(echo "$declared") || true
  echo "Regenerate it: build/locksim kinds --format markdown, pasted between the kinds-table markers in $document."
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
echo "$document and the JSON Schema list the $(echo "$declared" | tail -n +3 | wc -l) declared kinds"
