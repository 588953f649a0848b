#pragma once
// The discrete-event engine: true time, the event queue, nodes with their clocks,
// pauses, processes, randomness and the trace. It knows nothing about locks.
#include <cassert>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/clock.hpp"
#include "sim/crash_kind.hpp"
#include "sim/event_queue.hpp"
#include "sim/inline_function.hpp"
#include "sim/node_id.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

// A coroutine suspended in a race (a reply against a timeout, say): whichever side
// claims it first resumes it; the loser finds the ticket stale and does nothing.
struct WaitTicket {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
};

// A run that handled more events than it was allowed: a world that busy-loops (a retry
// without a delay, say) fails loudly instead of eating the machine.
class RunawayRun : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Where a recorded event sits in the order of the run's queue. `handling` numbers the queue
// event being handled when it was recorded; `gap` also counts every event scheduled for the
// very instant it was scheduled at. Two events with the same gap were recorded in one
// handling with nothing queued for that instant between them: an action scheduled right
// after either (an on_event trigger's) takes the same place in the queue, so explore needs
// to try a fault at only one of them.
struct QueuePlace {
    std::uint64_t handling = 0;
    std::uint64_t gap = 0;
};

struct RunSummary {
    Instant ended_at;              // the last event's true time, or the horizon if work was pending
    bool horizon_reached = false;  // events were still pending at the horizon
    std::uint64_t events_handled = 0;
};

// What a pending event runs. A message's delivery, with its label and handler, is the
// largest that common runs schedule; it fits, so scheduling allocates nothing.
using Callback = InlineFunction<void(), 256>;

class Engine {
public:
    explicit Engine(std::uint64_t seed);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    NodeId add_node(std::string name, ClockSettings clock = {});
    std::size_t node_count() const { return nodes_.size(); }
    const std::string& node_name(NodeId node) const;

    Instant now() const { return now_; }
    Instant wall_now(NodeId node) const;
    Instant monotonic_now(NodeId node) const;
    const NodeClock& clock(NodeId node) const;

    // Runs `fire` at true time `at` on `node` (no_node: the world). If the node is paused
    // then, it runs when the pause ends, after everything that fell due before it.
    void schedule_at(Instant at, NodeId node, Callback&& fire);
    // Runs `fire` when the node's monotonic clock has advanced by `delay` from now.
    void schedule_after(NodeId node, Duration delay, Callback&& fire);
    // Resumes `waiter` when the node's monotonic clock has advanced by `delay`: a sleep.
    // The hot path of every simulation, so it stores nothing but the frame's address.
    // Defined below: inline, so that a sleep compiles into the process's own code.
    void resume_after(NodeId node, Duration delay, std::coroutine_handle<> waiter);
    // Runs `fire` when the node's wall clock reads `deadline`, following clock steps.
    void schedule_at_wall(NodeId node, Instant deadline, Callback&& fire);

    // Starts `process` on `node` as a new event at the current time.
    void spawn(NodeId node, Task<void> process);

    // Faults, applied at the current time.
    void pause(NodeId node, Duration length, std::string cause);
    void step_wall_clock(NodeId node, Duration delta);
    // Corrects the wall clock by `correction` gradually, as NTP slews an offset under
    // 128 ms: at 500 ppm, without a visible step.
    void slew_wall_clock(NodeId node, Duration correction);
    // Ends every process on the node and drops what was due for it; messages to it are
    // lost until it restarts. Call from a world event, never from the node's own code.
    // `kind` says what else went: only the process (the kernel lives on, with what was
    // written to it), or the machine (power lost: what the disk had not synced too).
    void crash(NodeId node, std::string cause, CrashKind kind = CrashKind::process);
    // How the node last went down; models read it in their crash hooks.
    CrashKind crash_kind(NodeId node) const;
    // Brings a crashed node back: its start-up hooks run again, with what it persisted.
    void restart(NodeId node);

    // Models register what a crash wipes and what a restart runs.
    void on_crash(NodeId node, std::function<void()> hook);
    void on_restart(NodeId node, std::function<void()> hook);

    bool is_paused(NodeId node) const;
    // Time the node has spent paused so far, this one included: a process's CPU clock
    // does not advance for its own code while it is frozen.
    Duration time_paused(NodeId node) const;
    bool is_up(NodeId node) const;

    WaitTicket park(NodeId node, std::coroutine_handle<> waiter);
    // The parked coroutine if the ticket still holds (and frees the slot), else null.
    std::coroutine_handle<> claim(WaitTicket ticket);

    // A named random stream of this run; the same (seed, name) gives the same draws.
    RandomStream random_stream(std::string_view name) const { return RandomStream(seed_, name); }
    RandomStream random_stream(std::initializer_list<std::string_view> name_parts) const {
        return RandomStream(seed_, name_parts);
    }
    std::uint64_t seed() const { return seed_; }

    // Appends an event of `kind` to the trace. Fields that do not conform to the kind's
    // declaration are a bug in the caller: the run stops there, saying which field.
    void record(NodeId node, const KindSpec& kind, std::span<const Field> fields);
    void record(NodeId node, const KindSpec& kind, std::initializer_list<Field> fields) {
        record(node, kind, std::span<const Field>(fields.begin(), fields.size()));
    }

