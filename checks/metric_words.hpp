#pragma once
// A metric in a person's words, in the scenario's vocabulary (metric_table.hpp holds the
// words): "double charge", "3 double emails", "stall ms". Names stay as the table writes
// them wherever a program reads the output (JSON, `expect`); these are for people.
#include <cstdint>
#include <string>

#include "checks/metric_table.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

// The words for one: "double charge", "stale write accepted".
std::string metric_one(Metric metric, const Vocabulary& words = {});
// The words for many: "double charges", "overlaps".
std::string metric_many(Metric metric, const Vocabulary& words = {});
// "1 double charge", "2 double charges".
std::string metric_counted(Metric metric, std::int64_t count, const Vocabulary& words = {});
// A column of its values: the words for many and the unit, "double emails", "stall ms".
std::string metric_heading(Metric metric, const Vocabulary& words = {});
// A metric an expectation names, as a person reads it: the name the file wrote
// ("double_charges") under the renewals job's words, the scenario's words ("double
// transfers") under its own; a name that is no metric (a sweep's "runs") stays.
std::string expected_metric_words(std::string_view name, const Vocabulary& words);
// Each violation a run's flags name, in words: "double transfer, stale write accepted".
std::string violations_in_words(std::uint32_t violations, const Vocabulary& words);

}  // namespace locksim
