#pragma once
// A job server: its scheduler starts the nightly renewals job at midnight by the
// server's own wall clock, and the job runs the way seed sections 3 and 4 tell it.
#include <cstdint>
#include <functional>
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

class JobServer {
public:
    JobServer(Host host, Network& network, LockHolder& lock, JobResources resources, const JobSpec& job,
              const ProtectionSpec& protection);

    // The scheduled job, from midnight to release. Spawn it once on the server's node;
    // `finished` is called when it ends.
    Task<void> run_nightly_job(std::function<void()> finished);

private:
    enum class Step { next_customer, stop };
    Task<Step> renew_subscription(std::int64_t customer, HeldLease& held);

    Task<RenewalRow> read_renewal(std::int64_t customer);
    Task<int> claim_renewal(std::int64_t customer, std::int64_t token);
    Task<int> record_charged(std::int64_t customer, std::optional<std::int64_t> token);
    Task<ChargeReceipt> charge(std::int64_t customer);

    std::optional<std::string> idempotency_key(std::int64_t customer) const;

    Host host_;
    Network& network_;
    LockHolder& lock_;
    JobResources resources_;
    JobSpec job_;
    ProtectionSpec protection_;
};

}  // namespace locksim
