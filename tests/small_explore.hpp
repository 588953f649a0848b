#pragma once
// The flagship, scenarios/gc-pause-40s.json, with its explore block cut down to a 40 s pause
// and pauses of every length from 29 s to 31 s, on server-1 only; its expectations as
// shipped (each still holds: 12 regions for unfenced and fenced, none for idempotent).
// About 1,000 runs instead of 15,000: for tests of what check, shards, merge or a folder's
// file names do with an explore block, not of what exploring finds. Under ASan the shipped
// block costs half a minute for each time a test checks or explores it.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "tests/program_support.hpp"

namespace locksim::testing {

inline nlohmann::ordered_json flagship_with_small_explore() {
    auto scenario =
        nlohmann::ordered_json::parse(slurp(std::filesystem::path(LOCKSIM_SOURCE_DIR) / "scenarios/gc-pause-40s.json"));
    scenario["explore"]["faults"] = nlohmann::ordered_json::parse(
        R"([{"pause": "server-1", "for": ["40s"]}, {"pause": "server-1", "for": {"from": "29s", "to": "31s"}}])");
    return scenario;
}

}  // namespace locksim::testing
