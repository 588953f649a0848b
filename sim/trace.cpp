#include "sim/trace.hpp"

#include <cassert>

namespace locksim {

const FieldValue* TraceEvent::find(std::string_view key) const {
    for (const auto& field : fields)
        if (field.key == key) return &field.value;
    return nullptr;
}

namespace {
template <class T>
const T& get(const TraceEvent& event, std::string_view key) {
    const FieldValue* value = event.find(key);
    assert(value != nullptr);
    assert(std::holds_alternative<T>(*value));
    return std::get<T>(*value);
}
}  // namespace

std::int64_t TraceEvent::integer(std::string_view key) const {
    return get<std::int64_t>(*this, key);
}
bool TraceEvent::flag(std::string_view key) const {
    return get<bool>(*this, key);
}
const std::string& TraceEvent::text(std::string_view key) const {
    return get<std::string>(*this, key);
}
Duration TraceEvent::duration(std::string_view key) const {
    return get<Duration>(*this, key);
}
Instant TraceEvent::instant(std::string_view key) const {
    return get<Instant>(*this, key);
}
NodeId TraceEvent::node_ref(std::string_view key) const {
    return get<NodeId>(*this, key);
}

const std::string& Trace::node_name(NodeId id) const {
    static const std::string world = "world";
    if (!id.valid()) return world;
    assert(id.index < node_names_.size());
    return node_names_[id.index];
}

std::optional<NodeId> Trace::find_node(std::string_view name) const {
    for (std::uint32_t i = 0; i < node_names_.size(); ++i)
        if (node_names_[i] == name) return NodeId{i};
    return std::nullopt;
}

void Trace::append(TraceEvent event) {
    event.sequence = recorded_++;
    if (keep_) events_.push_back(std::move(event));
}

void Trace::set_label(const std::string& key, std::string value) {
    for (auto& [k, v] : labels_)
        if (k == key) {
            v = std::move(value);
            return;
        }
    labels_.emplace_back(key, std::move(value));
}

const std::string* Trace::label(std::string_view key) const {
    for (const auto& [k, v] : labels_)
        if (k == key) return &v;
    return nullptr;
}

}  // namespace locksim
