#pragma once
// Running several awaitable steps side by side on one node and waiting for all of them:
//
//     std::vector<std::optional<bool>> replies = co_await gather(host, std::move(requests));
//
// A Redlock client asks five nodes at once; a leader sends to every follower at once.
// Each task runs as its own process on the host, so one slow node does not hold up the
// others, and a crash of the host ends them all with the caller.
#include <coroutine>
#include <memory>
#include <optional>
#include <vector>

#include "sim/host.hpp"

namespace locksim {

namespace detail {

template <class T>
struct Gathering {
    std::vector<std::optional<T>> results;
    std::size_t remaining = 0;
    std::coroutine_handle<> waiter;  // set while the caller is suspended
    Engine* engine = nullptr;
    NodeId node;
};

template <class T>
Task<void> run_into(std::shared_ptr<Gathering<T>> gathering, std::size_t index, Task<T> task) {
    T result = co_await task;
    gathering->results[index].emplace(std::move(result));
    if (--gathering->remaining == 0 && gathering->waiter) {
        // Resume the caller as an event of its own, not inside this finishing process.
        auto waiter = std::exchange(gathering->waiter, nullptr);
        gathering->engine->schedule_at(gathering->engine->now(), gathering->node, [waiter] { waiter.resume(); });
    }
}

template <class T>
struct GatherAwaiter {
    std::shared_ptr<Gathering<T>> gathering;
    bool await_ready() const noexcept { return gathering->remaining == 0; }
    void await_suspend(std::coroutine_handle<> waiter) { gathering->waiter = waiter; }
    std::vector<T> await_resume() {
        std::vector<T> results;
        results.reserve(gathering->results.size());
        for (auto& result : gathering->results) results.push_back(std::move(*result));
        return results;
    }
};

}  // namespace detail

// Starts every task now and resumes the caller when the last one has finished; the
// results come back in the order of `tasks`.
template <class T>
Task<std::vector<T>> gather(Host host, std::vector<Task<T>> tasks) {
    auto gathering = std::make_shared<detail::Gathering<T>>();
    gathering->results.resize(tasks.size());
    gathering->remaining = tasks.size();
    gathering->engine = &host.engine();
    gathering->node = host.id();
    for (std::size_t i = 0; i < tasks.size(); ++i) host.spawn(detail::run_into<T>(gathering, i, std::move(tasks[i])));
    detail::GatherAwaiter<T> all_done{gathering};
    co_return co_await all_done;
}

}  // namespace locksim
