#include "models/world/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "models/billing_database.hpp"
#include "models/effect_steps.hpp"
#include "models/item_ranges.hpp"
#include "models/job_server.hpp"
#include "models/lock_holder.hpp"
#include "models/payment_provider.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/fault_schedule.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

namespace locksim {
namespace {

// Members are destroyed in reverse order, the engine last: the suspended processes it
// destroys then only release their own frames; no model code runs after run() returns.
// Who holds the lock and which store node leads, followed event by event, for faults
// aimed at a role ("the holder", "the primary") at the moment they strike.
class RoleFollower : public TraceReader {
public:
    explicit RoleFollower(NodeId first_primary) : primary_(first_primary) {}

    void read(const Trace&, const TraceEvent& event) override {
        if (event.kind == trace_kind::lock_granted)
            holder_ = event.node_ref("holder");
        else if ((event.kind == trace_kind::lock_released || event.kind == trace_kind::lock_expired) &&
                 event.node_ref("holder") == holder_)
            holder_ = no_node;
        if (event.kind == trace_kind::store_failover) primary_ = event.node_ref("to");
        if (event.kind == trace_kind::consensus_leader) primary_ = event.node;
    }
    NodeId holder() const { return holder_; }
    NodeId primary() const { return primary_; }

private:
    NodeId holder_ = no_node;
    NodeId primary_;
};

class World final : public FaultWorld {
public:
    World(const WorldSpec& spec, std::uint64_t seed, RunOptions options)
        : spec_(spec), engine_(seed), network_(engine_), event_limit_(options.event_limit) {
        network_.set_tracing_messages(options.trace_messages);
        engine_.keep_trace_events(options.keep_trace);
        if (options.queue_places) engine_.note_queue_places();
        for (auto& [key, word] : vocabulary_labels(spec_.vocabulary)) engine_.label_trace(key, std::move(word));
        add_nodes();
        // The first of the store's nodes leads until a failover or an election says
        // otherwise; a database lock lives in the billing database.
        roles_.emplace(spec_.store_nodes.empty() ? node(spec_.billing_node) : node(spec_.store_nodes.front()));
        engine_.add_trace_reader(*roles_);
        if (options.reader) engine_.add_trace_reader(*options.reader);
        wire_network();
        // Null for a design without a lock.
        store_ = deploy_store(
            StoreContext{engine_, network_, spec_, [this](const std::string& name) { return node(name); }});
        std::vector<std::string> periods;
        for (std::int64_t run = 1; run <= spec_.job.runs; ++run) periods.push_back(spec_.job.period_of_run(run));
        billing_ =
            std::make_unique<BillingDatabase>(Host(engine_, node(spec_.billing_node)), spec_.job.customers, periods,
                                              ClaimRule{spec_.protection.claim_once, spec_.protection.reclaim_after});
        provider_ = std::make_unique<PaymentProvider>(Host(engine_, node(spec_.provider_node)), spec_.provider);
        provider_->requests().on_all_arrived([this] { stop_when_over(); });
        billing_->statements().on_all_arrived([this] { stop_when_over(); });
        // The job's writes inside a lock's transaction commit or roll back with it.
        if (store_)
            store_->watch_transactions([billing = billing_.get()](std::int64_t transaction, bool committed) {
                billing->end_transaction(transaction, committed);
            });
        build_servers();
        declare_due_runs();
        schedule_faults(seed);
        if (spec_.job.kind == JobKind::leader_loop) schedule_arrivals(seed);
    }

    RunResult run() {
        RunSummary summary = engine_.run(Instant{} + spec_.horizon, event_limit_);
        return RunResult{engine_.take_trace(), summary, engine_.take_queue_places()};
    }

private:
    ClockSettings clock_of(const std::string& node) const {
        auto found = spec_.clocks.find(node);
        return found == spec_.clocks.end() ? ClockSettings{} : found->second;
    }

    void add_nodes() {
        for (const auto& server : spec_.servers) engine_.add_node(server, clock_of(server));
        for (const auto& store_node : spec_.store_nodes) engine_.add_node(store_node, clock_of(store_node));
        if (!spec_.pooler_node.empty()) engine_.add_node(spec_.pooler_node, clock_of(spec_.pooler_node));
        for (const auto* service : {&spec_.provider_node, &spec_.billing_node})
            engine_.add_node(*service, clock_of(*service));
    }

    // Every node can reach every other: servers talk to the store and the resources, a
    // store's nodes talk among themselves. A link listed in the spec has its own delay.
    void wire_network() {
        network_.link_every_pair(spec_.link_delay, spec_.link_behaviour);
        for (const auto& link : spec_.links) network_.connect(node(link.a), node(link.b), link.delay, link.behaviour);
    }

