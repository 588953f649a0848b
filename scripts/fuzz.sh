#!/usr/bin/env bash
# Fuzzes locksim with libFuzzer, ASan and UBSan (tests/fuzz/): builds the targets if
# needed (tests/fuzz/build.sh, clang from Debian, into build-fuzz/, never build/), seeds
# each corpus from the shipped scenarios, fuzzes for SECONDS per target, then prints the
# executions, coverage and findings of each. Not part of the build or of the test suite.
#   scripts/fuzz.sh [SECONDS] [TARGET]
#     SECONDS  per target, default 60
#     TARGET   loader (parse_scenario), run (every design run, checked and rendered),
#              merge (shard files read and merged as `locksim merge` does), or all
#              (default): the targets run side by side, sharing the cores
#   LOCKSIM_FUZZ_DIR   build and corpus directory (default build-fuzz/, ignored by git)
#   LOCKSIM_FUZZ_JOBS  cores to use (default: nproc)
#
# Each target runs as one libFuzzer process per core it is given (all: one each on
# two cores; one target: every core, sharing its corpus). libFuzzer stops at its first
# finding; the script saves it and starts the process again for the time that is left,
# so a finding does not end the session. Findings (crash-*, timeout-*, leak-*, oom-*)
# are kept in build-fuzz/artifacts-TARGET/; reproduce one with the target's binary
# (build-fuzz/cmake/fuzz_scenario_loader, fuzz_scenario_run, fuzz_shard_merge) and the
# FILE. Logs: build-fuzz/logs/TARGET-N.log. The corpus, build-fuzz/corpus-TARGET/, grows
# from one session to the next; the scenario targets start from the shipped scenarios,
# merge from the shards of tests/fuzz/shard_seeds/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds="${1:-60}"
which="${2:-all}"
case "$seconds" in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, got \"$seconds\"" >&2; exit 2 ;; esac
case "$which" in
  loader | run | merge) targets=("$which") ;;
  all) targets=(loader run merge) ;;
  *) echo "fuzz: unknown target \"$which\"; expected loader, run, merge or all" >&2; exit 2 ;;
esac

# Each target's binary, dictionary and seeds.
binary_of() { case "$1" in merge) echo fuzz_shard_merge ;; *) echo "fuzz_scenario_$1" ;; esac; }
dict_of() { case "$1" in merge) echo "$root/tests/fuzz/shard.dict" ;; *) echo "$root/tests/fuzz/scenario.dict" ;; esac; }
seeds_of() { case "$1" in merge) echo "$root/tests/fuzz/shard_seeds" ;; *) echo "$out/seeds" ;; esac; }

out="${LOCKSIM_FUZZ_DIR:-$root/build-fuzz}"
export LOCKSIM_FUZZ_DIR="$out"
bin=$(tests/fuzz/build.sh)
tests/fuzz/make_corpus.sh "$out/seeds"
mkdir -p "$out/logs"

cores="${LOCKSIM_FUZZ_JOBS:-$(nproc)}"
workers=$(( cores / ${#targets[@]} ))
[ "$workers" -ge 1 ] || workers=1

# UBSan reports are fatal (-fno-sanitize-recover at compile time); print their stacks.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Findings already recorded (tests/fuzz/findings/) that a session fuzzes past: the ids
# printed in brackets, comma-separated; for the findings still open when this was written,
# LOCKSIM_FUZZ_KNOWN=control-in-json-error,control-in-duplicate-field-error.
export LOCKSIM_FUZZ_KNOWN="${LOCKSIM_FUZZ_KNOWN:-}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

# One fuzzing process for `seconds`, started again after each finding until the time
# is used up.
fuzz_for() {
  local target=$1 instance=$2 log="$out/logs/$1-$2.log"
  local corpus="$out/corpus-$target" artifacts="$out/artifacts-$target"
  local deadline=$(( SECONDS + seconds )) starts=0 code remaining
  : > "$log"
  while remaining=$(( deadline - SECONDS )); [ "$remaining" -gt 0 ] && [ "$starts" -lt 100 ]; do
    starts=$(( starts + 1 ))
    # The first directory receives new inputs; the seeds are read on the first start.
    local dirs=("$corpus")
    [ "$starts" -gt 1 ] || dirs+=("$(seeds_of "$target")")
    code=0
    "$bin/$(binary_of "$target")" \
      -max_total_time="$remaining" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -dict="$(dict_of "$target")" -artifact_prefix="$artifacts/" -print_final_stats=1 \
      "${dirs[@]}" >> "$log" 2>&1 || code=$?
    [ "$code" -ne 0 ] || break
    echo "==locksim-fuzz== $target: libFuzzer stopped with status $code at ${SECONDS}s (a finding); starting again" >> "$log"
    # An input of the corpus that now fails (a stricter check, a new bug) would stop
    # every restart while the corpus loads: the finding is saved, so drop it from there.
    local unit
    unit=$(grep -a -o 'Test unit written to .*' "$log" | tail -1 | sed -E 's/.*-([0-9a-f]{40})$/\1/')
    [ -z "$unit" ] || rm -f "$corpus/$unit"
    sleep 1
  done
}

started="$out/logs/.started"
touch "$started"
pids=()
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus-$target" "$out/artifacts-$target"
  rm -f "$out/logs/$target"-*.log  # the summary reads this session's logs only
  echo "fuzz: $target for ${seconds}s on $workers core(s); corpus $out/corpus-$target, findings $out/artifacts-$target/" >&2
  for instance in $(seq 1 "$workers"); do
    fuzz_for "$target" "$instance" &
    pids+=($!)
  done
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done

# Per target, summed over its processes and restarts: libFuzzer's final statistics
# (stat::number_of_executed_units, printed at every exit) and its last status line
# ("#1234 ... cov: 5 ft: 6 corp: 7/8Kb ... exec/s: 9").
found=0
for target in "${targets[@]}"; do
  logs=("$out/logs/$target"-*.log)
  executions=$(cat "${logs[@]}" | grep -a stat::number_of_executed_units | awk '/stat::number_of_executed_units/ {n += $2} END {print n + 0}')
  echo "== $target: $executions executions in ${seconds}s on $workers core(s), $(( executions / (seconds > 0 ? seconds : 1) / workers )) exec/s per core"
  for log in "${logs[@]}"; do
    last=$(grep -a -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -1 || true)
    echo "  $(basename "$log"): ${last:-no status line}"
  done
  echo "  corpus: $(find "$out/corpus-$target" -type f | wc -l) inputs"
  mapfile -t artifacts < <(find "$out/artifacts-$target" -type f -newer "$started" \
    \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort)
  if [ ${#artifacts[@]} -gt 0 ]; then
    found=1
    echo "  findings of this session (${#artifacts[@]} inputs in $out/artifacts-$target/):"
    for file in "${artifacts[@]}"; do echo "    $(basename "$file") ($(wc -c < "$file") bytes)"; done
    cat "${logs[@]}" | grep -a -E '^==locksim-fuzz== FINDING|^SUMMARY: |ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' \
      | sed -E 's/==[0-9]+==/==/' | sort | uniq -c | sort -rn | head -20 | sed 's/^/    /'
  else
    echo "  no findings in this session"
  fi
done
[ "$status" -eq 0 ] || echo "fuzz: a fuzzer exited with status $status (see the logs)" >&2
exit $(( found || status ))
