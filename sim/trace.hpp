#pragma once
// The trace: an append-only list of typed events, the single source of truth for
// checkers and reports (they never look inside a model). Every event is of a kind declared
// once with its fields and their types (sim/trace_schema.hpp), and the engine refuses to
// record one that does not conform.
//
// An event is small and allocates nothing: its kind is the address of the kind's
// declaration, each field is its key's place in that declaration (three bits) and a value
// of 8 bytes, and text is the address of a view. While readers read an event as it is
// recorded, its fields and text are those of the code that recorded it; a kept event's are
// copied once into the trace's own store (sim/trace_store.hpp), where equal texts are kept
// once, and the events themselves sit in chunks that never move (sim/chunked_list.hpp).
#include <array>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include "sim/chunked_list.hpp"
#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace_schema.hpp"

namespace locksim {

// A field's value as the code that records an event gives it and as a reader reads it. The
// alternatives are in the order of FieldType.
using FieldView = std::variant<std::int64_t, bool, std::string_view, Duration, Instant, NodeId>;
// A value that owns its text: what a fault's trigger waits for, what a message is about.
using FieldValue = std::variant<std::int64_t, bool, std::string, Duration, Instant, NodeId>;
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::integer), FieldView>, std::int64_t>);
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::flag), FieldView>, bool>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::text), FieldView>, std::string_view>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::text), FieldValue>, std::string>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::duration), FieldView>, Duration>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::instant), FieldView>, Instant>);
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::node), FieldView>, NodeId>);

FieldView view_of(const FieldValue& value);

// A field as the code that records an event gives it, and as a reader walks an event's
// fields: its key (a string literal) and its value. Its text is a view, so a field is not
// made from a temporary string, which would be gone before the event is recorded: name it
// first.
struct Field {
    std::string_view key;
    FieldView value;

    Field() = default;
    template <class T>
    requires std::is_constructible_v<FieldView, T&&> Field(std::string_view k, T&& v)
        : key(k), value(std::forward<T>(v)) {}
    Field(std::string_view, std::string&&) = delete;
};

// Fields gathered before they are recorded, some only when they apply: a few on the stack,
// never allocated.
class FieldList {
public:
    static constexpr std::size_t capacity = max_fields_per_event;
    FieldList(std::initializer_list<Field> fields) {
        for (const Field& field : fields) push_back(field);
    }
    void push_back(Field field) {
        assert(size_ < capacity);
        fields_[size_++] = field;
    }
    operator std::span<const Field>() const { return {fields_.data(), size_}; }  // NOLINT: implicit on purpose
    std::size_t size() const { return size_; }

private:
    std::array<Field, capacity> fields_;
    std::size_t size_ = 0;
};

// A field that owns its text, kept beyond the record() that shows it: what a message is
// about travels with the message until it is sent.
struct OwnedField {
    std::string_view key;  // a string literal
    FieldValue value;

    Field view() const { return Field{key, view_of(value)}; }
};

// A field's value as an event holds it, in 8 bytes; its type is that of its key in the
// kind's declaration. Text is the address of a view: of the recorder's text while the event
// is read, of the trace's copy once it is kept.
union FieldWord {
    std::int64_t number;  // integer, flag (0 or 1), duration and instant (in nanoseconds), node
    const std::string_view* text;

    static FieldWord of(const FieldView& value, std::string_view& text_place);
    FieldView view(FieldType type) const;
};
static_assert(sizeof(FieldWord) == 8);

// Which of its kind's declared fields each of an event's values is, in the order they were
// given, and how many: three bits a key and four for the count, in 32 bits, so that they fit
// beside the event's node.
class FieldKeys {
public:
    std::size_t size() const { return bits_ & count_mask; }
    std::size_t operator[](std::size_t at) const {
        assert(at < size());
        return (bits_ >> (count_bits + key_bits * at)) & key_mask;
    }
    void push_back(std::size_t key) {
        assert(size() < max_fields_per_event && key < max_fields_per_event);
        bits_ |= static_cast<std::uint32_t>(key) << (count_bits + key_bits * size());
        ++bits_;
    }

private:
    static constexpr unsigned count_bits = 4;
    static constexpr unsigned key_bits = 3;
    static constexpr std::uint32_t count_mask = (1u << count_bits) - 1;
    static constexpr std::uint32_t key_mask = (1u << key_bits) - 1;
    static_assert(max_fields_per_event <= (1u << key_bits) && max_fields_per_event <= count_mask &&
                  count_bits + key_bits * max_fields_per_event <= 32);
    std::uint32_t bits_ = 0;
};

