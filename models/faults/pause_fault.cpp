#include "models/faults/pause_fault.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/duration_text.hpp"

namespace locksim {

std::string PauseFault::read_cause(const FaultReader& reader) {
    std::string cause = reader.has("kind") ? reader.text("kind") : std::string(causes[0]);
    if (std::find(std::begin(causes), std::end(causes), cause) == std::end(causes))
        reader.fail("kind", fmt::format("unknown pause kind \"{}\"; expected \"gc\", \"sigstop\" or \"swap\"", cause));
    return cause;
}

PauseFault PauseFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    PauseFault pause;
    pause.cause = read_cause(reader);
    pause.length = reader.amount("for");
    pause.node = reader.target("pause");
    return pause;
}

void PauseFault::write(FaultWriter& writer) const {
    writer.target("pause", node);
    writer.instant("at", at);
    writer.duration("for", length);
    writer.text("kind", cause);
}

std::string PauseFault::words(std::string_view who) const {
    return fmt::format("{} pauses {}", who, format_duration(length));
}

void PauseFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    length = amounts.draw("for", random);
}

void PauseFault::strike(FaultWorld& world, NodeId trigger) const {
    const auto targets = world.struck(node, trigger);
    world.announce(targets);
    for (NodeId target : targets) world.engine().pause(target, length, cause);
}

PauseFault PauseFault::explored(std::string_view, std::string node, EventTrigger when, std::optional<Duration> size,
                                const ExploreDetails& details) {
    return PauseFault{std::move(node), Instant{}, *size, details.cause, std::move(when)};
}

}  // namespace locksim
