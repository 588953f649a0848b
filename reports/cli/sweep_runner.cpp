#include "reports/cli/sweep_runner.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "reports/cli/scenario_runner.hpp"

namespace locksim {

SweepSummary run_sweep(const Scenario& scenario, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress, std::uint64_t event_limit) {
    SweepSummary total;
    total.scenario = scenario.name;
    total.file = scenario.file;
    total.seeds = total.covered = seeds;
    for (const auto& design : scenario.designs) total.designs.push_back(DesignTally{design.name});

    std::atomic<std::uint64_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::atomic<bool> failed{false};
    std::mutex merging;
    std::exception_ptr failure;
    auto work = [&] {
        SweepSummary mine = total;  // empty tallies, same designs
        try {
            for (std::uint64_t k = next++; k < seeds.count; k = next++) {
                const std::uint64_t seed = seeds.first + k;
                const ScenarioOutcome outcome =
                    run_scenario(scenario, seed, std::nullopt, RunOptions{.trace_messages = false, .event_limit = event_limit});
                for (std::size_t d = 0; d < outcome.designs.size(); ++d) mine.designs[d].add(seed, outcome.designs[d].metrics);
                ++done;
            }
        } catch (...) {
            const std::lock_guard lock(merging);
            if (!failure) failure = std::current_exception();
            failed = true;
            next = seeds.count;  // the others stop too
        }
        const std::lock_guard lock(merging);
        total.merge_tallies(mine);
    };

    std::vector<std::thread> workers;
    for (unsigned t = 0; t < std::max(1u, threads); ++t) workers.emplace_back(work);
    // The calling thread only reports progress; the wall clock here paces the display and
    // never reaches a simulation.
    while (done.load() < seeds.count && !failed.load()) {
        progress(done.load());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    for (auto& worker : workers) worker.join();
    progress(done.load());
    if (failure) std::rethrow_exception(failure);
    return total;
}

}  // namespace locksim
