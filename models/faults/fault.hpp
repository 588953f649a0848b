#pragma once
// The list of fault families. Each family is one type, in its own file, that holds
// everything about it: its members, how a scenario file writes it and how it is read
// (one reader for a placed fault and a generator's shape), written back, drawn, applied
// to the world, and explored. The rest of the program iterates this list; adding a
// family is a new file, one entry here, and its trace kinds.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "models/faults/clock_step_fault.hpp"
#include "models/faults/crash_fault.hpp"
#include "models/faults/delay_spike_fault.hpp"
#include "models/faults/fault_roles.hpp"
#include "models/faults/loss_burst_fault.hpp"
#include "models/faults/message_hold_fault.hpp"
#include "models/faults/partition_fault.hpp"
#include "models/faults/pause_fault.hpp"

namespace locksim {

using Fault = std::variant<PauseFault, ClockStepFault, CrashFault, PartitionFault, DelaySpikeFault, LossBurstFault,
                           MessageHoldFault>;

// What every family has: read back from its entry, written, drawn, struck.
template <class F>
concept FaultFamily = requires(F fault, const F& placed, const FaultReader& reader, FaultWriter& writer,
                               const DrawnAmounts& amounts, RandomStream& random, FaultWorld& world) {
    { F::entries[0] } -> std::convertible_to<FaultEntry>;
    { F::shown_by[0] } -> std::convertible_to<const KindSpec*>;
    { F::amounts[0] } -> std::convertible_to<std::string_view>;
    {std::span<const ExploreShape>(F::explore)};
    { F::read(std::string_view{}, reader) } -> std::same_as<F>;
    placed.write(writer);
    fault.draw(amounts, random);
    placed.strike(world, no_node);
    { placed.at } -> std::convertible_to<Instant>;
    { placed.when } -> std::convertible_to<std::optional<EventTrigger>>;
};

// Calls `visit(std::type_identity<F>{})` for each family, in the list's order.
template <class Visitor>
constexpr void for_each_fault_family(Visitor&& visit) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (visit(std::type_identity<std::variant_alternative_t<I, Fault>>{}), ...);
    }
    (std::make_index_sequence<std::variant_size_v<Fault>>{});
}

// A fault's true time (unused when it waits for an event).
inline Instant time_of(const Fault& fault) {
    return std::visit([](const auto& f) { return f.at; }, fault);
}

// "pause", "clock_step", …: every key a scenario file may name a fault by, in list order.
std::vector<std::string_view> fault_keys();

// "server-1 pauses 40s", "the lock holder crashes for good": the fault in words, its
// target named (a role as who plays it: "the lock holder"). Its time is the caller's.
std::string fault_words(const Fault& fault);

// The keys of the families that strike one node (a node's name or a role follows the key).
std::vector<std::string_view> node_fault_keys();

// Every member that holds an amount (a length, a step, a time until restart or healing),
// in list order without repeats.
std::vector<std::string_view> amount_fields();

// Whether `kind` is a trace event that shows a fault doing what it does (node.paused,
// link.held, …), as the families declare them.
bool shows_a_fault(std::string_view kind);

// The families explore can try, in list order.
std::vector<const ExploreShape*> explorable_families();
const ExploreShape* explore_shape(std::string_view key);

// The fault of the explorable family `key` on `node`, struck at `when`, of `size`, with
// `details` (a pause's cause, a partition's other side).
// REQUIRES: explore_shape(key) != nullptr.
Fault explored_fault(std::string_view key, std::string node, EventTrigger when, std::optional<Duration> size,
                     const ExploreDetails& details);
// The same fault struck at the true time `at` instead, as `run --faults` places it.
Fault placed_fault(std::string_view key, std::string node, Instant at, std::optional<Duration> size,
                   const ExploreDetails& details);

// Faults drawn from the run's seed: each target suffers the fault at random times (a
// Poisson process with the given mean interval) within a window. The draws depend only
// on the seed, the generator's position and the target, so every design of a scenario
// meets the same schedule.
struct FaultGenerator {
    // The fault each draw makes: the draw sets its time, its target (a node or a link)
    // and its amounts; the rest is as the file wrote it.
    Fault shape;
    // Faults on a node: the nodes (or roles) struck, each its own stream.
    std::vector<std::string> targets;
    // Faults on a link: the links [from, to] struck, each its own stream; none, the shape's
    // own link. Partitions: none (their sides are the shape's), one stream.
    std::vector<std::pair<std::string, std::string>> links;
    // Every target in each draw, at the same instant with the same amounts (a control-plane
    // upgrade slows every pod's calls at once), from one stream; the mean interval is then
    // between draws rather than per target.
    bool at_once = false;
    // Each run draws at least one fault from it (a conditioned sweep, for a fault too rare
    // to meet by chance): the first fault of all its targets together falls in the window
    // by the exponential law cut at the window's end, on a target chosen evenly; after it,
    // every target draws on as usual.
    bool given = false;
    Duration mean_interval{};
    DrawnAmounts amounts;  // by member: "for", "by", "restart_after", "heal_after", "extra"
    Instant from;
    Instant until;
};

}  // namespace locksim
