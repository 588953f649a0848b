#pragma once
// Small explorations for the tests of explore.
//
// The flagship, scenarios/gc-pause-40s.json, with its explore block cut down to a 40 s pause
// and pauses of every length from 29 s to 31 s, on server-1 only; its expectations as
// shipped (each still holds: 12 regions for unfenced and fenced, none for idempotent).
// About 1,000 runs instead of 15,000: for tests of what check, shards, merge or a folder's
// file names do with an explore block, not of what exploring finds. Under ASan the shipped
// block costs half a minute for each time a test checks or explores it.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "checks/metrics.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"

namespace locksim::testing {

inline nlohmann::ordered_json flagship_with_small_explore() {
    auto scenario =
        nlohmann::ordered_json::parse(slurp(std::filesystem::path(LOCKSIM_SOURCE_DIR) / "scenarios/gc-pause-40s.json"));
    scenario["explore"]["faults"] = nlohmann::ordered_json::parse(
        R"([{"pause": "server-1", "for": ["40s"]}, {"pause": "server-1", "for": {"from": "29s", "to": "31s"}}])");
    return scenario;
}

// The flagship named `name`, without its explore block: for tests of what report does with a
// file's name or a folder's files, which need a real scenario but none of its exploring (the
// shipped block costs 25 s of processor for each report of it, minutes under ASan).
inline std::string flagship_without_explore(const std::string& name) {
    auto scenario =
        nlohmann::ordered_json::parse(slurp(std::filesystem::path(LOCKSIM_SOURCE_DIR) / "scenarios/gc-pause-40s.json"));
    scenario.erase("explore");
    scenario["name"] = name;
    return scenario.dump(2);
}

// A small world for the counting tests: two servers, two customers, a 30 s lease, and
// `explore` as its explore block. A pause of 40 s on a server double-charges unfenced.
inline Scenario tiny_with_explore(const std::string& explore) {
    return parse_scenario(fmt::format(R"({{
  "name": "tiny",
  "description": "one server",
  "seed": 1,
  "horizon": "5m",
  "servers": ["server-1", "server-2"],
  "network": {{ "delay": "1ms" }},
  "lock": {{ "store": "redis", "key": "lock:renewals", "ttl": "30s" }},
  "job": {{ "name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "4s" }},
  "designs": {{ "unfenced": {{}}, "idempotent": {{ "idempotency_key": "renewal-{{customer}}-{{period}}" }} }},
  "explore": {}
}})",
                                      explore),
                          "tiny.json", metric_names());
}

}  // namespace locksim::testing
