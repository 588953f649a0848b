#include "models/stores/lease_row_store.hpp"

#include <cassert>

#include "models/trace_kinds.hpp"

namespace locksim {

void LeaseRowStore::report_expiry(Row& row, const std::string& name) {
    row.expiry_reported = true;
    host_.record(trace_kind::lock_expired, {{"key", name},
                                            {"value", row.owner},
                                            {"token", row.fence},
                                            {"holder", row.holder},
                                            {"expires_at", row.lease_until}});
}

void LeaseRowStore::report_expiry_at_deadline(const std::string& name) {
    const Row& row = rows_.at(name);
    const std::int64_t fence = row.fence;
    const Instant deadline = row.lease_until;
    // A row does not change when its lease runs out; the trace still marks the moment the
    // database would first let someone else claim it.
    host_.engine().schedule_at_wall(host_.id(), deadline, [this, name, fence, deadline] {
        Row& current = rows_.at(name);
        if (current.fence != fence || current.lease_until != deadline || current.expiry_reported) return;
        report_expiry(current, name);
    });
}

std::optional<std::int64_t> LeaseRowStore::claim(const std::string& name, const std::string& owner, Duration ttl,
                                                 NodeId client) {
    auto found = rows_.find(name);
    if (found != rows_.end() && !expired(found->second)) {
        host_.record(trace_kind::lock_refused, {{"key", name}, {"client", client}});
        return std::nullopt;
    }
    // The claim may run before the expiry alarm (same instant, or the database was
    // paused): the trace still tells the old lease's end before the new grant.
    if (found != rows_.end() && !found->second.expiry_reported) report_expiry(found->second, name);
    const std::int64_t fence = found == rows_.end() ? first_token_ : found->second.fence + 1;
    assert(found == rows_.end() || fence > found->second.fence);  // a row's fence only rises
    const Instant until = host_.wall_now() + ttl;
    rows_[name] = Row{owner, client, until, fence, false};
    assert(!expired(rows_.at(name)));  // the grant is live by this clock: ttl > 0
    host_.record(
        trace_kind::lock_granted,
        {{"key", name}, {"value", owner}, {"token", fence}, {"holder", client}, {"ttl", ttl}, {"expires_at", until}});
    report_expiry_at_deadline(name);
    return fence;
}

int LeaseRowStore::extend(const std::string& name, const std::string& owner, std::int64_t fence, Duration ttl) {
    auto found = rows_.find(name);
    if (found == rows_.end()) return 0;
    Row& row = found->second;
    // The owner and fence check is the whole point: a holder whose lease ran out and was
    // claimed by someone else must not extend the new holder's lease.
    if (row.owner != owner || row.fence != fence || expired(row)) return 0;
    row.lease_until = host_.wall_now() + ttl;
    host_.record(
        trace_kind::lock_renewed,
        {{"key", name}, {"value", owner}, {"token", fence}, {"holder", row.holder}, {"expires_at", row.lease_until}});
    report_expiry_at_deadline(name);
    return 1;
}

int LeaseRowStore::release(const std::string& name, const std::string& owner, std::int64_t fence, bool check_owner,
                           NodeId client) {
    auto found = rows_.find(name);
    if (found == rows_.end()) return 0;
    Row& row = found->second;
    if (expired(row)) return 0;
    if (check_owner && (row.owner != owner || row.fence != fence)) return 0;
    host_.record(trace_kind::lock_released, {{"key", name},
                                             {"value", row.owner},
                                             {"token", row.fence},
                                             {"holder", row.holder},
                                             {"by", client},
                                             {"plain", !check_owner}});
    row.lease_until = host_.wall_now();
    row.expiry_reported = true;  // released, not expired
    return 1;
}

}  // namespace locksim
