#pragma once
// Request and reply over the network, awaited like a function call:
//
//     auto request = call(network, self, store_node, "SET ...",
//         [store, key, value] { return Answer<bool>{store->set(key, value), "OK"}; }, 500ms);
//     std::optional<bool> reply = co_await request;
//
// Capture by value: the handler runs later, on the server, perhaps after the caller
// gave up waiting. (Keep the awaitable in a named variable: GCC 12 mishandles
// temporaries inside a co_await expression.)
//
// The handler runs on the server node when the request arrives there (later, if the
// server is paused) and its answer travels back as a second message. A handler that
// must wait (a leader collecting a majority) returns Task<Answer<Reply>>: it runs as a
// process on the server, and the reply leaves when it finishes. With a timeout the
// call races the reply against the client's monotonic clock: nullopt means no reply in
// time, and a reply that comes later is dropped, as a client library drops it. A reset of
// the connection (sim/tcp_stream.hpp) also ends the wait with nullopt; was_reset() tells.
#include <coroutine>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim {

template <class Reply>
struct Answer {
    Reply value;
    MessageText label;  // written on the reply arrow: "OK", "(nil)", "0 rows"
};

template <class Reply>
using Respond = InlineFunction<void(Answer<Reply>), 48>;

// What the server does with a request: compute the answer and hand it to `respond`,
// now or later. Sized so that a request's delivery, which holds it, fits in a Delivery.
template <class Reply>
using Serve = InlineFunction<void(Respond<Reply>), 96>;

namespace detail {
template <class Reply>
Task<void> serve_then_respond(Task<Answer<Reply>> handling, Respond<Reply> respond) {
    Answer<Reply> answer = co_await handling;
    respond(std::move(answer));
}

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<Task<T>> : std::true_type {};
}  // namespace detail

template <class Reply>
class CallAwaiter {
public:
    CallAwaiter(Network& network, NodeId client, NodeId server, MessageText label, Serve<Reply> serve,
                std::optional<Duration> timeout, Connection connection)
        : network_(network),
          client_(client),
          server_(server),
          label_(std::move(label)),
          serve_(std::move(serve)),
          timeout_(timeout),
          connection_(connection) {}

    bool await_ready() const noexcept { return false; }

    void await_suspend(std::coroutine_handle<> waiter) {
        Engine& engine = network_.engine();
        const WaitTicket ticket = engine.park(client_, waiter);
        std::optional<Reply>* result = &result_;
        Network* network = &network_;
        const NodeId client = client_;
        const NodeId server = server_;
        const MessageId request_id = network_.next_message_id();
        const Connection connection = connection_;
        // A reset of the stream either way is the client's error: it stops waiting, with no
        // reply, as at its timeout.
        bool* reset = &reset_;
        const auto reset_notice = [network, client, ticket, reset] {
            return ResetNotice{client, [network, ticket, reset] {
                                   if (auto waiter = network->engine().claim(ticket)) {
                                       *reset = true;
                                       waiter.resume();
                                   }
                               }};
        };
        // The reply comes back on the connection the request went out on.
        network_.send(
            client, server, std::move(label_),
            [network, client, server, ticket, result, request_id, connection, reset_notice, serve = std::move(serve_)] {
                serve([network, client, server, ticket, result, request_id, connection,
                       reset_notice](Answer<Reply> answer) {
                    network->send(
                        server, client, std::move(answer.label),
                        [network, ticket, result, value = std::move(answer.value)]() mutable {
                            // `result` lives in the waiting coroutine's frame, which exists
                            // exactly as long as the ticket can still be claimed.
                            if (auto waiter = network->engine().claim(ticket)) {
                                *result = std::move(value);
                                waiter.resume();
                            }
                        },
                        request_id, connection, reset_notice());
                });
            },
            std::nullopt, connection, reset_notice());
        if (timeout_) {
            engine.schedule_after(client_, *timeout_, [&engine, ticket] {
                if (auto waiter = engine.claim(ticket)) waiter.resume();
            });
        }
    }

    std::optional<Reply> await_resume() { return std::move(result_); }
    // Whether no reply came because the connection was reset (else: the timeout passed).
    bool was_reset() const { return reset_; }

private:
    Network& network_;
    NodeId client_;
    NodeId server_;
    MessageText label_;
    Serve<Reply> serve_;
    std::optional<Duration> timeout_;
    Connection connection_;
    std::optional<Reply> result_;
    bool reset_ = false;
};

// On a fresh connection, the request and its reply wait behind nothing else on the link.
template <class Handler>
auto call(Network& network, const Host& client, NodeId server, MessageText label, Handler handler,
          std::optional<Duration> timeout = std::nullopt, Connection connection = Connection::shared) {
    using Result = decltype(handler());
    if constexpr (detail::is_task<Result>::value) {
        using Reply = decltype(std::declval<Result&>().await_resume().value);
        Engine* engine = &network.engine();
        Serve<Reply> serve = [engine, server, handler = std::move(handler)](Respond<Reply> respond) {
            engine->spawn(server, detail::serve_then_respond<Reply>(handler(), std::move(respond)));
        };
        return CallAwaiter<Reply>(network, client.id(), server, std::move(label), std::move(serve), timeout,
                                  connection);
    } else {
        using Reply = decltype(handler().value);
        Serve<Reply> serve = [handler = std::move(handler)](Respond<Reply> respond) { respond(handler()); };
        return CallAwaiter<Reply>(network, client.id(), server, std::move(label), std::move(serve), timeout,
                                  connection);
    }
}

}  // namespace locksim
