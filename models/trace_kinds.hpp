#pragma once
// What the models write into the trace, each kind declared once with its fields and their
// types (sim/trace_schema.hpp). Checkers and reports read these kinds and fields and
// nothing else of the models.
#include <string_view>
#include <vector>

#include "sim/trace.hpp"

namespace locksim {
// Every kind a run can record, the engine's and the models', in this order: what a fault's
// "when" may name, what `locksim kinds` lists.
const std::vector<const KindSpec*>& all_trace_kinds();
// The kind named `name`, or null.
const KindSpec* find_trace_kind(std::string_view name);
}  // namespace locksim

namespace locksim::trace_kind {

// ---- at the lock store, as the store saw it ----

inline constexpr FieldSpec lock_granted_fields[] = {
    {"key", FieldType::text, false, "the lock's key (zookeeper/etcd: its prefix)"},
    {"value", FieldType::text, false, "what identifies the holder at the store"},
    {"token", FieldType::integer, true, "the fencing token, where the store gives one"},
    {"holder", FieldType::node, false, "the client the store granted it to"},
    {"ttl", FieldType::duration, true, "the lease's length, where the lock is a lease"},
    {"expires_at", FieldType::instant, true, "when the lease expires, on the store's wall clock"},
    {"session", FieldType::integer, true, "the database session that holds it (database locks)"},
};
inline constexpr KindSpec lock_granted{"lock.granted", "the store granted the lock", lock_granted_fields};

inline constexpr FieldSpec lock_refused_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"client", FieldType::node, false, "the client that was refused"},
    {"reason", FieldType::text, true, "why, when not because another holds it: lock-delay, invalid session (consul)"},
};
inline constexpr KindSpec lock_refused{
    "lock.refused", "the store refused the lock: someone else holds it, or the reason says why", lock_refused_fields};

inline constexpr FieldSpec lock_renewed_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"value", FieldType::text, false, "what identifies the holder at the store"},
    {"token", FieldType::integer, true, "the fencing token, where the store gives one"},
    {"holder", FieldType::node, false, "the client whose lease was extended"},
    {"expires_at", FieldType::instant, false, "the new expiry, on the store's wall clock"},
};
inline constexpr KindSpec lock_renewed{
    "lock.renewed", "the store extended the holder's lease (etcd, zookeeper: at each keep-alive of its session)",
    lock_renewed_fields};

inline constexpr FieldSpec lock_released_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"value", FieldType::text, false, "what identified the holder at the store"},
    {"token", FieldType::integer, true, "the fencing token, where the store gives one"},
    {"holder", FieldType::node, false, "the client whose lock went"},
    {"by", FieldType::node, false, "the client that released it"},
    {"plain", FieldType::flag, false, "deleted without checking it was the releaser's own"},
};
inline constexpr KindSpec lock_released{"lock.released", "the lock was released: whose lock went, and who let it go",
                                        lock_released_fields};

inline constexpr FieldSpec lock_expired_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"value", FieldType::text, false, "what identified the holder at the store"},
    {"token", FieldType::integer, true, "the fencing token, where the store gives one"},
    {"holder", FieldType::node, false, "the client whose lock went"},
    {"expires_at", FieldType::instant, true, "the expiry that passed, on the store's wall clock"},
    {"by", FieldType::node, true, "the client whose ended session took the lock (database locks)"},
    {"plain", FieldType::flag, true, "always false: not a delete (database locks)"},
};
inline constexpr KindSpec lock_expired{"lock.expired", "the lease ran out (or its session ended): the store let it go",
                                       lock_expired_fields};

inline constexpr FieldSpec store_failover_fields[] = {
    {"from", FieldType::node, false, "the old primary"},
    {"to", FieldType::node, false, "the replica promoted to primary"},
    {"offset", FieldType::integer, false, "the replication offset the promoted replica had applied"},
};
inline constexpr KindSpec store_failover{"store.failover", "the sentinel promoted a replica to primary",
                                         store_failover_fields};

inline constexpr FieldSpec watch_fired_fields[] = {
    {"key", FieldType::text, false, "the deleted key (its full path)"},
    {"client", FieldType::node, false, "the waiter woken"},
};
inline constexpr KindSpec watch_fired{"watch.fired", "a watched key was deleted: a waiter is woken",
                                      watch_fired_fields};

inline constexpr FieldSpec session_expired_fields[] = {
    {"session", FieldType::integer, false, "the expired session's id"},
};
inline constexpr KindSpec session_expired{"session.expired", "the cluster gave up on a client's session",
                                          session_expired_fields};

