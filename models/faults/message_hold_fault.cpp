#include "models/faults/message_hold_fault.hpp"

#include <fmt/format.h>

#include <tuple>

#include "models/faults/fault_roles.hpp"
#include "models/faults/link_fault.hpp"
#include "sim/duration_text.hpp"
#include "sim/network.hpp"

namespace locksim {

MessageHoldFault MessageHoldFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    MessageHoldFault hold;
    std::tie(hold.from, hold.to) = reader.link("hold_message");
    hold.length = reader.amount("for");
    return hold;
}

void MessageHoldFault::write(FaultWriter& writer) const {
    writer.link("hold_message", from, to);
    writer.instant("at", at);
    writer.duration("for", length);
}

std::string MessageHoldFault::words(std::string_view) const {
    return fmt::format("the next message {} sends {} lands no sooner than {} later", target_words(from), to,
                       format_duration(length));
}

void MessageHoldFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    length = amounts.draw("for", random);
}

void MessageHoldFault::strike(FaultWorld& world, NodeId trigger) const {
    const std::optional<LinkEnds> link = struck_link(world, from, to, trigger);
    if (!link) return;
    const Instant until = world.engine().now() + length;
    world.network().hold_next(link->from, link->to, until, link->cause);
    world.engine().record(link->from, trace_kind::link_holding, {{"to", link->to}, {"until", until}});
}

MessageHoldFault MessageHoldFault::explored(std::string_view, std::string node, EventTrigger when,
                                            std::optional<Duration> size, const ExploreDetails& details) {
    return MessageHoldFault{std::move(node), details.apart_from.at(0), Instant{}, *size, std::move(when)};
}

}  // namespace locksim
