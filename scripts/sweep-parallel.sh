#!/usr/bin/env bash
# A locksim sweep split into shards that GNU parallel (Debian package `parallel`) runs side
# by side, one per core, then merged into the totals of one unsharded sweep:
#   scripts/sweep-parallel.sh SCENARIO SEEDS OUTDIR [SHARDS]    # SHARDS: default 8
# Writes OUTDIR/shard-1.json ... and OUTDIR/merged.json, the same bytes as
# `locksim sweep SCENARIO --seeds SEEDS --format json`, on this machine.
set -euo pipefail
[ $# -ge 3 ] && [ $# -le 4 ] || { echo "usage: $0 SCENARIO SEEDS OUTDIR [SHARDS]" >&2; exit 2; }
locksim=${LOCKSIM:-$(dirname "$0")/../build/locksim}
scenario=$1 seeds=$2 outdir=$3 shards=${4:-8}
mkdir -p "$outdir"

# One thread per shard (--jobs 1), since parallel already runs one shard per core; keep
# paths with spaces whole (--quote); stop at the first failing shard (--halt) rather than
# merge an incomplete set.
parallel --will-cite --quote --halt now,fail=1 \
  "$locksim" sweep "$scenario" --seeds "$seeds" --shard {}/"$shards" --jobs 1 \
  --output "$outdir"/shard-{}.json ::: $(seq "$shards")
"$locksim" merge --format json --output "$outdir"/merged.json "$outdir"/shard-*.json
