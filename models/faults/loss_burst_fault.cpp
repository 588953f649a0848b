#include "models/faults/loss_burst_fault.hpp"

#include <fmt/format.h>

#include "models/faults/fault_roles.hpp"
#include "sim/duration_text.hpp"

#include <tuple>

#include "models/faults/link_fault.hpp"

namespace locksim {

LossBurstFault LossBurstFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    LossBurstFault burst;
    std::tie(burst.from, burst.to) = reader.link("loss_burst");
    burst.length = reader.amount("for");
    if (reader.has("loss")) burst.loss = reader.odds("loss");
    burst.one_way = reader.flag("one_way");
    return burst;
}

void LossBurstFault::write(FaultWriter& writer) const {
    writer.link("loss_burst", from, to);
    writer.instant("at", at);
    writer.duration("for", length);
    writer.odds("loss", loss);
    if (one_way) writer.flag("one_way", true);
}

std::string LossBurstFault::words(std::string_view) const {
    return fmt::format("messages {} {} {} {} sent within {} are lost at odds {}/{}", one_way ? "from" : "between",
                       target_words(from), one_way ? "to" : "and", to, format_duration(length), loss.numerator,
                       loss.denominator);
}

void LossBurstFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    length = amounts.draw("for", random);
}

void LossBurstFault::strike(FaultWorld& world, NodeId trigger) const {
    const std::string odds = fmt::format("{}/{}", loss.numerator, loss.denominator);
    strike_link(world, trigger, LinkStrike{from, to, length, one_way}, trace_kind::link_lossy, {{"loss", odds}},
                [&world, loss = loss](NodeId a, NodeId b, Instant until, FaultCause cause) {
                    world.network().lose(a, b, loss, until, cause);
                });
}

LossBurstFault LossBurstFault::explored(std::string_view, std::string node, EventTrigger when,
                                        std::optional<Duration> size, const ExploreDetails& details) {
    return LossBurstFault{std::move(node), details.apart_from.at(0), Instant{},      *size,
                          details.loss,    details.one_way,          std::move(when)};
}

}  // namespace locksim
