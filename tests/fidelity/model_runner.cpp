#include "tests/fidelity/model_runner.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/task.hpp"

namespace locksim::fidelity {
namespace {

namespace kind = trace_kind;
using nlohmann::json;

// A fault step takes this long on the model's clock before the next, as the real runner's
// signal or restart does.
constexpr Duration step_time = milliseconds(10);
// A store that queues its waiters is given this long to grant one attempt.
constexpr Duration attempt_time = milliseconds(500);
constexpr Duration loopback = microseconds(100);
// How the runner waits for a client's answer, and for a lock to go (as the real one polls).
constexpr Duration poll = milliseconds(1);
constexpr Duration answer_limit = seconds(60);
constexpr Duration expiry_poll = milliseconds(20);
constexpr Duration expiry_limit = seconds(30);

Duration duration_of(const json& value, const std::string& what) {
    if (!value.is_string()) throw std::invalid_argument(what + ": expected a duration such as \"1s\"");
    const std::string text = value.get<std::string>();
    const bool negative = !text.empty() && text.front() == '-';
    const auto parsed = parse_duration(!text.empty() && (text.front() == '+' || negative) ? text.substr(1) : text);
    if (const auto* error = std::get_if<std::string>(&parsed)) throw std::invalid_argument(what + ": " + *error);
    const Duration d = std::get<Duration>(parsed);
    return negative ? -d : d;
}

// server.pooler: PgBouncer's own settings, under their own names.
PoolerSpec pooler_of(const json& pooler) {
    if (pooler.value("pool_mode", "") != "transaction")
        throw std::invalid_argument("server/pooler/pool_mode: expected \"transaction\"");
    PoolerSpec spec;
    spec.pool_size = pooler.value("default_pool_size", spec.pool_size);
    spec.min_pool_size = pooler.value("min_pool_size", spec.min_pool_size);
    spec.server_round_robin = pooler.value("server_round_robin", spec.server_round_robin);
    return spec;
}

// The model's lock settings for one client of a case.
LockSpec lock_for(const json& case_file, const json& client) {
    const std::string store = case_file.at("store").get<std::string>();
    const json server = case_file.value("server", json::object());
    LockSpec lock;
    lock.key = "lock";
    lock.ttl = client.contains("ttl") ? duration_of(client["ttl"], "ttl") : seconds(2);
    lock.renew = false;  // the case extends by hand
    lock.retry = RetrySpec{milliseconds(100), milliseconds(100)};
    lock.request_timeout = seconds(1);
    if (store == "redis") {
        lock.store = StoreKind::redis;
        if (server.value("appendonly", false)) {
            const std::string fsync = server.value("appendfsync", "everysec");
            lock.persistence.mode =
                fsync == "always" ? PersistenceSpec::Mode::append_always : PersistenceSpec::Mode::append_everysec;
        }
    } else if (store == "etcd" || store == "zookeeper") {
        lock.store = store == "etcd" ? StoreKind::etcd : StoreKind::zookeeper;
        lock.consensus = ConsensusSpec{1, false, seconds(1)};
        if (server.contains("tick")) lock.consensus.tick = duration_of(server["tick"], "server/tick");
    } else if (store == "postgres") {
        const bool row = client.value("lock", "advisory") == "for_update";
        lock.store = row ? StoreKind::db_for_update : StoreKind::db_advisory;
        if (server.contains("idle_session_timeout"))
            lock.idle_session_timeout = duration_of(server["idle_session_timeout"], "server/idle_session_timeout");
        if (server.contains("idle_in_transaction_session_timeout"))
            lock.idle_in_transaction_timeout = duration_of(server["idle_in_transaction_session_timeout"],
                                                           "server/idle_in_transaction_session_timeout");
        lock.ttl = holder_idle_timeout(lock).value_or(hours(1));
        if (server.contains("pooler")) lock.pooler = pooler_of(server["pooler"]);
    } else {
        throw std::invalid_argument("store: expected redis, etcd, zookeeper or postgres");
    }
    return lock;
}

std::vector<std::string> store_nodes_of(const std::string& store) {
    if (store == "etcd") return {"etcd-1"};
    if (store == "zookeeper") return {"zk-1"};
    if (store == "postgres") return {"postgres"};
    return {"redis"};
}

struct Reply {
    std::optional<std::string> reply;
    std::optional<std::int64_t> token;
};

// A client's answer to one step, shared by the runner and the client's process, which may
// outlive the step (a queued acquire the runner stopped waiting for).
struct Answer {
    Reply reply;
    bool done = false;
};

class ModelRun {
public:
    explicit ModelRun(const json& case_file) : case_(case_file), engine_(1), network_(engine_) {
        const std::string store = case_.at("store").get<std::string>();
        world_.store_nodes = store_nodes_of(store);
        if (store == "postgres") {
            world_.billing_node = world_.store_nodes.front();
            world_.store_nodes.clear();
        }
        std::vector<std::string> names = store_nodes_of(store);
        if (store == "postgres" && case_.value("server", json::object()).contains("pooler")) {
            world_.pooler_node = std::string(pooler_node_name);  // PgBouncer on a node of its own
            names.push_back(world_.pooler_node);
        }
        for (const auto& [name, _] : case_.at("clients").items()) {
            names.push_back(name);
            clients_.push_back(name);
        }
        if (clients_.empty()) throw std::invalid_argument("clients: expected at least one");
        for (const auto& name : names) engine_.add_node(name);
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b)
                network_.connect(node(names[a]), node(names[b]), DelayModel::fixed(loopback));
        runner_ = engine_.add_node("fidelity-runner");
        world_.lock = lock_for(case_, case_.at("clients").at(clients_.front()));
        const StoreContext context{engine_, network_, world_, [this](const std::string& n) { return node(n); }};
        deployment_ = deploy_store(context);
        for (const auto& name : clients_)
            lock_clients_[name] =
                deployment_->client_for(Host(engine_, node(name)), lock_for(case_, case_.at("clients").at(name)));
        store_node_ = node(store_nodes_of(store).front());
        pooled_ = world_.lock.pooler.has_value();
        forgets_in_crash_ = store == "redis" || store == "postgres";  // a database crash ends every session
    }

