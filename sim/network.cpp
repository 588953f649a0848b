#include "sim/network.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace locksim {
namespace {

// The fault that did it, when one did: recorded on what a fault on the links touched.
void cause_field(FieldList& fields, FaultCause cause) {
    if (cause != no_fault_cause) fields.push_back({"cause", static_cast<std::int64_t>(cause)});
}

}  // namespace

void Network::ensure_vertices(std::uint32_t count) {
    while (boost::num_vertices(graph_) < count) boost::add_vertex(graph_);
}

void Network::connect(NodeId a, NodeId b, DelayModel delay, LinkBehaviour behaviour) {
    assert(a != b);
    assert(!made_edge(a.index, b.index));
    add_link(a, b, LinkSpec{std::move(delay), behaviour});
}

void Network::link_every_pair(DelayModel delay, LinkBehaviour behaviour) {
    every_pair_ = LinkSpec{std::move(delay), behaviour};
}

std::optional<Network::Graph::edge_descriptor> Network::made_edge(std::uint32_t a, std::uint32_t b) const {
    const auto vertices = boost::num_vertices(graph_);
    if (a >= vertices || b >= vertices) return std::nullopt;
    const auto [edge, found] = boost::edge(a, b, graph_);
    return found ? std::optional(edge) : std::nullopt;
}

Network::Link& Network::add_link(NodeId a, NodeId b, const LinkSpec& spec) {
    ensure_vertices(std::max(a.index, b.index) + 1);
    const NodeId low = std::min(a, b);
    const NodeId high = std::max(a, b);
    const auto& names = engine_.trace();
    // Each direction's random stream is named by its ends, so a link made when first used
    // draws what it would have drawn had it been made with the world.
    Link link{.delay = spec.delay, .behaviour = spec.behaviour, .low_end = low.index};
    link.upward.emplace(
        Direction{engine_.random_stream({"link/", names.node_name(low), "->", names.node_name(high)}), Instant{}});
    link.downward.emplace(
        Direction{engine_.random_stream({"link/", names.node_name(high), "->", names.node_name(low)}), Instant{}});
    return graph_[boost::add_edge(low.index, high.index, std::move(link), graph_).first];
}

bool Network::connected(NodeId a, NodeId b) const {
    if (made_edge(a.index, b.index)) return true;
    return every_pair_ && a != b && a.index < engine_.node_count() && b.index < engine_.node_count();
}

Network::Link& Network::link(NodeId a, NodeId b) {
    if (const auto edge = made_edge(a.index, b.index)) return graph_[*edge];
    assert(every_pair_ && a != b);  // the world links every pair that talks
    return add_link(a, b, *every_pair_);
}

Network::Direction& Network::direction(NodeId from, NodeId to) {
    Link& l = link(from, to);
    return from.index == l.low_end ? *l.upward : *l.downward;
}

void Network::cut(NodeId from, NodeId to, FaultCause cause) {
    direction(from, to).cuts.push_back(cause);
}

void Network::heal(NodeId from, NodeId to, FaultCause cause) {
    auto& cuts = direction(from, to).cuts;
    const auto found = std::find(cuts.begin(), cuts.end(), cause);
    assert(found != cuts.end());
    cuts.erase(found);
}

void Network::hold(NodeId from, NodeId to, Duration extra, Instant until, FaultCause cause) {
    direction(from, to).holds.push_back(Hold{extra, until, cause});
}

void Network::hold_next(NodeId from, NodeId to, Instant until, FaultCause cause) {
    direction(from, to).next_held.push_back(Hold{Duration{}, until, cause});
}

void Network::lose(NodeId from, NodeId to, Odds odds, Instant until, FaultCause cause) {
    direction(from, to).bursts.push_back(Burst{odds, until, cause});
}

bool Network::open_both_ways(std::uint32_t a, std::uint32_t b) const {
    if (const auto edge = made_edge(a, b)) {
        const Link& l = graph_[*edge];
        return l.upward->cuts.empty() && l.downward->cuts.empty();
    }
    return every_pair_.has_value();  // a link not yet used is cut in neither direction
}

