#pragma once
// A job server: its scheduler starts the nightly job at its time by the server's own wall
// clock. The renewals job runs the way seed sections 3 and 4 tell it; the hourly index
// rebuild is the efficiency job of section 1.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "models/billing_database.hpp"
#include "models/lock_holder.hpp"
#include "models/payment_provider.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim {

// Where the job's requests go; the server objects answer them on their own nodes.
struct JobResources {
    NodeId billing_node;
    BillingDatabase* billing = nullptr;
    NodeId provider_node;
    PaymentProvider* provider = nullptr;
};

// Where this server stands among the job servers (for hash assignment).
struct ServerPlace {
    std::size_t index = 0;
    std::size_t count = 1;
};

class JobServer {
public:
    // `lock` is null when the design takes no lock at all.
    JobServer(Host host, Network& network, LockHolder* lock, JobResources resources, ServerPlace place,
              const JobSpec& job, const ProtectionSpec& protection);

    // The scheduled job, from its start time to release. Spawn it once on the server's
    // node; `finished` is called when it ends.
    Task<void> run_nightly_job(std::function<void()> finished);

private:
    struct Ending {
        std::string outcome;
        bool failed = false;  // an error in the job's code
    };
    enum class Step { next_customer, stop };

    Task<void> campaign();
    bool may_act(HeldLease* held);
    void lost(HeldLease* held, std::string_view reason);
    bool owns(std::int64_t customer) const;

    Task<Ending> renew_subscriptions(HeldLease* held);
    Task<Step> renew_subscription(std::int64_t customer, HeldLease* held);
    Task<Ending> rebuild_index(HeldLease* held);

    Task<RenewalRow> read_renewal(std::int64_t customer);
    Task<int> claim_renewal(std::int64_t customer, std::int64_t token);
    Task<int> insert_renewal(std::int64_t customer);
    Task<int> record_charged(std::int64_t customer, std::optional<std::int64_t> token);
    Task<ChargeReceipt> charge(std::int64_t customer);
    Task<bool> index_built();
    Task<void> record_index_build();

    std::optional<std::string> idempotency_key(std::int64_t customer) const;

    Host host_;
    Network& network_;
    LockHolder* lock_;
    JobResources resources_;
    ServerPlace place_;
    JobSpec job_;
    ProtectionSpec protection_;
    std::shared_ptr<HeldLease> leadership_;  // lock scope leadership: set once elected
};

}  // namespace locksim