    json run() {
        results_ = json::array();
        Host(engine_, runner_).spawn(drive());
        engine_.run(Instant{hours(24).ns});
        return json{{"name", case_.at("name")},
                    {"store", case_.at("store")},
                    {"server", "locksim model"},
                    {"results", std::move(results_)}};
    }

private:
    NodeId node(const std::string& name) const { return *engine_.trace().find_node(name); }

    // The steps one after another, as the real runner takes them: each waits for its
    // answer before the next begins; a pause does not hold the script up.
    Task<void> drive() {
        const Host runner(engine_, runner_);
        const json& steps = case_.at("steps");
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const json& step = steps[i];
            const std::string action = step.at("do").get<std::string>();
            json result{{"step", i}, {"do", action}};
            if (step.contains("client")) result["client"] = step["client"];
            if (action == "wait") {
                co_await runner.sleep(duration_of(step.at("for"), fmt::format("steps/{}/for", i)));
            } else if (action == "acquire" || action == "extend" || action == "release") {
                const std::string name = step.at("client").get<std::string>();
                const auto found = lock_clients_.find(name);
                if (found == lock_clients_.end()) throw std::invalid_argument("client: no client " + name);
                if (crashed_.erase(name) > 0) {
                    // A fresh process takes the killed one's place: a new connection, nothing held.
                    engine_.schedule_at(engine_.now(), no_node, [this, name] { engine_.restart(node(name)); });
                    leases_.erase(name);
                    co_await runner.sleep(step_time);
                }
                const auto answer = std::make_shared<Answer>();
                const Host host(engine_, node(name));
                if (action == "acquire") host.spawn(acquire(host, *found->second, name, answer));
                if (action == "extend") host.spawn(extend(*found->second, name, answer));
                if (action == "release") host.spawn(release(*found->second, name, answer));
                for (Duration waited{}; !answer->done && waited < answer_limit; waited += poll)
                    co_await runner.sleep(poll);
                const Reply& reply = answer->reply;
                if (reply.reply) result["reply"] = *reply.reply;
                if (reply.token) result["token"] = *reply.token;
                if (pooled_ && action != "extend") pooled_statement(name, result);
                if (reply.reply == "granted" || reply.reply == "extended") last_granted_[name] = engine_.now();
            } else if (action == "holder" && pooled_) {
                pooled_holder(result);
            } else if (action == "holder") {
                const auto holders = holders_at(engine_.now());
                result["holder"] = holders.empty() ? json(nullptr) : json(*holders.begin());
            } else if (action == "expires") {
                const std::string name = step.at("client").get<std::string>();
                json after = nullptr;
                for (Duration waited{}; waited <= expiry_limit; waited += expiry_poll) {
                    if (!holds(name, engine_.now())) {
                        if (const auto since = last_granted_.find(name); since != last_granted_.end())
                            after = std::round((engine_.now() - since->second).ns / 1e6) / 1e3;
                        break;
                    }
                    co_await runner.sleep(expiry_poll);
                }
                result["after"] = after;
            } else if (action == "clock_step" && case_.at("store") == "etcd") {
                // The real runner cannot step a Go program's clock; neither side is tested.
                result["reply"] = "unsupported";
            } else {
                world_event(i, step, action);
                if (action == "crash" && step.contains("client")) crashed_.insert(step["client"].get<std::string>());
                co_await runner.sleep(step_time);
            }
            results_.push_back(std::move(result));
        }
        // The case ends with its last step, as the real runner then stops the server. A
        // consensus store's heartbeats would otherwise run on to the horizon: a day of them,
        // up to 1.9 million events per case that no result reads (under ASan, 29 s of the
        // fidelity tests' 29.5 s).
        engine_.stop();
    }

