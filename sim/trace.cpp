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

FieldWord FieldWord::of(const FieldView& value, std::string_view& text_place) {
    FieldWord word{.number = 0};
    switch (static_cast<FieldType>(value.index())) {
        case FieldType::integer: word.number = std::get<std::int64_t>(value); break;
        case FieldType::flag: word.number = std::get<bool>(value) ? 1 : 0; break;
        case FieldType::text:
            text_place = std::get<std::string_view>(value);
            word.text = &text_place;
            break;
        case FieldType::duration: word.number = std::get<Duration>(value).ns; break;
        case FieldType::instant: word.number = std::get<Instant>(value).ns; break;
        case FieldType::node: word.number = std::get<NodeId>(value).index; break;
    }
    return word;
}

FieldView FieldWord::view(FieldType type) const {
    switch (type) {
        case FieldType::integer: return number;
        case FieldType::flag: return number != 0;
        case FieldType::text: return *text;
        case FieldType::duration: return Duration{number};
        case FieldType::instant: return Instant{number};
        case FieldType::node: return NodeId{static_cast<std::uint32_t>(number)};
    }
    assert(false);
    return number;
}

std::optional<FieldView> TraceEvent::find(std::string_view key) const {
    const KindSpec& spec = kind.spec();
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const FieldSpec& field = spec.fields[keys[i]];
        if (field.name == key) return values[i].view(field.type);
    }
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
    event.values = store_->keep(event.kind.spec(), event.values, event.keys);
    events_.push_back(event);
}

std::size_t Trace::bytes_held() const {
    return events_.bytes_held() + (store_ ? store_->bytes_held() : 0);
}

void Trace::append(TraceEvent event, std::span<const Field> fields) {
    const CheckedFields checked(event.kind.spec(), fields, false);
    checked.set_on(event);
    append(event);
}

CheckedFields::CheckedFields(const KindSpec& kind, std::span<const Field> fields, bool every_required) {
    const StoredFields checked = store_fields(kind, fields, values_, texts_, every_required);
    if (checked.problem)
        throw std::logic_error("a trace event that does not match its declaration: " + *checked.problem);
    keys_ = checked.keys;
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
