#include "models/faults/clock_step_fault.hpp"

#include <fmt/format.h>

#include "sim/duration_text.hpp"

namespace locksim {
ClockStepFault ClockStepFault::read(std::string_view key, const FaultReader& reader) {
    ClockStepFault clock;
    clock.slew = key == explore[1].key;
    reader.declare(entries[clock.slew ? 1 : 0]);
    if (clock.slew) {
        clock.delta = reader.amount("by");
        clock.node = reader.node("clock_slew");
    } else {
        clock.node = reader.target("clock_step");
        clock.delta = reader.amount("by");
    }
    return clock;
}

void ClockStepFault::write(FaultWriter& writer) const {
    writer.target(slew ? "clock_slew" : "clock_step", node);
    writer.instant("at", at);
    writer.duration("by", delta);
}

std::string ClockStepFault::words(std::string_view who) const {
    return fmt::format("{}'s wall clock {} by {}", who, slew ? "slews" : "steps", format_duration(delta));
}

void ClockStepFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    delta = amounts.draw("by", random);
}

void ClockStepFault::strike(FaultWorld& world, NodeId trigger) const {
    const auto targets = world.struck(node, trigger);
    world.announce(targets);
    for (NodeId target : targets) {
        if (slew)
            world.engine().slew_wall_clock(target, delta);
        else
            world.engine().step_wall_clock(target, delta);
    }
}

ClockStepFault ClockStepFault::explored(std::string_view key, std::string node, EventTrigger when,
                                        std::optional<Duration> size, const ExploreDetails&) {
    return ClockStepFault{std::move(node), Instant{}, *size, std::move(when), key == explore[1].key};
}

}  // namespace locksim
