#pragma once
// Request and reply over the network, awaited like a function call:
//
//     std::optional<SetReply> reply = co_await call(network, self, store, "SET ...",
//         [&] { return Answer<SetReply>{store.set(...), "OK"}; }, 500ms);
//
// The handler runs on the server node when the request arrives there (later, if the
// server is paused) and its answer travels back as a second message. With a timeout the
// call races the reply against the client's monotonic clock: nullopt means no reply in
// time, and a reply that comes later is dropped, as a client library drops it.
#include <coroutine>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim {

template <class Reply>
struct Answer {
    Reply value;
    std::string label;  // written on the reply arrow: "OK", "(nil)", "0 rows"
};

template <class Reply>
class CallAwaiter {
public:
    CallAwaiter(Network& network, NodeId client, NodeId server, std::string label,
                std::function<Answer<Reply>()> handler, std::optional<Duration> timeout)
        : network_(network), client_(client), server_(server), label_(std::move(label)),
          handler_(std::move(handler)), timeout_(timeout) {}

    bool await_ready() const noexcept { return false; }

    void await_suspend(std::coroutine_handle<> waiter) {
        Engine& engine = network_.engine();
        const WaitTicket ticket = engine.park(client_, waiter);
        std::optional<Reply>* result = &result_;
        Network* network = &network_;
        const NodeId client = client_;
        const NodeId server = server_;
        const MessageId request_id = network_.next_message_id();
        network_.send(client, server, std::move(label_),
            [network, client, server, ticket, result, request_id, handler = std::move(handler_)] {
                Answer<Reply> answer = handler();
                network->send(server, client, std::move(answer.label),
                    [network, ticket, result, value = std::move(answer.value)]() mutable {
                        // `result` lives in the waiting coroutine's frame, which exists
                        // exactly as long as the ticket can still be claimed.
                        if (auto waiter = network->engine().claim(ticket)) {
                            *result = std::move(value);
                            waiter.resume();
                        }
                    },
                    request_id);
            });
        if (timeout_) {
            engine.schedule_after(client_, *timeout_, [&engine, ticket] {
                if (auto waiter = engine.claim(ticket)) waiter.resume();
            });
        }
    }

    std::optional<Reply> await_resume() { return std::move(result_); }

private:
    Network& network_;
    NodeId client_;
    NodeId server_;
    std::string label_;
    std::function<Answer<Reply>()> handler_;
    std::optional<Duration> timeout_;
    std::optional<Reply> result_;
};

template <class Handler>
auto call(Network& network, const Host& client, NodeId server, std::string label, Handler handler,
          std::optional<Duration> timeout = std::nullopt) {
    using Reply = decltype(handler().value);
    return CallAwaiter<Reply>(network, client.id(), server, std::move(label), std::move(handler), timeout);
}

}  // namespace locksim