std::vector<std::vector<NodeId>> Network::reachable_groups() const {
    // The connected components over the links open both ways, numbered by their lowest node
    // and each listed in node order. A search of the complement: each node still unplaced
    // is tested against the one being searched from, and stays unplaced only if the two are
    // cut apart, so the cost is the nodes plus the cut links, not the pairs.
    const std::uint32_t count = every_pair_ ? static_cast<std::uint32_t>(engine_.node_count())
                                            : static_cast<std::uint32_t>(boost::num_vertices(graph_));
    std::vector<std::uint32_t> unplaced(count);
    for (std::uint32_t v = 0; v < count; ++v) unplaced[v] = v;
    std::vector<std::vector<NodeId>> groups;
    while (!unplaced.empty()) {
        std::vector<std::uint32_t> group{unplaced.front()};
        unplaced.erase(unplaced.begin());
        for (std::size_t searched = 0; searched < group.size(); ++searched) {
            const std::uint32_t from = group[searched];
            std::erase_if(unplaced, [&](std::uint32_t v) {
                if (!open_both_ways(from, v)) return false;
                group.push_back(v);
                return true;
            });
        }
        std::sort(group.begin(), group.end());
        auto& ids = groups.emplace_back();
        for (std::uint32_t v : group) ids.push_back(NodeId{v});
    }
    return groups;
}

std::pair<bool, FaultCause> Network::lost_now(Link& l, Direction& way) {
    const Instant now = engine_.now();
    const Odds& loss = l.behaviour.loss;
    const bool cut = !way.cuts.empty();
    FaultCause lost_to = cut ? way.cuts.front() : no_fault_cause;
    bool lost = cut || (!loss.never() && way.random.chance(loss.numerator, loss.denominator));
    // A burst draws only while one is in force, so a run without bursts draws as before.
    std::erase_if(way.bursts, [now](const Burst& b) { return b.until <= now; });
    for (const auto& burst : way.bursts)
        if (!lost && way.random.chance(burst.loss.numerator, burst.loss.denominator)) {
            lost = true;
            lost_to = burst.cause;
        }
    return {lost, lost_to};
}

void Network::deliver(Instant at, MessageId id, NodeId from, NodeId to, std::string label, Delivery on_delivery,
                      bool duplicate) {
    engine_.schedule_at(
        at, to,
        [this, id, from, to, label = std::move(label), on_delivery = std::move(on_delivery), duplicate]() mutable {
            if (tracing_messages_ || duplicate)
                engine_.record(to, trace_kind::message_delivered,
                               {{"id", static_cast<std::int64_t>(id)},
                                {"from", from},
                                {"label", label},
                                {"duplicate", duplicate}});
            on_delivery();
        });
}

