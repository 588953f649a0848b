#include "models/stores/lock_options.hpp"

#include <algorithm>
#include <array>

namespace locksim {
namespace {

constexpr std::array<LockOption, 30> lock_options{{
    {"ttl",
     "in-memory holds its lock until released; the database holds its locks for the session: see "
     "idle_session_timeout and idle_in_transaction_timeout"},
    {"client", "in-memory and db-for-update have one client each here, not yet a choice of libraries"},
    {"renew",
     "kubernetes-lease renews every retry_period; a database session is kept alive only against its idle timeout"},
    {"release", ""},
    {"retry", "the others queue waiters, and kubernetes-lease tries every retry_period"},
    {"persistence", ""},
    {"replicas", ""},
    {"replication_lag", ""},
    {"down_after", ""},
    {"wait", ""},
    {"promote", ""},
    {"nodes", ""},
    {"node_timeout", ""},
    {"ensemble", ""},
    {"watch", ""},
    {"election_timeout", ""},
    {"heartbeat_interval", "a ZooKeeper leader pings every quarter of election_timeout"},
    {"tick", "etcd has no ticks; it raises a lease TTL below 1.5 election timeouts, rounded up to whole seconds"},
    {"lock_delay", ""},
    {"first_token", ""},
    {"renew_deadline", ""},
    {"retry_period", ""},
    {"token_counter", "Redlock's independent nodes have no one counter; {stores_with_tokens} give tokens of their own"},
    {"idle_session_timeout", ""},
    {"idle_in_transaction_timeout", ""},
    {"tcp_keepalives", ""},
    {"pooler", "a FOR UPDATE lock lives inside one transaction, which a transaction pooler keeps on one connection"},
    {"job_statements", "the job's statements go to the billing database, where only a database lock lives"},
    {"scope", "only an advisory lock is taken by a session or by a transaction; a FOR UPDATE lock is a transaction's"},
    {"in_billing_database",
     "the database locks live there already; the other stores are servers of their own, not tables"},
}};

}  // namespace

std::span<const LockOption> all_lock_options() {
    return lock_options;
}

const LockOption* find_lock_option(std::string_view field) {
    const auto* found = std::find_if(lock_options.begin(), lock_options.end(),
                                     [field](const LockOption& option) { return option.field == field; });
    return found == lock_options.end() ? nullptr : found;
}

}  // namespace locksim