    // Runs `action` as a world event at the instant the `nth` matching trace event is
    // recorded: same kind, on `node` (no_node: any), with every field in `fields` equal.
    // Faults placed by events use this; the action runs after the code that recorded
    // the event has reached its next wait, as a GC can only stop a thread at a safepoint.
    // The action is told the node that recorded the matching event.
    void on_event(std::string kind, NodeId node, std::vector<std::pair<std::string, FieldValue>> fields, int nth,
                  std::function<void(NodeId recorded_at)> action);
    void on_event(std::string kind, NodeId node, std::vector<std::pair<std::string, FieldValue>> fields, int nth,
                  std::function<void()> action);
    const Trace& trace() const { return trace_; }
    // `reader` reads every event from now on as it is recorded; it must outlive the run.
    void add_trace_reader(TraceReader& reader) { readers_.push_back(&reader); }
    // Whether the trace keeps its events (true unless told), or only readers see them.
    void keep_trace_events(bool keep) { trace_.keep_events(keep); }
    // From now on, notes the QueuePlace of every recorded event, one per trace event.
    void note_queue_places() { noting_places_ = true; }
    std::vector<QueuePlace> take_queue_places() { return std::move(queue_places_); }
    void label_trace(const std::string& key, std::string value) { trace_.set_label(key, std::move(value)); }
    Trace take_trace() { return std::move(trace_); }

    // Ends the run after the event being handled (the world's work is done).
    void stop() { stopped_ = true; }

    // Handles events in order until none remain, stop() is called, or the next is after
    // `horizon`. Throws RunawayRun after `event_limit` events, or once the trace it keeps
    // holds more than `trace_bytes_limit`.
    // A process that throws ends the run: the exception propagates from here.
    RunSummary run(Instant horizon, std::uint64_t event_limit = default_event_limit,
                   std::size_t trace_bytes_limit = default_trace_bytes_limit);
    static constexpr std::uint64_t default_event_limit = 50'000'000;
    // What one run's kept trace may hold: memory is bounded by bytes, not by the events a run
    // may take (a run that keeps no trace, as a sweep's, holds little whatever its length).
    // 1 GiB is about 14 million events (some 75 bytes each), more than any page can show.
    static constexpr std::size_t default_trace_bytes_limit = std::size_t{1} << 30;

    // Called by a finished root process; see spawn().
    void process_finished(NodeId node, std::uint64_t process_id, std::exception_ptr error);

private:
    struct NodeState {
        std::string name;
        NodeClock clock;
        std::uint32_t incarnation = 0;
        bool up = true;
        bool paused = false;
        Instant crashed_at;
        CrashKind crash_kind = CrashKind::process;
        Instant paused_since;
        Instant paused_until;
        Duration paused_before{};     // the sum of the node's pauses that have ended
        std::vector<Event> deferred;  // fell due during the pause, in order
        std::map<std::uint64_t, std::coroutine_handle<>> processes;
        struct WallAlarm {
            Instant deadline;
            Callback fire;
            std::uint32_t generation = 0;
        };
        std::map<std::uint64_t, WallAlarm> wall_alarms;
        std::vector<std::function<void()>> crash_hooks;
        std::vector<std::function<void()>> restart_hooks;
    };
    struct Slot {
        std::uint32_t generation = 0;
        std::coroutine_handle<> waiter;
        NodeId node;
    };

    NodeState& state(NodeId node) {
        assert(node.index < nodes_.size());
        return nodes_[node.index];
    }
    const NodeState& state(NodeId node) const {
        assert(node.index < nodes_.size());
        return nodes_[node.index];
    }
    Instant when_monotonic_advanced(NodeId node, Duration delay) const;
    std::uint32_t store_callback(Callback&& fire);
    Callback take_callback(std::uint32_t index);  // and frees its slot
    void handle(Event event);
    void fire(const Event& event);
    void drop(const Event& event);
    void resume_node(NodeId node, Instant expected_end);
    void arm_wall_alarm(NodeId node, std::uint64_t alarm_id);
    void move_wall_clock(NodeId node, Duration delta);

    std::uint64_t seed_;
    Instant now_;
    EventQueue queue_;
    // Callbacks of pending events, by index; freed slots are reused. Index 0 is unused so
    // that an event's zero callback means "none".
    std::vector<Callback> callbacks_ = std::vector<Callback>(1);
    std::vector<std::uint32_t> free_callbacks_;
    std::vector<NodeState> nodes_;
    Trace trace_;
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> free_slots_;
    std::uint64_t next_process_id_ = 0;
    std::uint64_t next_alarm_id_ = 0;
    struct Trigger {
        std::string kind;
        NodeId node;
        std::vector<std::pair<std::string, FieldValue>> fields;
        int remaining = 1;
        std::function<void(NodeId)> action;
    };
    void fire_triggers(const TraceEvent& event);

    std::exception_ptr failure_;
    bool stopped_ = false;
    std::vector<Trigger> triggers_;
    std::vector<TraceReader*> readers_;
    // For QueuePlace: counted always (two increments are cheaper than a test), kept only when asked.
    std::uint64_t handlings_ = 0;
    std::uint64_t gaps_ = 0;
    bool noting_places_ = false;
    std::vector<QueuePlace> queue_places_;
};

inline void Engine::resume_after(NodeId node, Duration delay, std::coroutine_handle<> waiter) {
    assert(delay.ns >= 0);
    const NodeState& sleeper = state(node);
    const Instant due = sleeper.clock.exact_rate() ? now_ + delay : when_monotonic_advanced(node, delay);
    gaps_ += due == now_ ? 1 : 0;
    queue_.push(Event{
        .at = due, .action = EventAction::resume(waiter.address()), .node = node, .incarnation = sleeper.incarnation});
}

}  // namespace locksim
