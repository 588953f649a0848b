#!/usr/bin/env bash
# The table of shipped scenarios in docs/scenarios.md must be what
# scripts/scenarios-table.sh measures now.
#   tests/docs_scenarios_table.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
document=docs/scenarios.md
measured=$(scripts/scenarios-table.sh "$1")
in_document=$(sed -n '/^<!-- scenarios-table:/,/^<!-- end scenarios-table -->/p' "$document" | sed '1d;$d')
if [[ -z "$in_document" ]]; then
    echo "$document has no scenario table between the markers <!-- scenarios-table: … --> and <!-- end scenarios-table -->"
    exit 1
fi
if [[ "$measured" != "$in_document" ]]; then
    echo "$document's scenario table differs from what scripts/scenarios-table.sh measures now:"
    diff <(echo "$in_document") <(echo "$measured") || true
    echo "Regenerate it: scripts/scenarios-table.sh, and paste the output between the markers in $document."
    exit 1
fi
echo "$document's scenario table is as measured ($(echo "$measured" | wc -l) lines)"
