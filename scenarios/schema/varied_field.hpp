#pragma once
// A field a parameter study varies (checks/study.hpp), as `sweep --vary FIELD=V1,V2,…`
// gives it and as a scenario's "study" block declares it: the one home for reading its
// path and values, for telling whether two fields overlap, and for whether a file has a
// place to set it.
#include <cstdint>
#include <optional>
#include <string>

#include "checks/study.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// A study's grid: enough for three fields of a dozen values each.
constexpr std::uint64_t max_study_points = 2000;

// "lock.ttl" or "fault_generators/0/mean_interval" as a JSON pointer ("/lock/ttl");
// nullopt when it is none (empty, or a "~" that escapes nothing).
std::optional<std::string> varied_pointer(const std::string& path);

// What a value written after "=" becomes in the file: JSON where it reads as JSON (a
// number, true, ["1s", "2s"]), the string otherwise.
Json varied_value(const std::string& written);

// A value of a file's "study" block as `--vary` is given it: a string as it is, anything
// else as its JSON ("5s", 3, ["1s","2s"]), so that reading it back gives the same value.
std::string varied_text(const Json& value);

// Why `field` cannot be varied beside `other`, which `by` varies ("--vary lock=…"): the
// same field twice, or a field and one inside it, would print columns for both while one
// value silently overrode the other. Empty when they are apart.
std::string overlap_reason(const VariedField& field, const VariedField& other, const std::string& by);

// Why `document` has no place for a value at `pointer`: its parent must be an object in
// the file already ("the file has no object at /lockk to set \"ttl\" in"). Empty when it has.
std::string unsettable_reason(const Json& document, const std::string& pointer);

}  // namespace locksim