// An event's kind: the address of its declaration. Kinds are compared by that address, so
// each is declared once (an inline constexpr KindSpec) and referred to, never copied.
class EventKind {
public:
    constexpr EventKind() = default;
    constexpr EventKind(const KindSpec& spec) : spec_(&spec) {}  // NOLINT: implicit on purpose

    const KindSpec& spec() const { return *spec_; }
    std::string_view name() const { return spec_ ? spec_->name : std::string_view(); }
    operator std::string_view() const { return name(); }  // NOLINT: read as its name

    friend bool operator==(EventKind a, EventKind b) { return a.spec_ == b.spec_; }
    friend bool operator==(EventKind a, const KindSpec& b) { return a.spec_ == &b; }
    // A kind named in a file or on the command line.
    friend bool operator==(EventKind a, std::string_view name) { return a.name() == name; }

private:
    const KindSpec* spec_ = nullptr;
};

// An event's fields, walked as Fields (key and value) in the order they were given. Its
// iterators hold what they read, so they outlive the EventFields that made them.
class EventFields {
public:
    EventFields(const KindSpec* kind, const FieldWord* values, FieldKeys keys)
        : kind_(kind), values_(values), keys_(keys) {}

    class iterator {
    public:
        using value_type = Field;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        iterator(const EventFields& fields, std::size_t at)
            : kind_(fields.kind_), values_(fields.values_), keys_(fields.keys_), at_(at) {}
        Field operator*() const { return EventFields(kind_, values_, keys_).at(at_); }
        iterator& operator++() {
            ++at_;
            return *this;
        }
        iterator operator++(int) {
            iterator before = *this;
            ++at_;
            return before;
        }
        bool operator==(const iterator& other) const { return at_ == other.at_; }

    private:
        const KindSpec* kind_ = nullptr;
        const FieldWord* values_ = nullptr;
        FieldKeys keys_;
        std::size_t at_ = 0;
    };

    iterator begin() const { return iterator(*this, 0); }
    iterator end() const { return iterator(*this, keys_.size()); }
    std::size_t size() const { return keys_.size(); }
    bool empty() const { return keys_.size() == 0; }
    Field at(std::size_t at) const {
        const FieldSpec& spec = kind_->fields[keys_[at]];
        return Field{spec.name, values_[at].view(spec.type)};
    }

private:
    const KindSpec* kind_;
    const FieldWord* values_;
    FieldKeys keys_;
};

struct TraceEvent {
    std::uint64_t sequence = 0;         // position in the trace
    Instant at;                         // true time, which nobody inside the world can read
    Instant wall;                       // the node's wall-clock reading at that moment
    Instant monotonic;                  // the node's monotonic-clock reading at that moment
    EventKind kind;                     // compared with a declaration (trace_kind::lock_granted) or a name
    const FieldWord* values = nullptr;  // its fields' values: the recorder's while read, the trace's once kept
    NodeId node;                        // where it happened, or no_node
    FieldKeys keys;                     // which field each value is

    EventFields fields() const { return EventFields(&kind.spec(), values, keys); }
    std::optional<FieldView> find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key).has_value(); }
    // Typed readers; asking for a field the event lacks, or with another type, is a bug.
    std::int64_t integer(std::string_view key) const;
    bool flag(std::string_view key) const;
    // A view of the trace's copy (of a kept event) or of the recorder's text (while it is read):
    // a reader that keeps it past read() copies it.
    std::string_view text(std::string_view key) const;
    Duration duration(std::string_view key) const;
    Instant instant(std::string_view key) const;
    NodeId node_ref(std::string_view key) const;
};

class TraceStore;

