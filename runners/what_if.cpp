#include "runners/what_if.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <variant>
#include <vector>

#include "checks/command_line.hpp"
#include "models/stores/lease_rules.hpp"
#include "scenarios/schema/json_reader.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// Half, as is, double: far enough apart to cross a threshold the story depends on.
std::vector<Duration> around(Duration as_is) {
    std::vector<Duration> values;
    if (as_is.ns / 2 > 0) values.push_back(Duration{as_is.ns / 2});
    values.push_back(as_is);
    if (as_is.ns <= max_duration.ns / 2) values.push_back(Duration{as_is.ns * 2});
    return values;
}

std::string listed(const std::vector<Duration>& values) {
    std::vector<std::string> written;
    for (const auto& value : values) written.push_back(format_duration(value));
    return fmt::format("{}", fmt::join(written, ","));
}

std::string study_command(const std::string& program, const std::string& file, std::uint64_t seed,
                          const std::string& field, const std::vector<Duration>& values) {
    return fmt::format("{} sweep {} --start {} --seeds 1 --vary {}={}", program, shell_quoted(file), seed, field,
                       listed(values));
}

std::string question(std::string_view what, const std::vector<Duration>& values, Duration as_is) {
    std::vector<std::string> others;
    for (const auto& value : values)
        if (value != as_is) others.push_back(format_duration(value));
    return fmt::format("What if {} {} instead of {}?", what, fmt::join(others, " or "), format_duration(as_is));
}

// Every design has a lease of the same length, so varying the file's lock.ttl varies them all.
bool shares_one_lease(const Scenario& scenario) {
    const LockSpec& first = scenario.designs.front().world.lock;
    return std::all_of(scenario.designs.begin(), scenario.designs.end(),
                       [&](const Design& d) { return d.world.lock.ttl == first.ttl && has_lease(d.world.lock); });
}

}  // namespace

std::vector<WhatIf> what_ifs(const Scenario& scenario, const std::string& program, const std::string& file,
                             std::uint64_t seed) {
    std::vector<WhatIf> questions;
    if (scenario.designs.empty()) return questions;
    const WorldSpec& world = scenario.designs.front().world;
    if (!world.faults.empty()) {
        if (const auto* pause = std::get_if<PauseFault>(&world.faults.front())) {
            const auto values = around(pause->length);
            if (values.size() > 1)
                questions.push_back(
                    WhatIf{question(fmt::format("the {} pause lasted", pause->cause), values, pause->length),
                           study_command(program, file, seed, "faults/0/for", values)});
        }
    }
    if (shares_one_lease(scenario)) {
        // Only leases the store accepts, as the loader would judge the file's.
        auto values = around(world.lock.ttl);
        std::erase_if(values, [&world](Duration ttl) { return lease_refusal(world.lock, ttl).has_value(); });
        if (values.size() > 1)
            questions.push_back(WhatIf{question("the lease were", values, world.lock.ttl),
                                       study_command(program, file, seed, "lock.ttl", values)});
    }
    return questions;
}

}  // namespace locksim
