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

// Each step that is not a wait takes this long on the model's clock, as a round trip and
// a little work take on the real machine before the runner goes on.
constexpr Duration step_time = milliseconds(20);
// A store that queues its waiters is given this long to grant one attempt.
constexpr Duration attempt_time = milliseconds(100);
constexpr Duration loopback = microseconds(100);
constexpr Duration horizon = seconds(120);

Duration duration_of(const json& value, const std::string& what) {
    if (!value.is_string()) throw std::invalid_argument(what + ": expected a duration such as \"1s\"");
    const std::string text = value.get<std::string>();
    const bool negative = !text.empty() && text.front() == '-';
    const auto parsed = parse_duration(!text.empty() && (text.front() == '+' || negative) ? text.substr(1) : text);
    if (const auto* error = std::get_if<std::string>(&parsed)) throw std::invalid_argument(what + ": " + *error);
    const Duration d = std::get<Duration>(parsed);
    return negative ? -d : d;
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
        const char* timeout = row ? "idle_in_transaction_session_timeout" : "idle_session_timeout";
        if (server.contains(timeout))
            lock.idle_timeout = duration_of(server[timeout], std::string("server/") + timeout);
        lock.ttl = lock.idle_timeout.value_or(hours(1));
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
        for (const auto& [name, _] : case_.at("clients").items()) {
            names.push_back(name);
            clients_.push_back(name);
        }
        if (clients_.empty()) throw std::invalid_argument("clients: expected at least one");
        for (const auto& name : names) engine_.add_node(name);
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b)
                network_.connect(node(names[a]), node(names[b]), DelayModel::fixed(loopback));
        world_.lock = lock_for(case_, case_.at("clients").at(clients_.front()));
        const StoreContext context{engine_, network_, world_, [this](const std::string& n) { return node(n); }};
        deployment_ = deploy_store(context);
        for (const auto& name : clients_)
            lock_clients_[name] =
                deployment_->client_for(Host(engine_, node(name)), lock_for(case_, case_.at("clients").at(name)));
        store_node_ = node(store_nodes_of(store).front());
    }

    json run() {
        const json& steps = case_.at("steps");
        replies_.resize(steps.size());
        Instant at{milliseconds(10).ns};
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const json& step = steps[i];
            const std::string action = step.at("do").get<std::string>();
            step_at_.push_back(at);
            if (action == "wait") {
                at += duration_of(step.at("for"), fmt::format("steps/{}/for", i));
                continue;
            }
            schedule(i, step, action, at);
            at += action == "acquire" ? attempt_time + step_time : step_time;
        }
        engine_.run(at + horizon);
        return results();
    }

