#pragma once
// Runs a parameter study (checks/study.hpp): a sweep per point of the grid.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checks/study.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {

// "lock.ttl=5s,10s,30s": nullopt after printing why it is unusable. A value that reads as
// JSON (a number, true, ["1s", "2s"]) is that; anything else is a string. Commas inside
// brackets or quotes do not split values.
std::optional<VariedField> parse_varied_field(const std::string& text);

// Whether `field` varies something none of `earlier` does: the same field twice, or a field
// and one inside it (lock and lock.ttl), would print columns for both while one value
// silently overrode the other. False after printing why.
bool varies_apart(const VariedField& field, const std::vector<VariedField>& earlier);

// Throws ScenarioError when a point's file is unusable (naming the field and value),
// RunawayRun when a run does not end. `progress`: seeds done over the whole grid.
Study run_study(const std::string& file, const std::vector<VariedField>& fields, SeedBlock seeds, unsigned threads,
                const std::function<void(std::uint64_t done)>& progress, std::uint64_t event_limit,
                const std::optional<std::string>& only_design);

}  // namespace locksim
