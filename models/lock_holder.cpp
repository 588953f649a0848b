#include "models/lock_holder.hpp"

#include <string>

#include "models/stores/client_profiles.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

LockHolder::LockHolder(Host host, LockStoreClient& store, const LockSpec& spec)
    : host_(host), store_(store), spec_(spec) {}

// The holder's deadline on the clock it times leases with. Store clients report it on the
// monotonic clock; a holder that measures durations on the wall clock (don't)
// carries the same time left over to its wall clock, which a step then moves.
Instant LockHolder::on_lease_clock(Instant monotonic_deadline) const {
    if (!spec_.wall_clock_durations || monotonic_deadline == never) return monotonic_deadline;
    return host_.wall_now() + (monotonic_deadline - host_.monotonic_now());
}

Instant LockHolder::lease_clock_now() const {
    return spec_.wall_clock_durations ? host_.wall_now() : host_.monotonic_now();
}

FieldList LockHolder::deadline_fields(const HeldLease& held) const {
    FieldList fields{{"key", held.lease.key}, {"believed_until", held.lease.valid_until}};
    if (spec_.wall_clock_durations) fields.push_back({"clock", "wall"});
    return fields;
}

Task<std::shared_ptr<HeldLease>> LockHolder::acquire() {
    Lease lease = co_await store_.acquire();
    co_return believe(std::move(lease));
}

Task<std::shared_ptr<HeldLease>> LockHolder::acquire_once() {
    std::optional<Lease> lease = co_await store_.acquire_once();
    if (!lease) co_return nullptr;
    co_return believe(std::move(*lease));
}

// A granted lease becomes the holder's belief, renewed in the background if the lock says so.
std::shared_ptr<HeldLease> LockHolder::believe(Lease lease) {
    // A client that keeps no deadline believes until told.
    if (client_of(spec_).deadline == ClientProfile::Deadline::none) lease.valid_until = never;
    lease.valid_until = on_lease_clock(lease.valid_until);
    auto held = std::make_shared<HeldLease>(HeldLease{std::move(lease), true});
    FieldList fields = deadline_fields(*held);
    fields.push_back({"value", held->lease.value});
    if (held->lease.token) fields.push_back({"token", *held->lease.token});
    host_.record(trace_kind::belief_acquired, fields);
    if (spec_.renew) host_.spawn(renew_while_believed(held));
    if (store_.watches_lock()) host_.spawn(watch_while_believed(held));
    return held;
}

Task<void> LockHolder::watch_while_believed(std::shared_ptr<HeldLease> held) {
    const std::string lost = co_await store_.watch_for_loss(held->lease);
    if (held->believed) end_belief(*held, lost);
}

bool LockHolder::still_believes(HeldLease& held) {
    if (!held.believed) return false;
    if (lease_clock_now() < held.lease.valid_until) {
        host_.record(trace_kind::belief_checked, deadline_fields(held));
        return true;
    }
    end_belief(held, "lease ran out by own clock");
    return false;
}

void LockHolder::learned_lost(HeldLease& held, std::string_view reason) {
    if (held.believed) end_belief(held, reason);
}

Task<void> LockHolder::release(std::shared_ptr<HeldLease> held) {
    if (held->believed) end_belief(*held, "released");
    co_await store_.release(held->lease);
}

// Renews as the lock's client library does (models/stores/client_profiles.hpp): every
// interval after the last answer, sooner again after one that got none, and on a refusal
// either tells the holder or only stops.
Task<void> LockHolder::renew_while_believed(std::shared_ptr<HeldLease> held) {
    const ClientProfile& client = client_of(spec_);
    const Duration interval = client.renew_interval(spec_);
    Duration wait = interval;
    Instant last_renewed = host_.monotonic_now();
    for (;;) {
        co_await host_.sleep(wait);
        if (!held->believed) co_return;
        const ExtendResult result = co_await store_.extend(held->lease);
        if (!held->believed) co_return;
        switch (result.outcome) {
            case ExtendResult::Outcome::extended:
                if (client.deadline != ClientProfile::Deadline::none) {
                    if (result.valid_until <= host_.monotonic_now()) {
                        end_belief(*held, "lease ran out by own clock");
                        co_return;
                    }
                    held->lease.valid_until = on_lease_clock(result.valid_until);
                }
                host_.record(trace_kind::belief_extended, deadline_fields(*held));
                last_renewed = host_.monotonic_now();
                wait = interval;
                break;
            case ExtendResult::Outcome::refused: {
                const std::string why =
                    result.why.empty() ? "renewal refused: the value is no longer ours" : result.why;
                if (client.refused == ClientProfile::Refused::stop_renewing) {
                    stop_renewing(*held, why);
                } else {
                    end_belief(*held, why);
                }
                co_return;
            }
            case ExtendResult::Outcome::no_reply:
                // Try again; the lease may still run out by the holder's clock meanwhile.
                if (client.stops_a_ttl_after_last_renewal && host_.monotonic_now() - last_renewed >= spec_.ttl) {
                    stop_renewing(*held, "no renewal went through for a whole TTL");
                    co_return;
                }
                wait = client.retry_unanswered.value_or(interval);
                break;
        }
    }
}

void LockHolder::stop_renewing(const HeldLease& held, std::string_view reason) {
    host_.record(trace_kind::renewal_stopped, {{"key", held.lease.key}, {"reason", reason}});
}

void LockHolder::end_belief(HeldLease& held, std::string_view reason) {
    held.believed = false;
    host_.record(trace_kind::belief_ended, {{"key", held.lease.key}, {"reason", reason}});
}

}  // namespace locksim