inline constexpr FieldSpec consensus_leader_fields[] = {
    {"term", FieldType::integer, false, "the new leader's term"},
    {"previous", FieldType::node, false, "the member that led before"},
};
inline constexpr KindSpec consensus_leader{"consensus.leader", "a new leader took over the ensemble",
                                           consensus_leader_fields};

inline constexpr FieldSpec db_session_ended_fields[] = {
    {"session", FieldType::integer, false, "the ended session's id"},
    {"client", FieldType::node, false, "the client the session belonged to"},
    {"reason", FieldType::text, false, "why it ended, e.g. idle timeout"},
};
inline constexpr KindSpec db_session_ended{"db.session_ended", "the database ended a session; its locks went with it",
                                           db_session_ended_fields};

inline constexpr FieldSpec pooler_lent_fields[] = {
    {"session", FieldType::integer, false, "the server session lent"},
    {"client", FieldType::node, false, "the client whose transaction runs on it"},
};
inline constexpr KindSpec pooler_lent{"pooler.lent", "PgBouncer lent a server session to a client for one transaction",
                                      pooler_lent_fields};

inline constexpr FieldSpec pooler_closed_fields[] = {
    {"session", FieldType::integer, false, "the server session whose connection it closed"},
    {"reason", FieldType::text, false, "why: server idle timeout, server lifetime over"},
};
inline constexpr KindSpec pooler_closed{
    "pooler.closed",
    "PgBouncer closed one of its server connections: the database ends that session, and every session lock on it",
    pooler_closed_fields};

inline constexpr FieldSpec store_loaded_fields[] = {
    {"keys", FieldType::integer, false, "how many keys it loaded"},
    {"persistence", FieldType::text, false,
     "what it saved, as the file says: none, aof-everysec, aof-always, rdb every 1m"},
};
inline constexpr KindSpec store_loaded{"store.loaded", "a restarted redis node loaded what it had saved to disk",
                                       store_loaded_fields};

// ---- the world: which node a scenario's fault struck ----

inline constexpr FieldSpec fault_struck_fields[] = {
    {"fault", FieldType::integer, true, "the fault's place in the design's \"faults\" list, from 0; absent when drawn"},
    {"target", FieldType::node, true, "the node it struck; absent when its role had no one to strike"},
    {"role", FieldType::text, false,
     "what it struck: server, lock store, billing database, payment provider; network (links); none (no one had the "
     "role)"},
};
inline constexpr KindSpec fault_struck{
    "fault.struck", "a fault struck, one of the scenario's or a drawn one (what it did follows)", fault_struck_fields};

// ---- at a holder: what it believes ----

inline constexpr FieldSpec belief_acquired_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"believed_until", FieldType::instant, false, "its lease deadline, on its own monotonic (or wall) clock"},
    {"clock", FieldType::text, true, "\"wall\" when it times leases on its wall clock"},
    {"value", FieldType::text, false, "what identifies it at the store"},
    {"token", FieldType::integer, true, "the fencing token, where the store gives one"},
};
inline constexpr KindSpec belief_acquired{"belief.acquired", "the holder got the lock and believes it holds it",
                                          belief_acquired_fields};

inline constexpr FieldSpec belief_checked_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"believed_until", FieldType::instant, false, "its lease deadline, on its own monotonic (or wall) clock"},
    {"clock", FieldType::text, true, "\"wall\" when it times leases on its wall clock"},
};
inline constexpr KindSpec belief_checked{"belief.checked", "the holder checked its lease and believes it still valid",
                                         belief_checked_fields};

inline constexpr FieldSpec belief_extended_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"believed_until", FieldType::instant, false, "its new deadline, on its own monotonic (or wall) clock"},
    {"clock", FieldType::text, true, "\"wall\" when it times leases on its wall clock"},
};
inline constexpr KindSpec belief_extended{"belief.extended", "a renewal succeeded: the holder believes it for longer",
                                          belief_extended_fields};

inline constexpr FieldSpec belief_ended_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"reason", FieldType::text, false, "why, e.g. released, lease ran out by own clock"},
};
inline constexpr KindSpec belief_ended{"belief.ended", "the holder stopped believing it holds the lock",
                                       belief_ended_fields};

inline constexpr FieldSpec renewal_stopped_fields[] = {
    {"key", FieldType::text, false, "the lock's key"},
    {"reason", FieldType::text, false, "why its client library stopped renewing, e.g. a renewal was refused"},
};
inline constexpr KindSpec renewal_stopped{"renewal.stopped",
                                          "the holder's client library stopped renewing the lock without telling "
                                          "the holder, which still believes it holds it (Redisson's watchdog, "
                                          "Consul's RenewPeriodic)",
                                          renewal_stopped_fields};

// ---- the job on a server ----

