#!/usr/bin/env bash
# Prints one output of gc-pause-40s.json as the golden files hold it: the program's path
# in the replay line is written as "locksim", so the file does not depend on where the
# binary was built.
#   tests/golden_outputs.sh path/to/locksim text|mermaid
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
case "$2" in
  text) NO_COLOR=1 "$locksim" run scenarios/gc-pause-40s.json --color never | sed "s|^Replay: .* run |Replay: locksim run |" ;;
  mermaid) "$locksim" run scenarios/gc-pause-40s.json --format mermaid ;;
  *) echo "golden_outputs.sh: unknown output $2" >&2; exit 2 ;;
esac
