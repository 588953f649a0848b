#pragma once
// A world to simulate, with every unit resolved: what a scenario file says once it has
// been read and checked, and what one design of it runs. Plain data, no behaviour.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/clock.hpp"
#include "sim/network.hpp"
#include "sim/time.hpp"

namespace locksim {

enum class StoreKind {
    redis,      // one Redis node: SET NX PX with a random value; no token
    lease_row,  // a database lease row whose counter rises with every grant: a fencing token
};

enum class ReleaseMode {
    compare_and_delete,  // delete only if the value is still ours (the right way)
    plain_delete,        // DEL whatever is there (the bug of seed section 2)
};

struct RetrySpec {
    Duration min_delay;  // a waiting client sleeps a uniformly drawn delay in [min, max]
    Duration max_delay;
};

struct LockSpec {
    StoreKind store = StoreKind::redis;
    std::string key;
    Duration ttl;
    bool renew = true;  // renew every ttl/3 while the value is still ours
    ReleaseMode release = ReleaseMode::compare_and_delete;
    RetrySpec retry;
    Duration request_timeout;      // how long a client waits for the store's reply
    std::int64_t first_token = 1;  // lease-row: the token of the first grant
};

struct JobSpec {
    std::string name;
    Instant starts_at;  // a wall-clock reading: each server's scheduler fires at it
    std::vector<std::int64_t> customers;
    std::string period;
    Duration work_per_customer;  // preparing one invoice, between the lease check and the charge
};

// How the job protects the resources it writes to.
struct ProtectionSpec {
    bool fencing = false;  // claim the billing row with the lock's token before charging
    std::optional<std::string> idempotency_key;  // template such as "renewal-{customer}-{period}"
};

struct PauseFault {
    std::string node;
    Instant at;  // true time
    Duration length;
    std::string cause;  // "gc", "sigstop", "swap"
};

struct ClockStepFault {
    std::string node;
    Instant at;        // true time
    Duration delta;    // how far the wall clock jumps; negative jumps back
};

using Fault = std::variant<PauseFault, ClockStepFault>;

struct WorldSpec {
    std::vector<std::string> servers;
    std::string lock_store_node;
    std::string billing_node;
    std::string provider_node;
    std::map<std::string, ClockSettings> clocks;  // nodes not listed keep perfect clocks
    DelayModel link_delay;
    LockSpec lock;
    JobSpec job;
    ProtectionSpec protection;
    std::vector<Fault> faults;
    Duration horizon;  // the run stops at this true time even if work is pending
};

}  // namespace locksim
