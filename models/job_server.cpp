#include "models/job_server.hpp"

#include <fmt/format.h>

#include <cassert>

#include "models/idempotency_key.hpp"
#include "models/sql_text.hpp"
#include "models/trace_kinds.hpp"
#include "sim/rpc.hpp"

namespace locksim {

JobServer::JobServer(Host host, Network& network, LockHolder& lock, JobResources resources, const JobSpec& job,
                     const ProtectionSpec& protection)
    : host_(host), network_(network), lock_(lock), resources_(resources), job_(job), protection_(protection) {}

Task<void> JobServer::run_nightly_job(std::function<void()> finished) {
    co_await host_.sleep_until_wall(job_.starts_at);
    host_.record(trace_kind::job_started, {{"job", job_.name}});
    auto held = co_await lock_.acquire();
    std::string outcome = "done";
    bool failed = false;
    for (const auto customer : job_.customers) {
        if (customer == job_.error_at_customer && host_.name() == job_.error_on_server) {
            // An exception in the job's code (a bad record, a bug): the loop ends here.
            outcome = fmt::format("failed: an error while handling customer {}", customer);
            failed = true;
            break;
        }
        if (co_await renew_subscription(customer, *held) == Step::stop) {
            outcome = "stopped: the lock is no longer ours";
            break;
        }
    }
    // The finally path: whatever happened above, the lock is released — unless the code
    // releases only on success, and an error skipped it: then the lock waits for its TTL.
    if (!failed || job_.release_in_finally)
        co_await lock_.release(held);
    else
        lock_.learned_lost(*held, "abandoned: an error skipped the release");  // renewal stops with the job
    host_.record(trace_kind::job_finished, {{"job", job_.name}, {"outcome", outcome}});
    finished();
}

// One customer, in the order of the seed's story: check the lease, skip what is already
// charged, prepare the invoice (where a pause can land), then charge and record it.
Task<JobServer::Step> JobServer::renew_subscription(std::int64_t customer, HeldLease& held) {
    if (!lock_.still_believes(held)) co_return Step::stop;

    const RenewalRow row = co_await read_renewal(customer);
    if (row.status == RenewalStatus::charged) {
        host_.record(trace_kind::job_customer_skipped, {{"customer", customer}, {"reason", std::string("already charged")}});
        co_return Step::next_customer;
    }

    host_.record(trace_kind::job_preparing, {{"customer", customer}});
    co_await host_.sleep(job_.work_per_customer);

    std::optional<std::int64_t> token;
    if (protection_.fencing) {
        assert(held.lease.token.has_value());  // the loader refuses fencing on a store without tokens
        token = held.lease.token;
        // The claim comes before the charge: a stale holder is stopped here. A pause
        // between this claim and the charge is not stopped by anything in the database.
        if (co_await claim_renewal(customer, *token) == 0) {
            lock_.learned_lost(held, "fenced out: a newer token wrote the row");
            co_return Step::stop;
        }
    }

    // Checking once more narrows the window; a pause can still land between this line and
    // the charge, and the holder cannot tell.
    if (job_.recheck_before_charge && !lock_.still_believes(held)) co_return Step::stop;
    // Building the charge request is a moment of its own: a safepoint where a pause placed
    // after the check can land before anything leaves the server.
    co_await host_.sleep(Duration{});

    co_await charge(customer);

    if (co_await record_charged(customer, token) == 0 && token) {
        lock_.learned_lost(held, "fenced out: a newer token wrote the row");
        co_return Step::stop;
    }
    co_return Step::next_customer;
}

std::optional<std::string> JobServer::idempotency_key(std::int64_t customer) const {
    if (!protection_.idempotency_key) return std::nullopt;
    return expand_idempotency_key(*protection_.idempotency_key, customer, job_.period);
}

Task<RenewalRow> JobServer::read_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, resources_.billing_node,
        fmt::format("SELECT status FROM renewals WHERE customer={} AND period='{}'", customer, job_.period),
        [db = resources_.billing, customer, period = job_.period] {
            const RenewalRow found = db->read(customer, period);
            return Answer<RenewalRow>{found, fmt::format("'{}'", to_string(found.status))};
        });
    auto row = co_await request;
    co_return *row;  // no timeout, and the foundation's network loses nothing
}

Task<int> JobServer::claim_renewal(std::int64_t customer, std::int64_t token) {
    auto request = call(
        network_, host_, resources_.billing_node,
        fmt::format("UPDATE renewals SET status='claimed', fence={0} WHERE customer={1} AND period='{2}' AND fence < {0}",
                    token, customer, job_.period),
        [db = resources_.billing, customer, period = job_.period, token] {
            const int changed = db->claim(customer, period, token);
            return Answer<int>{changed, rows_label(changed)};
        });
    auto rows = co_await request;
    co_return *rows;
}

Task<int> JobServer::record_charged(std::int64_t customer, std::optional<std::int64_t> token) {
    const std::string statement =
        token ? fmt::format(
                    "UPDATE renewals SET status='charged', fence={0} WHERE customer={1} AND period='{2}' AND fence <= {0}",
                    *token, customer, job_.period)
              : fmt::format("UPDATE renewals SET status='charged' WHERE customer={} AND period='{}'", customer,
                            job_.period);
    auto request = call(network_, host_, resources_.billing_node, statement,
                              [db = resources_.billing, customer, period = job_.period, token] {
                                  const int changed = db->record_charged(customer, period, token);
                                  return Answer<int>{changed, rows_label(changed)};
                              });
    auto rows = co_await request;
    co_return *rows;
}

Task<ChargeReceipt> JobServer::charge(std::int64_t customer) {
    const auto key = idempotency_key(customer);
    const std::string label = key ? fmt::format("charge customer {} (Idempotency-Key: {})", customer, *key)
                                  : fmt::format("charge customer {}", customer);
    auto request = call(network_, host_, resources_.provider_node, label,
                                 [provider = resources_.provider, customer, period = job_.period, key,
                                  client = host_.id()] {
                                     const ChargeReceipt r = provider->charge(customer, period, key, client);
                                     return Answer<ChargeReceipt>{
                                         r, r.replayed ? fmt::format("already charged (charge {})", r.charge_id)
                                                       : fmt::format("charged (charge {})", r.charge_id)};
                                 });
    auto receipt = co_await request;
    co_return *receipt;
}

}  // namespace locksim
