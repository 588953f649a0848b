#include "models/stores/lease_rules.hpp"

#include <fmt/format.h>

#include <cassert>

#include "models/stores/store_registry.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

bool has_lease(const LockSpec& lock) {
    return store_entry(lock.store).grant == GrantLength::lease && lock.expires;
}

std::optional<LeaseRefusal> lease_refusal(const LockSpec& lock, Duration ttl) {
    assert(has_lease(lock));
    const LeaseRules& rules = store_entry(lock.store).lease;
    if (ttl < shortest_lease)
        return LeaseRefusal{LeaseRule::shortest,
                            fmt::format("expected a ttl of at least {}", format_duration(shortest_lease))};
    if (ttl < rules.shortest || ttl > rules.longest)
        return LeaseRefusal{LeaseRule::store_range, fmt::format("expected {}", rules.range_stated)};
    if (!rules.whole_seconds_because.empty() && ttl.ns % seconds(1).ns != 0)
        return LeaseRefusal{LeaseRule::whole_seconds,
                            fmt::format("expected a whole number of seconds: {}", rules.whole_seconds_because)};
    if (rules.outlasts_renew_deadline && ttl <= lock.kubernetes.renew_deadline)
        return LeaseRefusal{
            LeaseRule::outlasts_renew_deadline,
            fmt::format(
                "expected the lease duration (ttl {}) to be longer than renew_deadline ({}), as client-go requires",
                format_duration(ttl), format_duration(lock.kubernetes.renew_deadline))};
    // A renewal after the lease ran out renews nothing.
    if (lock.renew_every && (lock.renew_every->ns <= 0 || *lock.renew_every >= ttl))
        return LeaseRefusal{LeaseRule::outlasts_renewal,
                            fmt::format("expected a renewal interval above 0s and shorter than the ttl ({}): a renewal "
                                        "after the lease ran out renews nothing",
                                        format_duration(ttl))};
    return std::nullopt;
}

Duration granted_lease(const LockSpec& lock, Duration asked) {
    const auto granted = store_entry(lock.store).lease.granted;
    return granted == nullptr ? asked : granted(lock, asked);
}

std::optional<Duration> longest_lease_left(const LockSpec& lock) {
    if (!has_lease(lock) || !store_entry(lock.store).lease.holder_counts_down) return std::nullopt;
    // Timed on the wall clock, the lease left grows when that clock steps back.
    if (lock.wall_clock_durations) return std::nullopt;
    return granted_lease(lock, lock.ttl);
}

}  // namespace locksim
