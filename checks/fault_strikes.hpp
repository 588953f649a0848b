#pragma once
// Where each fault struck and whether it reached the lock (the test in
// checks/fault_effects.hpp), read from a run's events one at a time in the order they were
// recorded: over a kept trace when a run's faults are judged, and as a sweep's run records
// them, which keeps no trace, to count the runs its faults reached.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/fault_effects.hpp"
#include "sim/trace.hpp"

namespace locksim {

// Every strike of a run: the scenario's own faults' by their place in its "faults" list,
// and how many of the drawn ones there were.
struct Strikes {
    std::map<std::size_t, std::vector<FaultStrike>> of_fault;  // the scenario's own, by number
    bool reached_the_lock = false;                             // any fault, drawn ones too
    std::size_t drawn = 0;                                     // strikes of drawn faults
};

// Follows what each server was doing and how many locks the store held, and judges each
// strike of a fault (own or drawn). Three kinds of strike are judged beyond their moment:
//  - a fault on links, by the messages that name it (message.held, message.lost) as they
//    are sent: one of the lock reaches it;
//  - a clock step or slew, whose clock stays changed: it reaches the lock when its node
//    holds the lock then or at any later time (a waiting server that takes the lock later
//    times its lease on the changed clock);
//  - the rest (a pause, a crash) only at their moment, as the node was then.
// `without_lock`: the design has no lock (nobody ever believes it holds one), so a server
// at work is what a fault can hurt.
class StrikeReader {
public:
    explicit StrikeReader(bool without_lock) : without_lock_(without_lock) {}

    void read(const TraceEvent& event);
    // Once true it stays true: what reached the lock is never taken back.
    bool reached_the_lock() const { return reached_; }
    Strikes finish();

private:
    // What a server was doing, as its own events tell it.
    struct ServerState {
        bool job_started = false;
        bool job_finished = false;
        bool believes = false;
    };

    void follow(const TraceEvent& event);
    bool is_server(NodeId node) const { return servers_.contains(node.index); }
    bool holder_at_store(NodeId node) const;
    bool server_at_work(NodeId node) const;
    bool in_store(const FaultStrike& strike) const;
    bool reaches(const FaultStrike& strike) const;
    bool at_work(const ServerState& state) const;
    std::string describe(const ServerState& state) const;
    void strike(const TraceEvent& event);
    void reach_later();
    void touch(const TraceEvent& event);

    bool without_lock_;
    bool reached_ = false;                          // some strike reached the lock
    std::map<std::uint32_t, ServerState> servers_;  // every node known to be a server, by index
    std::set<std::uint32_t> lock_nodes_;            // nodes that granted a lock
    std::int64_t locks_held_ = 0;                   // as the store saw them: granted and not yet released or expired
    std::map<std::uint32_t, std::int64_t> granted_to_;  // the same, by holder
    std::vector<FaultStrike> strikes_;                  // every strike, in trace order
    std::vector<std::optional<std::size_t>> fault_of_;  // each strike's fault in the file; none: drawn
    std::map<std::uint64_t, std::size_t> by_sequence_;  // strikes on links, by their fault.struck event
    std::map<std::uint32_t, std::size_t> awaiting_;     // a node's latest strike, until what it did follows
    std::vector<std::size_t> lasting_;                  // strikes that changed a clock
};

// Whether some fault of a run, the scenario's own or a drawn one, reached the lock, read
// as the run records its events: the same answer as FaultJudgement::reached_the_lock of
// its whole trace. Whether the design has a lock shows only at the end (somebody believed
// it held one, or nobody ever did), so both readings are followed until then.
class FaultReach {
public:
    void read(const TraceEvent& event);
    bool reached_the_lock() const;

private:
    StrikeReader with_lock_{false};
    StrikeReader without_lock_{true};
    bool lock_held_ = false;  // a belief.acquired was seen: the design has a lock
};

}  // namespace locksim
