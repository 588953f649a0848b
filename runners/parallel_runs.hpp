#pragma once
// Independent runs spread over worker threads: each index is handled exactly once, by
// whichever worker takes it next. What a caller computes from them must not depend on
// which worker did what — sums, or results stored by index — so the thread count never
// changes an output.
#include <cstdint>
#include <functional>

namespace locksim {

// Calls `work(index, worker)` for every index in [0, count), `worker` in [0, workers):
// at most `threads` workers, never more than there are indices, at least one. `progress`
// is called now and then from the calling thread with the indices done so far, and once
// at the end. The first exception a worker throws stops the others and is rethrown here.
void run_in_parallel(std::uint64_t count, unsigned threads,
                     const std::function<void(std::uint64_t index, unsigned worker)>& work,
                     const std::function<void(std::uint64_t done)>& progress);

// How many workers run_in_parallel starts for `count` indices on `threads` threads.
unsigned workers_for(std::uint64_t count, unsigned threads);

}  // namespace locksim
