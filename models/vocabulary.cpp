#include "models/vocabulary.hpp"

#include <string_view>

namespace locksim {
namespace {

// Each word with the label that carries it: one list for writing and reading.
template <class Words, class Action>
void for_each_word(Words& words, Action action) {
    action("vocabulary.item", words.item);
    action("vocabulary.effect", words.effect);
    action("vocabulary.provider", words.provider);
    action("vocabulary.record", words.record);
    action("vocabulary.items", words.items_written);
    action("vocabulary.effected", words.effected_written);
    action("vocabulary.table", words.table_written);
}

bool consonant_then_y(const std::string& word) {
    return word.size() >= 2 && word.back() == 'y' &&
           std::string_view("aeiou").find(word[word.size() - 2]) == std::string_view::npos;
}

}  // namespace

std::string Vocabulary::plural_of(const std::string& word) {
    if (consonant_then_y(word)) return word.substr(0, word.size() - 1) + "ies";
    for (const char* ending : {"s", "x", "z", "ch", "sh"})
        if (word.ends_with(ending)) return word + "es";
    return word + "s";
}

std::string Vocabulary::effected() const {
    if (!effected_written.empty()) return effected_written;
    if (consonant_then_y(effect)) return effect.substr(0, effect.size() - 1) + "ied";
    return effect + (effect.ends_with('e') ? "d" : "ed");
}

std::string Vocabulary::table() const {
    if (!table_written.empty()) return table_written;
    return item == defaults().item ? "renewals" : items();
}

const Vocabulary& Vocabulary::defaults() {
    static const Vocabulary words;
    return words;
}

Vocabulary vocabulary_of(const Trace& trace) {
    Vocabulary words;
    for_each_word(words, [&trace](const char* key, std::string& word) {
        if (const std::string* found = trace.label(key)) word = *found;
    });
    return words;
}

std::vector<std::pair<std::string, std::string>> vocabulary_labels(const Vocabulary& words) {
    std::vector<std::pair<std::string, std::string>> labels;
    // A form left to the rules is not written: a trace without it reads the same.
    for_each_word(words, [&labels](const char* key, const std::string& word) {
        if (!word.empty()) labels.emplace_back(key, word);
    });
    return labels;
}

}  // namespace locksim
