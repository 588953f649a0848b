#!/usr/bin/env bash
# Builds locksim and its tests with sanitizers and runs them:
#   scripts/sanitizers.sh          # ASan and UBSan, into build-sanitize/, the whole suite:
#                                  # a use after free, an overflow or undefined behaviour
#                                  # anywhere a test reaches stops that test with a report
#   scripts/sanitizers.sh thread   # TSan, into build-tsan/, the tests whose code runs on
#                                  # several threads (sweeps, and the frame pools that pass
#                                  # between threads; tests/CMakeLists.txt,
#                                  # locksim_thread_tests): a data race fails the run
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-address}" in
  address)
    # Warnings are errors in the normal build; under ASan, GCC 12 warns falsely inside
    # <regex> (maybe-uninitialized), so this build does not repeat that check.
    directory=build-sanitize
    sanitizers=address,undefined
    tests=locksim_tests
    flags="-fno-sanitize-recover=undefined"
    # Linked at a fixed address (not position-independent): the dynamic loader has no
    # relocations to apply at each start (700,000 in locksim, 1.5 million in the tests,
    # for the sanitizers' tables), a third of the processor time of every start of the
    # program and of each of the 600 test processes. The code is instrumented the same.
    link_flags="-no-pie"
    # The test files themselves (set-up and assertions) without UBSan: its checks there cost
    # a third of their compile time, the largest part of this build, and guard none of the
    # code users run, which every library source compiles with both sanitizers. ASan stays,
    # so a test that reads freed memory still stops with a report.
    test_flags="-fno-sanitize=undefined"
    ;;
  thread)
    directory=build-tsan
    sanitizers=thread
    tests=locksim_thread_tests
    flags=""
    link_flags=""
    test_flags=""
    ;;
  *) echo "sanitizers: unknown kind \"$1\"; use scripts/sanitizers.sh, or scripts/sanitizers.sh thread" >&2; exit 2 ;;
esac
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# -O1 -g1: half the compile time of -O2 -g, and the reports still name file and line.
if [ ! -f "$directory/CMakeCache.txt" ]; then
  cmake -S . -B "$directory" "${generator[@]}" -DCMAKE_BUILD_TYPE=None -DLOCKSIM_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="-O1 -g1 -fsanitize=$sanitizers $flags -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers $link_flags" >/dev/null
fi
cmake -S . -B "$directory" -DLOCKSIM_TEST_COMPILE_OPTIONS="$test_flags" >/dev/null
cmake --build "$directory" --parallel "$(nproc)" --target locksim "$tests"
# detect_leaks: coroutine frames of processes still suspended at a run's end are destroyed
# by the engine, so a leak report is a real leak.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# halt_on_error: the first race fails the run; second_deadlock_stack: both stacks of a
# lock-order inversion.
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
if [ "$tests" = locksim_tests ]; then
  # The Catch tests (label "catch") run in a few processes of the test program, each given
  # its share of the test cases, not in one process per test case as CTest runs them: under
  # ASan every start costs about 0.3 s (the shadow memory, the runtime's set-up, the leak
  # scan at exit), over 600 times. There are eight shares per core, each started when a core
  # is free, so that the slowest tests do not keep one core busy while the other idles (with
  # one share per core, one ended a minute after the other). Each runs where CTest runs them
  # (the build's tests/); the names go in a file (-f), quoted, with Catch's separators and quotes
  # escaped, and -w NoTests fails a run in which a name matches nothing. LeakSanitizer still
  # checks at each process's exit. Each output is kept in catch-runs/ and shown once all
  # have ended, so that reports do not interleave; a failure in any fails the script.
  runs="$directory/catch-runs"
  rm -rf "$runs" && mkdir -p "$runs"
  # The exhaustive cross-checks (tag [exhaustive]: explore's regions against a run at every
  # point of a grid, thousands of runs each) are left out here: they repeat, thousands of
  # times over, code the other explore tests run under the sanitizers, and took twelve of
  # the twenty-five minutes of processor time these tests took. The normal build runs them.
  # So is the test that writes the whole shipped course (tag [whole-course]: every shipped
  # scenario with its explore and sweep blocks, a quarter of an hour here); the pages'
  # code runs here in the report tests of single files.
  # --list-test-names-only exits with the number of names (at most 255), not 0.
  (cd "$directory/tests" && ./locksim_tests --list-test-names-only '~[exhaustive]~[whole-course]' >../catch-runs/listed) || true
  if [ ! -s "$runs/listed" ]; then
    echo "sanitizers: $directory/tests/locksim_tests listed no test cases" >&2
    exit 1
  fi
  sed 's/[],[\\"]/\\&/g; s/.*/"&"/' "$runs/listed" >"$runs/names"
  cores=$(nproc)
  shares=$((8 * cores))
  run_share() {
    local status=0
    (cd "$directory/tests" && exec ./locksim_tests -w NoTests -f "../catch-runs/$1.names") >"$runs/$1.log" 2>&1 ||
      status=$?
    echo "$status" >"$runs/$1.status"
  }
  running=0
  for ((share = 0; share < shares; share++)); do
    awk -v n="$shares" -v k="$share" 'NR % n == k' "$runs/names" >"$runs/$share.names"
    # An empty file of names would run every test case: with fewer names than shares, the
    # last shares have none and do not run.
    [ -s "$runs/$share.names" ] || continue
    if ((running == cores)); then
      wait -n
      running=$((running - 1))
    fi
    run_share "$share" &
    running=$((running + 1))
  done
  wait
  failed=0
  for ((share = 0; share < shares; share++)); do
    [ -s "$runs/$share.names" ] || continue
    status=$(cat "$runs/$share.status" 2>/dev/null || echo "none")
    # Catch's first line repeats every name it was given (they are in the .names file).
    echo "sanitizers: Catch tests, part $((share + 1)) of $shares ($(wc -l <"$runs/$share.names") test cases), exit $status:"
    sed '1{/^Filters: /d}' "$runs/$share.log"
    if [ "$status" != 0 ]; then failed=1; fi
  done
  # The other tests, through CTest. The tests of documents and recipes (label "documents")
  # drive the program from scripts through code the Catch tests already run here; under the
  # sanitizers they only cost time. So do the bad-input corpus and the JUnit schema test
  # (label "scripted"), whose code Catch tests run in process (tests/CMakeLists.txt says which).
  ctest --test-dir "$directory" --output-on-failure --parallel "$(nproc)" -LE 'catch|documents|scripted' || failed=1
  exit "$failed"
else
  "$directory/tests/$tests"
fi
