#!/usr/bin/env bash
# Builds locksim and the tests that use threads with ThreadSanitizer into build-tsan/ and
# runs them (tests/CMakeLists.txt, locksim_thread_tests): sweeps (one simulation per seed, spread over worker threads, tallies merged
# under a lock) and the frame pools that pass between threads. A data race anywhere they
# reach fails the run with TSan's report.
#   scripts/thread-sanitizer.sh
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
flags="-O1 -g1 -fsanitize=thread -fno-omit-frame-pointer"
if [ ! -f build-tsan/CMakeCache.txt ]; then
  cmake -S . -B build-tsan "${generator[@]}" -DCMAKE_BUILD_TYPE=None -DLOCKSIM_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
fi
cmake --build build-tsan --parallel "$(nproc)" --target locksim locksim_thread_tests
# halt_on_error: the first race fails the run; second_deadlock_stack: both stacks of a
# lock-order inversion.
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
build-tsan/tests/locksim_thread_tests
