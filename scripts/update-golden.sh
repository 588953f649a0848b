#!/usr/bin/env bash
# Rewrites the golden files the test suite compares against: the terminal output and the
# Mermaid diagrams of gc-pause-40s.json. Run it only after a change to those outputs that
# you meant, and read the diff before committing it.
#   scripts/update-golden.sh [path/to/locksim]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="${1:-build/locksim}"
tests/golden_outputs.sh "$locksim" text > tests/golden/gc-pause-40s.txt
tests/golden_outputs.sh "$locksim" mermaid > tests/golden/gc-pause-40s.mermaid.md
git --no-pager diff --stat -- tests/golden/ 2>/dev/null || true
echo "updated tests/golden/; review the diff before committing"
