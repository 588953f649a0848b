#include "models/stores/client_profiles.hpp"

#include <algorithm>

namespace locksim {
namespace {

using Deadline = ClientProfile::Deadline;
using Refused = ClientProfile::Refused;

const std::vector<ClientProfile>& profiles() {
    static const std::vector<ClientProfile> list{
        {.name = "generic",
         .library = "locksim's generic client: renews every TTL/3 after each answer, times its lease from the "
                    "request, and stops believing when a renewal is refused (the careful client the lease check "
                    "assumes; no one library)",
         .source = "models/lock_holder.cpp",
         .speaks = {StoreKind::redis, StoreKind::redis_replicated, StoreKind::redlock, StoreKind::lease_row,
                    StoreKind::zookeeper, StoreKind::db_advisory},
         .renew_share = std::pair{1, 3}},
        {.name = "redsync",
         .library = "redsync, Go's Redlock: the lock is valid until its start plus the expiry less 1% of it "
                    "(driftFactor 0.01, no fixed allowance since v1.3.1), and is never extended by itself "
                    "(Extend is the code's to call)",
         .source = "go-redsync/redsync v4 mutex.go: Mutex.lockContext; redsync.go: NewMutex",
         .speaks = {StoreKind::redlock},
         .renews = false,
         .redlock_drift_allowance = Duration{}},
        {.name = "redis-py",
         .library = "redis-py's Lock: SET NX PX with the lock's timeout (the TTL here), never renewed by itself "
                    "(extend and reacquire are the code's to call), and no deadline of its own: locked() and "
                    "owned() ask the server",
         .source = "redis-py redis/lock.py: Lock.acquire, Lock.do_acquire, Lock.owned",
         .speaks = {StoreKind::redis, StoreKind::redis_replicated},
         .renews = false,
         .deadline = Deadline::none},
        {.name = "redisson",
         .library = "Redisson's RLock with its lock watchdog (3.44 and later): renews every lockWatchdogTimeout/3 "
                    "(the TTL here) after each renewal completes, again after one that failed; a renewal that "
                    "finds the key gone stops the watchdog for good, and the lock keeps no deadline of its own for "
                    "the code to check",
         .source = "redisson: renewal/RenewalTask.java schedule and LockTask.java (RedissonBaseLock.renewExpiration "
                   "before 3.44, which also stopped at a failed renewal)",
         .speaks = {StoreKind::redis, StoreKind::redis_replicated},
         .renew_share = std::pair{1, 3},
         .refused = Refused::stop_renewing,
         .deadline = Deadline::none},
        {.name = "etcd-clientv3",
         .library = "etcd's Go client, clientv3/concurrency: the session's lease keep-alive goes out a third of "
                    "the TTL after each answer, again every 500 ms while none comes, and the session ends when "
                    "the TTL has passed since the last answer (deadlineLoop looks every second; here, at once)",
         .source = "etcd client/v3/lease.go: recvKeepAlive, sendKeepAliveLoop, deadlineLoop; "
                   "client/v3/concurrency/session.go: NewSession",
         .speaks = {StoreKind::etcd},
         .renew_share = std::pair{1, 3},
         .retry_unanswered = milliseconds(500),
         .deadline = Deadline::from_answer},
        {.name = "kazoo",
         .library = "kazoo's Lock recipe on ZooKeeper: the connection pings after read_timeout/2 of idle sending, "
                    "with read_timeout two thirds of the negotiated session timeout (so a third of it), and the "
                    "lock keeps no deadline of its own: the holder learns of a loss only when the session is "
                    "reported expired (LOST)",
         .source = "kazoo kazoo/protocol/connection.py: ConnectionHandler._connect, _connect_attempt; "
                   "kazoo/recipe/lock.py: Lock",
         .speaks = {StoreKind::zookeeper},
         .renew_share = std::pair{1, 3},
         .deadline = Deadline::none},
        {.name = "curator",
         .library = "Apache Curator's InterProcessMutex on ZooKeeper's Java client: ClientCnxn pings a second "
                    "before half its read timeout (two thirds of the negotiated session timeout) of idle sending, "
                    "and after a read timeout with nothing heard the connection is SUSPENDED, which Curator's "
                    "standard error policy treats as the lock lost; on waking from a pause that outlasted it, at "
                    "once, before any answer waiting in the socket is read",
         .source = "zookeeper ClientCnxn.java: SendThread.run (readTimeout, timeToNextPing), "
                   "ClientCnxn.onConnected; curator-framework ConnectionStateManager, "
                   "StandardConnectionStateErrorPolicy",
         .speaks = {StoreKind::zookeeper},
         .renew_share = std::pair{1, 3},
         .deadline = Deadline::from_answer,
         .deadline_share = std::pair{2, 3},
         .pings_a_second_early = true},
        {.name = "consul-api",
         .library = "Consul's Go api package, api.Lock: RenewPeriodic renews the session every TTL/2, retries "
                    "every second after an error until a TTL has passed since the last renewal, and stops at a "
                    "404 without telling the lock; only monitorLock, the watch on the key, ends it",
         .source = "consul api/session.go: RenewPeriodic; api/lock.go: Lock.Lock, monitorLock",
         .speaks = {StoreKind::consul},
         .renew_share = std::pair{1, 2},
         .retry_unanswered = seconds(1),
         .stops_a_ttl_after_last_renewal = true,
         .refused = Refused::stop_renewing,
         .deadline = Deadline::none},
        {.name = "with-advisory-lock",
         .library = "the with_advisory_lock gem (Rails) on PostgreSQL: pg_try_advisory_lock on the model's "
                    "connection, again after a sleep of rand(0.05..0.15) s while another holds it, the block run, "
                    "pg_advisory_unlock in ensure; nothing keeps the session alive, and nothing tells the block "
                    "that the session, and the lock with it, ended",
         .source = "ClosureTree/with_advisory_lock lib/with_advisory_lock/core_advisory.rb: "
                   "yield_with_lock_and_timeout, yield_with_lock; postgresql_advisory.rb: try_advisory_lock",
         .speaks = {StoreKind::db_advisory},
         .renews = false,
         .deadline = Deadline::none,
         .waits_between_tries = RetrySpec{milliseconds(50), milliseconds(150)}},
        {.name = "client-go",
         .library = "client-go's leaderelection: the leader renews every retry_period and stops leading when no "
                    "renewal went through within renew_deadline",
         .source = "k8s.io/client-go tools/leaderelection/leaderelection.go: LeaderElector.renew, tryAcquireOrRenew",
         .speaks = {StoreKind::kubernetes_lease}},
    };
    return list;
}

}  // namespace

Duration ClientProfile::renew_interval(const LockSpec& lock) const {
    if (lock.renew_every) return *lock.renew_every;
    // A store-paced client's loader sets renew_every; one that never renews renews only at
    // the code's own interval, or at the generic share of the TTL (a session's keep-alive).
    const auto share = renew_share.value_or(std::pair<std::int64_t, std::int64_t>{1, 3});
    return lock.ttl * share.first / share.second;
}

Duration ClientProfile::heartbeat_interval(Duration session) const {
    const auto share = renew_share.value_or(std::pair<std::int64_t, std::int64_t>{1, 3});
    if (!pings_a_second_early) return session * share.first / share.second;
    // In whole milliseconds, as the Java client counts: readTimeout = sessionTimeout * 2 / 3,
    // and a ping once idle sending reaches readTimeout / 2, less a second once past a second.
    const Duration half_read = milliseconds(session.ns / 1'000'000 * 2 / 3 / 2);
    if (half_read <= seconds(1)) return half_read;
    return std::max(half_read - seconds(1), seconds(1));
}

std::span<const ClientProfile> all_client_profiles() {
    return profiles();
}

const ClientProfile* find_client_profile(std::string_view name) {
    const auto& list = profiles();
    const auto found =
        std::find_if(list.begin(), list.end(), [name](const ClientProfile& profile) { return profile.name == name; });
    return found == list.end() ? nullptr : &*found;
}

const ClientProfile& default_client_profile(StoreKind store) {
    // The stores whose one library is modelled take it; the rest take the generic client,
    // which also keeps the sessions of ZooKeeper and the database locks.
    const char* name = "generic";
    if (store == StoreKind::etcd) name = "etcd-clientv3";
    if (store == StoreKind::consul) name = "consul-api";
    if (store == StoreKind::kubernetes_lease) name = "client-go";
    return *find_client_profile(name);
}

const ClientProfile& client_of(const LockSpec& lock) {
    return lock.client != nullptr ? *lock.client : default_client_profile(lock.store);
}

std::vector<const ClientProfile*> client_profiles_of(StoreKind store) {
    std::vector<const ClientProfile*> speaking;
    for (const ClientProfile& profile : profiles())
        if (std::find(profile.speaks.begin(), profile.speaks.end(), store) != profile.speaks.end())
            speaking.push_back(&profile);
    return speaking;
}

}  // namespace locksim
