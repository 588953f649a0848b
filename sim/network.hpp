#pragma once
// The network: nodes and links in a Boost.Graph graph. Every message crosses one link,
// which delays it by a fixed or random amount and keeps each direction in order (as a
// TCP connection does). Delivery is an event on the receiving node, so a paused
// receiver handles it when it resumes.
//
// Faults are what the links do, not branches in the models: a link can lose, duplicate
// or reorder what it carries, a direction can be cut (a partition) or hold messages
// back for a while (a delay spike), and the models see only messages that never come,
// come twice, or come late.
#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/engine.hpp"
#include "sim/inline_function.hpp"
#include "sim/odds.hpp"
#include "sim/random.hpp"
#include "sim/tcp_stream.hpp"

namespace locksim {

using MessageId = std::uint64_t;

// The trace event (by its sequence number) that set a fault on the links going. Every
// message the fault then holds back or loses names it in the trace (message.held,
// message.lost), so a reader can tell what each fault touched: a delay spike on a link
// that carried nothing changed nothing. no_fault_cause: a fault nobody announced (a test's).
using FaultCause = std::uint64_t;
inline constexpr FaultCause no_fault_cause = std::numeric_limits<std::uint64_t>::max();

// What a link does besides delaying.
struct LinkBehaviour {
    Odds loss;             // messages dropped
    Odds duplication;      // messages delivered twice
    bool reorder = false;  // drop the in-order guarantee: each message keeps its own delay
};

// A message as the trace shows it: the label a sequence diagram writes on its arrow, and
// fields that say what it is about (among message.sent's optional fields: the customer, a
// key, a token), so that a report finds the messages about customer 42 without reading
// labels. A plain string is a message about nothing in particular. A label can also be
// made only when the trace will show it (deferred_label below): a sweep, which leaves
// messages out of the trace, then never formats one.
class MessageText {
public:
    using Maker = InlineFunction<std::string(), 80>;

    MessageText(std::string text) : label_(std::move(text)) {}  // NOLINT: implicit on purpose
    MessageText(const char* text) : label_(text) {}             // NOLINT
    MessageText(std::string text, std::vector<OwnedField> fields) : about(std::move(fields)), label_(std::move(text)) {}
    MessageText(MessageText text, std::vector<OwnedField> fields) : MessageText(std::move(text)) {
        about = std::move(fields);
    }
    static MessageText made_by(Maker make) {
        MessageText text("");
        text.make_ = std::move(make);
        return text;
    }

    // The label, made now if it was deferred.
    std::string label() && { return make_ ? make_() : std::move(label_); }

    std::vector<OwnedField> about;

private:
    std::string label_;
    Maker make_;
};

// `deferred_label("SET {} {} NX", key, value)`: the label fmt::format would make, made only
// if the trace shows the message. The arguments are copied, so it may be made later.
template <class... Args>
MessageText deferred_label(fmt::format_string<Args...> format, Args&&... args) {
    return MessageText::made_by(
        [format = fmt::string_view(format), ... values = std::decay_t<Args>(std::forward<Args>(args))] {
            return fmt::vformat(format, fmt::make_format_args(values...));
        });
}

// Which connection a message travels on. Each direction of a link is one stream that
// keeps its order (a message waits behind those sent before it), unless the sender opens
// one of its own for it: an HTTP client retrying on a new connection sends the retry
// beside a request still stuck on the old one. A stream loses nothing to a cut or to loss:
// it retransmits until the message gets through or gives up and resets
// (sim/tcp_stream.hpp). A datagram is sent once, and lost is lost. Faults on the link (a
// delay spike, a loss burst, a cut, a held message) touch every connection alike.
enum class Connection : std::uint8_t { shared, fresh, datagram };

// What runs on the receiver when a message arrives: a request's handler, with what it
// captured, fits without a heap allocation.
using Delivery = InlineFunction<void(), 160>;

// What runs, on `node`, when the stream a message travels on is reset before the message
// got through: the error a client's socket reports to the code waiting on it.
struct ResetNotice {
    NodeId node;
    InlineFunction<void(), 48> notify;
};

class Network {
public:
    explicit Network(Engine& engine) : engine_(engine) {}

