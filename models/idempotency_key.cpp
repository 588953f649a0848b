#include "models/idempotency_key.hpp"

#include <string_view>

namespace locksim {
namespace {

// {item} and {customer} both stand for the item's id: {customer} is the renewals job's word.
constexpr std::string_view item_placeholder = "{item}";
constexpr std::string_view customer_placeholder = "{customer}";
constexpr std::string_view period_placeholder = "{period}";
constexpr std::string_view only_placeholders =
    "expected a key template whose only placeholders are {item} (or {customer}) and {period}";

std::string replace_all(std::string text, std::string_view placeholder, const std::string& value) {
    for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
        text.replace(at, placeholder.size(), value);
    return text;
}

}  // namespace

std::optional<std::string> check_idempotency_key_template(const std::string& key_template) {
    // One pass: every brace must open a whole placeholder ("{per{customer}iod}" does not).
    const std::string_view text = key_template;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] == '{') {
            const std::string_view rest = text.substr(at);
            std::size_t length = 0;
            for (const std::string_view placeholder : {item_placeholder, customer_placeholder, period_placeholder})
                if (rest.starts_with(placeholder)) length = placeholder.size();
            if (length == 0) return std::string(only_placeholders);
            at += length - 1;
        } else if (text[at] == '}') {
            return std::string(only_placeholders);
        }
    }
    if (key_template.find(item_placeholder) == std::string::npos &&
        key_template.find(customer_placeholder) == std::string::npos)
        return "expected {item} in the key: without it every item would share one key";
    return std::nullopt;
}

std::string expand_idempotency_key(const std::string& key_template, std::int64_t customer, const std::string& period) {
    const std::string id = std::to_string(customer);
    return replace_all(replace_all(replace_all(key_template, item_placeholder, id), customer_placeholder, id),
                       period_placeholder, period);
}

}  // namespace locksim
