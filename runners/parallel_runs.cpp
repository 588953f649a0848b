#include "runners/parallel_runs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace locksim {

unsigned workers_for(std::uint64_t count, unsigned threads) {
    // More threads than indices would only wait for nothing.
    return static_cast<unsigned>(std::clamp<std::uint64_t>(count, 1, std::max(1u, threads)));
}

void run_in_parallel(std::uint64_t count, unsigned threads,
                     const std::function<void(std::uint64_t index, unsigned worker)>& work,
                     const std::function<void(std::uint64_t done)>& progress) {
    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::mutex guard;  // guards failure and running
    std::condition_variable finished;
    std::exception_ptr failure;
    const unsigned useful = workers_for(count, threads);
    unsigned running = useful;
    auto worker = [&](unsigned me) {
        try {
            for (std::uint64_t k = next++; k < count; k = next++) {
                work(k, me);
                ++done;
            }
        } catch (...) {
            const std::lock_guard lock(guard);
            if (!failure) failure = std::current_exception();
            next = count;  // the others stop too
        }
        const std::lock_guard lock(guard);
        if (--running == 0) finished.notify_one();
    };

    std::vector<std::thread> workers;
    try {
        for (unsigned t = 0; t < useful; ++t) workers.emplace_back(worker, t);
    } catch (const std::system_error&) {
        // The system would not start another thread: the ones started share the work (what
        // callers compute does not depend on how many there are); with none, nothing runs.
        const std::lock_guard lock(guard);
        running -= useful - static_cast<unsigned>(workers.size());
        if (workers.empty()) throw;
    }
    // The calling thread only reports progress, every 200 ms until the last worker is done;
    // the wall clock here paces the display and never reaches a simulation. A display that
    // fails (a closed terminal) stops the display, never the work.
    bool showing = true;
    const auto show = [&] {
        if (!showing) return;
        try {
            progress(done.load());
        } catch (...) {
            showing = false;
        }
    };
    for (std::unique_lock lock(guard); running > 0;) {
        lock.unlock();
        show();
        lock.lock();
        finished.wait_for(lock, std::chrono::milliseconds(200), [&] { return running == 0; });
    }
    for (auto& thread : workers) thread.join();
    show();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace locksim
