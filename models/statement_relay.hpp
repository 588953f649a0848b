#pragma once
// A node between a client and the database that runs each of the client's statements on a
// server connection of its own (PgBouncer, models/stores/pgbouncer.hpp): the statement goes
// client → relay → database, its answer database → relay → client, and what the relay
// does between (which connection it lends, whether it must wait for one, whether that
// connection survives) is the relay's.
//
//     auto request = call_through<Reply>(network, host, relay, "SELECT …",
//         [](std::int64_t session) { return Answer<Reply>{...}; },  // at the database, on the lent session
//         Answer<Reply>{failed, "server conn crashed?"},            // the connection failed under it
//         timeout);
//     std::optional<Reply> reply = co_await request;
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "sim/network.hpp"
#include "sim/rpc.hpp"

namespace locksim {

// One statement as the relay carries it, its reply type erased.
struct RelayedStatement {
    NodeId client;
    MessageText label;  // what the relay sends on to the database: the client's own statement
    // At the database, on the server session lent for it (which is open): the answer's label.
    std::function<MessageText(std::int64_t session)> run;
    // Back at the relay: the answer goes to the client; or the connection failed under it.
    std::function<void()> respond;
    std::function<void()> fail;
};

class StatementRelay {
public:
    virtual ~StatementRelay() = default;
    // Where the clients send their statements.
    virtual NodeId node() const = 0;
    // Runs `statement` on a connection to the database, and answers the client.
    virtual void relay(RelayedStatement statement) = 0;
};

// What serves `client`'s statement at the relay: `work(session)` runs at the database, and
// its answer (or `failed`) comes back.
template <class Reply, class Work>
Serve<Reply> relayed(StatementRelay& relay, NodeId client, MessageText label, Work work, Answer<Reply> failed) {
    struct Shared {
        Work work;
        Answer<Reply> failed;
        MessageText label;
        std::optional<Answer<Reply>> answer;
    };
    auto shared = std::make_shared<Shared>(Shared{std::move(work), std::move(failed), std::move(label), {}});
    return [relay = &relay, client, shared](Respond<Reply> respond) {
        auto reply = std::make_shared<Respond<Reply>>(std::move(respond));
        relay->relay(RelayedStatement{client, shared->label,
                                      [shared](std::int64_t session) {
                                          shared->answer.emplace(shared->work(session));
                                          return shared->answer->label;
                                      },
                                      [shared, reply] { (*reply)(std::move(*shared->answer)); },
                                      [shared, reply] { (*reply)(std::move(shared->failed)); }});
    };
}

// A request to the relay, awaited as call() is: `work(session)` runs at the database.
template <class Reply, class Work>
CallAwaiter<Reply> call_through(Network& network, const Host& client, StatementRelay& relay, MessageText label,
                                Work work, Answer<Reply> failed, std::optional<Duration> timeout) {
    Serve<Reply> serve = relayed<Reply>(relay, client.id(), label, std::move(work), std::move(failed));
    return CallAwaiter<Reply>(network, client.id(), relay.node(), std::move(label), std::move(serve), timeout,
                              Connection::shared);
}

}  // namespace locksim