MessageId Network::send(NodeId from, NodeId to, MessageText message, Delivery on_delivery,
                        std::optional<MessageId> in_reply_to, Connection connection,
                        std::optional<ResetNotice> on_reset) {
    Link& l = link(from, to);
    Direction& way = from.index == l.low_end ? *l.upward : *l.downward;
    const MessageId id = next_message_++;
    if (in_reply_to && from.index < awaiting_reply_.size()) awaiting_reply_[from.index].erase(*in_reply_to);
    const bool request = on_reset && !in_reply_to && connection != Connection::datagram;
    // Awaits its reply from when it lands (a stalled one: from whenever it may).
    const auto await_reply = [&](Instant lands) {
        if (!request || !engine_.is_up(to)) return;
        watch_server_crashes(to);
        awaiting_reply_[to.index].emplace(id, AwaitingReply{from, lands, *on_reset});
    };

    const Instant now = engine_.now();
    Instant delivery = now + l.delay.draw(way.random);
    std::erase_if(way.holds, [now](const Hold& h) { return h.until <= now; });
    const Hold* held_by = nullptr;  // the spike in force with the longest extra, the first of equals
    for (const auto& h : way.holds)
        if (held_by == nullptr || h.extra > held_by->extra) held_by = &h;
    Duration held_extra{};
    FaultCause held_cause = no_fault_cause;
    if (held_by != nullptr) {  // a delay spike holds it back
        held_extra = held_by->extra;
        held_cause = held_by->cause;
    }
    // A hold of the next message is this one's, whatever becomes of it.
    for (const auto& h : way.next_held)
        if (h.until > delivery + held_extra) {
            held_extra = h.until - delivery;
            held_cause = h.cause;
        }
    way.next_held.clear();
    delivery += held_extra;
    const bool shared = connection == Connection::shared;
    const bool in_order = !l.behaviour.reorder && shared;
    if (in_order && delivery < way.last_delivery) delivery = way.last_delivery;  // in order, like TCP
    // Behind a stream that retransmits, a message waits for it, whatever the link does now.
    const bool behind_stall = shared && way.shared_stall.has_value();
    auto [lost, lost_to] = behind_stall ? std::pair{false, no_fault_cause} : lost_now(l, way);
    const bool stalls = behind_stall || (lost && connection != Connection::datagram);
    if (stalls) lost = false;
    // A lost or stalled message holds nothing back, nor does one on a connection of its own.
    if (!lost && !stalls && shared) way.last_delivery = std::max(way.last_delivery, delivery);
    const Odds& duplication = l.behaviour.duplication;
    const bool duplicated =
        !lost && !stalls && !duplication.never() && way.random.chance(duplication.numerator, duplication.denominator);

    // The label is read only by the trace: made when it shows the message, or a duplicate.
    std::string label = tracing_messages_ || duplicated ? std::move(message).label() : std::string();
    if (tracing_messages_) {
        FieldList fields{{"id", static_cast<std::int64_t>(id)}, {"to", to}, {"label", label}, {"deliver_at", delivery}};
        if (in_reply_to) fields.push_back({"reply_to", static_cast<std::int64_t>(*in_reply_to)});
        for (const auto& field : message.about) fields.push_back(field.view());
        engine_.record(from, trace_kind::message_sent, fields);
    }
    // Recorded when messages are not (check runs leave them out), so that a reader can tell
    // what a fault on the links touched; the cause only when a fault did it.
    if (lost) {
        FieldList fields{{"id", static_cast<std::int64_t>(id)}, {"to", to}, {"cut", !way.cuts.empty()}};
        cause_field(fields, lost_to);
        engine_.record(from, trace_kind::message_lost, fields);
        return id;
    }
    if (stalls) {
        std::uint64_t stall_number = 0;
        if (behind_stall) {
            stall_number = *way.shared_stall;
        } else {
            stall_number = next_stall_++;
            stalls_.emplace(stall_number, Stall{from, to, shared, now, 0, tcp_stream::retries, lost_to, {}});
            if (shared) way.shared_stall = stall_number;
            watch_crashes_of(from);
            schedule_retransmission(stall_number);
        }
        await_reply(now);
        Stall& stall = stalls_.at(stall_number);
        FieldList fields{{"id", static_cast<std::int64_t>(id)}, {"to", to}, {"cut", !way.cuts.empty()}};
        cause_field(fields, stall.cause);
        engine_.record(from, trace_kind::message_stalled, fields);
        stall.messages.push_back(Stalled{id, std::move(label), std::move(on_delivery), std::move(on_reset)});
        return id;
    }
    if (held_extra > Duration{}) {
        FieldList fields{{"id", static_cast<std::int64_t>(id)}, {"to", to}, {"extra", held_extra}};
        cause_field(fields, held_cause);
        engine_.record(from, trace_kind::message_held, fields);
    }
    await_reply(delivery);
    if (request && !engine_.is_up(to) && engine_.crash_kind(to) == CrashKind::process)
        refuse_if_still_down(delivery, id, from, to, std::move(*on_reset));
    // The message's label and handler move into its delivery; a duplicate gets copies.
    if (duplicated) {
        deliver(delivery, id, from, to, label, on_delivery, false);
        deliver(delivery, id, from, to, std::move(label), std::move(on_delivery), true);
    } else {
        deliver(delivery, id, from, to, std::move(label), std::move(on_delivery), false);
    }
    return id;
}

