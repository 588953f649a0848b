#include "models/stores/pgbouncer.hpp"

#include <algorithm>
#include <utility>

#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

// The janitor's round (full_maint_period: a third of a second).
constexpr Duration janitor_period = microseconds(333'333);
// How long PgBouncer waits before it tries to log in again after a failed login.
constexpr Duration server_login_retry = seconds(15);

}  // namespace

PgBouncer::PgBouncer(Host host, Network& network, NodeId database, DatabaseLocks& locks, PoolerSpec spec,
                     TcpKeepalives database_keepalives)
    : host_(host),
      network_(network),
      database_(database),
      locks_(locks),
      spec_(spec),
      database_keepalives_(database_keepalives) {
    host_.engine().on_crash(host_.id(), [this] { crashed(); });
}

void PgBouncer::relay(RelayedStatement statement) {
    host_.spawn(run(std::move(statement)));
}

Task<void> PgBouncer::run(RelayedStatement statement) {
    const auto session = co_await lend(statement.client);
    if (!session) {
        statement.fail();
        co_return;
    }
    // No timeout: query_timeout is off by default. A connection the database closes, or
    // whose stream is reset, ends the wait with nothing.
    auto request =
        call(network_, host_, database_, statement.label, [locks = &locks_, session = *session, run = statement.run] {
            if (!locks->touch(session)) return Answer<bool>{false, "FATAL: terminating connection"};
            return Answer<bool>{true, run(session)};
        });
    const auto answered = co_await request;
    if (!answered || !*answered) {
        forget(*session);
        statement.fail();
        co_return;
    }
    give_back(*session);
    statement.respond();
}

Task<std::optional<std::int64_t>> PgBouncer::lend(NodeId client) {
    if (!client_connected_) {
        client_connected_ = true;
        keep_min_pool_size();
    }
    for (;;) {
        forget_closed_idle();
        if (!idle_.empty()) {
            const std::int64_t session = idle_.front();
            idle_.pop_front();
            ++servers_.at(session).uses;
            locks_.lend(session, client);
            host_.record(trace_kind::pooler_lent, {{"session", session}, {"client", client}});
            co_return session;
        }
        // launch_new_connection(): one login at a time; a client that finds one on its way
        // waits for it, as for a connection coming back.
        if (opening_ == 0 && open_or_opening() < spec_.pool_size) {
            const std::size_t open_before = servers_.size();
            ++opening_;
            co_await open_connection();
            if (servers_.size() == open_before) co_return std::nullopt;  // the login failed
            continue;
        }
        co_await released_.wait(host_);
    }
}

Task<void> PgBouncer::open_connection() {
    auto request = call(network_, host_, database_, "connect (pgbouncer)", [locks = &locks_, pooler = host_.id()] {
        const std::int64_t id = locks->connect(pooler);
        return Answer<std::int64_t>{id, fmt::format("session {}", id)};
    });
    const auto session = co_await request;
    if (!session) {
        // The next login waits server_login_retry; the clients in line wait with it.
        co_await host_.sleep(server_login_retry);
        --opening_;
        released_.notify_all(host_.engine());
        co_return;
    }
    --opening_;
    const Instant now = host_.monotonic_now();
    servers_.emplace(*session, Server{now, now, 0});
    keep_min_pool_size();  // the janitor's next login, if min_pool_size wants more
    // Past min_pool_size the idle ones' idle timeouts count again.
    if (spec_.min_pool_size > 0 && static_cast<int>(servers_.size()) == spec_.min_pool_size + 1)
        for (const std::int64_t idle : idle_) arm_janitor(idle);
    give_back(*session);
}

// release_server() → change_server_state(SV_IDLE); a connection past its lifetime is closed.
void PgBouncer::give_back(std::int64_t session) {
    const auto found = servers_.find(session);
    if (found == servers_.end()) return;
    if (!locks_.is_open(session)) {
        forget(session);
        return;
    }
    if (close_if_life_over(session, found->second)) return;
    found->second.released = host_.monotonic_now();
    if (spec_.server_round_robin)
        idle_.push_back(session);
    else
        idle_.push_front(session);
    arm_janitor(session);
    released_.notify_all(host_.engine());
}