    // A fault, applied from the world as a scenario's faults are.
    void world_event(std::size_t i, const json& step, const std::string& action) {
        const NodeId target = step.contains("client") ? node(step["client"].get<std::string>()) : store_node_;
        if (action == "clock_step") {
            const Duration by = duration_of(step.at("by"), fmt::format("steps/{}/by", i));
            engine_.schedule_at(engine_.now(), no_node, [this, by] { engine_.step_wall_clock(store_node_, by); });
        } else if (action == "crash") {
            const CrashKind kind = step.value("kind", "process") == "machine" ? CrashKind::machine : CrashKind::process;
            engine_.schedule_at(engine_.now(), no_node, [this, target, kind] { engine_.crash(target, "crash", kind); });
        } else if (action == "restart") {
            engine_.schedule_at(engine_.now(), no_node, [this, target] { engine_.restart(target); });
        } else if (action == "pause") {
            const Duration length = duration_of(step.at("for"), fmt::format("steps/{}/for", i));
            engine_.schedule_at(engine_.now(), no_node,
                                [this, target, length] { engine_.pause(target, length, "pause"); });
        } else {
            throw std::invalid_argument(fmt::format("steps/{}/do: unknown step \"{}\"", i, action));
        }
    }

    Task<void> acquire(Host host, LockStoreClient& c, std::string name, std::shared_ptr<Answer> answer) {
        if (dynamic_cast<PollingLockClient*>(&c) != nullptr) {
            auto attempt = c.acquire_once();
            const auto lease = co_await attempt;
            if (lease) leases_[name].push_back(*lease);
            answer->reply = Reply{lease ? "granted" : "taken", lease ? lease->token : std::nullopt};
            answer->done = true;
            co_return;
        }
        // A store that queues its waiters: granted if it grants within the attempt's time.
        // The real runner's create-if-absent does not queue, so a grant that comes later is
        // handed back at once, as a client that gave up would.
        const Instant asked = host.engine().now();
        engine_.schedule_at(asked + attempt_time, no_node, [answer] {
            if (answer->done) return;
            answer->reply = Reply{"taken", std::nullopt};
            answer->done = true;
        });
        auto waiting = c.acquire();
        const Lease lease = co_await waiting;
        if (!answer->done) {
            leases_[name].push_back(lease);
            answer->reply = Reply{"granted", lease.token};
            answer->done = true;
            co_return;
        }
        auto giving_back = c.release(lease);
        co_await giving_back;
    }

    Task<void> extend(LockStoreClient& c, std::string name, std::shared_ptr<Answer> answer) {
        const auto lease = leases_.find(name);
        if (lease != leases_.end()) {
            auto extending = c.extend(lease->second.back());
            const ExtendResult result = co_await extending;
            answer->reply.reply = result.outcome == ExtendResult::Outcome::extended ? "extended" : "refused";
        } else {
            answer->reply.reply = "refused";
        }
        answer->done = true;
    }

    Task<void> release(LockStoreClient& c, std::string name, std::shared_ptr<Answer> answer) {
        const auto lease = leases_.find(name);
        if (lease == leases_.end()) {
            answer->reply.reply = "not_held";
        } else {
            const bool held = holds(name, engine_.now());
            const Lease released = lease->second.back();
            lease->second.pop_back();
            if (lease->second.empty()) leases_.erase(lease);
            auto releasing = c.release(released);
            co_await releasing;
            answer->reply.reply = held ? "released" : "not_held";
        }
        answer->done = true;
    }

