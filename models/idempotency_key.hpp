#pragma once
// Idempotency keys such as renewal-42-2026-10, made from a template with the
// placeholders {item} (also written {customer}: the item's id) and {period}.
#include <cstdint>
#include <optional>
#include <string>

namespace locksim {

// What is wrong with a template, or nullopt if it is usable.
std::optional<std::string> check_idempotency_key_template(const std::string& key_template);

std::string expand_idempotency_key(const std::string& key_template, std::int64_t customer, const std::string& period);

}  // namespace locksim
