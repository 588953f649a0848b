#include "models/idempotency_key.hpp"

#include <string_view>

namespace locksim {
namespace {

constexpr std::string_view customer_placeholder = "{customer}";
constexpr std::string_view period_placeholder = "{period}";

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
            const std::size_t length = rest.starts_with(customer_placeholder) ? customer_placeholder.size()
                                       : rest.starts_with(period_placeholder) ? period_placeholder.size()
                                                                              : 0;
            if (length == 0) return "expected a key template whose only placeholders are {customer} and {period}";
            at += length - 1;
        } else if (text[at] == '}') {
            return "expected a key template whose only placeholders are {customer} and {period}";
        }
    }
    if (key_template.find(customer_placeholder) == std::string::npos)
        return "expected {customer} in the key: without it every customer would share one key";
    return std::nullopt;
}

std::string expand_idempotency_key(const std::string& key_template, std::int64_t customer, const std::string& period) {
    return replace_all(replace_all(key_template, customer_placeholder, std::to_string(customer)), period_placeholder,
                       period);
}

}  // namespace locksim
