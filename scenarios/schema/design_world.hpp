#pragma once
// A design's world: the file's world fields with the design's overrides merged in as a
// JSON merge patch (RFC 7386: objects merge, arrays replace, null removes).
#include <array>
#include <string>
#include <string_view>

#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// The fields that describe the world, which the top level sets and a design may override.
inline constexpr std::array<std::string_view, 15> world_fields{"horizon",
                                                               "servers",
                                                               "clocks",
                                                               "network",
                                                               "lock",
                                                               "job",
                                                               "fencing",
                                                               "reclaim_after",
                                                               "unique_claim",
                                                               "idempotency_key",
                                                               "conditional_write",
                                                               "faults",
                                                               "fault_generators",
                                                               "purpose",
                                                               "provider"};

Json base_world_json(const Json& document);
Json merged_world_json(const Json& base_world, const Json& overrides);
// `document` is a whole scenario file that loaded.
Json design_world_json(const Json& document, const std::string& design);

// A design's null removes a field the world sets. A null where the world sets no such
// field would remove nothing and change nothing: most likely a misspelt name, so it is
// refused at its place (`design` is the design's object; "expect" is not a world field).
void refuse_nulls_removing_nothing(const JsonReader& design, const Json& base_world);

}  // namespace locksim