void Network::close_stream(NodeId from, NodeId to) {
    Direction& way = direction(from, to);
    std::int64_t orphaned = 0;
    if (way.shared_stall) orphaned = static_cast<std::int64_t>(stalls_.at(*way.shared_stall).messages.size());
    end_stream(way, false);
    engine_.record(from, trace_kind::connection_closed, {{"to", to}, {"orphaned", orphaned}});
}

void Network::end_stream(Direction& way, bool drop) {
    // Its next connection keeps its own order, not the ended one's.
    way.last_delivery = engine_.now();
    if (!way.shared_stall) return;
    const std::uint64_t number = *way.shared_stall;
    way.shared_stall.reset();
    end_stall(number, drop);
}

void Network::end_stall(std::uint64_t number, bool drop) {
    Stall& stall = stalls_.at(number);
    if (drop) {
        record_lost(stall);
        stalls_.erase(number);  // its retransmission, when due, finds it gone
        return;
    }
    stall.shared = false;  // the kernel's now: nothing the sender sends waits behind it
    stall.most_attempts = std::min(stall.most_attempts, tcp_stream::orphan_retries);
    for (auto& message : stall.messages) message.on_reset.reset();  // the closing end is told nothing
}

void Network::record_lost(const Stall& stall) {
    const bool cut = !direction(stall.from, stall.to).cuts.empty();
    for (const auto& message : stall.messages) {
        FieldList fields{{"id", static_cast<std::int64_t>(message.id)}, {"to", stall.to}, {"cut", cut}};
        cause_field(fields, stall.cause);
        engine_.record(stall.from, trace_kind::message_lost, fields);
    }
}

void Network::watch_crashes_of(NodeId node) {
    if (crashes_watched_.size() <= node.index) crashes_watched_.resize(node.index + 1, false);
    if (crashes_watched_[node.index]) return;
    crashes_watched_[node.index] = true;
    // A crashed process's kernel closes its sockets: what they held is orphaned, as with
    // close_stream. A crashed machine's kernel sends nothing more: what they held is lost.
    // In the order the stalls began.
    engine_.on_crash(node, [this, node] {
        const bool machine = engine_.crash_kind(node) == CrashKind::machine;
        // Each stall, and the peer of one that is its direction's own stream.
        std::vector<std::pair<std::uint64_t, std::optional<NodeId>>> ended;
        for (const auto& [number, stall] : stalls_)
            if (stall.from == node) ended.emplace_back(number, stall.shared ? std::optional(stall.to) : std::nullopt);
        for (const auto& [number, peer] : ended) {
            if (peer) {
                end_stream(direction(node, *peer), machine);
            } else {
                end_stall(number, machine);
            }
        }
    });
}

void Network::watch_server_crashes(NodeId server) {
    if (awaiting_reply_.size() <= server.index) {
        awaiting_reply_.resize(server.index + 1);
        server_crashes_watched_.resize(server.index + 1, false);
    }
    if (server_crashes_watched_[server.index]) return;
    server_crashes_watched_[server.index] = true;
    engine_.on_crash(server, [this, server] {
        auto awaiting = std::move(awaiting_reply_[server.index]);
        awaiting_reply_[server.index].clear();
        // A dead machine's kernel went with it: nothing tells its callers.
        if (engine_.crash_kind(server) == CrashKind::machine) return;
        // A request it had received hears now (its kernel closes the socket); one still on
        // its way hears when it lands on the closed port (the kernel answers it with a reset).
        std::map<Instant, std::vector<std::pair<NodeId, ResetNotice>>> by_time;
        for (auto& [id, waiting] : awaiting)
            by_time[std::max(waiting.lands, engine_.now())].emplace_back(waiting.client, std::move(waiting.notice));
        for (auto& [at, requests] : by_time) refuse(server, at, std::move(requests));
    });
}

