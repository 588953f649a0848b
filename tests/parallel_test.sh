#!/usr/bin/env bash
# scripts/sweep-parallel.sh, the GNU parallel recipe docs/sweeps.md quotes: 4 shards merged must
# be byte-identical to one unsharded sweep.
#   tests/parallel_test.sh build/locksim
# Needs GNU parallel (./setup.sh --tests installs Debian's package).
set -euo pipefail
source "$(dirname "$0")/sweep_recipe_support.sh" parallel_test "$@"

command -v parallel >/dev/null \
  || { echo "parallel_test: GNU parallel is not installed: run ./setup.sh --tests (Debian package parallel)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "parallel_test: FAIL: $*" >&2; exit 1; }

"$repo/scripts/sweep-parallel.sh" "$scenario" "$seeds" "$work/sweep" 4 || fail "sweep-parallel.sh failed"
for i in 1 2 3 4; do [ -s "$work/sweep/shard-$i.json" ] || fail "no shard-$i.json"; done
unsharded_sweep > "$work/unsharded.json" \
  || fail "the unsharded sweep failed"
cmp "$work/sweep/merged.json" "$work/unsharded.json" || {
  diff "$work/sweep/merged.json" "$work/unsharded.json" | head -n 20 >&2
  fail "merged.json of 4 shards differs from the unsharded sweep"
}
awk -v started="$started" -v now="$EPOCHREALTIME" 'BEGIN {
  printf "parallel_test: ok: merged.json of 4 parallel shards is the unsharded sweep; wall time %.1f s\n", now - started }'