    void build_servers() {
        const JobResources resources{node(spec_.billing_node), billing_.get(), node(spec_.provider_node),
                                     provider_.get(), &spec_.vocabulary};
        for (const auto& name : spec_.servers) {
            const Host host(engine_, node(name));
            LockHolder* holder = nullptr;
            JobResources own = resources;
            if (store_) {
                auto& client = clients_.emplace_back(store_->client_for(host));
                holder = holders_.emplace_back(std::make_unique<LockHolder>(host, *client, spec_.lock)).get();
                own.statement_session = client->job_statement_session();
                own.statement_relay = client->job_statement_relay();
            }
            const std::size_t index = servers_.size();
            auto& server = servers_.emplace_back(
                std::make_unique<JobServer>(host, network_, holder, own, ServerPlace{index, spec_.servers.size()},
                                            spec_.job, spec_.protection, injected_error_at(name)));
            host.spawn(server->run_nightly_job([this, index] { job_ended(index); }));
            // A crashed server's job is over too; what it left behind is the story.
            engine_.on_crash(host.id(), [this, index] { job_ended(index); });
        }
    }

    // What the job is meant to do, said once before anything happens: each run its
    // schedulers start before the horizon, with its items. A checker holds the run to it at
    // the end (at least once), whoever died or hung on the way. A leader loop's items are
    // its queue's arrivals, which the trace shows as they come.
    void declare_due_runs() {
        if (spec_.job.kind == JobKind::leader_loop) return;
        const std::string items =
            spec_.job.kind == JobKind::renewals ? format_item_ranges(spec_.job.customers) : std::string();
        const std::string step_names = joined_step_names(spec_.job.effect_steps);
        for (std::int64_t run = 1; run <= spec_.job.runs; ++run) {
            const Instant scheduled = spec_.job.starts_at + spec_.job.every * (run - 1);
            if (scheduled - Instant{} >= spec_.horizon) break;
            const std::string period = spec_.job.period_of_run(run);
            FieldList fields{{"job", spec_.job.name}, {"period", period}, {"scheduled", scheduled}};
            if (spec_.job.kind == JobKind::renewals) fields.push_back({"items", items});
            if (!spec_.job.effect_steps.empty()) fields.push_back({"step_names", step_names});
            engine_.record(no_node, trace_kind::job_due, fields);
        }
    }

    // The customer whose record throws in this server's job, if the scenario injects one.
    std::optional<std::int64_t> injected_error_at(const std::string& server) const {
        if (server != spec_.job.error_on_server) return std::nullopt;
        return spec_.job.error_at_customer;
    }

    // The run is over when every server's job has ended and every charge request and
    // billing statement sent has landed (one whose client gave up can still charge or
    // write): what still ticks afterwards (heartbeats, a sentinel's pings, expiry alarms)
    // changes nothing counted. A request lost on the way keeps the run going to its horizon.
    void job_ended(std::size_t server) {
        if (jobs_ended_[server]) return;
        jobs_ended_[server] = true;
        stop_when_over();
    }
    void stop_when_over() {
        if (std::all_of(jobs_ended_.begin(), jobs_ended_.end(), [](bool ended) { return ended; }) &&
            !provider_->requests().any() && !billing_->statements().any())
            engine_.stop();
    }

    // A leader loop's queue grows while the service runs: one item each `every`, or at the
    // times of a Poisson process drawn from the seed's own stream for arrivals.
    void schedule_arrivals(std::uint64_t seed) {
        const QueueSpec& queue = spec_.job.queue;
        if (!queue.arrive_every && !queue.arrive_mean_interval) return;
        arrivals_.emplace(seed, "queue/arrivals");
        next_item_ = queue.first_arrival_id;
        schedule_arrival(spec_.job.starts_at);
    }
    void schedule_arrival(Instant after) {
        const QueueSpec& queue = spec_.job.queue;
        const Instant at =
            after + (queue.arrive_every ? *queue.arrive_every : arrivals_->exponential(*queue.arrive_mean_interval));
        if (at >= spec_.job.stops_at) return;
        engine_.schedule_at(at, node(spec_.billing_node), [this, at] {
            billing_->add_item(next_item_++, spec_.job.period);
            schedule_arrival(at);
        });
    }

    void schedule_faults(std::uint64_t seed) {
        for (std::size_t index = 0; index < spec_.faults.size(); ++index) schedule(spec_.faults[index], index);
        for (auto& fault : draw_fault_schedule(spec_.fault_generators, seed)) schedule(std::move(fault), std::nullopt);
    }

