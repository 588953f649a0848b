#include "sim/trace.hpp"

#include <fmt/format.h>

#include <cassert>
#include <stdexcept>

#include "sim/trace_store.hpp"

namespace locksim {

FieldView view_of(const FieldValue& value) {
    return std::visit(
        [](const auto& v) -> FieldView {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
                return std::string_view(v);
            else
                return v;
        },
        value);
}

StoredField StoredField::of(std::uint8_t key, const FieldView& value) {
    StoredField stored;
    stored.text_size = 0;
    stored.key = key;
    stored.type = static_cast<FieldType>(value.index());
    switch (stored.type) {
        case FieldType::integer: stored.number = std::get<std::int64_t>(value); break;
        case FieldType::flag: stored.flag = std::get<bool>(value); break;
        case FieldType::text: {
            const std::string_view text = std::get<std::string_view>(value);
            stored.text = text.data();
            stored.text_size = static_cast<std::uint32_t>(text.size());
            assert(stored.text_size == text.size());
            break;
        }
        case FieldType::duration: stored.number = std::get<Duration>(value).ns; break;
        case FieldType::instant: stored.number = std::get<Instant>(value).ns; break;
        case FieldType::node: stored.node = std::get<NodeId>(value).index; break;
    }
    return stored;
}

FieldView StoredField::view() const {
    switch (type) {
        case FieldType::integer: return number;
        case FieldType::flag: return flag;
        case FieldType::text: return std::string_view(text, text_size);
        case FieldType::duration: return Duration{number};
        case FieldType::instant: return Instant{number};
        case FieldType::node: return NodeId{node};
    }
    assert(false);
    return number;
}

std::optional<FieldView> TraceEvent::find(std::string_view key) const {
    const KindSpec& spec = kind.spec();
    for (std::uint32_t i = 0; i < stored_count; ++i)
        if (spec.fields[stored[i].key].name == key) return stored[i].view();
    return std::nullopt;
}

namespace {
template <class T>
T get(const TraceEvent& event, std::string_view key) {
    const std::optional<FieldView> value = event.find(key);
    assert(value.has_value());
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
std::string_view TraceEvent::text(std::string_view key) const {
    return get<std::string_view>(*this, key);
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
    if (!keep_) return;
    if (!store_) store_ = std::make_shared<TraceStore>();
    event.stored = store_->keep(std::span(event.stored, event.stored_count));
    events_.push_back(event);
}

void Trace::append(TraceEvent event, std::span<const Field> fields) {
    const CheckedFields checked(event.kind.spec(), fields, false);
    checked.set_on(event);
    append(event);
}

CheckedFields::CheckedFields(const KindSpec& kind, std::span<const Field> fields, bool every_required) {
    if (fields.size() > stored_.size())
        throw std::logic_error(
            fmt::format("a {} event of {} fields, more than any kind declares", kind.name, fields.size()));
    const StoredFields checked = store_fields(kind, fields, stored_, every_required);
    if (checked.problem)
        throw std::logic_error("a trace event that does not match its declaration: " + *checked.problem);
    count_ = static_cast<std::uint32_t>(checked.count);
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
