#pragma once
// The network: nodes and links in a Boost.Graph graph. Every message crosses one link,
// which delays it by a fixed or random amount and keeps each direction in order (as a
// TCP connection does). Delivery is an event on the receiving node, so a paused
// receiver handles it when it resumes.
#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sim/distribution.hpp"
#include "sim/engine.hpp"
#include "sim/random.hpp"

namespace locksim {

using MessageId = std::uint64_t;

class Network {
public:
    explicit Network(Engine& engine) : engine_(engine) {}

    // A link between a and b (both directions) with the given delay.
    void connect(NodeId a, NodeId b, DelayModel delay);
    bool connected(NodeId a, NodeId b) const;

    // Sends a message now; `on_delivery` runs on `to` when it arrives. `label` is what a
    // sequence diagram writes on the arrow ("SET lock:renewals 7f3a9c1e NX PX 30000").
    MessageId send(NodeId from, NodeId to, std::string label, std::function<void()> on_delivery,
                   std::optional<MessageId> in_reply_to = std::nullopt);

    // Sweeps leave messages out of the trace: checkers never read them, and they are most
    // of its size.
    void set_tracing_messages(bool on) { tracing_messages_ = on; }

    // The id the next send() will give its message, so a reply can name its request.
    MessageId next_message_id() const { return next_message_; }

    Engine& engine() const { return engine_; }

private:
    struct Direction {
        RandomStream random;
        Instant last_delivery;
    };
    struct Link {
        DelayModel delay;
        std::uint32_t low_end = 0;  // node index of the end with the lower index
        std::optional<Direction> upward;    // from low_end to the other end
        std::optional<Direction> downward;  // the other way
    };
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property, Link>;

    void ensure_vertices(std::uint32_t count);

    Engine& engine_;
    Graph graph_;
    MessageId next_message_ = 1;
    bool tracing_messages_ = true;
};

}  // namespace locksim