// The kinds the engine itself records (sim/trace_schema.hpp says how a kind is declared;
// the models declare theirs in models/trace_kinds.hpp).
namespace trace_kind {

inline constexpr FieldSpec message_sent_fields[] = {
    {"id", FieldType::integer, false, "the message's number, unique in the run"},
    {"to", FieldType::node, false, "the receiver"},
    {"label", FieldType::text, false, "what it carries, e.g. SET lock:renewals 7f3a9c1e NX PX 30000"},
    {"deliver_at", FieldType::instant, false, "the true time it is due at the receiver"},
    {"reply_to", FieldType::integer, true, "the id of the message it answers, on replies"},
    // What the message is about, where its sender says: reports find a customer's messages
    // by these fields, never by reading the label.
    {"customer", FieldType::integer, true, "the customer the message is about"},
    {"key", FieldType::text, true, "the idempotency key it carries"},
    {"token", FieldType::integer, true, "the fencing token it carries"},
};
inline constexpr KindSpec message_sent{"message.sent", "a message left its sender", message_sent_fields};

inline constexpr FieldSpec message_delivered_fields[] = {
    {"id", FieldType::integer, false, "the message's number, unique in the run"},
    {"from", FieldType::node, false, "the sender"},
    {"label", FieldType::text, false, "what it carries"},
    {"duplicate", FieldType::flag, false, "a second copy made by the network's duplication"},
};
inline constexpr KindSpec message_delivered{
    "message.delivered", "the receiver handled a message (after a pause, if paused)", message_delivered_fields};

inline constexpr FieldSpec message_lost_fields[] = {
    {"id", FieldType::integer, false, "the message's number, unique in the run"},
    {"to", FieldType::node, false, "the receiver it never reached"},
    {"cut", FieldType::flag, false, "lost to a partition rather than to random loss"},
    {"cause", FieldType::integer, true,
     "the sequence number of the trace event that set going the partition or loss burst that lost it (fault.struck)"},
};
inline constexpr KindSpec message_lost{"message.lost", "the network dropped a message", message_lost_fields};

inline constexpr FieldSpec message_held_fields[] = {
    {"id", FieldType::integer, false, "the message's number, unique in the run"},
    {"to", FieldType::node, false, "the receiver"},
    {"extra", FieldType::duration, false, "how much longer the fault made it take"},
    {"cause", FieldType::integer, true,
     "the sequence number of the trace event that set going the delay spike or message hold that held it "
     "(fault.struck)"},
};
inline constexpr KindSpec message_held{
    "message.held", "a delay spike or a message hold held a message back (recorded even when messages are not)",
    message_held_fields};

inline constexpr FieldSpec message_stalled_fields[] = {
    {"id", FieldType::integer, false, "the message's number, unique in the run"},
    {"to", FieldType::node, false, "the receiver"},
    {"cut", FieldType::flag, false, "its stream met a partition rather than random loss"},
    {"cause", FieldType::integer, true,
     "the sequence number of the trace event that set going the partition or loss burst its stream met "
     "(fault.struck)"},
};
inline constexpr KindSpec message_stalled{
    "message.stalled",
    "the link could not carry a message on its stream, or it waits behind one that could not: the stream "
    "retransmits until it gets through, in order, or gives up and resets (recorded even when messages are not)",
    message_stalled_fields};

// A message's sending, arrival, loss, stalling or holding back: what the network records,
// numbered run-wide by its "id".
inline bool is_message(EventKind kind) {
    return kind == message_sent || kind == message_delivered || kind == message_lost || kind == message_held ||
           kind == message_stalled;
}

inline constexpr FieldSpec connection_reset_fields[] = {
    {"to", FieldType::node, false, "the other end of the stream"},
    {"after", FieldType::duration, false, "how long it retransmitted before giving up"},
    {"messages", FieldType::integer, false, "the messages it still held, each lost (message.lost)"},
    {"cause", FieldType::integer, true,
     "the sequence number of the trace event that set going the partition or loss burst it met (fault.struck)"},
};
inline constexpr KindSpec connection_reset{
    "connection.reset",
    "a stream gave up retransmitting (net.ipv4.tcp_retries2, or tcp_orphan_retries once its sender closed it) and "
    "was reset: its messages are lost and both ends see an error",
    connection_reset_fields};

inline constexpr FieldSpec connection_refused_fields[] = {
    {"to", FieldType::node, false, "the node whose process had crashed"},
    {"requests", FieldType::integer, false, "the requests on it that were waiting for a reply, each failing"},
};
inline constexpr KindSpec connection_refused{
    "connection.refused",
    "the process at the other end had crashed (or was down when a request reached it): its kernel answered with a "
    "reset, and every request waiting on that connection fails at once",
    connection_refused_fields};

inline constexpr FieldSpec connection_closed_fields[] = {
    {"to", FieldType::node, false, "the other end of the stream"},
    {"orphaned", FieldType::integer, false,
     "the messages it still held, which the kernel retransmits at most 8 more times (tcp_orphan_retries)"},
};
inline constexpr KindSpec connection_closed{
    "connection.closed",
    "a sender closed its stream, as a client does at its own deadline: what the stream still held may yet "
    "arrive, and the sender's next messages go on a new stream",
    connection_closed_fields};

inline constexpr FieldSpec network_partitioned_fields[] = {
    {"groups", FieldType::text, false, "the groups of nodes that still reach each other, e.g. a, b | c"},
    {"one_way", FieldType::flag, false, "only messages from the first side to the second are cut"},
    {"cut", FieldType::text, false, "the two sides cut apart, e.g. a, b / c"},
};
inline constexpr KindSpec network_partitioned{"network.partitioned", "a partition cut the links between two sides",
                                              network_partitioned_fields};

inline constexpr FieldSpec network_healed_fields[] = {
    {"groups", FieldType::text, false, "the groups of nodes that reach each other after the heal"},
    {"one_way", FieldType::flag, false, "the partition it heals was one way"},
    {"cut", FieldType::text, false, "the partition's cut, word for word, e.g. a, b / c"},
};
inline constexpr KindSpec network_healed{"network.healed", "a partition healed", network_healed_fields};

inline constexpr FieldSpec link_held_fields[] = {
    {"to", FieldType::node, false, "the far end of the link"},
    {"extra", FieldType::duration, false, "how much longer each message takes"},
    {"until", FieldType::instant, false, "the true time the spike ends"},
    {"one_way", FieldType::flag, false, "only messages from this node to the far end are held"},
};
inline constexpr KindSpec link_held{"link.held", "a delay spike holds back the messages on a link", link_held_fields};

inline constexpr FieldSpec link_holding_fields[] = {
    {"to", FieldType::node, false, "the receiver of the message held"},
    {"until", FieldType::instant, false, "the true time it lands at the earliest"},
};
inline constexpr KindSpec link_holding{"link.holding", "the next message on a link will be held in flight",
                                       link_holding_fields};

inline constexpr FieldSpec link_lossy_fields[] = {
    {"to", FieldType::node, false, "the far end of the link"},
    {"loss", FieldType::text, false, "the odds of losing each message, e.g. 1/2"},
    {"until", FieldType::instant, false, "the true time the burst ends"},
    {"one_way", FieldType::flag, false, "only messages from this node to the far end are lost"},
};
inline constexpr KindSpec link_lossy{"link.lossy", "a loss burst drops messages on a link", link_lossy_fields};

inline constexpr FieldSpec node_paused_fields[] = {
    {"for", FieldType::duration, false, "how long the pause lasts"},
    {"cause", FieldType::text, false, "why it froze: gc, sigstop, swap"},
};
inline constexpr KindSpec node_paused{"node.paused", "the node froze; nothing runs on it until it resumes",
                                      node_paused_fields};

inline constexpr FieldSpec node_resumed_fields[] = {
    {"paused_for", FieldType::duration, false, "how long it was frozen"},
};
inline constexpr KindSpec node_resumed{"node.resumed", "the node runs again after a pause", node_resumed_fields};

inline constexpr FieldSpec clock_stepped_fields[] = {
    {"old_wall", FieldType::instant, false, "the wall clock's reading just before the step"},
    {"new_wall", FieldType::instant, false, "the wall clock's reading just after the step"},
};
inline constexpr KindSpec clock_stepped{"clock.stepped", "the node's wall clock jumped", clock_stepped_fields};

inline constexpr FieldSpec clock_slewing_fields[] = {
    {"by", FieldType::duration, false, "the whole correction; negative turns the clock back"},
    {"over", FieldType::duration, false, "how long the correction takes at 500 ppm"},
};
inline constexpr KindSpec clock_slewing{"clock.slewing", "a gradual wall-clock correction begins",
                                        clock_slewing_fields};

inline constexpr FieldSpec node_crashed_fields[] = {
    {"cause", FieldType::text, false, "why it went down"},
    {"kind", FieldType::text, false, "process (the kernel kept what was written to it) or machine (power lost)"},
};
inline constexpr KindSpec node_crashed{"node.crashed", "the node crashed and lost what it held in memory",
                                       node_crashed_fields};

inline constexpr FieldSpec node_restarted_fields[] = {
    {"down_for", FieldType::duration, false, "how long it was down"},
};
inline constexpr KindSpec node_restarted{"node.restarted", "the node came back after a crash", node_restarted_fields};

}  // namespace trace_kind

