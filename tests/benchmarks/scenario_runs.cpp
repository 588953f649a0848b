// How many times a second one scenario runs, in process, every design built, run,
// checked and its expectations evaluated, three ways:
//   traced:   with the trace of messages kept, as `locksim run` and reports keep it;
//   untraced: without it, and no trace kept at all (checked as recorded), as sweeps run;
//   judged:   traced, and each fault judged by runs without it, all that `locksim run` does.
// It also counts the heap allocations a run makes and the bytes a kept trace holds per
// event. The first runs warm up and are not counted; the process's start-up is not counted
// at all.
//
// usage: scenario_runs FILE [RUNS]    (RUNS defaults to 2000)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "allocation_count.hpp"
#include "runners/scenario_runner.hpp"

namespace {

struct Way {
    bool trace_messages;
    bool keep_trace;
    locksim::FaultJudging judging;
};
constexpr Way traced{true, true, locksim::FaultJudging::off};
constexpr Way untraced{false, false, locksim::FaultJudging::off};
constexpr Way judged{true, true, locksim::FaultJudging::on};

struct Speed {
    double runs_per_second = 0;
    double allocations_per_run = 0;
    double kept_bytes_per_event = 0;  // what the kept traces hold, over their events
};

// Runs the scenario `runs` times under consecutive seeds; adds every run's trace length
// to `events`, so the work cannot be optimised away.
Speed measure(const locksim::Scenario& scenario, std::uint64_t runs, Way way, std::uint64_t& events) {
    locksim::RunOptions options;
    options.trace_messages = way.trace_messages;
    options.keep_trace = way.keep_trace;
    const std::uint64_t allocations_before = locksim::benchmark::allocations();
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t kept_events = 0, kept_bytes = 0;
    for (std::uint64_t run = 0; run < runs; ++run) {
        const auto outcome = locksim::run_scenario(scenario, scenario.seed + run, std::nullopt, options, way.judging);
        for (const auto& design : outcome.designs) {
            kept_events += design.trace.events().size();
            kept_bytes += design.trace.bytes_held();
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto allocations = locksim::benchmark::allocations() - allocations_before;
    events += kept_events;
    return Speed{static_cast<double>(runs) / seconds, static_cast<double>(allocations) / static_cast<double>(runs),
                 kept_events ? static_cast<double>(kept_bytes) / static_cast<double>(kept_events) : 0};
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
    measure(*scenario, runs / 10 + 1, traced, events);  // warm-up
    events = 0;
    const Speed with_trace = measure(*scenario, runs, traced, events);
    const std::uint64_t traced_events = events;
    const Speed without_trace = measure(*scenario, runs, untraced, events);
    const Speed as_run = measure(*scenario, runs, judged, events);
    std::printf(
        "scenario=%s designs=%zu runs=%llu traced_runs_per_s=%.0f untraced_runs_per_s=%.0f judged_runs_per_s=%.0f "
        "traced_allocations_per_run=%.0f untraced_allocations_per_run=%.0f judged_allocations_per_run=%.0f "
        "traced_events_per_run=%.0f traced_kept_bytes_per_event=%.1f checksum=%llu\n",
        scenario->name.c_str(), scenario->designs.size(), static_cast<unsigned long long>(runs),
        with_trace.runs_per_second, without_trace.runs_per_second, as_run.runs_per_second,
        with_trace.allocations_per_run, without_trace.allocations_per_run, as_run.allocations_per_run,
        static_cast<double>(traced_events) / static_cast<double>(runs), with_trace.kept_bytes_per_event,
        static_cast<unsigned long long>(events));
    return 0;
}
