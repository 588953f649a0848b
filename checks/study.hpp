#pragma once
// A parameter study: the same sweep at every point of a grid of values for some of the
// scenario's fields (`sweep --vary lock.ttl=5s,10s,30s --vary …`), every point under the
// same seeds, so that the rates differ only by what was varied. It shows which assumption
// an answer hangs on, which a sweep's interval (sampling error only) cannot.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "checks/sweep_summary.hpp"

namespace locksim {

// One --vary: a field and the values it takes.
struct VariedField {
    std::string path;                            // as written: "lock.ttl" or "fault_generators/0/mean_interval"
    std::string pointer;                         // "/lock/ttl"
    std::vector<std::string> written;            // "5s", "10s"
    std::vector<nlohmann::ordered_json> values;  // what each becomes in the file: "5s" a string, 3 a number
};

struct StudyPoint {
    std::vector<std::size_t> choice;  // per varied field, the index of its value
    SweepSummary summary;
};

struct Study {
    std::string scenario;
    std::string file;
    SeedBlock seeds;
    std::vector<VariedField> fields;
    std::vector<StudyPoint> points;  // the grid, the first field varying slowest
    std::string command;             // the command that reproduces it, for a report to print
    // Per design, the varied fields (by index) it sets itself: a design's override wins
    // over the base world's value, so those values never reach it.
    std::map<std::string, std::vector<std::size_t>> kept_by_design;

    bool keeps(const std::string& design, std::size_t field) const {
        const auto found = kept_by_design.find(design);
        return found != kept_by_design.end() &&
               std::find(found->second.begin(), found->second.end(), field) != found->second.end();
    }
};

}  // namespace locksim