    // A link between a and b (both directions) with the given delay.
    void connect(NodeId a, NodeId b, DelayModel delay, LinkBehaviour behaviour = {});
    // Every other pair of the engine's nodes is linked too, with this delay and behaviour.
    // Such a link joins the graph the first time a message or a fault uses it: a world of
    // n nodes costs what its messages and faults touch, not the n² links of a full mesh.
    void link_every_pair(DelayModel delay, LinkBehaviour behaviour = {});
    bool connected(NodeId a, NodeId b) const;

    // Faults, applied now. A cut direction loses every message sent on it until healed;
    // `heal` ends the cut `cause` made.
    void cut(NodeId from, NodeId to, FaultCause cause = no_fault_cause);
    void heal(NodeId from, NodeId to, FaultCause cause = no_fault_cause);
    // Messages sent from `from` to `to` before `until` are held back by `extra` more.
    void hold(NodeId from, NodeId to, Duration extra, Instant until, FaultCause cause = no_fault_cause);
    // The next message sent from `from` to `to` lands no sooner than `until` (one message
    // held in flight); those sent behind it on that direction wait behind it, as on a
    // connection that keeps its order.
    void hold_next(NodeId from, NodeId to, Instant until, FaultCause cause = no_fault_cause);
    // Messages sent from `from` to `to` before `until` are lost at these odds (a loss
    // burst: a flapping switch port, a full queue), besides the link's own loss.
    void lose(NodeId from, NodeId to, Odds odds, Instant until, FaultCause cause = no_fault_cause);
    // The groups of nodes that can still reach each other over links cut in neither
    // direction (connected components of the graph without the cut links), for the trace.
    std::vector<std::vector<NodeId>> reachable_groups() const;

    // Sends a message now; `on_delivery` runs on `to` when it arrives. Its label is what a
    // sequence diagram writes on the arrow ("SET lock:renewals 7f3a9c1e NX PX 30000").
    // On a fresh connection it waits behind nothing sent before and holds back nothing
    // sent after.
    // A message on a stream that the link cannot carry now waits for the stream's
    // retransmission (message.stalled); if the stream is reset first, `on_reset` runs.
    // A request (on_reset given, not a datagram, not a reply) also hears of a crash of the
    // receiver's process before it replies: the dead process's kernel resets the connection
    // (connection.refused) at the crash if the request had landed, or when it lands on the
    // closed port, as for a request sent while the process is down. A crashed machine
    // answers nothing: its callers wait for their own deadlines.
    MessageId send(NodeId from, NodeId to, MessageText message, Delivery on_delivery,
                   std::optional<MessageId> in_reply_to = std::nullopt, Connection connection = Connection::shared,
                   std::optional<ResetNotice> on_reset = std::nullopt);

    // The sender closes its stream to `to` (a client that gave up at its own deadline):
    // what the stream still holds is orphaned, retransmitted at most
    // tcp_stream::orphan_retries times and then dropped, with no one told; what `from`
    // sends next goes on a new stream, behind nothing sent before (connection.closed).
    void close_stream(NodeId from, NodeId to);

    // Sweeps leave messages out of the trace: checkers never read them, and they are most
    // of its size.
    void set_tracing_messages(bool on) { tracing_messages_ = on; }

    // The id the next send() will give its message, so a reply can name its request.
    MessageId next_message_id() const { return next_message_; }