inline constexpr FieldSpec job_due_fields[] = {
    {"job", FieldType::text, false, "the job's name"},
    {"period", FieldType::text, false, "the period the run works on, as its effects record it"},
    {"scheduled", FieldType::instant, false, "the wall-clock reading at which the servers' schedulers start the run"},
    {"items", FieldType::text, true,
     "the ids of the items the run is meant to do, as ranges (41-44,50); absent for an index build, whose item is "
     "the period's index"},
    {"step_names", FieldType::text, true,
     "when each item's effect has several steps, their names, one per line, in order: every one must be done"},
};
inline constexpr KindSpec job_due{
    "job.due",
    "a run of the job is scheduled to start before the horizon: its items are meant to be done by the run's end",
    job_due_fields};

inline constexpr FieldSpec job_started_fields[] = {
    {"job", FieldType::text, false, "the job's name"},
};
inline constexpr KindSpec job_started{"job.started", "the job started on the server", job_started_fields};

inline constexpr FieldSpec job_campaigning_fields[] = {
    {"job", FieldType::text, false, "the job's name"},
};
inline constexpr KindSpec job_campaigning{"job.campaigning", "the job stands for leader (lock scope leadership)",
                                          job_campaigning_fields};

inline constexpr FieldSpec job_rebuilding_fields[] = {
    {"period", FieldType::text, false, "the period the index is built for"},
};
inline constexpr KindSpec job_rebuilding{"job.rebuilding", "an index build begins", job_rebuilding_fields};

inline constexpr FieldSpec job_customer_skipped_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"reason", FieldType::text, false, "why, e.g. already charged"},
};
inline constexpr KindSpec job_customer_skipped{"job.skipped", "the job skipped a customer",
                                               job_customer_skipped_fields};

inline constexpr FieldSpec job_preparing_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
};
inline constexpr KindSpec job_preparing{"job.preparing", "the customer's invoice is being prepared",
                                        job_preparing_fields};

inline constexpr FieldSpec job_charge_timed_out_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period the charge is for, as the provider records it"},
    {"attempt", FieldType::integer, false, "which attempt got no reply: 1 for the first request"},
    {"timeout", FieldType::duration, false, "how long the client waited"},
    {"retrying", FieldType::flag, false, "whether it sends the request again"},
    {"reset", FieldType::flag, true, "the connection was reset before the timeout (present only then)"},
};
inline constexpr KindSpec job_charge_timed_out{"job.charge_timed_out",
                                               "no reply to a charge request in time: the charge may or may not "
                                               "have happened",
                                               job_charge_timed_out_fields};

inline constexpr FieldSpec job_error_fields[] = {
    {"error", FieldType::text, false, "what the job's code saw: a statement or a charge unanswered, a bad record"},
    {"customer", FieldType::integer, true, "the item it was handling, if any"},
    {"then", FieldType::text, false,
     "what its error policy does: fail (the run ends), skip (the item is left undone), retry (the run ends and the "
     "job runs again), next tick (a leader loop's tick ends; the next reads what is still pending)"},
    {"retry", FieldType::integer, true, "retry: which retry of the job follows, from 1"},
    {"retry_in", FieldType::duration, true, "retry: how long after this error it starts"},
};
inline constexpr KindSpec job_error{"job.error", "the job's code met an error; its error policy decides what follows",
                                    job_error_fields};

inline constexpr FieldSpec job_finished_fields[] = {
    {"job", FieldType::text, false, "the job's name"},
    {"outcome", FieldType::text, false, "how it ended, e.g. done, stopped: the lock is no longer ours"},
};
inline constexpr KindSpec job_finished{"job.finished", "the job ended", job_finished_fields};

// ---- at the billing database: every statement on the renewals table ----

inline constexpr FieldSpec queue_arrived_fields[] = {
    {"customer", FieldType::integer, false, "the new item's id (a leader loop's queue; \"customer\" as everywhere)"},
    {"period", FieldType::text, false, "the name its sends are counted under"},
};
inline constexpr KindSpec queue_arrived{"queue.arrived", "a new item joined the queue, pending until sent",
                                        queue_arrived_fields};

inline constexpr FieldSpec db_read_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"status", FieldType::text, false, "the row's status: due, claimed or charged"},
    {"fence", FieldType::integer, false, "the highest token that has written the row"},
};
inline constexpr KindSpec db_read{"db.read", "a renewal row was read", db_read_fields};

inline constexpr FieldSpec db_write_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"status", FieldType::text, false, "the status written: claimed or charged"},
    {"rows", FieldType::integer, false, "rows changed; 0 tells the writer it lost"},
    {"client", FieldType::node, false, "the server that wrote"},
    {"token", FieldType::integer, true, "the fencing token it wrote with, on a fenced write"},
};
inline constexpr KindSpec db_write{"db.write", "a write to a renewal row", db_write_fields};

