#pragma once
// A lock kept as a row in a database (docs/models.md, "Database lease row"): one statement claims the
// lease and increases the row's counter, so every grant carries a larger fencing token.
// Only the database's own wall clock decides whether a lease has run out.
//
//   UPDATE leases SET owner=$1, lease_until=now()+ttl, fence=fence+1
//    WHERE name=$2 AND lease_until <= now() RETURNING fence
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/host.hpp"

namespace locksim {

class LeaseRowStore {
public:
    // `first_token` is the fence of the first grant (gc-pause-40s starts at 33).
    LeaseRowStore(Host host, std::int64_t first_token) : host_(host), first_token_(first_token) {}

    // The new fence if the lease was free (never taken, or run out by this clock).
    std::optional<std::int64_t> claim(const std::string& name, const std::string& owner, Duration ttl, NodeId client);
    // UPDATE ... SET lease_until=now()+ttl WHERE name=$ AND owner=$ AND fence=$ AND
    // lease_until > now(): rows changed. A lapsed lease is not revived, even if unclaimed.
    int extend(const std::string& name, const std::string& owner, std::int64_t fence, Duration ttl);
    // Ends the lease now; with `check_owner` only if owner and fence still match.
    int release(const std::string& name, const std::string& owner, std::int64_t fence, bool check_owner, NodeId client);

private:
    struct Row {
        std::string owner;
        NodeId holder;
        Instant lease_until;  // reading of this host's wall clock
        std::int64_t fence = 0;
        bool expiry_reported = false;
    };

    bool expired(const Row& row) const { return row.lease_until <= host_.wall_now(); }
    void report_expiry(Row& row, const std::string& name);
    void report_expiry_at_deadline(const std::string& name);

    Host host_;
    std::int64_t first_token_;
    std::map<std::string, Row> rows_;
};

}  // namespace locksim
