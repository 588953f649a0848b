#include "models/trace_kinds.hpp"

namespace locksim {

const std::vector<const KindSpec*>& all_trace_kinds() {
    static const std::vector<const KindSpec*> kinds{&trace_kind::lock_granted,
                                                    &trace_kind::lock_refused,
                                                    &trace_kind::lock_renewed,
                                                    &trace_kind::lock_released,
                                                    &trace_kind::lock_expired,
                                                    &trace_kind::store_failover,
                                                    &trace_kind::watch_fired,
                                                    &trace_kind::session_expired,
                                                    &trace_kind::consensus_leader,
                                                    &trace_kind::db_session_ended,
                                                    &trace_kind::pooler_lent,
                                                    &trace_kind::store_loaded,
                                                    &trace_kind::fault_struck,
                                                    &trace_kind::belief_acquired,
                                                    &trace_kind::belief_checked,
                                                    &trace_kind::belief_extended,
                                                    &trace_kind::belief_ended,
                                                    &trace_kind::job_due,
                                                    &trace_kind::job_started,
                                                    &trace_kind::job_campaigning,
                                                    &trace_kind::job_rebuilding,
                                                    &trace_kind::job_customer_skipped,
                                                    &trace_kind::job_preparing,
                                                    &trace_kind::job_charge_timed_out,
                                                    &trace_kind::job_finished,
                                                    &trace_kind::db_read,
                                                    &trace_kind::db_write,
                                                    &trace_kind::index_checked,
                                                    &trace_kind::index_built,
                                                    &trace_kind::provider_charged,
                                                    &trace_kind::provider_replayed,
                                                    &trace_kind::provider_refused,
                                                    &trace_kind::message_sent,
                                                    &trace_kind::message_delivered,
                                                    &trace_kind::message_lost,
                                                    &trace_kind::network_partitioned,
                                                    &trace_kind::network_healed,
                                                    &trace_kind::link_held,
                                                    &trace_kind::link_holding,
                                                    &trace_kind::link_lossy,
                                                    &trace_kind::node_paused,
                                                    &trace_kind::node_resumed,
                                                    &trace_kind::clock_stepped,
                                                    &trace_kind::clock_slewing,
                                                    &trace_kind::node_crashed,
                                                    &trace_kind::node_restarted,
                                                    &trace_kind::message_held,
                                                    &trace_kind::queue_arrived,
                                                    &trace_kind::message_stalled,
                                                    &trace_kind::connection_reset,
                                                    &trace_kind::job_error,
                                                    &trace_kind::renewal_stopped,
                                                    &trace_kind::connection_closed,
                                                    &trace_kind::provider_read,
                                                    &trace_kind::provider_precondition_failed,
                                                    &trace_kind::db_rolled_back,
                                                    &trace_kind::connection_refused,
                                                    &trace_kind::pooler_closed};
    return kinds;
}

const KindSpec* find_trace_kind(std::string_view name) {
    for (const KindSpec* kind : all_trace_kinds())
        if (kind->name == name) return kind;
    return nullptr;
}

}  // namespace locksim