class Trace;

// Reads each event as it is recorded: checkers that need no kept trace, a world that
// follows who holds the lock. It is told the trace too, for node names and labels.
class TraceReader {
public:
    virtual ~TraceReader() = default;
    virtual void read(const Trace& trace, const TraceEvent& event) = 0;
};

class Trace {
public:
    void set_node_names(std::vector<std::string> names) { node_names_ = std::move(names); }
    void add_node_name(std::string name) { node_names_.push_back(std::move(name)); }
    const std::vector<std::string>& node_names() const { return node_names_; }
    const std::string& node_name(NodeId id) const;
    std::optional<NodeId> find_node(std::string_view name) const;

    // Numbers the event and keeps it, with a copy of its fields and their text, unless events
    // are not kept.
    void append(TraceEvent event);
    // An event made by hand (tests, tools): `event`'s times, node and kind with these fields,
    // whose names and types are checked against the kind's declaration; a hand-made trace
    // may leave out fields its readers do not read, even required ones.
    void append(TraceEvent event, std::span<const Field> fields);
    void append(TraceEvent event, std::initializer_list<Field> fields) {
        append(event, std::span<const Field>(fields.begin(), fields.size()));
    }
    const ChunkedList<TraceEvent>& events() const { return events_; }
    // The number the next event will get: every event recorded so far, kept or not.
    std::uint64_t recorded() const { return recorded_; }
    // A run whose events only readers need keeps none: its memory does not grow with it.
    void keep_events(bool keep) { keep_ = keep; }
    // The bytes its events, their fields and their text hold, used or not (not its names and
    // labels): what a kept trace costs.
    std::size_t bytes_held() const;

