#pragma once
// The trace: an append-only list of typed events, the single source of truth for
// checkers and reports (they never look inside a model). Every event is of a kind declared
// once with its fields and their types (sim/trace_schema.hpp), and the engine refuses to
// record one that does not conform. Kinds and field keys are string literals, so an event
// costs no allocation for them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace_schema.hpp"

namespace locksim {

// The alternatives are in the order of FieldType.
using FieldValue = std::variant<std::int64_t, bool, std::string, Duration, Instant, NodeId>;
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::integer), FieldValue>, std::int64_t>);
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::flag), FieldValue>, bool>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::text), FieldValue>, std::string>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::duration), FieldValue>, Duration>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::instant), FieldValue>, Instant>);
static_assert(
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(FieldType::node), FieldValue>, NodeId>);

struct Field {
    std::string_view key;  // a string literal
    FieldValue value;
};

struct TraceEvent {
    std::uint64_t sequence = 0;  // position in the trace
    Instant at;                  // true time, which nobody inside the world can read
    NodeId node;                 // where it happened, or no_node
    Instant wall;                // the node's wall-clock reading at that moment
    Instant monotonic;           // the node's monotonic-clock reading at that moment
    std::string_view kind;       // the kind's name, e.g. "message.sent" (a string literal)
    std::vector<Field> fields;

    const FieldValue* find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key) != nullptr; }
    // Typed readers; asking for a field the event lacks, or with another type, is a bug.
    std::int64_t integer(std::string_view key) const;
    bool flag(std::string_view key) const;
    const std::string& text(std::string_view key) const;
    Duration duration(std::string_view key) const;
    Instant instant(std::string_view key) const;
    NodeId node_ref(std::string_view key) const;
};

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

inline constexpr FieldSpec network_partitioned_fields[] = {
    {"groups", FieldType::text, false, "the groups of nodes that still reach each other, e.g. a, b | c"},
    {"one_way", FieldType::flag, false, "only messages from the first side to the second are cut"},
    {"cut", FieldType::text, false, "the two sides cut apart, e.g. a, b / c"},
};
inline constexpr KindSpec network_partitioned{"network.partitioned", "a partition cut the links between two sides",
                                              network_partitioned_fields};

inline constexpr FieldSpec network_healed_fields[] = {
    {"groups", FieldType::text, false, "the groups of nodes that reach each other after the heal"},
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

    // Numbers the event and keeps it, unless events are not kept.
    void append(TraceEvent event);
    const std::vector<TraceEvent>& events() const { return events_; }
    // The number the next event will get: every event recorded so far, kept or not.
    std::uint64_t recorded() const { return recorded_; }
    // A run whose events only readers need keeps none: its memory does not grow with it.
    void keep_events(bool keep) { keep_ = keep; }

    // Words the run's world uses for its things ("vocabulary.item": "user"), for readers
    // of the trace; the engine reads none of them. Null when not set.
    void set_label(const std::string& key, std::string value);
    const std::string* label(std::string_view key) const;

private:
    std::vector<std::string> node_names_;
    std::vector<std::pair<std::string, std::string>> labels_;  // in the order set, keys unique
    std::vector<TraceEvent> events_;
    std::uint64_t recorded_ = 0;
    bool keep_ = true;
};

}  // namespace locksim
