#include "runners/run_branches.hpp"

#include "checks/checkers.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace locksim {
namespace {

// FNV-1a, 64 bits: stable across machines, so a run's shape is too.
class ContentHash {
public:
    void add(std::string_view bytes) {
        add_number(bytes.size());
        for (const char byte : bytes) mix(static_cast<unsigned char>(byte));
    }
    void add_number(std::uint64_t number) {
        for (int k = 0; k < 8; ++k) mix(static_cast<unsigned char>(number >> (8 * k)));
    }
    std::uint64_t value() const { return value_; }

private:
    void mix(unsigned char byte) {
        value_ ^= byte;
        value_ *= 0x100000001b3ULL;
    }
    std::uint64_t value_ = 0xcbf29ce484222325ULL;
};

// Names for what the trace numbers run-wide: a message by its sender and its place among the
// sender's messages, an event by its node and its place among the node's events.
class LocalNames {
public:
    explicit LocalNames(std::size_t nodes) : sent_(nodes + 1), recorded_(nodes + 1) {}

    // Called for each event in the run's order, before it is hashed.
    void see(const TraceEvent& event) {
        const std::size_t node = slot(event.node);
        event_names_.push_back(name(node, recorded_[node]++));
        if (event.kind == trace_kind::message_sent) message_names_[event.integer("id")] = name(node, sent_[node]++);
    }
    std::uint64_t message(std::int64_t id) const {
        const auto found = message_names_.find(id);
        return found == message_names_.end() ? ~std::uint64_t{0} : found->second;
    }
    std::uint64_t event(std::int64_t sequence) const {
        return sequence >= 0 && static_cast<std::size_t>(sequence) < event_names_.size()
                   ? event_names_[static_cast<std::size_t>(sequence)]
                   : ~std::uint64_t{0};
    }
    std::size_t slot(NodeId node) const { return node == no_node ? sent_.size() - 1 : node.index; }

private:
    static std::uint64_t name(std::size_t node, std::uint64_t place) {
        return (static_cast<std::uint64_t>(node) << 40) | place;
    }
    std::vector<std::uint64_t> sent_;
    std::vector<std::uint64_t> recorded_;
    std::map<std::int64_t, std::uint64_t> message_names_;
    std::vector<std::uint64_t> event_names_;  // by sequence
};

std::uint64_t content_of(const TraceEvent& event, const LocalNames& names) {
    ContentHash hash;
    hash.add_number(names.slot(event.node));
    hash.add(event.kind.name());
    const bool message = trace_kind::is_message(event.kind);
    for (const Field field : event.fields()) {
        if (std::holds_alternative<Duration>(field.value) || std::holds_alternative<Instant>(field.value)) continue;
        hash.add(field.key);
        hash.add_number(field.value.index());
        if (message && (field.key == "id" || field.key == "reply_to")) {
            hash.add_number(names.message(std::get<std::int64_t>(field.value)));
            continue;
        }
        if (message && field.key == "cause") {
            hash.add_number(names.event(std::get<std::int64_t>(field.value)));
            continue;
        }
        std::visit(
            [&hash](const auto& value) {
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, std::string_view>)
                    hash.add(value);
                else if constexpr (std::is_same_v<T, NodeId>)
                    hash.add_number(value.index);
                else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>)
                    hash.add_number(static_cast<std::uint64_t>(value));
            },
            field.value);
    }
    return hash.value();
}

}  // namespace

RunShape shape_of(const Trace& trace) {
    LocalNames names(trace.node_names().size());
    // Each event's node slot, content and instant, in the run's order.
    struct Seen {
        std::uint32_t node;
        std::uint64_t content;
        Instant at;
        bool checked;
    };
    std::vector<Seen> seen;
    seen.reserve(trace.events().size());
    for (const auto& event : trace.events()) {
        names.see(event);
        seen.push_back(Seen{static_cast<std::uint32_t>(names.slot(event.node)), content_of(event, names), event.at,
                            read_for_violations(event.kind)});
    }
    // Node by node: where each event of the run's order goes.
    std::vector<std::uint32_t> order(seen.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&seen](std::uint32_t a, std::uint32_t b) { return seen[a].node < seen[b].node; });
    std::vector<std::uint32_t> place(seen.size());
    RunShape shape;
    shape.events.reserve(seen.size());
    shape.times.reserve(seen.size());
    shape.nodes.reserve(seen.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) {
        const Seen& one = seen[order[k]];
        place[order[k]] = k;
        shape.events.push_back(one.content);
        shape.times.push_back(one.at);
        shape.nodes.push_back(one.node);
    }
    for (std::uint32_t k = 0; k < seen.size(); ++k)
        if (seen[k].checked) shape.checked.push_back(place[k]);
    return shape;
}

