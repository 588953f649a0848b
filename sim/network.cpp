#include "sim/network.hpp"

#include <cassert>
#include <utility>

namespace locksim {

void Network::ensure_vertices(std::uint32_t count) {
    while (boost::num_vertices(graph_) < count) boost::add_vertex(graph_);
}

void Network::connect(NodeId a, NodeId b, DelayModel delay) {
    assert(a != b);
    ensure_vertices(std::max(a.index, b.index) + 1);
    assert(!connected(a, b));
    const NodeId low = std::min(a, b);
    const NodeId high = std::max(a, b);
    const auto& names = engine_.trace();
    Link link{.delay = delay, .low_end = low.index};
    link.upward.emplace(Direction{
        engine_.random_stream("link/" + names.node_name(low) + "->" + names.node_name(high)), Instant{}});
    link.downward.emplace(Direction{
        engine_.random_stream("link/" + names.node_name(high) + "->" + names.node_name(low)), Instant{}});
    boost::add_edge(low.index, high.index, std::move(link), graph_);
}

bool Network::connected(NodeId a, NodeId b) const {
    const auto vertices = boost::num_vertices(graph_);
    if (a.index >= vertices || b.index >= vertices) return false;
    return boost::edge(a.index, b.index, graph_).second;
}

MessageId Network::send(NodeId from, NodeId to, std::string label, std::function<void()> on_delivery,
                        std::optional<MessageId> in_reply_to) {
    auto [edge, found] = boost::edge(from.index, to.index, graph_);
    assert(found);  // the world wires every pair that talks
    Link& link = graph_[edge];
    Direction& direction = from.index == link.low_end ? *link.upward : *link.downward;

    const Instant now = engine_.now();
    Instant delivery = now + link.delay.draw(direction.random);
    if (delivery < direction.last_delivery) delivery = direction.last_delivery;  // in order, like TCP
    direction.last_delivery = delivery;

    const MessageId id = next_message_++;
    if (tracing_messages_) {
        std::vector<Field> fields{{"id", static_cast<std::int64_t>(id)}, {"to", to}, {"label", label},
                                  {"deliver_at", delivery}};
        if (in_reply_to) fields.push_back({"reply_to", static_cast<std::int64_t>(*in_reply_to)});
        engine_.record(from, trace_kind::message_sent, std::move(fields));
    }

    engine_.schedule_at(delivery, to,
                        [this, id, from, to, label = std::move(label), on_delivery = std::move(on_delivery)] {
                            if (tracing_messages_)
                                engine_.record(to, trace_kind::message_delivered,
                                               {{"id", static_cast<std::int64_t>(id)}, {"from", from}, {"label", label}});
                            on_delivery();
                        });
    return id;
}

}  // namespace locksim