    Engine& engine() const { return engine_; }

private:
    struct Hold {
        Duration extra;
        Instant until;
        FaultCause cause;
    };
    struct Burst {
        Odds loss;
        Instant until;
        FaultCause cause;
    };
    // A message a stream holds until a retransmission gets it through.
    struct Stalled {
        MessageId id;
        std::string label;  // empty unless the trace shows messages
        Delivery on_delivery;
        std::optional<ResetNotice> on_reset;
    };
    // A stream retransmitting: its messages in order, from the first it could not carry.
    struct Stall {
        NodeId from;
        NodeId to;
        bool shared = true;  // the direction's own stream, which later messages wait behind
        Instant since;
        int attempts = 0;                         // retransmissions made
        int most_attempts = tcp_stream::retries;  // before it gives up: fewer once orphaned
        FaultCause cause = no_fault_cause;
        std::vector<Stalled> messages;
    };
    struct Direction {
        RandomStream random;
        Instant last_delivery;
        std::optional<std::uint64_t> shared_stall;  // the direction's stream, while it retransmits
        // Partitions in force, oldest first: overlapping ones heal one at a time, and a
        // message lost to them is the oldest's.
        std::vector<FaultCause> cuts;
        std::vector<Hold> holds;      // delay spikes in force; the longest extra applies
        std::vector<Burst> bursts;    // loss bursts in force; each may lose a message
        std::vector<Hold> next_held;  // holds of the next message (extra unused); the latest until applies
    };
    struct Link {
        DelayModel delay;
        LinkBehaviour behaviour;
        std::uint32_t low_end = 0;          // node index of the end with the lower index
        std::optional<Direction> upward;    // from low_end to the other end
        std::optional<Direction> downward;  // the other way
    };
    struct LinkSpec {
        DelayModel delay;
        LinkBehaviour behaviour;
    };
    // A node's links in a hash set: finding the link between two nodes is O(1), however
    // many servers talk to the lock store (never iterated into output).
    using Graph = boost::adjacency_list<boost::hash_setS, boost::vecS, boost::undirectedS, boost::no_property, Link>;

    void ensure_vertices(std::uint32_t count);
    Link& add_link(NodeId a, NodeId b, const LinkSpec& spec);
    // The edge of the link between a and b if it has been made.
    std::optional<Graph::edge_descriptor> made_edge(std::uint32_t a, std::uint32_t b) const;
    Direction& direction(NodeId from, NodeId to);
    Link& link(NodeId a, NodeId b);
    // Messages pass between a and b both ways: linked, and cut in neither direction.
    bool open_both_ways(std::uint32_t a, std::uint32_t b) const;
    // Whether a message sent now on `way` is lost to a cut, the link's loss or a loss
    // burst, and to which fault (no_fault_cause for the link's own loss or none).
    std::pair<bool, FaultCause> lost_now(Link& l, Direction& way);
    // Runs `on_delivery` on `to` at `at`, recording the delivery if messages are traced.
    void deliver(Instant at, MessageId id, NodeId from, NodeId to, std::string label, Delivery on_delivery,
                 bool duplicate);
    // A stream's next retransmission, and what it finds.
    void schedule_retransmission(std::uint64_t stall);
    void retransmit(std::uint64_t stall);
    // Ends the direction's stream: what it held is orphaned (close_stream, a crashed
    // process) or, with `drop`, lost (a crashed machine: its kernel went too). The next
    // message on the direction starts a new stream.
    void end_stream(Direction& way, bool drop);
    void end_stall(std::uint64_t stall, bool drop);
    // message.lost for each message a stall held.
    void record_lost(const Stall& stall);
    // A crash of `node` ends the streams it was sending on: called the first time one of
    // its messages stalls.
    void watch_crashes_of(NodeId node);
    // A crash of `server`'s process resets the connections of the requests that await its
    // reply: called the first time a request is sent to it.
    void watch_server_crashes(NodeId server);
    // Each client of `requests` hears that its connection was refused (connection.refused).
    void refuse(NodeId server, Instant at, std::vector<std::pair<NodeId, ResetNotice>> requests);
    // A request on a stream to a process that is down: refused when it lands at `at` if the
    // process is still down.
    void refuse_if_still_down(Instant at, MessageId id, NodeId from, NodeId to, ResetNotice on_reset);

    std::map<std::uint64_t, Stall> stalls_;  // by number, the order they began in
    std::vector<bool> crashes_watched_;      // by node index
    // A request whose reply has not been sent yet, and who waits for it.
    struct AwaitingReply {
        NodeId client;
        Instant lands;  // when it reaches the server (a stalled one: when it stalled)
        ResetNotice notice;
    };
    // By the serving node's index, each by request id (the order they were sent in).
    std::vector<std::map<MessageId, AwaitingReply>> awaiting_reply_;
    std::vector<bool> server_crashes_watched_;  // by node index
    std::uint64_t next_stall_ = 0;

    Engine& engine_;
    Graph graph_;
    std::optional<LinkSpec> every_pair_;
    MessageId next_message_ = 1;
    bool tracing_messages_ = true;
};

}  // namespace locksim