bool same_order(const RunShape& a, const RunShape& b) {
    return a.events == b.events && a.nodes == b.nodes && a.checked == b.checked;
}

bool same_branches(const RunShape& a, Instant end_a, const RunShape& b, Instant end_b) {
    if (!same_order(a, b)) return false;
    const Duration moved = end_b - end_a;
    for (std::size_t k = 0; k < a.times.size(); ++k)
        if (b.times[k] != a.times[k] && b.times[k] != a.times[k] + moved) return false;
    return true;
}

std::vector<Follows> how_events_follow(const RunShape& run, Instant end, const RunShape& other, Instant other_end) {
    std::vector<Follows> follows(run.events.size(), Follows::unknown);
    if (run.events == other.events && run.nodes == other.nodes) {
        // The same events in the same order: read them side by side.
        for (std::size_t k = 0; k < follows.size(); ++k) {
            if (run.times[k] == other.times[k])
                follows[k] = Follows::not_at_all;
            else if (run.times[k] - other.times[k] == end - other_end)
                follows[k] = Follows::the_end;
        }
        return follows;
    }
    // Other branches: the n-th event of one content in one run is the n-th of it in the other.
    std::map<std::uint64_t, std::vector<Instant>> others;
    for (std::size_t k = 0; k < other.events.size(); ++k) others[other.events[k]].push_back(other.times[k]);
    std::map<std::uint64_t, std::size_t> seen;
    for (std::size_t k = 0; k < follows.size(); ++k) {
        const auto found = others.find(run.events[k]);
        const std::size_t nth = seen[run.events[k]]++;
        if (found == others.end() || nth >= found->second.size()) continue;
        const Instant there = found->second[nth];
        if (run.times[k] == there)
            follows[k] = Follows::not_at_all;
        else if (run.times[k] - there == end - other_end)
            follows[k] = Follows::the_end;
    }
    return follows;
}

namespace {

// Along `sequence` (places in the run's events, in an order the run of `after` keeps), the
// nearest end after `after` at which an event that follows the end meets the next one after
// it that stays put: it has passed every one before it.
void nearest_meeting(const RunShape& run, const std::vector<Follows>& follows, Duration gone, Instant after,
                     const std::vector<std::uint32_t>& sequence, std::optional<Instant>& nearest) {
    std::optional<Instant> next_put;  // the instant of the nearest later event that stays put
    for (std::size_t k = sequence.size(); k-- > 0;) {
        const std::uint32_t event = sequence[k];
        if (follows[event] != Follows::not_at_all && next_put) {
            const Duration gap = *next_put - (run.times[event] + gone);
            // Level at `after` + gap; an event level with it at `after` passes it 1 ns later.
            if (gap >= Duration{}) {
                const Instant meeting = after + std::max(gap, Duration{1});
                if (!nearest || meeting < *nearest) nearest = meeting;
            }
        }
        if (follows[event] != Follows::the_end) next_put = run.times[event];
    }
}

}  // namespace

std::optional<Instant> next_meeting(const RunShape& run, Instant end, const std::vector<Follows>& follows,
                                    Instant after) {
    assert(follows.size() == run.times.size() && after >= end);
    const Duration gone = after - end;
    std::optional<Instant> nearest;
    std::vector<std::uint32_t> of_node;
    for (std::uint32_t k = 0; k < run.events.size(); ++k) {
        if (k > 0 && run.nodes[k] != run.nodes[k - 1]) {
            nearest_meeting(run, follows, gone, after, of_node, nearest);
            of_node.clear();
        }
        of_node.push_back(k);
    }
    nearest_meeting(run, follows, gone, after, of_node, nearest);
    nearest_meeting(run, follows, gone, after, run.checked, nearest);
    return nearest;
}

}  // namespace locksim
