#include "runners/sweep_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "runners/scenario_runner.hpp"

namespace locksim {

SweepSummary run_sweep(const Scenario& scenario, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress, std::uint64_t event_limit) {
    SweepSummary total;
    total.scenario = scenario.name;
    total.file = scenario.file;
    total.seeds = total.covered = seeds;
    for (const auto& design : scenario.designs) total.designs.push_back(DesignTally{design.name});

    // Each worker tallies into its own copy of this empty summary and merges it into
    // `total` under the lock when done. Copying `total` itself would race: a worker that
    // starts late would copy tallies that earlier workers had already merged, and count
    // their seeds twice.
    const SweepSummary empty = total;

    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::mutex merging;  // guards total, failure and running
    std::condition_variable finished;
    std::exception_ptr failure;
    // More threads than seeds would only wait for nothing.
    const auto useful = static_cast<unsigned>(std::clamp<std::uint64_t>(seeds.count, 1, std::max(1u, threads)));
    unsigned running = useful;
    auto work = [&] {
        SweepSummary mine = empty;
        try {
            for (std::uint64_t k = next++; k < seeds.count; k = next++) {
                const std::uint64_t seed = seeds.first + k;
                const ScenarioOutcome outcome = run_scenario(
                    scenario, seed, std::nullopt, RunOptions{.trace_messages = false, .event_limit = event_limit});
                for (std::size_t d = 0; d < outcome.designs.size(); ++d)
                    mine.designs[d].add(seed, outcome.designs[d].metrics);
                ++done;
            }
        } catch (...) {
            const std::lock_guard lock(merging);
            if (!failure) failure = std::current_exception();
            next = seeds.count;  // the others stop too
        }
        const std::lock_guard lock(merging);
        total.merge_tallies(mine);
        if (--running == 0) finished.notify_one();
    };

    std::vector<std::thread> workers;
    try {
        for (unsigned t = 0; t < useful; ++t) workers.emplace_back(work);
    } catch (const std::system_error&) {
        // The system would not start another thread: the ones started share the seeds (the
        // totals do not depend on how many there are); with none started, nothing can run.
        const std::lock_guard lock(merging);
        running -= useful - static_cast<unsigned>(workers.size());
        if (workers.empty()) throw;
    }
    // The calling thread only reports progress, every 200 ms until the last worker is done;
    // the wall clock here paces the display and never reaches a simulation. A display that
    // fails (a closed terminal) stops the display, never the sweep.
    bool showing = true;
    const auto show = [&] {
        if (!showing) return;
        try {
            progress(done.load());
        } catch (...) {
            showing = false;
        }
    };
    for (std::unique_lock lock(merging); running > 0;) {
        lock.unlock();
        show();
        lock.lock();
        finished.wait_for(lock, std::chrono::milliseconds(200), [&] { return running == 0; });
    }
    for (auto& worker : workers) worker.join();
    show();
    if (failure) std::rethrow_exception(failure);
    return total;
}

}  // namespace locksim
