#include "models/faults/delay_spike_fault.hpp"

#include <tuple>

#include "models/faults/link_fault.hpp"

#include <fmt/format.h>

#include "models/faults/fault_roles.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

DelaySpikeFault DelaySpikeFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    DelaySpikeFault spike;
    std::tie(spike.from, spike.to) = reader.link("delay_spike");
    spike.length = reader.amount("for");
    spike.extra = reader.amount("extra");
    spike.one_way = reader.flag("one_way");
    return spike;
}

void DelaySpikeFault::write(FaultWriter& writer) const {
    writer.link("delay_spike", from, to);
    writer.instant("at", at);
    writer.duration("for", length);
    writer.duration("extra", extra);
    if (one_way) writer.flag("one_way", true);
}

// The length first, then the extra delay: the order a stream is read in is part of every
// seed's schedule.
std::string DelaySpikeFault::words(std::string_view) const {
    return fmt::format("messages {} {} {} {} sent within {} arrive {} late", one_way ? "from" : "between",
                       target_words(from), one_way ? "to" : "and", to, format_duration(length), format_duration(extra));
}

void DelaySpikeFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    length = amounts.draw("for", random);
    extra = amounts.draw("extra", random);
}

void DelaySpikeFault::strike(FaultWorld& world, NodeId trigger) const {
    strike_link(world, trigger, LinkStrike{from, to, length, one_way}, trace_kind::link_held, {{"extra", extra}},
                [&world, extra = extra](NodeId a, NodeId b, Instant until, FaultCause cause) {
                    world.network().hold(a, b, extra, until, cause);
                });
}

}  // namespace locksim
