#include "models/stores/transaction_pool.hpp"

#include <algorithm>
#include <cassert>

#include "models/trace_kinds.hpp"

namespace locksim {

TransactionPool::TransactionPool(Host pooler, DatabaseLocks& locks, PoolerSpec spec)
    : pooler_(pooler), locks_(locks), spec_(spec) {}

std::int64_t TransactionPool::lend(NodeId client) {
    forget_ended_sessions();
    // A client has connected, so the janitor (three rounds a second) keeps min_pool_size
    // sessions open: the model opens them before the first transaction (check_pool_size()).
    const auto kept_open = static_cast<std::size_t>(std::min(spec_.min_pool_size, spec_.pool_size));
    while (idle_.size() < kept_open) open_idle_session();
    // find_server(): the first idle session; launch_new_connection() when there is none.
    // No transaction is in flight here (see the header), so the pool has room.
    if (idle_.empty()) open_idle_session();
    const std::int64_t session = idle_.front();
    idle_.pop_front();
    locks_.lend(session, client);
    pooler_.record(trace_kind::pooler_lent, {{"session", session}, {"client", client}});
    return session;
}

// release_server() -> change_server_state(SV_IDLE): the head of the idle list (LIFO), or
// its tail with server_round_robin.
void TransactionPool::give_back(std::int64_t session) {
    if (!locks_.is_open(session)) return;  // PgBouncer disconnects a server that closed
    if (spec_.server_round_robin)
        idle_.push_back(session);
    else
        idle_.push_front(session);
}

// A new server connection joins the idle list when its login completes, as a released one
// does (release_server() from SV_LOGIN).
void TransactionPool::open_idle_session() {
    assert(static_cast<int>(idle_.size()) < spec_.pool_size);  // one transaction at most is in flight
    give_back(locks_.connect(pooler_.id()));
}

void TransactionPool::forget_ended_sessions() {
    std::erase_if(idle_, [this](std::int64_t session) { return !locks_.is_open(session); });
}

}  // namespace locksim
