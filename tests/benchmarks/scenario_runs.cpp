// How many times a second one scenario runs, in process: every design built, run,
// checked and its expectations evaluated, as `locksim run` does, with the trace of
// messages kept (as run and report keep it) and without (as sweeps run). The first
// runs warm up and are not counted; the process's start-up is not counted at all.
//
// usage: scenario_runs FILE [RUNS]    (RUNS defaults to 2000)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runners/scenario_runner.hpp"

namespace {

// Runs the scenario `runs` times under consecutive seeds; returns runs per second and
// adds every run's trace length to `events`, so the work cannot be optimised away.
double runs_per_second(const locksim::Scenario& scenario, std::uint64_t runs, bool trace_messages,
                       std::uint64_t& events) {
    locksim::RunOptions options;
    options.trace_messages = trace_messages;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t run = 0; run < runs; ++run) {
        const auto outcome = locksim::run_scenario(scenario, scenario.seed + run, std::nullopt, options);
        for (const auto& design : outcome.designs) events += design.trace.events().size();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<double>(runs) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [RUNS]\n", argv[0]);
        return 2;
    }
    const auto scenario = locksim::load_scenario_or_report(argv[1]);
    if (!scenario) return 2;
    const std::uint64_t runs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2000;
    if (runs == 0) {
        std::fprintf(stderr, "RUNS must be above 0\n");
        return 2;
    }
    std::uint64_t events = 0;
    runs_per_second(*scenario, runs / 10 + 1, true, events);  // warm-up
    const double traced = runs_per_second(*scenario, runs, true, events);
    const double untraced = runs_per_second(*scenario, runs, false, events);
    std::printf("scenario=%s designs=%zu runs=%llu traced_runs_per_s=%.0f untraced_runs_per_s=%.0f trace_events=%llu\n",
                scenario->name.c_str(), scenario->designs.size(), static_cast<unsigned long long>(runs), traced,
                untraced, static_cast<unsigned long long>(events));
    return 0;
}
