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
    // The plural of item and the past of effect as a scenario writes them ("batches",
    // "transferred"); empty: by the English rules below.
    std::string items_written;
    std::string effected_written;
    // The table of the items' rows ("batches"); empty: the renewals job's table is
    // "renewals", another job's is named for its items.
    std::string table_written;

    // The plural: "customers", "batches", "replies".
    std::string items() const { return items_written.empty() ? plural_of(item) : items_written; }
    // The plural, and the verb's third person: "charges", "pushes".
    std::string effects() const { return plural_of(effect); }
    // The past participle: "charged", "emailed", "copied"; "transferred" only when written,
    // since doubling the last consonant follows the stress.
    std::string effected() const;
    std::string table() const;
    bool operator==(const Vocabulary&) const = default;

    // -es after s, x, z, ch and sh; -ies for a consonant and y; else -s.
    static std::string plural_of(const std::string& word);
    // The renewals job's words, for a part built without a scenario's.
    static const Vocabulary& defaults();
};

// The words a run's world wrote into its trace, or the defaults.
Vocabulary vocabulary_of(const Trace& trace);

// The words as trace labels (key, word), for the world to write and vocabulary_of to read.
std::vector<std::pair<std::string, std::string>> vocabulary_labels(const Vocabulary& words);

}  // namespace locksim
