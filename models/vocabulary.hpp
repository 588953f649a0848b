#pragma once
// What a scenario calls the job's things: its items, the side effect a run has at the
// provider, the provider, and the record prepared for each item. The renewals job's words are
// the defaults; an engineer's own ("user", "email", "email provider", "statement") replace
// them in text, HTML, Mermaid and explanations. Words only: metric names, trace kinds and
// field names stay as they are, so JSON stays one stable contract.
#include <string>
#include <utility>
#include <vector>

#include "sim/trace.hpp"

namespace locksim {

struct Vocabulary {
    std::string item = "customer";
    std::string effect = "charge";  // a noun that is also the verb: "charges customer 42", "emails user 1001"
    std::string provider = "payment provider";
    std::string record = "invoice";

    std::string effects() const { return effect + "s"; }  // the plural, and the verb's third person
    // The past participle: "charged", "emailed".
    std::string effected() const { return effect + (effect.ends_with('e') ? "d" : "ed"); }
    bool operator==(const Vocabulary&) const = default;
};

// The words a run's world wrote into its trace, or the defaults.
Vocabulary vocabulary_of(const Trace& trace);

// The words as trace labels (key, word), for the world to write and vocabulary_of to read.
std::vector<std::pair<std::string, std::string>> vocabulary_labels(const Vocabulary& words);

}  // namespace locksim
