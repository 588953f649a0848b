#!/usr/bin/env bash
# The README's scenario table must be what scripts/scenarios-table.sh measures now.
#   tests/readme_scenarios_table.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
measured=$(scripts/scenarios-table.sh "$1")
in_readme=$(sed -n '/^<!-- scenarios-table:/,/^<!-- end scenarios-table -->/p' README.md | sed '1d;$d')
if [[ "$measured" != "$in_readme" ]]; then
    echo "README.md's scenario table differs from what scripts/scenarios-table.sh measures now:"
    diff <(echo "$in_readme") <(echo "$measured") || true
    echo "Regenerate it: scripts/scenarios-table.sh, and paste the output between the markers in README.md."
    exit 1
fi
echo "README.md's scenario table is as measured ($(echo "$measured" | wc -l) lines)"
