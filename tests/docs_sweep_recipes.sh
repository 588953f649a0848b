#!/usr/bin/env bash
# docs/sweeps.md quotes the sweep recipes from the scripts the tests run (tests/slurm_test.sh,
# tests/parallel_test.sh), never retyped. A block that follows a line
#   <!-- quoted from FILE -->
# must consist of lines of FILE, in FILE's order (an excerpt may skip lines, never change one).
#   tests/docs_sweep_recipes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
document=docs/sweeps.md
status=0
quotes=0
while IFS=: read -r line file; do
  quotes=$((quotes + 1))
  [ -f "$file" ] || { echo "$document:$line: quotes $file, which does not exist" >&2; status=1; continue; }
  # The fenced block after the marker, without its fences.
  block=$(awk -v start="$line" 'NR > start && /^```/ { if (open) exit; open = 1; next } open' "$document")
  [ -n "$block" ] || { echo "$document:$line: no fenced block after the quote of $file" >&2; status=1; continue; }
  # Each line must be found in the file after the previous one's place.
  awk -v file="$file" -v at="$line" -v document="$document" '
    BEGIN { while ((getline l < file) > 0) lines[++n] = l }
    { for (i = pos + 1; i <= n && lines[i] != $0; i++) {}
      if (i > n) { printf "%s (quote at line %d): not a line of %s after the previous one: %s\n", document, at, file, $0 > "/dev/stderr"; bad = 1; exit }
      pos = i }
    END { exit bad }' <<<"$block" || status=1
done < <(grep -n -o '<!-- quoted from [^ ]* -->' "$document" | sed 's/<!-- quoted from \(.*\) -->/\1/')
if [ "$quotes" -lt 2 ]; then echo "$document quotes $quotes recipe files; expected the Slurm and the GNU parallel recipe" >&2; status=1; fi
[ $status -eq 0 ] && echo "docs_sweep_recipes: $quotes quoted blocks in $document match their files"
exit $status