// The reset reaches the caller at `at`, unless the way back is cut then (the caller's own
// deadline is all it has). One connection.refused per client, in the order of its first request.
void Network::refuse(NodeId server, Instant at, std::vector<std::pair<NodeId, ResetNotice>> requests) {
    std::vector<NodeId> clients;
    for (const auto& [client, notice] : requests)
        if (std::find(clients.begin(), clients.end(), client) == clients.end()) clients.push_back(client);
    for (const NodeId client : clients) {
        std::vector<ResetNotice> notices;
        for (auto& [requester, notice] : requests)
            if (requester == client) notices.push_back(std::move(notice));
        engine_.schedule_at(at, client, [this, client, server, notices = std::move(notices)]() mutable {
            if (!direction(server, client).cuts.empty()) return;
            engine_.record(client, trace_kind::connection_refused,
                           {{"to", server}, {"requests", static_cast<std::int64_t>(notices.size())}});
            for (auto& notice : notices) notice.notify();
        });
    }
}

// Checked before the delivery, which is scheduled after it for the same instant: if the
// process came back meanwhile, the request is delivered and awaits its reply as any other.
void Network::refuse_if_still_down(Instant at, MessageId id, NodeId from, NodeId to, ResetNotice on_reset) {
    engine_.schedule_at(at, no_node, [this, id, from, to, on_reset = std::move(on_reset)]() mutable {
        if (engine_.is_up(to)) {
            watch_server_crashes(to);
            awaiting_reply_[to.index].emplace(id, AwaitingReply{from, engine_.now(), std::move(on_reset)});
            return;
        }
        std::vector<std::pair<NodeId, ResetNotice>> requests;
        requests.emplace_back(from, std::move(on_reset));
        refuse(to, engine_.now(), std::move(requests));
    });
}

void Network::schedule_retransmission(std::uint64_t stall) {
    const Stall& stalled = stalls_.at(stall);
    // The sender's kernel retransmits, not its process: a paused sender's stream goes on.
    engine_.schedule_at(engine_.now() + tcp_stream::wait_before(stalled.attempts + 1), no_node,
                        [this, stall] { retransmit(stall); });
}

void Network::retransmit(std::uint64_t number) {
    const auto found = stalls_.find(number);
    if (found == stalls_.end()) return;  // its sender's machine crashed: nothing to send
    Stall& stall = found->second;
    Link& l = link(stall.from, stall.to);
    Direction& way = stall.from.index == l.low_end ? *l.upward : *l.downward;
    ++stall.attempts;
    const auto [lost, lost_to] = lost_now(l, way);
    if (!lost) {
        // Everything the stream held gets through, in order, each after the link's delay.
        Instant at = engine_.now();
        for (auto& message : stall.messages) {
            Instant delivery = at + l.delay.draw(way.random);
            if (!l.behaviour.reorder && stall.shared) delivery = std::max(delivery, way.last_delivery);
            if (stall.shared) way.last_delivery = std::max(way.last_delivery, delivery);
            deliver(delivery, message.id, stall.from, stall.to, std::move(message.label),
                    std::move(message.on_delivery), false);
        }
        if (stall.shared) way.shared_stall.reset();
        stalls_.erase(number);
        return;
    }
    if (lost_to != no_fault_cause) stall.cause = lost_to;
    if (stall.attempts <= stall.most_attempts) {
        schedule_retransmission(number);
        return;
    }
    // Given up: the stream is reset, what it held is lost, and each waiting end hears of it.
    FieldList reset{{"to", stall.to},
                    {"after", engine_.now() - stall.since},
                    {"messages", static_cast<std::int64_t>(stall.messages.size())}};
    cause_field(reset, stall.cause);
    engine_.record(stall.from, trace_kind::connection_reset, reset);
    record_lost(stall);
    for (auto& message : stall.messages) {
        if (message.on_reset)
            engine_.schedule_at(engine_.now(), message.on_reset->node,
                                [notify = std::move(message.on_reset->notify)]() mutable { notify(); });
    }
    if (stall.shared) way.shared_stall.reset();
    stalls_.erase(number);
}

}  // namespace locksim
