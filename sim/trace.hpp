#pragma once
// The trace: an append-only list of typed events, the single source of truth for
// checkers and reports (they never look inside a model).
//
// The engine defines the kinds it records itself (messages, pauses, clock steps); models
// define their own kinds as string constants. Kinds and field keys are string literals,
// so an event costs no allocation for them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"

namespace locksim {

using FieldValue = std::variant<std::int64_t, bool, std::string, Duration, Instant, NodeId>;

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
    std::string_view kind;       // a string literal, e.g. "message.sent"
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

// Kinds the engine itself records.
namespace trace_kind {
inline constexpr std::string_view message_sent = "message.sent";          // id, to, label, deliver_at
inline constexpr std::string_view message_delivered = "message.delivered";  // id, from, label, duplicate
inline constexpr std::string_view message_lost = "message.lost";            // id, to, cut
inline constexpr std::string_view network_partitioned = "network.partitioned";  // groups (text), one_way
inline constexpr std::string_view network_healed = "network.healed";          // groups (text)
inline constexpr std::string_view link_held = "link.held";                    // to, extra, until
inline constexpr std::string_view node_paused = "node.paused";            // for, cause
inline constexpr std::string_view node_resumed = "node.resumed";          // paused_for
inline constexpr std::string_view clock_stepped = "clock.stepped";        // old_wall, new_wall
inline constexpr std::string_view clock_slewing = "clock.slewing";        // by, over: a gradual correction begins
inline constexpr std::string_view node_crashed = "node.crashed";          // cause
inline constexpr std::string_view node_restarted = "node.restarted";      // down_for
}  // namespace trace_kind

class Trace {
public:
    void set_node_names(std::vector<std::string> names) { node_names_ = std::move(names); }
    const std::vector<std::string>& node_names() const { return node_names_; }
    const std::string& node_name(NodeId id) const;
    std::optional<NodeId> find_node(std::string_view name) const;

    void append(TraceEvent event);
    const std::vector<TraceEvent>& events() const { return events_; }

private:
    std::vector<std::string> node_names_;
    std::vector<TraceEvent> events_;
};

}  // namespace locksim