inline constexpr FieldSpec db_rolled_back_fields[] = {
    {"session", FieldType::integer, false, "the session whose transaction rolled back"},
    {"client", FieldType::node, false, "the server that wrote inside it"},
    {"period", FieldType::text, false, "the billing period (or the index's hour) of the write undone"},
    {"customer", FieldType::integer, true, "the customer whose row went back, for a renewal row"},
    {"status", FieldType::text, true, "the status the row went back to: due or claimed"},
};
inline constexpr KindSpec db_rolled_back{"db.rolled_back",
                                         "a write made inside a transaction undone: the session ended before COMMIT",
                                         db_rolled_back_fields};

inline constexpr FieldSpec index_checked_fields[] = {
    {"period", FieldType::text, false, "the period asked about"},
    {"built", FieldType::flag, false, "whether the index was already built for it"},
};
inline constexpr KindSpec index_checked{"index.checked", "was the search index built for the period?",
                                        index_checked_fields};

inline constexpr FieldSpec index_built_fields[] = {
    {"period", FieldType::text, false, "the period the index was built for"},
    {"cpu", FieldType::duration, false, "the processor time the build took"},
    {"client", FieldType::node, false, "the server that built it"},
};
inline constexpr KindSpec index_built{"index.built", "an index build finished", index_built_fields};

// ---- at the payment provider ----

inline constexpr FieldSpec provider_charged_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"by", FieldType::node, false, "the server that asked for the charge"},
    {"key", FieldType::text, true, "the idempotency key, when one was sent"},
    {"token", FieldType::integer, true, "the fencing token sent with it, where the provider checks tokens"},
    {"if_version", FieldType::integer, true,
     "a conditional write: the item's version it was made on, as the writer read it"},
    {"step", FieldType::integer, true, "the step of the item's effect, from 1, when the effect has several"},
    {"charge", FieldType::integer, false, "the new charge's id"},
};
inline constexpr KindSpec provider_charged{"provider.charged", "the provider charged a customer",
                                           provider_charged_fields};

inline constexpr FieldSpec provider_replayed_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"by", FieldType::node, false, "the server that asked for the charge"},
    {"step", FieldType::integer, true, "the step of the item's effect, from 1, when the effect has several"},
    {"key", FieldType::text, false, "the idempotency key it had seen before"},
    {"charge", FieldType::integer, false, "the earlier charge's id, returned again"},
    {"charge_customer", FieldType::integer, false, "the customer the earlier charge was made for"},
    {"charge_period", FieldType::text, false, "the period the earlier charge was made for"},
};
inline constexpr KindSpec provider_replayed{"provider.replayed", "a known idempotency key: the earlier charge returned",
                                            provider_replayed_fields};

inline constexpr FieldSpec provider_refused_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"by", FieldType::node, false, "the server that asked for the charge"},
    {"step", FieldType::integer, true, "the step of the item's effect, from 1, when the effect has several"},
    {"token", FieldType::integer, false, "the fencing token the request carried"},
    {"highest", FieldType::integer, false, "the highest token the provider had seen, above it"},
};
inline constexpr KindSpec provider_refused{"provider.refused",
                                           "a charge refused: its fencing token was below one the provider had seen",
                                           provider_refused_fields};

inline constexpr FieldSpec provider_read_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"by", FieldType::node, false, "the server that read it"},
    {"version", FieldType::integer, false,
     "the version of the customer's object: 0 before its first charge, one more each charge"},
};
inline constexpr KindSpec provider_read{"provider.read",
                                        "a writer read the version of an item's object at the provider (an S3 ETag, "
                                        "a GCS generation, a row's version column), to write on it conditionally",
                                        provider_read_fields};

inline constexpr FieldSpec provider_precondition_failed_fields[] = {
    {"customer", FieldType::integer, false, "the customer's id"},
    {"period", FieldType::text, false, "the billing period, e.g. 2026-10"},
    {"by", FieldType::node, false, "the server that asked for the charge"},
    {"step", FieldType::integer, true,
     "the step of the item's effect: always its first, the one that writes the object"},
    {"key", FieldType::text, true, "the idempotency key, when one was sent (a key not seen before)"},
    {"if_version", FieldType::integer, false, "the version the writer read and wrote on"},
    {"version", FieldType::integer, false, "the object's version now, above it"},
    {"changed_by", FieldType::node, false, "the server whose charge made the version now"},
};
inline constexpr KindSpec provider_precondition_failed{
    "provider.precondition_failed",
    "a conditional write refused (412 Precondition Failed, 0 rows): the item's object changed since the writer "
    "read it",
    provider_precondition_failed_fields};

}  // namespace locksim::trace_kind
