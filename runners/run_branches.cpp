#include "runners/run_branches.hpp"

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

std::uint64_t content_of(const TraceEvent& event) {
    ContentHash hash;
    hash.add_number(event.node == no_node ? ~std::uint64_t{0} : event.node.index);
    hash.add(event.kind.name());
    for (const Field field : event.fields()) {
        if (std::holds_alternative<Duration>(field.value) || std::holds_alternative<Instant>(field.value)) continue;
        hash.add(field.key);
        hash.add_number(field.value.index());
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
    RunShape shape;
    shape.events.reserve(trace.events().size());
    shape.times.reserve(trace.events().size());
    for (const auto& event : trace.events()) {
        shape.events.push_back(content_of(event));
        shape.times.push_back(event.at);
    }
    return shape;
}

bool same_branches(const RunShape& a, Instant end_a, const RunShape& b, Instant end_b) {
    if (a.events != b.events) return false;
    const Duration moved = end_b - end_a;
    for (std::size_t k = 0; k < a.times.size(); ++k)
        if (b.times[k] != a.times[k] && b.times[k] != a.times[k] + moved) return false;
    return true;
}

std::vector<Follows> how_events_follow(const RunShape& run, Instant end, const RunShape& other, Instant other_end) {
    std::vector<Follows> follows(run.events.size(), Follows::unknown);
    if (run.events == other.events) {
        // The same events in the same order: read them side by side.
        for (std::size_t k = 0; k < follows.size(); ++k) {
            if (run.times[k] == other.times[k]) follows[k] = Follows::not_at_all;
            else if (run.times[k] - other.times[k] == end - other_end) follows[k] = Follows::the_end;
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
        if (run.times[k] == there) follows[k] = Follows::not_at_all;
        else if (run.times[k] - there == end - other_end) follows[k] = Follows::the_end;
    }
    return follows;
}

std::optional<Instant> next_meeting(const RunShape& run, Instant end, const std::vector<Follows>& follows,
                                    Instant after) {
    assert(follows.size() == run.times.size() && after >= end);
    // The run of `after` took the same branches, so its events come in the same order: an
    // event that follows the end has passed every one before it, and meets first the next
    // one after it that stays put (the trace is in order of time).
    const Duration gone = after - end;
    std::optional<Instant> nearest;
    std::optional<Instant> next_put;  // the instant of the nearest later event that stays put
    for (std::size_t k = follows.size(); k-- > 0;) {
        if (follows[k] != Follows::not_at_all && next_put) {
            const Duration gap = *next_put - (run.times[k] + gone);
            // Level at `after` + gap; an event level with it at `after` passes it 1 ns later.
            if (gap >= Duration{}) {
                const Instant meeting = after + std::max(gap, Duration{1});
                if (!nearest || meeting < *nearest) nearest = meeting;
            }
        }
        if (follows[k] != Follows::the_end) next_put = run.times[k];
    }
    return nearest;
}

}  // namespace locksim