bool PgBouncer::close_if_life_over(std::int64_t session, const Server& server) {
    if (!life_over(server)) return false;
    last_lifetime_close_ = host_.monotonic_now();
    close(session, "server lifetime over");
    return true;
}

bool PgBouncer::life_over(const Server& server) const {
    const Instant now = host_.monotonic_now();
    if (now - server.connected < spec_.server_lifetime) return false;
    // Closes for age are spread out, so the pool does not reconnect all at once.
    const Duration gap = spec_.server_lifetime / spec_.pool_size;
    return !last_lifetime_close_ || now - *last_lifetime_close_ >= gap;
}

void PgBouncer::close(std::int64_t session, std::string_view why) {
    host_.record(trace_kind::pooler_closed, {{"session", session}, {"reason", why}});
    forget(session);
    network_.send(host_.id(), database_, fmt::format("Terminate (pgbouncer: {})", why),
                  [locks = &locks_, session] { locks->end_session(session, "pgbouncer closed the connection"); });
}

void PgBouncer::forget(std::int64_t session) {
    servers_.erase(session);
    std::erase(idle_, session);
    released_.notify_all(host_.engine());  // the pool has room again
    keep_min_pool_size();
}

void PgBouncer::forget_closed_idle() {
    std::vector<std::int64_t> closed;
    for (const std::int64_t session : idle_)
        if (!locks_.is_open(session)) closed.push_back(session);
    for (const std::int64_t session : closed) forget(session);
}

// The janitor's next round after the connection falls due for server_idle_timeout or
// server_lifetime, counted in rounds from the pooler's start.
void PgBouncer::arm_janitor(std::int64_t session) {
    const Server& server = servers_.at(session);
    Instant due = server.connected + spec_.server_lifetime;
    if (spec_.server_idle_timeout > Duration{} && above_min_pool_size())
        due = std::min(due, server.released + spec_.server_idle_timeout);
    // The first round past `due`, and never this one again: a connection kept open (for
    // min_pool_size, or until the next close for age may come) is looked at next round.
    const Instant now = host_.monotonic_now();
    const Instant round{(std::max(due, now).ns / janitor_period.ns + 1) * janitor_period.ns};
    host_.engine().schedule_after(host_.id(), round - now,
                                  [this, session, uses = server.uses] { janitor_round(session, uses); });
}

// check_unused_servers() for one idle connection.
void PgBouncer::janitor_round(std::int64_t session, std::uint64_t uses) {
    const auto found = servers_.find(session);
    if (found == servers_.end() || found->second.uses != uses) return;  // closed, or lent since
    const Server& server = found->second;
    const Instant now = host_.monotonic_now();
    if (spec_.server_idle_timeout > Duration{} && now - server.released > spec_.server_idle_timeout &&
        above_min_pool_size()) {
        close(session, "server idle timeout");
        return;
    }
    if (close_if_life_over(session, server)) return;
    arm_janitor(session);  // not yet (kept for min_pool_size, or another close came first)
}

// check_pool_size(): min_pool_size open once a client has connected (never above
// default_pool_size), one login at a time, each login starting the next.
void PgBouncer::keep_min_pool_size() {
    if (!client_connected_ || !host_.engine().is_up(host_.id())) return;
    const int wanted = std::min(spec_.min_pool_size, spec_.pool_size);
    if (opening_ > 0 || open_or_opening() >= wanted) return;
    ++opening_;
    host_.spawn(open_connection());
}

void PgBouncer::crashed() {
    const bool machine = host_.engine().crash_kind(host_.id()) == CrashKind::machine;
    for (const auto& [session, server] : servers_) {
        if (machine) {
            end_when_keepalive_gives_up(host_.engine(), locks_, database_, session, database_keepalives_,
                                        host_.engine().monotonic_now(database_));
        } else {
            network_.send(host_.id(), database_, "connection closed (pgbouncer died)",
                          [locks = &locks_, session] { locks->end_session(session, "connection closed"); });
        }
    }
    servers_.clear();
    idle_.clear();
    opening_ = 0;
    client_connected_ = false;
    released_ = Condition();  // its waiters died with the process
}

}  // namespace locksim
