#pragma once
// A job server: its scheduler starts the nightly job at its time by the server's own wall
// clock. The renewals job runs as gc-pause-40s tells it (check the
// lease, prepare the invoice, charge); the hourly index rebuild is the efficiency job.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/billing_client.hpp"
#include "models/job_error.hpp"
#include "models/lock_holder.hpp"
#include "models/provider_client.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/task.hpp"

namespace locksim {

// Where the job's requests go; the server objects answer them on their own nodes.
struct JobResources {
    NodeId billing_node;
    BillingDatabase* billing = nullptr;
    NodeId provider_node;
    PaymentProvider* provider = nullptr;
    const Vocabulary* words = &Vocabulary::defaults();  // the scenario's, for the messages' text
    // Run at the database with each billing statement: activity on the lock's session when
    // the job's statements share its connection (LockStoreClient::job_statement_session).
    StatementSessionOf statement_session;
    // The pooler every billing statement goes through, when they share the lock's (pooled) connection.
    StatementRelay* statement_relay = nullptr;
};

// Where this server stands among the job servers (for hash assignment).
struct ServerPlace {
    std::size_t index = 0;
    std::size_t count = 1;
};

class JobServer {
public:
    // `lock` is null when the design takes no lock at all. `bad_record` is the customer
    // whose record makes this server's job throw, when a scenario injects that error here.
    JobServer(Host host, Network& network, LockHolder* lock, JobResources resources, ServerPlace place,
              const JobSpec& job, const ProtectionSpec& protection, std::optional<std::int64_t> bad_record);

    // The scheduled job, every run of it, each from its start time to release; or the
    // leader loop, from its start to the service's stop. Spawn it once on the server's
    // node; `finished` is called when the last run ends (perhaps more than once).
    Task<void> run_nightly_job(std::function<void()> finished);

private:
    struct Ending {
        std::string outcome;
        bool failed = false;  // a JobError ended it
    };
    enum class Step { next_customer, stop, short_lease };

    Task<void> run_with_retries();
    Task<bool> run_once(std::optional<int> retry);
    Duration retry_wait(int retry) const;
    void met_error(const JobError& error, std::string_view then, std::optional<int> retry);
    Task<void> run_leader_loop();
    Task<Ending> lead(HeldLease* held);
    Task<std::optional<Ending>> tick(HeldLease* held);
    Task<void> campaign();
    bool may_act(HeldLease* held);
    bool lease_too_short(HeldLease* held) const;
    void lost(HeldLease* held, std::string_view reason);
    bool owns(std::int64_t customer) const;

    Task<Ending> renew_subscriptions(HeldLease* held);
    Task<Step> renew_subscription(std::int64_t customer, HeldLease* held);
    std::optional<Step> may_start(HeldLease* held);
    Task<Step> work_on(std::int64_t customer, HeldLease* held);
    Task<Ending> rebuild_index(HeldLease* held);

    Task<Ending> run_job(HeldLease* held);
    void open_record(std::int64_t customer) const;
    std::optional<std::string> idempotency_key(std::int64_t customer, int step = 1) const;
    EffectStep effect_step(int step) const;
    Task<Step> later_steps(std::int64_t customer, HeldLease* held, std::optional<std::int64_t> token);

    Host host_;
    LockHolder* lock_;
    BillingClient billing_;
    ProviderClient provider_;
    ServerPlace place_;
    JobSpec job_;
    ProtectionSpec protection_;
    std::optional<std::int64_t> bad_record_;
    const Vocabulary& words_;                // what the job calls its items, in its errors
    std::shared_ptr<HeldLease> leadership_;  // lock scope leadership: set once elected
    RandomStream work_;                      // how long each customer's invoice takes
    std::string period_;                     // the period this run renews
    bool fenced_out_ = false;                // a fenced write refused this run: the lock is gone
    // The leader loop: whether this server leads now, whether the service was stopped, and
    // whom to tell the job is over.
    bool leading_ = false;
    bool stopped_ = false;
    std::function<void()> finished_;
};

}  // namespace locksim
