#pragma once
// A node as the code running on it sees it: its own clocks, sleeping, spawning
// background processes, randomness and the trace. Nothing here reads true time, except
// compute(), which counts running time the way the OS accounts a process's CPU time.
#include <coroutine>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.hpp"
#include "sim/task.hpp"

namespace locksim {

class Host {
public:
    Host(Engine& engine, NodeId id) : engine_(&engine), id_(id) {}

    NodeId id() const { return id_; }
    Engine& engine() const { return *engine_; }
    const std::string& name() const { return engine_->node_name(id_); }

    Instant wall_now() const { return engine_->wall_now(id_); }
    Instant monotonic_now() const { return engine_->monotonic_now(id_); }

    // `co_await host.sleep(4s)`: resumes when this node's monotonic clock has advanced by
    // the duration (later, if the node is paused when it falls due).
    auto sleep(Duration length) const {
        struct Sleep {
            Engine* engine;
            NodeId node;
            Duration length;
            bool await_ready() const noexcept { return false; }
            void await_suspend(std::coroutine_handle<> waiter) const { engine->resume_after(node, length, waiter); }
            void await_resume() const noexcept {}
        };
        return Sleep{engine_, id_, length};
    }

    // `co_await host.sleep_until_wall(midnight)`: resumes when this node's wall clock
    // reads `reading` (at once if it already does), following any steps of that clock.
    auto sleep_until_wall(Instant reading) const {
        struct SleepUntilWall {
            Engine* engine;
            NodeId node;
            Instant reading;
            bool await_ready() const noexcept { return engine->wall_now(node) >= reading; }
            void await_suspend(std::coroutine_handle<> waiter) const {
                engine->schedule_at_wall(node, reading, [waiter] { waiter.resume(); });
            }
            void await_resume() const noexcept {}
        };
        return SleepUntilWall{engine_, id_, reading};
    }

    // `co_await host.compute(35s)`: processor work. Unlike sleep, a pause stops it: it
    // ends once the node has run for `length`, pauses not counted.
    Task<void> compute(Duration length) const {
        Duration left = length;
        while (left.ns > 0) {
            const Instant start = engine_->now();
            const Duration paused_before = engine_->time_paused(id_);
            co_await sleep(left);
            left -= (engine_->now() - start) - (engine_->time_paused(id_) - paused_before);
        }
    }

    void spawn(Task<void> process) const { engine_->spawn(id_, std::move(process)); }

    // This node's stream `name`; e.g. "lock-values" on server-1 is "server-1/lock-values".
    RandomStream random_stream(std::string_view stream) const { return engine_->random_stream({name(), "/", stream}); }

    void record(const KindSpec& kind, std::span<const Field> fields) const { engine_->record(id_, kind, fields); }
    void record(const KindSpec& kind, std::initializer_list<Field> fields) const { engine_->record(id_, kind, fields); }

private:
    Engine* engine_;
    NodeId id_;
};

}  // namespace locksim
