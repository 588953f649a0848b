#pragma once
// What the models write into the trace. Checkers and reports read these kinds and
// fields and nothing else of the models.
#include <string_view>
#include <vector>

namespace locksim {
// Every kind a run can record, the engine's and the models': what a fault's "when" may name.
const std::vector<std::string_view>& all_trace_kinds();
// The fields events of `kind` may carry (empty for an unknown kind): what a "when" may match.
const std::vector<std::string_view>& trace_field_names(std::string_view kind);
}  // namespace locksim

namespace locksim::trace_kind {

// At the lock store, as the store saw it. Fields: key, value, holder (node), and
// token where the store gives one.
inline constexpr std::string_view lock_granted = "lock.granted";    // + ttl, expires_at (store wall clock)
inline constexpr std::string_view lock_refused = "lock.refused";    // key, client: refused, someone else holds it
inline constexpr std::string_view lock_renewed = "lock.renewed";    // + expires_at
inline constexpr std::string_view lock_released = "lock.released";  // + by (node), plain (bool): whose lock went
inline constexpr std::string_view lock_expired = "lock.expired";    // the store's clock passed expires_at
inline constexpr std::string_view store_failover = "store.failover";  // from, to (nodes), offset: a replica promoted
inline constexpr std::string_view watch_fired = "watch.fired";          // key (deleted), client: a waiter woken
inline constexpr std::string_view session_expired = "session.expired";  // session: the cluster gave up on a client
inline constexpr std::string_view consensus_leader = "consensus.leader";  // term, previous: a new leader took over
inline constexpr std::string_view db_session_ended = "db.session_ended";  // session, client, reason: its locks went with it
inline constexpr std::string_view store_loaded = "store.loaded";    // keys: what a restarted node loaded from disk

// At a holder: what it believes. believed_until is a reading of its own monotonic clock.
inline constexpr std::string_view belief_acquired = "belief.acquired";  // key, value, token?, believed_until
inline constexpr std::string_view belief_checked = "belief.checked";    // key, believed_until: checked and still valid
inline constexpr std::string_view belief_extended = "belief.extended";  // key, believed_until
inline constexpr std::string_view belief_ended = "belief.ended";        // key, reason

// The job on a server.
inline constexpr std::string_view job_started = "job.started";            // job
inline constexpr std::string_view job_campaigning = "job.campaigning";    // job: standing for leader (lock scope leadership)
inline constexpr std::string_view job_rebuilding = "job.rebuilding";      // period: an index build begins
inline constexpr std::string_view job_customer_skipped = "job.skipped";   // customer, reason
inline constexpr std::string_view job_preparing = "job.preparing";        // customer: the invoice is being prepared
inline constexpr std::string_view job_finished = "job.finished";          // job, outcome

// At the billing database: every statement on the renewals table.
inline constexpr std::string_view db_read = "db.read";    // customer, period, status, fence
inline constexpr std::string_view db_write = "db.write";  // customer, period, status, token?, rows, client
inline constexpr std::string_view index_checked = "index.checked";  // period, built: was the index built for it?
inline constexpr std::string_view index_built = "index.built";      // period, cpu (duration), client: a build finished

// At the payment provider.
inline constexpr std::string_view provider_charged = "provider.charged";    // customer, period, key?, charge
inline constexpr std::string_view provider_replayed = "provider.replayed";  // customer, period, key, charge

}  // namespace locksim::trace_kind
