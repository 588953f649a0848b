# Sourced by the tests of the sweep recipes (tests/slurm_test.sh, tests/parallel_test.sh):
# the binary under test, the sweep both run, and the unsharded sweep they must equal.
#   source "$(dirname "$0")/sweep_recipe_support.sh" NAME "$@"
name=$1
shift
export LC_ALL=C
[ $# -eq 1 ] || { echo "usage: $0 LOCKSIM_BINARY" >&2; exit 2; }
[ -x "$1" ] || { echo "$name: no locksim binary at $1" >&2; exit 2; }
export LOCKSIM
LOCKSIM=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"   # the scenario path below is relative, and the JSON names it as given
scenario=scenarios/random-gc-pauses.json
seeds=4000
started=$EPOCHREALTIME

# The unsharded sweep's JSON, which a merge of shards must equal byte for byte.
unsharded_sweep() { "$LOCKSIM" sweep "$scenario" --seeds "$seeds" --format json; }
