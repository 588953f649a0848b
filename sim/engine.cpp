#include "sim/engine.hpp"

#include "sim/duration_text.hpp"
#include "sim/frame_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>

namespace locksim {
namespace {

// The outermost frame of a spawned process. It owns the process's Task chain; when the
// process ends it reports to the engine, which destroys the frame (and with it the chain).
struct RootProcess {
    struct promise_type : frame_pool::PooledFrame {
        Engine* engine = nullptr;
        NodeId node;
        std::uint64_t id = 0;
        std::exception_ptr error;

        RootProcess get_return_object() {
            return RootProcess{std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct Finish {
            bool await_ready() noexcept { return false; }
            void await_suspend(std::coroutine_handle<promise_type> self) noexcept {
                auto& promise = self.promise();
                promise.engine->process_finished(promise.node, promise.id, promise.error);
            }
            void await_resume() noexcept {}
        };
        Finish final_suspend() noexcept { return {}; }
        void return_void() noexcept {}
        void unhandled_exception() noexcept { error = std::current_exception(); }
    };
    std::coroutine_handle<promise_type> handle;
};

RootProcess run_as_root(Task<void> process) {
    co_await process;
}

}  // namespace

Engine::Engine(std::uint64_t seed) : seed_(seed) {}

Engine::~Engine() {
    // Processes still suspended at the end of a run (a server loop, a retrying client)
    // are destroyed here; their pending events die with the queue.
    for (auto& node : nodes_) {
        auto processes = std::move(node.processes);
        for (auto& [id, handle] : processes) handle.destroy();
    }
}

NodeId Engine::add_node(std::string name, ClockSettings clock) {
    NodeId id{static_cast<std::uint32_t>(nodes_.size())};
    NodeState node;
    node.name = name;
    node.clock = NodeClock(clock);
    nodes_.push_back(std::move(node));
    trace_.add_node_name(std::move(name));
    return id;
}

const std::string& Engine::node_name(NodeId node) const {
    return state(node).name;
}
Instant Engine::wall_now(NodeId node) const {
    return state(node).clock.wall(now_);
}
Instant Engine::monotonic_now(NodeId node) const {
    return state(node).clock.monotonic(now_);
}
const NodeClock& Engine::clock(NodeId node) const {
    return state(node).clock;
}
bool Engine::is_paused(NodeId node) const {
    return state(node).paused;
}
bool Engine::is_up(NodeId node) const {
    return state(node).up;
}

void Engine::on_crash(NodeId node, std::function<void()> hook) {
    state(node).crash_hooks.push_back(std::move(hook));
}
void Engine::on_restart(NodeId node, std::function<void()> hook) {
    state(node).restart_hooks.push_back(std::move(hook));
}

CrashKind Engine::crash_kind(NodeId node) const {
    return state(node).crash_kind;
}

void Engine::crash(NodeId node, std::string cause, CrashKind kind) {
    auto& target = state(node);
    if (!target.up) return;
    record(node, trace_kind::node_crashed, {{"cause", cause}, {"kind", to_string(kind)}});
    target.up = false;
    target.crashed_at = now_;
    target.crash_kind = kind;
    ++target.incarnation;  // everything already scheduled for it is now stale
    target.paused = false;
    for (const auto& event : target.deferred) drop(event);
    target.deferred.clear();
    target.wall_alarms.clear();
    for (std::uint32_t index = 0; index < slots_.size(); ++index) {
        Slot& slot = slots_[index];
        if (slot.node != node || !slot.waiter) continue;
        slot.waiter = nullptr;
        ++slot.generation;
        free_slots_.push_back(index);
    }
    auto processes = std::move(target.processes);
    target.processes.clear();
    for (auto& [id, frame] : processes) frame.destroy();
    // A copy: a hook may make another register (the network watches a node's crashes from
    // its first stalled message, which a hook's goodbye can be).
    const auto hooks = target.crash_hooks;
    for (const auto& hook : hooks) hook();
}

void Engine::restart(NodeId node) {
    auto& target = state(node);
    if (target.up) return;
    target.up = true;
    record(node, trace_kind::node_restarted, {{"down_for", now_ - target.crashed_at}});
    for (auto& hook : target.restart_hooks) hook();
}

std::uint32_t Engine::store_callback(Callback&& fire) {
    if (free_callbacks_.empty()) {
        callbacks_.push_back(std::move(fire));
        return static_cast<std::uint32_t>(callbacks_.size() - 1);
    }
    const std::uint32_t index = free_callbacks_.back();
    free_callbacks_.pop_back();
    callbacks_[index] = std::move(fire);
    return index;
}

void Engine::schedule_at(Instant at, NodeId node, Callback&& fire) {
    assert(at >= now_);
    const std::uint32_t incarnation = node.valid() ? state(node).incarnation : 0;
    gaps_ += at == now_ ? 1 : 0;
    queue_.push(Event{.at = at,
                      .action = EventAction::call(store_callback(std::move(fire))),
                      .node = node,
                      .incarnation = incarnation});
}

Instant Engine::when_monotonic_advanced(NodeId node, Duration delay) const {
    assert(delay.ns >= 0);
    const NodeClock& clock = state(node).clock;
    const Instant due = clock.when_monotonic_reads(clock.monotonic(now_) + delay);
    return due < now_ ? now_ : due;
}

void Engine::schedule_after(NodeId node, Duration delay, Callback&& fire) {
    schedule_at(when_monotonic_advanced(node, delay), node, std::move(fire));
}

void Engine::schedule_at_wall(NodeId node, Instant deadline, Callback&& fire) {
    const std::uint64_t id = next_alarm_id_++;
    NodeState::WallAlarm alarm;
    alarm.deadline = deadline;
    alarm.fire = std::move(fire);
    state(node).wall_alarms.emplace(id, std::move(alarm));
    arm_wall_alarm(node, id);
}

void Engine::arm_wall_alarm(NodeId node, std::uint64_t alarm_id) {
    auto& alarm = state(node).wall_alarms.at(alarm_id);
    const Instant due = state(node).clock.when_wall_reads(alarm.deadline);
    const std::uint32_t generation = ++alarm.generation;
    schedule_at(due < now_ ? now_ : due, node, [this, node, alarm_id, generation] {
        auto& alarms = state(node).wall_alarms;
        auto found = alarms.find(alarm_id);
        if (found == alarms.end() || found->second.generation != generation) return;  // re-armed by a step
        auto fire = std::move(found->second.fire);
        alarms.erase(found);
        fire();
    });
}

void Engine::spawn(NodeId node, Task<void> process) {
    RootProcess root = run_as_root(std::move(process));
    const std::uint64_t id = next_process_id_++;
    root.handle.promise().engine = this;
    root.handle.promise().node = node;
    root.handle.promise().id = id;
    state(node).processes.emplace(id, root.handle);
    std::coroutine_handle<> start = root.handle;
    schedule_at(now_, node, [start] { start.resume(); });
}

void Engine::process_finished(NodeId node, std::uint64_t process_id, std::exception_ptr error) {
    auto& processes = state(node).processes;
    auto found = processes.find(process_id);
    assert(found != processes.end());
    std::coroutine_handle<> frame = found->second;
    processes.erase(found);
    frame.destroy();
    if (error && !failure_) failure_ = error;
}

void Engine::pause(NodeId node, Duration length, std::string cause) {
    assert(length.ns >= 0);
    auto& target = state(node);
    if (!target.up) return;  // nothing runs on a crashed node to be paused
    const Instant end = now_ + length;
    if (target.paused && target.paused_until >= end) return;  // already frozen for longer
    if (!target.paused) target.paused_since = now_;
    target.paused = true;
    target.paused_until = end;
    record(node, trace_kind::node_paused, {{"for", length}, {"cause", cause}});
    // The resume is a world event: it must run even though the node itself is frozen.
    schedule_at(end, no_node, [this, node, end] { resume_node(node, end); });
}

Duration Engine::time_paused(NodeId node) const {
    const auto& target = state(node);
    return target.paused_before + (target.paused ? now_ - target.paused_since : Duration{});
}

void Engine::resume_node(NodeId node, Instant expected_end) {
    auto& target = state(node);
    if (!target.paused || target.paused_until != expected_end) return;  // the pause was extended
    target.paused = false;
    target.paused_before += now_ - target.paused_since;
    auto deferred = std::move(target.deferred);
    target.deferred.clear();
    record(node, trace_kind::node_resumed, {{"paused_for", now_ - target.paused_since}});
    // What fell due during the pause runs now, in the order it fell due, before anything
    // scheduled later for this instant.
    for (auto& event : deferred) {
        if (target.paused) {  // a deferred event cannot pause its own node, but stay safe
            target.deferred.push_back(std::move(event));
            continue;
        }
        handle(std::move(event));
        if (failure_) return;
    }
}

void Engine::step_wall_clock(NodeId node, Duration delta) {
    auto& target = state(node);
    const Instant before = target.clock.wall(now_);
    move_wall_clock(node, delta);
    record(node, trace_kind::clock_stepped, {{"old_wall", before}, {"new_wall", target.clock.wall(now_)}});
}

void Engine::slew_wall_clock(NodeId node, Duration correction) {
    // NTP slews at most 500 ppm: 0.5 ms of correction per second, here in 50 us steps
    // every 100 ms of true time, too small for anything to notice one of them.
    constexpr Duration step = microseconds(50);
    constexpr Duration every = milliseconds(100);
    const bool forward = correction.ns >= 0;
    const Duration total = forward ? correction : -correction;
    const std::int64_t steps = total.ns / step.ns;
    const Duration last = Duration{total.ns % step.ns};
    record(node, trace_kind::clock_slewing, {{"by", correction}, {"over", every * (steps + (last.ns > 0 ? 1 : 0))}});
    for (std::int64_t i = 1; i <= steps + (last.ns > 0 ? 1 : 0); ++i) {
        const Duration amount = i <= steps ? step : last;
        schedule_at(now_ + every * i, no_node,
                    [this, node, delta = forward ? amount : -amount] { move_wall_clock(node, delta); });
    }
}

void Engine::move_wall_clock(NodeId node, Duration delta) {
    auto& target = state(node);
    target.clock.step_wall(delta);
    // Alarms set for a wall-clock reading now fall due at another true time.
    std::vector<std::uint64_t> ids;
    for (const auto& [id, alarm] : target.wall_alarms) ids.push_back(id);
    for (auto id : ids) arm_wall_alarm(node, id);
}

WaitTicket Engine::park(NodeId node, std::coroutine_handle<> waiter) {
    std::uint32_t index;
    if (!free_slots_.empty()) {
        index = free_slots_.back();
        free_slots_.pop_back();
    } else {
        index = static_cast<std::uint32_t>(slots_.size());
        slots_.push_back({});
    }
    slots_[index].waiter = waiter;
    slots_[index].node = node;
    return WaitTicket{index, slots_[index].generation};
}

std::coroutine_handle<> Engine::claim(WaitTicket ticket) {
    assert(ticket.slot < slots_.size());
    Slot& slot = slots_[ticket.slot];
    if (slot.generation != ticket.generation || !slot.waiter) return nullptr;
    std::coroutine_handle<> waiter = std::exchange(slot.waiter, nullptr);
    ++slot.generation;
    free_slots_.push_back(ticket.slot);
    return waiter;
}

void Engine::record(NodeId node, const KindSpec& kind, std::span<const Field> fields) {
    // Checked here rather than in a checker that reads the field later.
    const CheckedFields checked(kind, fields);
    TraceEvent event;
    event.at = now_;
    event.node = node;
    event.kind = kind;
    checked.set_on(event);
    if (node.valid()) {
        event.wall = wall_now(node);
        event.monotonic = monotonic_now(node);
    }
    event.sequence = trace_.recorded();
    for (TraceReader* reader : readers_) reader->read(trace_, event);
    // The event's place is noted before a trigger on it queues its action.
    if (noting_places_) {
        // Explore's pruning compares places: they never go back, and a new handling also
        // starts a new gap.
        if (!queue_places_.empty()) {
            const QueuePlace& last = queue_places_.back();
            assert(last.handling <= handlings_);
            assert(last.gap <= gaps_);
            assert(last.handling == handlings_ || last.gap < gaps_);
        }
        queue_places_.push_back(QueuePlace{handlings_, gaps_});
    }
    if (!triggers_.empty()) fire_triggers(event);
    trace_.append(event);
}

void Engine::on_event(std::string kind, NodeId node, std::vector<std::pair<std::string, FieldValue>> fields, int nth,
                      std::function<void(NodeId)> action) {
    assert(nth >= 1);
    triggers_.push_back(Trigger{std::move(kind), node, std::move(fields), nth, std::move(action)});
}

void Engine::on_event(std::string kind, NodeId node, std::vector<std::pair<std::string, FieldValue>> fields, int nth,
                      std::function<void()> action) {
    on_event(std::move(kind), node, std::move(fields), nth, [action = std::move(action)](NodeId) { action(); });
}

void Engine::fire_triggers(const TraceEvent& event) {
    for (auto& trigger : triggers_) {
        if (trigger.remaining == 0 || trigger.kind != event.kind) continue;
        if (trigger.node.valid() && trigger.node != event.node) continue;
        const bool matches = std::all_of(trigger.fields.begin(), trigger.fields.end(), [&event](const auto& wanted) {
            const std::optional<FieldView> value = event.find(wanted.first);
            return value.has_value() && *value == view_of(wanted.second);
        });
        if (!matches || --trigger.remaining > 0) continue;
        schedule_at(now_, no_node, [action = std::move(trigger.action), at = event.node] { action(at); });
    }
}

void Engine::handle(Event event) {
    if (event.node.valid()) {
        auto& target = state(event.node);
        if (event.incarnation != target.incarnation || !target.up) {  // lost in a crash
            drop(event);
            return;
        }
        if (target.paused) {
            target.deferred.push_back(event);
            return;
        }
    }
    fire(event);
}

void Engine::fire(const Event& event) {
    if (event.action.is_resume()) {
        std::coroutine_handle<>::from_address(event.action.frame()).resume();
        return;
    }
    // Taken out first: the callback may schedule events, which may reuse its slot.
    take_callback(event.action.callback())();
}

Callback Engine::take_callback(std::uint32_t index) {
    Callback callback = std::move(callbacks_[index]);
    callbacks_[index] = nullptr;
    free_callbacks_.push_back(index);
    return callback;
}

// An event that will never run gives its callback slot back; a coroutine it would have
// resumed belongs to a crashed process, whose frames the crash destroyed.
void Engine::drop(const Event& event) {
    if (!event.action.is_resume()) take_callback(event.action.callback());
}

RunSummary Engine::run(Instant horizon, std::uint64_t event_limit, std::size_t trace_bytes_limit) {
    RunSummary summary;
    while (!queue_.empty() && !failure_ && !stopped_) {
        if (queue_.next().at > horizon) {
            summary.horizon_reached = true;
            now_ = horizon;
            break;
        }
        if (summary.events_handled == event_limit)
            throw RunawayRun(
                fmt::format("the run handled {} events by true time {} and was stopped; something "
                            "may be retrying without a delay (if the run is meant to be this long, "
                            "raise the limit with --max-events)",
                            event_limit, format_seconds(now_)));
        // Now and then: the trace grows by a few events at each handling.
        if (summary.events_handled % 4096 == 0 && trace_.bytes_held() > trace_bytes_limit) {
            // In MiB to a tenth, rounded down.
            const auto mib = [](std::size_t bytes) {
                const std::size_t tenths = bytes * 10 >> 20;
                return fmt::format("{}.{} MiB", tenths / 10, tenths % 10);
            };
            throw RunawayRun(fmt::format(
                "the run's trace held {} ({} events) by true time {} and was stopped, more than the {} one run "
                "may keep; shorten the horizon or the job, or run it with locksim sweep, which keeps no trace",
                mib(trace_.bytes_held()), trace_.events().size(), format_seconds(now_), mib(trace_bytes_limit)));
        }
        Event event = queue_.pop();
        // True time never goes back: the queue hands out events in (time, sequence) order,
        // and nothing may be scheduled before now.
        assert(event.at >= now_);
        now_ = event.at;
        ++handlings_;
        ++gaps_;
        // In a large queue, the next event's coroutine frame is most likely far away in
        // memory (P processes, one frame each): start fetching it while this one runs.
        if (queue_.large() && !queue_.empty() && queue_.next().action.is_resume()) {
            const auto* frame = static_cast<const char*>(queue_.next().action.frame());
            __builtin_prefetch(frame);
            __builtin_prefetch(frame + 64);  // a frame's second line: 128-byte frames span two
        }
        handle(event);
        ++summary.events_handled;
    }
    summary.ended_at = now_;
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
    return summary;
}

}  // namespace locksim
