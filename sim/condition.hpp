#pragma once
// A condition processes on one node wait on until another event says "something
// changed" (a replica acknowledged, a row lock was released). Waiters re-check their own
// predicate after waking, as with a condition variable:
//
//     while (acked() < wanted)
//         if (!co_await acks_changed.wait(host, deadline - host.monotonic_now())) break;  // timed out
#include <coroutine>
#include <optional>
#include <vector>

#include "sim/host.hpp"

namespace locksim {

class Condition {
public:
    // Resumes with true when notified, false when `timeout` passed first (nullopt: no timeout).
    auto wait(const Host& host, std::optional<Duration> timeout = std::nullopt) {
        struct Wait {
            Condition* condition;
            Host host;
            std::optional<Duration> timeout;
            bool notified = false;
            bool await_ready() const noexcept { return timeout && timeout->ns <= 0; }
            void await_suspend(std::coroutine_handle<> waiter) {
                Engine& engine = host.engine();
                const WaitTicket ticket = engine.park(host.id(), waiter);
                condition->waiters_.push_back(Waiter{ticket, host.id(), &notified});
                if (timeout)
                    engine.schedule_after(host.id(), *timeout, [&engine, ticket] {
                        if (auto resumed = engine.claim(ticket)) resumed.resume();
                    });
            }
            bool await_resume() const noexcept { return notified; }
        };
        return Wait{this, host, timeout};
    }

    // Wakes every waiter, each as an event of its own on its node, in the order they waited.
    void notify_all(Engine& engine) {
        auto waiters = std::move(waiters_);
        waiters_.clear();
        for (const auto& waiter : waiters) {
            engine.schedule_at(engine.now(), waiter.node, [&engine, waiter] {
                // The flag lives in the waiting frame, which exists while the ticket holds.
                if (auto resumed = engine.claim(waiter.ticket)) {
                    *waiter.notified = true;
                    resumed.resume();
                }
            });
        }
    }

private:
    struct Waiter {
        WaitTicket ticket;
        NodeId node;
        bool* notified;
    };
    std::vector<Waiter> waiters_;
};

}  // namespace locksim
