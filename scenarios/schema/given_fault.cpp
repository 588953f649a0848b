#include "scenarios/schema/given_fault.hpp"

#include <fmt/format.h>

#include "models/world/fault_schedule.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

GivenFault give_fault(Scenario& scenario, std::uint64_t index, const std::optional<std::string>& design,
                      std::string_view asked_as) {
    const auto refused = [&](const std::string& why) {
        return GivenFaultError(asked_as.empty() ? why : fmt::format("{} {}: {}", asked_as, index, why));
    };
    std::optional<GivenFault> given;
    std::string first_design;
    for (auto& d : scenario.designs) {
        if (design && d.name != *design) continue;
        auto& generators = d.world.fault_generators;
        if (generators.empty())
            throw refused(fmt::format(
                "design \"{}\" has no fault generators; a given fault conditions a sweep on one of the file's "
                "fault_generators",
                d.name));
        if (index >= generators.size())
            throw refused(fmt::format(
                "design \"{}\" has {} fault generator{} (fault_generators/0 to /{}); name one of them by its index",
                d.name, generators.size(), generators.size() == 1 ? "" : "s", generators.size() - 1));
        FaultGenerator& generator = generators[index];
        generator.given = true;
        const double probability = strike_probability(generator);
        const std::size_t targets = generator.links.empty() ? generator.targets.size() : generator.links.size();
        const std::string fault =
            fmt::format("fault_generators/{} ({}{} target{}, one fault every {}{}, from {} until {})", index,
                        generator.at_once ? "all at once on " : "", std::max<std::size_t>(targets, 1),
                        targets == 1 || targets == 0 ? "" : "s", format_duration(generator.mean_interval),
                        generator.at_once || targets <= 1 ? "" : " on each", format_seconds(generator.from),
                        format_seconds(generator.until));
        if (!given) {
            given = GivenFault{index, probability, fault};
            first_design = d.name;
        } else if (given->probability != probability) {
            throw refused(
                fmt::format("designs \"{}\" and \"{}\" strike with it at different odds ({:.6g} and {:.6g} a run): one "
                            "probability weighs every design; sweep them apart with --design",
                            first_design, d.name, given->probability, probability));
        }
    }
    if (!given) throw refused("no design runs");
    return *given;
}

}  // namespace locksim