    void schedule(Fault fault, std::optional<std::size_t> index) {
        const Instant at = time_of(fault);
        const auto when = std::visit([](const auto& f) { return f.when; }, fault);
        strike(at, when, [this, fault = std::move(fault), index](NodeId trigger) {
            striking_ = index;
            std::visit([this, trigger](const auto& f) { f.strike(*this, trigger); }, fault);
            striking_.reset();
        });
    }

    // A fault strikes at its time, or when its trigger event is recorded; `apply` is told
    // the node that recorded the trigger (no_node for a timed fault).
    void strike(Instant at, const std::optional<EventTrigger>& when, std::function<void(NodeId)> apply) {
        if (!when) {
            engine_.schedule_at(at, no_node, [apply = std::move(apply)] { apply(no_node); });
            return;
        }
        // The loader gave every field its declared type, but a node only by its name: the
        // world numbers the nodes.
        const KindSpec* kind = find_trace_kind(when->kind);
        assert(kind != nullptr);
        auto fields = when->fields;
        for (auto& [key, value] : fields)
            if (kind->field(key)->type == FieldType::node) value = node(std::get<std::string>(value));
        engine_.on_event(when->kind, when->node.empty() ? no_node : node(when->node), std::move(fields), when->nth,
                         std::move(apply));
    }

    // FaultWorld: what a fault strikes through.
    Engine& engine() override { return engine_; }
    Network& network() override { return network_; }
    NodeId node(const std::string& name) const override { return *engine_.trace().find_node(name); }

    // A role names whoever plays it when the fault strikes, and may name no one (nobody
    // holds the lock).
    std::vector<NodeId> struck(const std::string& target, NodeId trigger) const override {
        if (target == holder_role) return present(roles_->holder());
        if (target == trigger_role) return present(trigger);
        if (target == primary_role) return present(roles_->primary());
        if (target == servers_role) {
            std::vector<NodeId> servers;
            for (const auto& name : spec_.servers) servers.push_back(node(name));
            return servers;
        }
        return {node(target)};
    }

    static std::vector<NodeId> present(NodeId id) {
        return id.valid() ? std::vector<NodeId>{id} : std::vector<NodeId>{};
    }

    std::string role_of(NodeId id) const {
        const std::string& name = engine_.node_name(id);
        if (name == spec_.billing_node) return "billing database";
        if (name == spec_.provider_node) return spec_.vocabulary.provider;
        if (std::find(spec_.servers.begin(), spec_.servers.end(), name) != spec_.servers.end()) return "server";
        return "lock store";
    }

    // The fault striking now: the scenario's own are numbered, so a report can say which
    // one struck whom; drawn faults are announced without a number.
    std::uint64_t announce(const std::vector<NodeId>& targets, std::string_view without_target) override {
        const std::uint64_t first = engine_.trace().recorded();
        const auto record = [&](FieldList fields) {
            if (striking_) fields.push_back({"fault", static_cast<std::int64_t>(*striking_)});
            engine_.record(no_node, trace_kind::fault_struck, fields);
        };
        if (targets.empty()) record({{"role", without_target}});
        for (NodeId target : targets) {
            const std::string role = role_of(target);
            record({{"target", target}, {"role", role}});
        }
        return first;
    }

    std::string describe_groups() const override {
        std::vector<std::string> groups;
        for (const auto& group : network_.reachable_groups()) {
            std::vector<std::string> names;
            for (NodeId id : group) names.push_back(engine_.node_name(id));
            groups.push_back(fmt::format("{}", fmt::join(names, ", ")));
        }
        return fmt::format("{}", fmt::join(groups, " | "));
    }

    const WorldSpec& spec_;
    std::optional<RoleFollower> roles_;  // outlives the engine, which reads to it
    Engine engine_;
    Network network_;
    std::unique_ptr<StoreDeployment> store_;
    std::unique_ptr<BillingDatabase> billing_;
    std::unique_ptr<PaymentProvider> provider_;
    std::vector<std::unique_ptr<LockStoreClient>> clients_;
    std::vector<std::unique_ptr<LockHolder>> holders_;
    std::vector<std::unique_ptr<JobServer>> servers_;
    std::vector<bool> jobs_ended_ = std::vector<bool>(spec_.servers.size(), false);
    std::uint64_t event_limit_;
    std::optional<std::size_t> striking_;   // the scenario's fault striking now, by its place in the file
    std::optional<RandomStream> arrivals_;  // a leader loop's queue: when items arrive…
    std::int64_t next_item_ = 0;            // …and the next one's id
};

}  // namespace

RunResult run_world(const WorldSpec& spec, std::uint64_t seed, RunOptions options) {
    World world(spec, seed, options);
    return world.run();
}

}  // namespace locksim
