#include "models/vocabulary.hpp"

namespace locksim {
namespace {

// Each word with the label that carries it: one list for writing and reading.
template <class Words, class Action>
void for_each_word(Words& words, Action action) {
    action("vocabulary.item", words.item);
    action("vocabulary.effect", words.effect);
    action("vocabulary.provider", words.provider);
    action("vocabulary.record", words.record);
}

}  // namespace

Vocabulary vocabulary_of(const Trace& trace) {
    Vocabulary words;
    for_each_word(words, [&trace](const char* key, std::string& word) {
        if (const std::string* found = trace.label(key)) word = *found;
    });
    return words;
}

std::vector<std::pair<std::string, std::string>> vocabulary_labels(const Vocabulary& words) {
    std::vector<std::pair<std::string, std::string>> labels;
    for_each_word(words, [&labels](const char* key, const std::string& word) { labels.emplace_back(key, word); });
    return labels;
}

}  // namespace locksim