private:
    NodeId node(const std::string& name) const { return *engine_.trace().find_node(name); }

    LockStoreClient& client(const json& step) {
        const std::string name = step.at("client").get<std::string>();
        const auto found = lock_clients_.find(name);
        if (found == lock_clients_.end()) throw std::invalid_argument("client: no client " + name);
        return *found->second;
    }

    void schedule(std::size_t i, const json& step, const std::string& action, Instant at) {
        if (action == "acquire" || action == "extend" || action == "release") {
            const std::string name = step.at("client").get<std::string>();
            LockStoreClient& c = client(step);
            const Host host(engine_, node(name));
            engine_.schedule_at(at, no_node, [this, host, &c, i, action, name] {
                if (action == "acquire") host.spawn(acquire(host, c, i, name));
                if (action == "extend") host.spawn(extend(c, i, name));
                if (action == "release") host.spawn(release(c, i, name));
            });
        } else if (action == "clock_step") {
            const Duration by = duration_of(step.at("by"), fmt::format("steps/{}/by", i));
            engine_.schedule_at(at, no_node, [this, by] { engine_.step_wall_clock(store_node_, by); });
        } else if (action == "crash") {
            const CrashKind kind = step.value("kind", "process") == "machine" ? CrashKind::machine : CrashKind::process;
            const NodeId target = step.contains("client") ? node(step["client"].get<std::string>()) : store_node_;
            engine_.schedule_at(at, no_node, [this, target, kind] { engine_.crash(target, "crash", kind); });
        } else if (action == "restart") {
            const NodeId target = step.contains("client") ? node(step["client"].get<std::string>()) : store_node_;
            engine_.schedule_at(at, no_node, [this, target] { engine_.restart(target); });
        } else if (action == "pause") {
            const Duration length = duration_of(step.at("for"), fmt::format("steps/{}/for", i));
            const NodeId paused = node(step.at("client").get<std::string>());
            engine_.schedule_at(at, no_node, [this, paused, length] { engine_.pause(paused, length, "pause"); });
        } else if (action != "holder" && action != "expires") {
            throw std::invalid_argument(fmt::format("steps/{}/do: unknown step \"{}\"", i, action));
        }
    }

    Task<void> acquire(Host host, LockStoreClient& c, std::size_t i, std::string name) {
        const auto* polling = dynamic_cast<PollingLockClient*>(&c);
        if (polling != nullptr) {
            auto attempt = c.acquire_once();
            const auto lease = co_await attempt;
            if (lease) leases_[name] = *lease;
            replies_[i] = Reply{lease ? "granted" : "taken", lease ? lease->token : std::nullopt};
            co_return;
        }
        // A store that queues its waiters: granted if it grants within the attempt's time.
        replies_[i] = Reply{"taken", std::nullopt};
        const Instant asked = host.engine().now();
        auto waiting = c.acquire();
        const Lease lease = co_await waiting;
        if (host.engine().now() - asked <= attempt_time) {
            leases_[name] = lease;
            replies_[i] = Reply{"granted", lease.token};
        }
    }

    Task<void> extend(LockStoreClient& c, std::size_t i, std::string name) {
        const auto lease = leases_.find(name);
        if (lease == leases_.end()) {
            replies_[i] = Reply{"refused", std::nullopt};
            co_return;
        }
        auto extending = c.extend(lease->second);
        const ExtendResult result = co_await extending;
        replies_[i] = Reply{result.outcome == ExtendResult::Outcome::extended ? "extended" : "refused", std::nullopt};
    }

    Task<void> release(LockStoreClient& c, std::size_t i, std::string name) {
        const auto lease = leases_.find(name);
        if (lease == leases_.end()) {
            replies_[i] = Reply{"not_held", std::nullopt};
            co_return;
        }
        const bool held = holds(name, engine_.now());
        auto releasing = c.release(lease->second);
        co_await releasing;
        replies_[i] = Reply{held ? "released" : "not_held", std::nullopt};
        leases_.erase(lease);
    }

    // Who held the lock at `at`, by the store's own events: grants add a holder; expiries,
    // releases and the store's crash take it away; a restart that loaded keys brings back
    // what it held before the crash.
    std::set<std::string> holders_at(Instant at) const {
        std::set<std::string> holders, before_crash;
        const Trace& trace = engine_.trace();
        for (const auto& event : trace.events()) {
            if (event.at > at) break;
            if (event.kind == kind::lock_granted) {
                holders.insert(trace.node_name(event.node_ref("holder")));
            } else if (event.kind == kind::lock_expired || event.kind == kind::lock_released) {
                holders.erase(trace.node_name(event.node_ref("holder")));
            } else if (event.kind == kind::node_crashed && event.node == store_node_) {
                before_crash = holders;
                holders.clear();
            } else if (event.kind == kind::store_loaded && event.integer("keys") > 0) {
                holders = before_crash;
            }
        }
        return holders;
    }

    bool holds(const std::string& client, Instant at) const { return holders_at(at).contains(client); }

    // The first moment after `from` at which `client` no longer held the lock.
    std::optional<Instant> lost_after(const std::string& client, Instant from) const {
        const Trace& trace = engine_.trace();
        for (const auto& event : trace.events()) {
            if (event.at <= from) continue;
            if ((event.kind == kind::lock_expired || event.kind == kind::lock_released) &&
                trace.node_name(event.node_ref("holder")) == client)
                return event.at;
            if (event.kind == kind::node_crashed && event.node == store_node_) return event.at;
        }
        return std::nullopt;
    }

    json results() const {
        json out = json::array();
        const json& steps = case_.at("steps");
        std::map<std::string, Instant> last_granted;  // per client: its last acquire or extend step
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const json& step = steps[i];
            const std::string action = step.at("do").get<std::string>();
            json result{{"step", i}, {"do", action}};
            if (step.contains("client")) result["client"] = step["client"];
            if (replies_[i].reply) result["reply"] = *replies_[i].reply;
            if (replies_[i].token) result["token"] = *replies_[i].token;
            if ((action == "acquire" && replies_[i].reply == "granted") ||
                (action == "extend" && replies_[i].reply == "extended"))
                last_granted[step["client"].get<std::string>()] = step_at_[i];
            if (action == "holder") {
                const auto holders = holders_at(step_at_[i]);
                result["holder"] = holders.empty() ? json(nullptr) : json(*holders.begin());
            }
            if (action == "expires") {
                const std::string name = step.at("client").get<std::string>();
                const auto since = last_granted.find(name);
                const auto lost = since == last_granted.end() ? std::nullopt : lost_after(name, step_at_[i]);
                result["after"] = lost ? json(std::round((*lost - since->second).ns / 1e6) / 1e3) : json(nullptr);
            }
            out.push_back(std::move(result));
        }
        return json{{"name", case_.at("name")},
                    {"store", case_.at("store")},
                    {"server", "locksim model"},
                    {"results", std::move(out)}};
    }

    const json& case_;
    Engine engine_;
    Network network_;
    WorldSpec world_;
    std::unique_ptr<StoreDeployment> deployment_;
    std::vector<std::string> clients_;
    std::map<std::string, std::unique_ptr<LockStoreClient>> lock_clients_;
    std::map<std::string, Lease> leases_;
    std::vector<Reply> replies_;
    std::vector<Instant> step_at_;
    NodeId store_node_;
};

}  // namespace

json run_on_model(const json& case_file) {
    return ModelRun(case_file).run();
}

}  // namespace locksim::fidelity
