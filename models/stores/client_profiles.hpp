#pragma once
// Lock client libraries, one entry each: how each keeps a lock it holds alive, what it
// believes about it, and what it does when a renewal fails. A lock names one with
// "client" (docs/models.md, Client libraries); a store's default is the library most
// teams use with it, or locksim's generic client where no one library stands out.
//
// Every library here wakes like the runtimes they run on: a timer that fell due while the
// process was paused fires as soon as it runs again (Go timers, Java schedulers, Python
// threads), so an overdue renewal goes out on waking. The engine already runs a paused
// node's due events when it resumes: no profile needs to say so.
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/stores/lock_spec.hpp"
#include "sim/time.hpp"

namespace locksim {

struct ClientProfile {
    // What the lock's holder believes its lease lasts until.
    enum class Deadline {
        from_request,  // the request's send + the TTL: a slow reply only shortens it
        from_answer,   // the answer's arrival + the TTL (etcd's lease.go: recvKeepAlive)
        none,          // no deadline of its own: it believes until told (a watch, a fenced write)
    };
    // What it does when a renewal is refused (the store no longer has it as the holder).
    enum class Refused {
        stop_believing,  // the holder learns it lost the lock
        stop_renewing,   // renewal stops, and the holder is not told
    };

    std::string_view name;     // as a scenario's "client" names it
    std::string_view library;  // what it is, in a sentence
    std::string_view source;   // the file and function its timing comes from
    std::vector<StoreKind> speaks;
    bool renews = true;  // false: the library never renews by itself (the code may, with "renew")
    // How often it renews, as a share of the TTL, counted from the last renewal's answer;
    // none: the store's own option paces it (client-go's retry_period).
    std::optional<std::pair<std::int64_t, std::int64_t>> renew_share;
    // After a renewal that got no answer, the next try this much later (none: the usual
    // interval).
    std::optional<Duration> retry_unanswered;
    // Renewal also stops once a whole TTL has passed since the last renewal that went
    // through (Consul's RenewPeriodic).
    bool stops_a_ttl_after_last_renewal = false;
    Refused refused = Refused::stop_believing;
    Deadline deadline = Deadline::from_request;
    // The share of the TTL its deadline lasts past the instant it counts from: all of it,
    // or, for ZooKeeper's Java client, its read timeout (two thirds of the session timeout),
    // after which the connection is SUSPENDED.
    std::pair<std::int64_t, std::int64_t> deadline_share{1, 1};
    // A session's heartbeats as ZooKeeper's Java client (ClientCnxn) sends them: a second
    // before half its read timeout of idle sending, once idle for more than a second.
    bool pings_a_second_early = false;
    // How long it sleeps between tries for a lock another holds, where its source fixes
    // that (with_advisory_lock: rand(0.05..0.15) s); none: the lock's "retry".
    std::optional<RetrySpec> waits_between_tries;
    // Redlock: besides 1% of the TTL, the fixed allowance for clock drift it takes off a
    // grant's validity (the reference algorithm's 2 ms).
    Duration redlock_drift_allowance = milliseconds(2);

    // The interval between renewals of a lease of `ttl`: the renew_every given, else the
    // profile's share of the TTL.
    Duration renew_interval(const LockSpec& lock) const;
    // The interval between a session's heartbeats when the store granted `session`.
    Duration heartbeat_interval(Duration session) const;
    // How long after the instant its deadline counts from the holder believes a lease of `ttl`.
    Duration believed_for(Duration ttl) const { return ttl * deadline_share.first / deadline_share.second; }
};

// Every profile, in the order documents list them.
std::span<const ClientProfile> all_client_profiles();
const ClientProfile* find_client_profile(std::string_view name);
// The profile a lock on this store gets when it names none.
const ClientProfile& default_client_profile(StoreKind store);
// The lock's client: the one the loader set, else its store's default (a lock a test
// built by hand).
const ClientProfile& client_of(const LockSpec& lock);
// The profiles that speak to this store, in list order.
std::vector<const ClientProfile*> client_profiles_of(StoreKind store);

}  // namespace locksim
