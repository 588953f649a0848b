#pragma once
// A parameter study's rates, per point of the grid and design: a table for people and a
// JSON document for tools.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "checks/study.hpp"

namespace locksim {

std::string render_study_text(const Study& study, bool colour);

// A design that sets a varied field itself never meets the values varied: its rows and its
// line would read as a finding that the value does not matter. One sentence per such design.
std::vector<std::string> own_value_notes(const Study& study);
// What a row shows for field `f` of a design at `point`: the value, or "(its own)".
std::string study_value_cell(const Study& study, const StudyPoint& point, const std::string& design, std::size_t f);

nlohmann::ordered_json study_json(const Study& study);

}  // namespace locksim
