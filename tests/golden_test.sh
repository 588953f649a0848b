#!/usr/bin/env bash
# The terminal and Mermaid outputs of gc-pause-40s.json must equal their golden files.
# A difference is either a bug or a change to update on purpose with
# scripts/update-golden.sh — never by editing the golden file to match.
#   tests/golden_test.sh path/to/locksim text|mermaid
set -euo pipefail
cd "$(dirname "$0")/.."
golden="tests/golden/gc-pause-40s.$([ "$2" = text ] && echo txt || echo mermaid.md)"
if ! diff -u "$golden" <(tests/golden_outputs.sh "$1" "$2"); then
  echo "the $2 output of gc-pause-40s.json differs from $golden (diff above)."
  echo "If the change is meant: scripts/update-golden.sh, then review and commit the new golden file."
  exit 1
fi
echo "the $2 output of gc-pause-40s.json matches $golden"
