#pragma once
// How long a lease may be, as each real store has it. One home for the rules, so that the
// loader refuses what the store would, a "what if" question offers only lengths the loader
// accepts, and a consensus cluster grants what the real one would.
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "models/stores/lock_spec.hpp"
#include "sim/time.hpp"

namespace locksim {

// The shortest lease the loader takes from any store.
inline constexpr Duration shortest_lease = milliseconds(3);

// A store's own rules for the ttl of a lock that is a lease.
struct LeaseRules {
    // The store's range, beyond shortest_lease, and how the store states it for a message.
    Duration shortest = shortest_lease;
    Duration longest{std::numeric_limits<std::int64_t>::max()};
    std::string_view range_stated;  // "a session TTL from 10s to 24h (86400s), the range Consul accepts"
    // Not empty: the store records whole seconds only, and this says why.
    std::string_view whole_seconds_because;
    // client-go: the lease must outlast the leader's renew deadline.
    bool outlasts_renew_deadline = false;
    // redis: "ttl": "none" is SET NX without PX, a lock that never expires.
    bool may_never_expire = false;
    // What the store grants for a ttl asked (ZooKeeper clamps a session timeout, etcd raises
    // a short TTL); null: what was asked.
    Duration (*granted)(const LockSpec& lock, Duration asked) = nullptr;
    // The holder believes the lease for at most what was granted, from when it asked, and
    // counts it down: it never has more left than that. False: client-go's leader keeps no
    // deadline and leads until a renewal round fails.
    bool holder_counts_down = true;
};

// Which rule refused a lease, so that an error can point at the field to change.
enum class LeaseRule {
    shortest,                 // below shortest_lease
    store_range,              // outside the store's own range
    whole_seconds,            // not a whole number of seconds where the store needs one
    outlasts_renewal,         // the holder's renewal interval is not above 0s and shorter than the ttl
    outlasts_renew_deadline,  // client-go's renew deadline is not shorter than the ttl
};

struct LeaseRefusal {
    LeaseRule rule;
    std::string reason;  // "expected a ttl of at least 3ms"
};

// Whether the lock is a lease that runs out: a ttl the store enforces (not a lock held for
// a session, until released, or one that never expires).
bool has_lease(const LockSpec& lock);

// Why the lock's store would refuse it with a lease of `ttl` (its other options as they
// are), or nothing. The lock must have a lease.
std::optional<LeaseRefusal> lease_refusal(const LockSpec& lock, Duration ttl);

// The session or lease timeout the lock's store, as the lock configures it, grants for a
// ttl asked.
Duration granted_lease(const LockSpec& lock, Duration asked);

// The most lease a holder of the lock ever believes it has left: what the store grants for
// the lock's ttl, counted down on its monotonic clock from when it asked. Nothing for a
// lock that is no lease, whose holder keeps no deadline, or times it on the wall clock
// (which may step back).
std::optional<Duration> longest_lease_left(const LockSpec& lock);

}  // namespace locksim
