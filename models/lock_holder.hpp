#pragma once
// What every lock client library does around a store's protocol: renew in the background
// while the lease is still ours, as the lock's client profile says
// (models/stores/client_profiles.hpp), and release in a finally path. (Waiting for the lock is the store client's
// business: polling or queueing.)
//
// A lease is not an RAII guard: a holder only *believes* it holds the lock,
// until its own monotonic clock says the lease ran out or it learns otherwise. Every
// change of belief is written to the trace, so checkers can compare belief with truth.
#include <memory>
#include <string_view>

#include "models/lock_client.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"

namespace locksim {

// Shared between the job and its renewal loop; `believed` turns false exactly once.
struct HeldLease {
    Lease lease;  // valid_until on the clock the holder times leases with
    bool believed = true;
};

class LockHolder {
public:
    LockHolder(Host host, LockStoreClient& store, const LockSpec& spec);

    // Returns once the store has granted the lock.
    Task<std::shared_ptr<HeldLease>> acquire();
    // One attempt: null when another holds the lock (stores that poll only).
    Task<std::shared_ptr<HeldLease>> acquire_once();

    // True while the holder may act: it has not learned otherwise, and its own monotonic
    // clock has not passed the lease's end. Ends the belief when the clock has.
    bool still_believes(HeldLease& held);
    // How long the lease has left by the holder's own clock (negative once it ran out).
    Duration lease_left(const HeldLease& held) const { return held.lease.valid_until - lease_clock_now(); }

    // The holder learned from elsewhere (a fenced write that changed no row) that the
    // lock is no longer its own.
    void learned_lost(HeldLease& held, std::string_view reason);

    // Stops believing and asks the store to release; safe to call in any state.
    Task<void> release(std::shared_ptr<HeldLease> held);

private:
    Instant on_lease_clock(Instant monotonic_deadline) const;
    Instant lease_clock_now() const;
    FieldList deadline_fields(const HeldLease& held) const;
    Task<void> renew_while_believed(std::shared_ptr<HeldLease> held);
    Task<void> watch_while_believed(std::shared_ptr<HeldLease> held);
    std::shared_ptr<HeldLease> believe(Lease lease);
    void end_belief(HeldLease& held, std::string_view reason);
    // The client library stops renewing and the holder is not told.
    void stop_renewing(const HeldLease& held, std::string_view reason);

    Host host_;
    LockStoreClient& store_;
    LockSpec spec_;
};

}  // namespace locksim
