#pragma once
// The scenario's words as JSON, one shape wherever a result carries them (a run's JSON, a
// sweep's and its shards): item, effect, provider and record always; the forms a scenario
// wrote (items, effected, table) only when it wrote them, so a merged sweep spells them
// as the file did.
#include <nlohmann/json.hpp>

#include "models/vocabulary.hpp"

namespace locksim {

inline nlohmann::ordered_json vocabulary_json(const Vocabulary& words) {
    nlohmann::ordered_json json = nlohmann::ordered_json::object();
    for (const auto& [key, word] : vocabulary_labels(words)) json[key.substr(key.find('.') + 1)] = word;
    return json;
}

}  // namespace locksim
