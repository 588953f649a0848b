#include "models/stores/consensus_ensemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "models/stores/lease_rules.hpp"
#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"
#include "sim/gather.hpp"
#include "sim/rpc.hpp"

namespace locksim {

constexpr Duration etcd_expiry_check = milliseconds(500);

ConsensusEnsemble::ConsensusEnsemble(Engine& engine, Network& network, std::vector<NodeId> members,
                                     const LockSpec& spec, Flavor flavor)
    : engine_(engine), network_(network), spec_(spec), flavor_(flavor) {
    // The lock's store is this ensemble's: its lease rules say what the cluster grants.
    assert(store_entry(spec.store).name == (flavor == Flavor::etcd ? "etcd" : "zookeeper"));
    for (NodeId node : members) members_.push_back(Member{node, {}, 0, 0, ConsensusState(flavor), 0, {}});
    leader_of_term_ = {0, leader_};
    for (std::size_t i = 0; i < members_.size(); ++i) {
        engine_.on_restart(members_[i].node, [this, i] { rejoin(i); });
        Host(engine_, members_[i].node).spawn(follow(i));
    }
    Host(engine_, leader_node()).spawn(lead(term_));
}

// ---- replication -----------------------------------------------------------------------

Task<std::optional<std::size_t>> ConsensusEnsemble::replicate(ConsensusCommand command) {
    const std::uint64_t term = term_;
    Member& leader = members_[leader_];
    const Host host(engine_, leader.node);
    command.term = term;
    leader.log.push_back(std::move(command));
    const std::size_t index = leader.log.size();
    leader.acked = index;
    for (std::size_t f = 0; f < members_.size(); ++f)
        if (f != leader_) send_append(f, index);
    if (!has_majority(index)) {
        co_await commit_waiters_[index].wait(host);
        if (term_ != term) co_return std::nullopt;  // deposed while waiting
        assert(has_majority(index));
    }
    commit_up_to(index);
    co_return index;
}

bool ConsensusEnsemble::has_majority(std::size_t index) const {
    const auto have =
        std::count_if(members_.begin(), members_.end(), [index](const Member& m) { return m.acked >= index; });
    return static_cast<std::size_t>(have) >= majority();
}

// Entries reach a majority in log order (a member acknowledges only a log without gaps),
// so the ones an ack committed are the lowest waiting.
void ConsensusEnsemble::wake_committed() {
    while (!commit_waiters_.empty() && has_majority(commit_waiters_.begin()->first)) {
        auto committed = commit_waiters_.extract(commit_waiters_.begin());
        committed.mapped().notify_all(engine_);
    }
}

void ConsensusEnsemble::send_append(std::size_t f, std::size_t index) {
    const std::size_t from = leader_;
    const std::uint64_t term = term_;
    const ConsensusCommand& entry = members_[from].log[index - 1];
    network_.send(
        members_[from].node, members_[f].node,
        fmt::format("append #{} {} {}", index, to_string(entry.kind), entry.path), [this, f, from, index, term] {
            Member& follower = members_[f];
            if (term != term_ || from != leader_) return;  // from a deposed leader
            follower.last_heard_leader = engine_.monotonic_now(follower.node);
            if (follower.log.size() == index - 1) follower.log.push_back(members_[from].log[index - 1]);
            if (follower.log.size() < index) {
                // A gap: earlier entries never arrived. Ask for everything from the first missing one.
                const std::size_t missing = follower.log.size() + 1;
                network_.send(follower.node, members_[from].node, fmt::format("missing from #{}", missing),
                              [this, f, from, missing, term] {
                                  if (term != term_ || from != leader_) return;
                                  for (std::size_t k = missing; k <= members_[from].log.size(); ++k) send_append(f, k);
                              });
                return;
            }
            catch_up(follower, members_[from].committed);
            // Acknowledge only what it holds: the leader counts this towards a majority.
            network_.send(follower.node, members_[from].node, fmt::format("ack #{}", index), [this, f, index, term] {
                if (term != term_) return;
                members_[f].acked = std::max(members_[f].acked, index);
                wake_committed();
            });
        });
}

void ConsensusEnsemble::catch_up(Member& member, std::size_t leader_committed) {
    member.committed = std::max(member.committed, std::min(leader_committed, member.log.size()));
    apply_through(member, false);
}

void ConsensusEnsemble::commit_up_to(std::size_t index) {
    Member& leader = members_[leader_];
    leader.committed = std::max(leader.committed, index);
    apply_through(leader, true);
}

// Applies the member's committed entries it has not applied yet; the leader also answers
// for them: it replies, reports the holder and fires watches.
void ConsensusEnsemble::apply_through(Member& member, bool leader) {
    assert(member.committed <= member.log.size());
    while (member.applied < member.committed) {
        const std::size_t index = ++member.applied;
        const ConsensusCommand& command = member.log[index - 1];
        const AppliedCommand applied = member.state.apply(command);
        if (leader) announce(command, index, applied);
    }
}

void ConsensusEnsemble::announce(const ConsensusCommand& command, std::size_t index, const AppliedCommand& applied) {
    if (applied.opened_session) {
        const std::int64_t id = *applied.opened_session;
        opened_[index] = id;
        session_heard_[id] = engine_.monotonic_now(leader_node());
        session_timeout_[id] = command.timeout;
        arm_session_expiry(id);
    }
    if (applied.created) {
        created_[index] = *applied.created;
        report_holder(command.path);
    }
    const bool expired = command.kind == ConsensusCommand::Kind::expire_session;
    for (const auto& key : applied.deleted) announce_deleted(key, expired, command.client);
    if (expired) session_heard_.erase(command.session);
}

void ConsensusEnsemble::announce_deleted(const ConsensusKey& key, bool expired, NodeId by) {
    const std::string prefix = prefix_of(key.path);
    if (holder_of_[prefix] == key.path) {
        const Host host(engine_, leader_node());
        if (expired)
            host.record(trace_kind::lock_expired, {{"key", prefix},
                                                   {"value", key.path},
                                                   {"token", key.create_revision},
                                                   {"holder", key.client},
                                                   {"expires_at", host.wall_now()}});
        else
            host.record(trace_kind::lock_released, {{"key", prefix},
                                                    {"value", key.path},
                                                    {"token", key.create_revision},
                                                    {"holder", key.client},
                                                    {"by", by},
                                                    {"plain", false}});
        holder_of_[prefix].clear();
    }
    fire_watches(key.path);
    report_holder(prefix);
}

// The store's view of who holds the lock: the lowest key under the prefix.
void ConsensusEnsemble::report_holder(const std::string& prefix) {
    const auto waiting = members_[leader_].state.children(prefix);
    if (waiting.empty() || holder_of_[prefix] == waiting.front().path) return;
    const ConsensusKey& lowest = waiting.front();
    // The holder's session is open (its expiry would have deleted the key), and its token
    // is above every one granted on this lock before, whoever led then.
    assert(members_[leader_].state.has_session(lowest.session));
    assert(lowest.create_revision > granted_token_[prefix]);
    granted_token_[prefix] = lowest.create_revision;
    holder_of_[prefix] = lowest.path;
    Host(engine_, leader_node())
        .record(trace_kind::lock_granted, {{"key", prefix},
                                           {"value", lowest.path},
                                           {"token", lowest.create_revision},
                                           {"holder", lowest.client},
                                           {"ttl", session_timeout_[lowest.session]}});
}

void ConsensusEnsemble::fire_watches(const std::string& path) {
    auto found = watches_.find(path);
    if (found == watches_.end()) return;
    auto watchers = std::move(found->second);
    watches_.erase(found);
    const NodeId leader = leader_node();
    for (auto& watch : watchers) {
        Host(engine_, leader).record(trace_kind::watch_fired, {{"key", path}, {"client", watch.client}});
        network_.send(leader, watch.client, fmt::format("WATCH NodeDeleted {}", path), std::move(watch.on_delete));
    }
}

// ---- sessions --------------------------------------------------------------------------

// Neither server expires a session the moment it runs out. etcd's lessor looks for
// expired leases every 500 ms; ZooKeeper files each session under the next multiple of
// tickTime after its deadline and expires a tick's worth at a time.
Instant ConsensusEnsemble::checked_after(Instant due) const {
    const std::int64_t every = flavor_ == Flavor::etcd ? etcd_expiry_check.ns : spec_.consensus.tick.ns;
    const std::int64_t checks = flavor_ == Flavor::etcd ? (due.ns + every - 1) / every : due.ns / every + 1;
    return Instant{checks * every};
}

void ConsensusEnsemble::arm_session_expiry(std::int64_t session) {
    const NodeId leader = leader_node();
    const std::uint64_t term = term_;
    auto heard = session_heard_.find(session);
    if (heard == session_heard_.end()) return;
    const Duration wait = checked_after(heard->second + session_timeout_[session]) - engine_.monotonic_now(leader);
    engine_.schedule_after(leader, wait.ns > 0 ? wait : Duration{}, [this, session, term, leader] {
        if (term != term_) return;  // a new leader keeps its own timers
        auto heard = session_heard_.find(session);
        if (heard == session_heard_.end()) return;
        if (engine_.monotonic_now(leader) - heard->second < session_timeout_[session]) {
            arm_session_expiry(session);  // heard from since: look again later
            return;
        }
        session_heard_.erase(heard);  // expire once
        Host(engine_, leader).record(trace_kind::session_expired, {{"session", session}});
        Host(engine_, leader).spawn([](ConsensusEnsemble* self, std::int64_t session) -> Task<void> {
            ConsensusCommand command{ConsensusCommand::Kind::expire_session, "", session, no_node, {}, 0};
            co_await self->replicate(std::move(command));
        }(this, session));
    });
}

Duration ConsensusEnsemble::heartbeat_interval() const {
    return spec_.consensus.heartbeat(flavor_ == Flavor::etcd ? ConsensusSpec::etcd_heartbeats_per_election
                                                             : ConsensusSpec::zookeeper_heartbeats_per_election);
}

std::optional<bool> ConsensusEnsemble::heartbeat(std::int64_t session) {
    if (!is_leader(leader_node())) return std::nullopt;
    if (!members_[leader_].state.has_session(session)) return false;
    if (session_heard_.contains(session)) session_heard_[session] = engine_.monotonic_now(leader_node());
    report_renewal(session);
    return true;
}

// A keep-alive of the holder's session (a ZooKeeper ping, an etcd LeaseKeepAlive) extends
// its lock: the trace says so, so that a fault can be placed right after one.
void ConsensusEnsemble::report_renewal(std::int64_t session) {
    const Host host(engine_, leader_node());
    for (const auto& [prefix, path] : holder_of_) {
        const ConsensusKey* held = members_[leader_].state.find_key(path);  // the lowest key: the holder's
        if (held == nullptr || held->session != session) continue;
        host.record(trace_kind::lock_renewed, {{"key", prefix},
                                               {"value", path},
                                               {"token", held->create_revision},
                                               {"holder", held->client},
                                               {"expires_at", host.wall_now() + session_timeout_[session]}});
    }
}

// ---- requests --------------------------------------------------------------------------

Duration ConsensusEnsemble::granted_timeout(Duration asked) const {
    return granted_lease(spec_, asked);
}

Task<std::optional<std::int64_t>> ConsensusEnsemble::open_session(NodeId client, Duration timeout) {
    if (!is_leader(leader_node())) co_return std::nullopt;
    ConsensusCommand command{ConsensusCommand::Kind::open_session, "", 0, client, granted_timeout(timeout), 0};
    const auto index = co_await replicate(std::move(command));
    if (!index) co_return std::nullopt;
    co_return opened_.at(*index);
}

Task<std::optional<ConsensusKey>> ConsensusEnsemble::create(std::string prefix, std::int64_t session, NodeId client) {
    if (!members_[leader_].state.has_session(session)) co_return std::nullopt;
    ConsensusCommand command{ConsensusCommand::Kind::create, std::move(prefix), session, client, {}, 0};
    const auto index = co_await replicate(std::move(command));
    if (!index) co_return std::nullopt;
    const auto created = created_.find(*index);
    if (created == created_.end()) co_return std::nullopt;  // the session expired first
    co_return created->second;
}

Task<std::optional<bool>> ConsensusEnsemble::remove(std::string path, NodeId by) {
    if (!members_[leader_].state.has_key(path)) co_return false;
    ConsensusCommand command{ConsensusCommand::Kind::remove, std::move(path), 0, by, {}, 0};
    const auto index = co_await replicate(std::move(command));
    if (!index) co_return std::nullopt;
    co_return true;
}

std::optional<std::vector<ConsensusKey>> ConsensusEnsemble::children(const std::string& prefix) {
    return members_[leader_].state.children(prefix);
}

std::optional<bool> ConsensusEnsemble::watch(const std::string& path, NodeId client, WatchCallback on_delete) {
    if (!members_[leader_].state.has_key(path)) return false;
    watches_[path].push_back(Watch{client, std::move(on_delete)});
    return true;
}

// ---- leadership ------------------------------------------------------------------------

Task<void> ConsensusEnsemble::lead(std::uint64_t term) {
    const std::size_t me = leader_;
    const Host host(engine_, members_[me].node);
    for (;;) {
        for (std::size_t f = 0; f < members_.size(); ++f) {
            if (f == me) continue;
            network_.send(host.id(), members_[f].node, "heartbeat", [this, f, me, term] {
                if (term != term_ || me != leader_) return;
                Member& follower = members_[f];
                follower.last_heard_leader = engine_.monotonic_now(follower.node);
                catch_up(follower, members_[me].committed);
            });
        }
        co_await host.sleep(heartbeat_interval());
        if (term != term_) co_return;
    }
}

Task<void> ConsensusEnsemble::follow(std::size_t me) {
    const Host host(engine_, members_[me].node);
    members_[me].last_heard_leader = host.monotonic_now();
    for (;;) {
        co_await host.sleep(spec_.consensus.election_timeout / 4);
        if (me == leader_) continue;
        if (host.monotonic_now() - members_[me].last_heard_leader < spec_.consensus.election_timeout) continue;
        co_await stand_for_election(me);
    }
}

Task<void> ConsensusEnsemble::stand_for_election(std::size_t me) {
    const Host host(engine_, members_[me].node);
    // Each other member answers with its log length, or not at all if it heard from a
    // leader recently (it will not help depose a live leader).
    std::vector<Task<std::optional<std::int64_t>>> answers;
    for (std::size_t other = 0; other < members_.size(); ++other) {
        if (other == me) continue;
        answers.push_back(
            [](ConsensusEnsemble* self, Host host, std::size_t other) -> Task<std::optional<std::int64_t>> {
                auto request = call(
                    self->network_, host, self->members_[other].node, "vote?",
                    [self, other] {
                        const Member& voter = self->members_[other];
                        const bool leader_alive = other == self->leader_ ||
                                                  self->engine_.monotonic_now(voter.node) - voter.last_heard_leader <
                                                      self->spec_.consensus.election_timeout;
                        const std::int64_t length = leader_alive ? -1 : static_cast<std::int64_t>(voter.log.size());
                        return Answer<std::int64_t>{
                            length, leader_alive ? "no: my leader is alive" : fmt::format("log {}", length)};
                    },
                    self->spec_.consensus.election_timeout / 2);
                auto reply = co_await request;
                co_return reply;
            }(this, host, other));
    }
    const auto replies = co_await gather(host, std::move(answers));
    if (me == leader_) co_return;
    std::size_t votes = 1;
    const auto mine = static_cast<std::int64_t>(members_[me].log.size());
    std::size_t index = 0;
    for (std::size_t other = 0; other < members_.size(); ++other) {
        if (other == me) continue;
        const auto& reply = replies[index++];
        if (!reply || *reply < 0) continue;
        if (*reply > mine || (*reply == mine && other < me)) co_return;  // someone is better placed
        ++votes;
    }
    if (votes < majority()) co_return;

    take_over(me);
}

// The member `me` leads from now, in a new term, with everything in its log committed.
void ConsensusEnsemble::take_over(std::size_t me) {
    const Host host(engine_, members_[me].node);
    const std::size_t old = leader_;
    leader_ = me;
    ++term_;
    assert(leader_of_term_.size() == term_);  // terms only rise, and each has one leader
    leader_of_term_.push_back(me);
    // The old leader's pending writes give up: their clients hear "not the leader".
    for (auto& [index, waiting] : commit_waiters_) waiting.notify_all(engine_);
    commit_waiters_.clear();
    Member& leader = members_[me];
    for (auto& member : members_) member.acked = 0;
    leader.acked = leader.log.size();
    commit_up_to(leader.log.size());
    // Every session counts as heard from now, as a new ZooKeeper leader resets them; a new
    // etcd leader extends every lease by the election timeout besides (its lessor's
    // Promote; observed on etcd 3.4.23, fidelity case etcd-restart-refreshes-lease).
    const Instant refreshed =
        host.monotonic_now() + (flavor_ == Flavor::etcd ? spec_.consensus.election_timeout : Duration{});
    for (auto& [session, heard] : session_heard_) heard = refreshed;
    for (const auto& [session, client] : leader.state.sessions()) {
        if (!session_heard_.contains(session)) session_heard_[session] = refreshed;
        arm_session_expiry(session);
    }
    host.record(trace_kind::consensus_leader,
                {{"term", static_cast<std::int64_t>(term_)}, {"previous", members_[old].node}});
    host.spawn(lead(term_));
}

void ConsensusEnsemble::rejoin(std::size_t me) {
    Member& member = members_[me];
    Host(engine_, member.node).spawn(follow(me));
    if (me == leader_) {
        // Came back before anyone else took over. It kept its log, but not its timers or
        // its heartbeats: the cluster elects again, and it wins (simplified: at once).
        take_over(me);
        return;
    }
    const Member& leader = members_[leader_];
    member.log = leader.log;
    member.state = ConsensusState(flavor_);
    member.committed = member.applied = 0;
    catch_up(member, leader.committed);
    member.last_heard_leader = engine_.monotonic_now(member.node);
}

}  // namespace locksim
