#include "models/trace_kinds.hpp"

#include <array>

#include "sim/trace.hpp"

namespace locksim {

const std::vector<std::string_view>& all_trace_kinds() {
    static const std::vector<std::string_view> kinds{
        trace_kind::lock_granted,
        trace_kind::lock_refused,
        trace_kind::lock_renewed,
        trace_kind::lock_released,
        trace_kind::lock_expired,
        trace_kind::store_failover,
        trace_kind::watch_fired,
        trace_kind::session_expired,
        trace_kind::consensus_leader,
        trace_kind::db_session_ended,
        trace_kind::store_loaded,
        trace_kind::belief_acquired,
        trace_kind::belief_checked,
        trace_kind::belief_extended,
        trace_kind::belief_ended,
        trace_kind::job_started,
        trace_kind::job_campaigning,
        trace_kind::job_rebuilding,
        trace_kind::job_customer_skipped,
        trace_kind::job_preparing,
        trace_kind::job_finished,
        trace_kind::db_read,
        trace_kind::db_write,
        trace_kind::index_checked,
        trace_kind::index_built,
        trace_kind::provider_charged,
        trace_kind::provider_replayed,
        trace_kind::message_sent,
        trace_kind::message_delivered,
        trace_kind::message_lost,
        trace_kind::network_partitioned,
        trace_kind::network_healed,
        trace_kind::link_held,
        trace_kind::node_paused,
        trace_kind::node_resumed,
        trace_kind::clock_stepped,
        trace_kind::clock_slewing,
        trace_kind::node_crashed,
        trace_kind::node_restarted};
    return kinds;
}

const std::vector<std::string_view>& trace_field_names(std::string_view kind) {
    namespace k = trace_kind;
    using Fields = std::vector<std::string_view>;
    static const Fields lock_fields{"key", "value", "token", "holder", "ttl", "expires_at", "by", "plain", "client", "session"};
    static const Fields belief_fields{"key", "value", "token", "believed_until", "clock", "reason"};
    static const Fields charge_fields{"customer", "period", "by", "key", "charge"};
    static const std::vector<std::pair<std::string_view, Fields>> table{
        {k::lock_granted, lock_fields},
        {k::lock_refused, lock_fields},
        {k::lock_renewed, lock_fields},
        {k::lock_released, lock_fields},
        {k::lock_expired, lock_fields},
        {k::store_failover, {"from", "to", "offset"}},
        {k::watch_fired, {"key", "client"}},
        {k::session_expired, {"session"}},
        {k::consensus_leader, {"term", "previous"}},
        {k::db_session_ended, {"session", "client", "reason"}},
        {k::store_loaded, {"keys"}},
        {k::belief_acquired, belief_fields},
        {k::belief_checked, belief_fields},
        {k::belief_extended, belief_fields},
        {k::belief_ended, belief_fields},
        {k::job_started, {"job"}},
        {k::job_campaigning, {"job"}},
        {k::job_rebuilding, {"period"}},
        {k::job_customer_skipped, {"customer", "reason"}},
        {k::job_preparing, {"customer"}},
        {k::job_finished, {"job", "outcome"}},
        {k::db_read, {"customer", "period", "status", "fence"}},
        {k::db_write, {"customer", "period", "status", "token", "rows", "client"}},
        {k::index_checked, {"period", "built"}},
        {k::index_built, {"period", "cpu", "client"}},
        {k::provider_charged, charge_fields},
        {k::provider_replayed, charge_fields},
        {k::message_sent, {"id", "to", "label", "deliver_at", "reply_to"}},
        {k::message_delivered, {"id", "from", "label", "duplicate"}},
        {k::message_lost, {"id", "to", "cut"}},
        {k::network_partitioned, {"groups", "one_way", "cut"}},
        {k::network_healed, {"groups"}},
        {k::link_held, {"to", "extra", "until", "one_way"}},
        {k::node_paused, {"for", "cause"}},
        {k::node_resumed, {"paused_for"}},
        {k::clock_stepped, {"old_wall", "new_wall"}},
        {k::clock_slewing, {"by", "over"}},
        {k::node_crashed, {"cause"}},
        {k::node_restarted, {"down_for"}},
    };
    static const Fields none;
    for (const auto& [name, fields] : table)
        if (name == kind) return fields;
    return none;
}

}  // namespace locksim
