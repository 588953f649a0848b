#include "runners/lesson_rates.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checks/command_line.hpp"
#include "runners/sweep_runner.hpp"

namespace locksim {

bool teaches_a_rate(const Scenario& scenario) {
    return std::any_of(scenario.designs.begin(), scenario.designs.end(),
                       [](const Design& design) { return !design.world.fault_generators.empty(); });
}

std::optional<LessonRates> lesson_rates(const Scenario& scenario, const std::string& program, unsigned threads,
                                        std::uint64_t event_limit, const std::optional<std::string>& design) {
    if (!teaches_a_rate(scenario)) return std::nullopt;
    const SeedBlock seeds = scenario.sweep ? SeedBlock{scenario.sweep->first_seed, scenario.sweep->seeds}
                                           : SeedBlock{1, default_report_seeds};
    const SweepSettings settings{design, event_limit, std::nullopt};
    LessonRates rates{run_sweep(
                          scenario, seeds, threads, [](std::uint64_t) {}, settings),
                      scenario.sweep.has_value(), ""};
    // sweep_command_line names the program "locksim"; the page's other commands name it as run.
    const std::string command = sweep_command_line(scenario.file, seeds, settings, 1, 1);
    rates.command = program + command.substr(command.find(' '));
    for (const auto& tally : rates.sweep.designs) {
        rates.replay_first.push_back(
            tally.failing_seeds.empty()
                ? std::string()
                : replay_command(program, scenario.file, tally.failing_seeds.front(), tally.name));
        rates.unfinished.push_back(describe_unfinished(tally, program, scenario.file));
    }
    return rates;
}

}  // namespace locksim
