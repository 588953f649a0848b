#pragma once
// A parameter study's rates, per point of the grid and design: a table for people and a
// JSON document for tools.
#include <nlohmann/json.hpp>

#include <string>

#include "checks/study.hpp"

namespace locksim {

std::string render_study_text(const Study& study, bool colour);

nlohmann::ordered_json study_json(const Study& study);

}  // namespace locksim