    // Who held the lock at `at`, by the store's own events: grants add a holder; expiries
    // and releases take it away; so does a Redis or database crash, and a restart that loaded
    // keys brings back what it held before. (A consensus store's log and a database's
    // sessions speak for themselves: their ends are events of their own.)
    std::set<std::string> holders_at(Instant at) const {
        std::set<std::string> holders, before_crash;
        const Trace& trace = engine_.trace();
        for (const auto& event : trace.events()) {
            if (event.at > at) break;
            if (event.kind == kind::lock_granted) {
                holders.insert(trace.node_name(event.node_ref("holder")));
            } else if (event.kind == kind::lock_expired || event.kind == kind::lock_released) {
                holders.erase(trace.node_name(event.node_ref("holder")));
            } else if (event.kind == kind::node_crashed && event.node == store_node_ && forgets_in_crash_) {
                before_crash = holders;
                holders.clear();
            } else if (event.kind == kind::store_loaded && event.integer("keys") > 0) {
                holders = before_crash;
            }
        }
        return holders;
    }

    bool holds(const std::string& client, Instant at) const { return holders_at(at).contains(client); }

    // Through PgBouncer, as the real runner sees it: the backend each statement ran on
    // (`pooler.lent`), labelled in order of appearance; who holds the lock is the
    // application_name of the holding backend, the client lent it last.
    struct Statement {
        std::int64_t session = 0;
        std::optional<std::int64_t> holding;  // the session that held the lock when it ran
    };
    struct PoolState {
        std::optional<std::int64_t> holding;         // the session that holds the advisory lock
        std::map<std::int64_t, NodeId> lent;         // per session: the client lent it last
        std::map<NodeId, Statement> last_statement;  // per client
    };
    PoolState pool_state() const {
        PoolState state;
        for (const auto& event : engine_.trace().events()) {
            if (event.kind == kind::pooler_lent) {
                const std::int64_t session = event.integer("session");
                state.lent.insert_or_assign(session, event.node_ref("client"));
                state.last_statement.insert_or_assign(event.node_ref("client"), Statement{session, state.holding});
            } else if (event.kind == kind::lock_granted) {
                state.holding = event.integer("session");
            } else if (event.kind == kind::lock_released || event.kind == kind::lock_expired) {
                state.holding.reset();
            }
        }
        return state;
    }

    std::string connection_label(std::int64_t session) {
        const auto [label, _] =
            connections_.try_emplace(session, fmt::format("server connection {}", connections_.size() + 1));
        return label->second;
    }

    void pooled_statement(const std::string& client, json& result) {
        const PoolState state = pool_state();
        const auto statement = state.last_statement.find(node(client));
        if (statement == state.last_statement.end()) return;  // sent nothing
        const std::int64_t session = statement->second.session;
        result["connection"] = connection_label(session);
        // pg_advisory_unlock says true only on the backend that holds the lock.
        if (result.value("do", "") == "release")
            result["reply"] = statement->second.holding == session ? "released" : "not_held";
    }

    void pooled_holder(json& result) {
        const PoolState state = pool_state();
        if (!state.holding) {
            result["holder"] = nullptr;
            return;
        }
        result["holder"] = engine_.trace().node_name(state.lent.at(*state.holding));
        result["holder_connection"] = connection_label(*state.holding);
    }

    const json& case_;
    Engine engine_;
    Network network_;
    WorldSpec world_;
    std::unique_ptr<StoreDeployment> deployment_;
    std::vector<std::string> clients_;
    std::map<std::string, std::unique_ptr<LockStoreClient>> lock_clients_;
    // Per client, the leases it was granted and has not released, latest last: a
    // re-entrant lock (PostgreSQL's advisory lock) grants one session more than one.
    std::map<std::string, std::vector<Lease>> leases_;
    std::map<std::string, Instant> last_granted_;  // per client: the answer to its last granted acquire or extend
    json results_;
    NodeId store_node_;
    NodeId runner_;
    bool forgets_in_crash_ = false;
    bool pooled_ = false;                              // the clients reach the database through PgBouncer
    std::map<std::int64_t, std::string> connections_;  // pooled: server session -> its label
    std::set<std::string> crashed_;                    // clients killed, to be replaced before their next step
};

}  // namespace

json run_on_model(const json& case_file) {
    return ModelRun(case_file).run();
}

}  // namespace locksim::fidelity
