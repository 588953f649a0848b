#pragma once
// A consensus store in the style of ZooKeeper and etcd (docs/models.md): a replicated log
// that a leader commits once a majority has it, so a leader failover loses no acquired
// lock; client sessions (etcd: leases) kept alive by heartbeats and expired by the
// cluster, which then deletes the session's keys and fires watches.
//
// How a write travels:
// 1. A client sends it to the leader, which appends it to its log and sends it to every
//    follower; each follower appends it and acknowledges.
// 2. With a majority (the leader counts) the leader commits it, applies it to its state,
//    fires the watches it triggers, and only then replies.
// 3. Followers apply committed entries when the leader's next message tells them the
//    commit index.
//
// How the leader changes:
// 1. The leader sends a heartbeat to every follower each heartbeat interval (etcd: a tenth
//    of the election timeout unless the file sets it; ZooKeeper: a quarter).
// 2. A follower that hears nothing for election_timeout asks the others how long their
//    logs are. With answers from a majority (itself included) and the longest log (the
//    lowest name on a tie) it takes over: everything in its log is committed, which
//    includes every entry a majority had, so no committed write is lost.
// 3. The new leader treats every session as heard from at the takeover, as ZooKeeper
//    resets session timers on a leader change (etcd: plus the election timeout).
//
// The data itself is ConsensusState, applied entry by entry on every member.
//
// Simplifications: clients reach whichever node is leader now (a real client reconnects
// to another server of its list); watches survive a leader change (real clients
// re-register them on reconnect); a node that restarts copies the leader's log at once;
// a restarted leader is re-elected without waiting an election timeout.
// The term and the leader's index are one shared variable that every member reads
// directly (a god's-eye view): a member never acts on a stale belief about who leads,
// and messages from a deposed leader are dropped on arrival. Elections, not split
// votes, are what this model is for.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/stores/consensus_state.hpp"
#include "models/stores/lock_spec.hpp"
#include "sim/condition.hpp"
#include "sim/engine.hpp"
#include "sim/network.hpp"

namespace locksim {

// What a waiter learns when the key it watches goes away.
using WatchCallback = std::function<void()>;

class ConsensusEnsemble {
public:
    using Flavor = ConsensusFlavor;

    ConsensusEnsemble(Engine& engine, Network& network, std::vector<NodeId> members, const LockSpec& spec,
                      Flavor flavor);

    Flavor flavor() const { return flavor_; }
    // The session (lease) timeout the cluster grants for one asked: ZooKeeper clamps it to
    // [2, 20] ticks, etcd raises a TTL below its minimum of 2 s (the store's lease rules).
    Duration granted_timeout(Duration asked) const;
    // The node clients send requests to now: the leader, or the last one if none is elected.
    NodeId leader_node() const { return members_[leader_].node; }

    // Request handlers; each runs on the leader when a request arrives. Writes wait for
    // a majority; nullopt means this node is not (or no longer) the leader.
    Task<std::optional<std::int64_t>> open_session(NodeId client, Duration timeout);
    // Refreshes a session; false once the cluster has expired it.
    std::optional<bool> heartbeat(std::int64_t session);
    // ZooKeeper: prefix + %010d sequence; etcd: prefix + "/" + lease id in hex.
    Task<std::optional<ConsensusKey>> create(std::string prefix, std::int64_t session, NodeId client);
    Task<std::optional<bool>> remove(std::string path, NodeId by);
    // The keys under `prefix`, lowest create revision first.
    std::optional<std::vector<ConsensusKey>> children(const std::string& prefix);
    // Watches `path` for deletion; false (and no watch) if it does not exist.
    std::optional<bool> watch(const std::string& path, NodeId client, WatchCallback on_delete);

    bool is_leader(NodeId node) const { return members_[leader_].node == node && engine_.is_up(node); }

private:
    struct Member {
        NodeId node;
        std::vector<ConsensusCommand> log;
        std::size_t committed = 0;  // entries [0, committed) are committed
        std::size_t applied = 0;    // applied <= committed <= log.size()
        ConsensusState state;
        std::size_t acked = 0;      // leader's view: how much of its log this member has
        Instant last_heard_leader;  // follower: monotonic reading at the last leader message
    };
    struct Watch {
        NodeId client;
        WatchCallback on_delete;
    };

    Task<std::optional<std::size_t>> replicate(ConsensusCommand command);  // index once committed
    bool has_majority(std::size_t index) const;
    void wake_committed();
    void send_append(std::size_t follower, std::size_t index);
    void catch_up(Member& member, std::size_t leader_committed);
    void commit_up_to(std::size_t index);
    void apply_through(Member& member, bool leader);
    void announce(const ConsensusCommand& command, std::size_t index, const AppliedCommand& applied);
    void announce_deleted(const ConsensusKey& key, bool expired, NodeId by);
    void report_holder(const std::string& prefix);  // on the leader
    void report_renewal(std::int64_t session);      // on the leader
    Duration heartbeat_interval() const;
    void fire_watches(const std::string& path);
    void arm_session_expiry(std::int64_t session);
    // When the leader next looks for expired sessions at or after `due` (monotonic).
    Instant checked_after(Instant due) const;
    Task<void> lead(std::uint64_t term);
    Task<void> follow(std::size_t member);
    Task<void> stand_for_election(std::size_t member);
    void take_over(std::size_t member);
    void rejoin(std::size_t member);
    std::size_t majority() const { return members_.size() / 2 + 1; }

    Engine& engine_;
    Network& network_;
    std::vector<Member> members_;
    LockSpec spec_;
    Flavor flavor_;
    std::size_t leader_ = 0;
    std::uint64_t term_ = 1;
    std::vector<std::size_t> leader_of_term_;  // index 0 unused: one leader per term, asserted
    // The replicate() waiting for each entry of the leader's log to reach a majority: an
    // ack wakes only the entries it committed, a new term all of them (to give up).
    std::map<std::size_t, Condition> commit_waiters_;
    std::map<std::string, std::vector<Watch>> watches_;
    std::map<std::int64_t, Instant> session_heard_;  // leader's monotonic reading
    std::map<std::int64_t, Duration> session_timeout_;
    std::map<std::string, std::string> holder_of_;       // prefix -> path of the lowest key, as last reported
    std::map<std::string, std::int64_t> granted_token_;  // prefix -> the token of its last grant
    std::map<std::size_t, std::int64_t> opened_;         // log index -> session it opened
    std::map<std::size_t, ConsensusKey> created_;        // log index -> key it created
};

}  // namespace locksim