    // Words the run's world uses for its things ("vocabulary.item": "user"), for readers
    // of the trace; the engine reads none of them. Null when not set.
    void set_label(const std::string& key, std::string value);
    const std::string* label(std::string_view key) const;

private:
    std::vector<std::string> node_names_;
    std::vector<std::pair<std::string, std::string>> labels_;  // in the order set, keys unique
    ChunkedList<TraceEvent> events_;
    // The fields and text of the kept events, made with the first. A copy of the trace
    // shares it: it only grows, and what it holds never moves, so every copy's events stay
    // valid.
    std::shared_ptr<TraceStore> store_;
    std::uint64_t recorded_ = 0;
    bool keep_ = true;
};

// The fields of `fields`, checked against `kind`, their values set out in `values` (text
// in `texts`, at the same place): which they are, or what is wrong: a field the kind does
// not declare, one of another type, one given twice, or (`every_required`) a required one
// left out.
struct StoredFields {
    FieldKeys keys;
    std::optional<std::string> problem;
};
StoredFields store_fields(const KindSpec& kind, std::span<const Field> fields,
                          std::span<FieldWord, max_fields_per_event> values,
                          std::span<std::string_view, max_fields_per_event> texts, bool every_required = true);

// An event's fields checked against its kind and set out on the stack, for the event to
// point at while it is read and appended. Fields that do not conform are a bug in the code
// that recorded them, caught where it happens: std::logic_error (the run ends as an
// internal error, exit 3).
class CheckedFields {
public:
    CheckedFields(const KindSpec& kind, std::span<const Field> fields, bool every_required = true);
    CheckedFields(const CheckedFields&) = delete;  // its values point at its own texts
    CheckedFields& operator=(const CheckedFields&) = delete;
    void set_on(TraceEvent& event) const {
        event.values = values_.data();
        event.keys = keys_;
    }

private:
    std::array<FieldWord, max_fields_per_event> values_;
    std::array<std::string_view, max_fields_per_event> texts_;
    FieldKeys keys_;
};

}  // namespace locksim

// An event's kind prints as its name.
template <>
struct fmt::formatter<locksim::EventKind> : fmt::formatter<std::string_view> {
    template <class Context>
    auto format(locksim::EventKind kind, Context& context) const {
        return fmt::formatter<std::string_view>::format(kind.name(), context);
    }
};
