#!/usr/bin/env bash
# Builds the project with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-sanitize/ and runs the whole test suite there: a use after free, an overflow or
# undefined behaviour anywhere a test reaches stops that test with a report.
#   scripts/sanitizers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# Warnings are errors in the normal build; under ASan, GCC 12 warns falsely inside
# <regex> (maybe-uninitialized), so this build does not repeat that check.
# -O1 -g1: half the compile time of -O2 -g, and the reports still name file and line.
flags="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ ! -f build-sanitize/CMakeCache.txt ]; then
  cmake -S . -B build-sanitize "${generator[@]}" -DCMAKE_BUILD_TYPE=None -DLOCKSIM_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build build-sanitize --parallel "$(nproc)" --target locksim locksim_tests
# detect_leaks: coroutine frames of processes still suspended at a run's end are destroyed
# by the engine, so a leak report is a real leak.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure --parallel "$(nproc)"
