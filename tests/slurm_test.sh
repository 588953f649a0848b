#!/usr/bin/env bash
# scripts/sweep.sbatch on a real one-node Slurm cluster (scripts/slurm-cluster.sh), the way
# a sweep goes wrong on a real one: of 4 array tasks one is cancelled before it runs, so the
# merge job's afterok dependency can never be met and Slurm cancels it; then --resume must
# submit only that shard plus a new merge, and merged.json must be byte-identical to one
# unsharded sweep. Then an exact explore as an array of 3 shards, whose merge must be
# byte-identical to one unsharded `locksim explore --format json`.
#   tests/slurm_test.sh build/locksim
# Installs Slurm and munge from Debian if missing; needs root (or sudo) for that, and to
# run the daemons. Takes about 10 s once they are installed.
set -euo pipefail
source "$(dirname "$0")/sweep_recipe_support.sh" slurm_test "$@"
export SHARDS=4

work=$(mktemp -d)
cluster=$work/cluster
out=$work/sweep
export SLURM_CONF=$cluster/slurm.conf

finish() {
  local status=$?
  "$repo/scripts/slurm-cluster.sh" stop "$cluster" || status=1
  if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "slurm_test: files kept in $work" >&2; fi
  exit "$status"
}
trap finish EXIT

fail() {
  echo "slurm_test: FAIL: $*" >&2
  if [ -f "$SLURM_CONF" ]; then
    echo "--- squeue" >&2
    timeout 10 squeue >&2 2>&1 || true
  fi
  for f in "$cluster"/log/slurmctld.log "$cluster"/log/slurmd.log "$out"/slurm-*.out; do
    [ -s "$f" ] || continue
    echo "--- tail of $f" >&2
    tail -n 15 "$f" >&2
  done
  exit 1
}

# JobState of a job that is not an array (the merge jobs); empty once Slurm has forgotten
# it (MinJobAge, 30 s after it ended).
state_of() {
  scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2 || true
}

# Wait until the merge job $1 reaches state $2 (failing on any other finished state).
wait_for_state() {
  local job=$1 want=$2 state=""
  for _ in $(seq 600); do
    state=$(state_of "$job")
    [ "$state" = "$want" ] && return 0
    case "$state" in
      PENDING|RUNNING|COMPLETING|CONFIGURING) ;;
      *) fail "job $job is \"$state\", expected $want" ;;
    esac
    sleep 0.2
  done
  fail "job $job still \"$state\" after 120 s, expected $want"
}

# Job ids from sweep.sbatch's output: "array job ID: ..." and "merge job ID: ...".
job_id() { sed -n "s/^$1 job \([0-9]*\):.*/\1/p" <<<"$2"; }

"$repo/scripts/slurm-cluster.sh" start "$cluster" || fail "the cluster did not start"
up=$EPOCHREALTIME

# Keep jobs from starting while we cancel one: a DOWN partition queues jobs but starts none.
# (SBATCH_HOLD=1 would do it per job, but Debian 12's sbatch 22.05 does not read it.)
partition=$(sinfo -h -o %R | head -n 1)
scontrol update PartitionName="$partition" State=DOWN

submitted=$("$repo/scripts/sweep.sbatch" "$scenario" "$seeds" "$out") || fail "sweep.sbatch did not submit"
echo "$submitted"
array=$(job_id array "$submitted")
merge=$(job_id merge "$submitted")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in sweep.sbatch's output"
tasks=$(squeue -h -r -j "$array" -o %K | sort -n | tr '\n' ' ')
[ "$tasks" = "1 2 3 4 " ] || fail "array job $array has tasks \"$tasks\", expected 1 2 3 4"
scontrol show job "$merge" | grep -q "Dependency=afterok:${array}_\*" \
  || fail "merge job $merge does not depend on afterok:$array"

# Lose shard 3, as a node failure or a time limit would, then let the rest run.
scancel "${array}_3"
scontrol update PartitionName="$partition" State=UP

# afterok on the array can never be met now: Slurm must cancel the merge, not leave it
# pending. (It decides once every task has ended.)
wait_for_state "$merge" CANCELLED
for _ in $(seq 600); do [ -z "$(squeue -h -j "$array" -o %i)" ] && break; sleep 0.2; done
[ -z "$(squeue -h -j "$array" -o %i)" ] || fail "array job $array still has tasks queued or running"
scontrol show job "$merge" | grep -q 'Reason=DependencyNeverSatisfied' \
  || fail "merge job $merge was cancelled, but not for its dependency"
for i in 1 2 4; do [ -s "$out/shard-$i.json" ] || fail "shard $i did not write $out/shard-$i.json"; done
[ ! -e "$out/shard-3.json" ] || fail "the cancelled shard 3 wrote $out/shard-3.json"
[ ! -e "$out/merged.json" ] || fail "merged.json exists though the merge was cancelled"
missing=$("$LOCKSIM" merge --missing "$out"/shard-*.json)
[ "$missing" = 3 ] || fail "locksim merge --missing says \"$missing\", expected 3"

resumed=$("$repo/scripts/sweep.sbatch" --resume "$scenario" "$seeds" "$out") || fail "sweep.sbatch --resume failed"
echo "$resumed"
array=$(job_id array "$resumed")
merge=$(job_id merge "$resumed")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in sweep.sbatch --resume's output"
tasks=$(scontrol show job "$array" | grep -o 'ArrayTaskId=[^ ]*' | cut -d= -f2 | tr '\n' ' ')
[ "$tasks" = "3 " ] || fail "--resume submitted array tasks \"$tasks\", expected only 3"
wait_for_state "$merge" COMPLETED
[ -s "$out/merged.json" ] || fail "the merge job completed but wrote no $out/merged.json"
done_at=$EPOCHREALTIME

unsharded_sweep > "$work/unsharded.json" \
  || fail "the unsharded sweep failed"
cmp "$out/merged.json" "$work/unsharded.json" \
  || fail "merged.json differs from the unsharded sweep (diff $out/merged.json $work/unsharded.json)"

# An exploration's shards run the same way: `explore` in place of the seed count.
out=$work/explore   # fail() shows its Slurm logs from here on
explored_dir=$out
explored=$(SHARDS=3 "$repo/scripts/sweep.sbatch" scenarios/gc-pause-40s.json explore "$explored_dir") \
  || fail "sweep.sbatch did not submit the exploration"
echo "$explored"
merge=$(job_id merge "$explored")
[ -n "$merge" ] || fail "no merge job id in sweep.sbatch's output for the exploration"
wait_for_state "$merge" COMPLETED
for i in 1 2 3; do [ -s "$explored_dir/shard-$i.json" ] || fail "explore shard $i wrote nothing"; done
"$LOCKSIM" explore scenarios/gc-pause-40s.json --format json > "$work/explored.json" || fail "the unsharded explore failed"
cmp "$explored_dir/merged.json" "$work/explored.json" \
  || fail "the merged exploration differs from the unsharded one (diff $explored_dir/merged.json $work/explored.json)"
done_at=$EPOCHREALTIME

awk -v started="$started" -v up="$up" -v done_at="$done_at" -v now="$EPOCHREALTIME" 'BEGIN {
  printf "slurm_test: ok: merged.json of 4 Slurm shards (one resumed) is the unsharded sweep, and of 3 explore "
  printf "shards the unsharded explore; "
  printf "cluster up in %.1f s, jobs %.1f s, wall time %.1f s\n", up - started, done_at - up, now - started }'
