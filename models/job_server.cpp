#include "models/job_server.hpp"

#include <fmt/format.h>

#include <cassert>

#include "models/idempotency_key.hpp"
#include "models/sql_text.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {

JobServer::JobServer(Host host, Network& network, LockHolder* lock, JobResources resources, ServerPlace place,
                     const JobSpec& job, const ProtectionSpec& protection)
    : host_(host),
      network_(network),
      lock_(lock),
      resources_(resources),
      place_(place),
      job_(job),
      protection_(protection) {}

Task<void> JobServer::run_nightly_job(std::function<void()> finished) {
    const bool leadership = job_.lock_scope == LockScope::leadership;
    if (leadership) {
        host_.record(trace_kind::job_campaigning, {{"job", job_.name}});
        host_.spawn(campaign());
    }
    co_await host_.sleep_until_wall(job_.starts_at);
    if (leadership && !may_act(leadership_.get())) {
        // Only the leader's scheduler runs jobs; the others stay candidates.
        host_.record(trace_kind::job_finished,
                     {{"job", job_.name}, {"outcome", std::string("skipped: not the leader")}});
        finished();
        co_return;
    }
    host_.record(trace_kind::job_started, {{"job", job_.name}});
    std::shared_ptr<HeldLease> held = leadership_;
    if (lock_ != nullptr && !leadership) held = co_await lock_->acquire();

    // Two statements, not `cond ? co_await a : co_await b`: GCC 12 miscompiles a co_await
    // inside a conditional expression (a double destruction of the result).
    Ending ending;
    if (job_.kind == JobKind::index_rebuild)
        ending = co_await rebuild_index(held.get());
    else
        ending = co_await renew_subscriptions(held.get());
    // The finally path: whatever happened above, the lock is released — unless the code
    // releases only on success, and an error skipped it: then the lock waits for its TTL.
    // A leader keeps its lock: it is the role, not the run.
    if (held && !leadership) {
        if (!ending.failed || job_.release_in_finally)
            co_await lock_->release(held);
        else
            lock_->learned_lost(*held, "abandoned: an error skipped the release");  // renewal stops with the job
    }
    host_.record(trace_kind::job_finished, {{"job", job_.name}, {"outcome", ending.outcome}});
    finished();
}

// Stand for leader from the start of the run; the lock, once granted, is kept and renewed.
Task<void> JobServer::campaign() {
    auto elected = co_await lock_->acquire();
    leadership_ = std::move(elected);
}

// Without a lock there is nothing to lose: the design protects the work some other way.
bool JobServer::may_act(HeldLease* held) {
    if (lock_ == nullptr) return true;
    return held != nullptr && lock_->still_believes(*held);
}

void JobServer::lost(HeldLease* held, std::string_view reason) {
    if (held != nullptr) lock_->learned_lost(*held, reason);
}

// With hash assignment each customer has one owner among the servers, whatever happens
// to the others: the id modulo the number of servers (the simplest hash, and an even
// spread for consecutive ids), so every server agrees without asking anyone.
bool JobServer::owns(std::int64_t customer) const {
    if (job_.assignment == Assignment::all) return true;
    const auto count = static_cast<std::int64_t>(place_.count);
    return static_cast<std::size_t>(((customer % count) + count) % count) == place_.index;
}

Task<JobServer::Ending> JobServer::renew_subscriptions(HeldLease* held) {
    for (const auto customer : job_.customers) {
        if (!owns(customer)) continue;
        if (customer == job_.error_at_customer && host_.name() == job_.error_on_server)
            // An exception in the job's code (a bad record, a bug): the loop ends here.
            co_return Ending{fmt::format("failed: an error while handling customer {}", customer), true};
        if (co_await renew_subscription(customer, held) == Step::stop)
            co_return Ending{"stopped: the lock is no longer ours", false};
    }
    co_return Ending{"done", false};
}

// One customer, in the order of the seed's story: check the lease, skip what is already
// charged, prepare the invoice (where a pause can land), then charge and record it.
Task<JobServer::Step> JobServer::renew_subscription(std::int64_t customer, HeldLease* held) {
    if (!may_act(held)) co_return Step::stop;

    const RenewalRow row = co_await read_renewal(customer);
    if (row.status == RenewalStatus::charged) {
        host_.record(trace_kind::job_customer_skipped,
                     {{"customer", customer}, {"reason", std::string("already charged")}});
        co_return Step::next_customer;
    }

    host_.record(trace_kind::job_preparing, {{"customer", customer}});
    co_await host_.sleep(job_.work_per_customer);

    // The row's INSERT comes first: the unique key decides who may go on at all.
    if (protection_.unique_claim && co_await insert_renewal(customer) == 0) {
        // The unique key said another server inserted this renewal first: it is theirs.
        host_.record(trace_kind::job_customer_skipped,
                     {{"customer", customer}, {"reason", std::string("another server inserted the renewal first")}});
        co_return Step::next_customer;
    }

    std::optional<std::int64_t> token;
    if (protection_.fencing) {
        assert(held != nullptr && held->lease.token.has_value());  // the loader refuses fencing without tokens
        token = held->lease.token;
        // The claim comes before the charge: a stale holder is stopped here. A pause
        // between this claim and the charge is not stopped by anything in the database.
        if (co_await claim_renewal(customer, *token) == 0) {
            lost(held, "fenced out: a newer token wrote the row");
            co_return Step::stop;
        }
    }
    // Checking once more narrows the window; a pause can still land between this line and
    // the charge, and the holder cannot tell.
    if (job_.recheck_before_charge && !may_act(held)) co_return Step::stop;
    // Building the charge request is a moment of its own: a safepoint where a pause placed
    // after the check can land before anything leaves the server.
    co_await host_.sleep(Duration{});

    co_await charge(customer);

    if (co_await record_charged(customer, token) == 0 && token) {
        lost(held, "fenced out: a newer token wrote the row");
        co_return Step::stop;
    }
    co_return Step::next_customer;
}

// The hourly search-index rebuild (seed §1): under the lock, see whether this hour's
// index exists, and build it if not. Nothing is fenced: a second build only costs time.
Task<JobServer::Ending> JobServer::rebuild_index(HeldLease* held) {
    if (!may_act(held)) co_return Ending{"stopped: the lock is no longer ours", false};
    const bool built = co_await index_built();
    if (built) co_return Ending{"skipped: the index is already built", false};
    host_.record(trace_kind::job_rebuilding, {{"period", job_.period}});
    co_await host_.compute(job_.rebuild_work);
    co_await record_index_build();
    co_return Ending{"done", false};
}

std::optional<std::string> JobServer::idempotency_key(std::int64_t customer) const {
    if (!protection_.idempotency_key) return std::nullopt;
    return expand_idempotency_key(*protection_.idempotency_key, customer, job_.period);
}

Task<RenewalRow> JobServer::read_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, resources_.billing_node,
        MessageText(fmt::format("SELECT status FROM renewals WHERE customer={} AND period='{}'", customer, job_.period),
                    {{"customer", customer}}),
        [db = resources_.billing, customer, period = job_.period] {
            const RenewalRow found = db->read(customer, period);
            return Answer<RenewalRow>{found, fmt::format("'{}'", to_string(found.status))};
        });
    auto row = co_await request;
    co_return *row;  // no timeout, and the foundation's network loses nothing
}

Task<int> JobServer::claim_renewal(std::int64_t customer, std::int64_t token) {
    auto request =
        call(network_, host_, resources_.billing_node,
             MessageText(
                 fmt::format("UPDATE renewals SET status='claimed', fence={0} WHERE customer={1} AND period='{2}' AND "
                             "fence < {0}",
                             token, customer, job_.period),
                 {{"customer", customer}, {"token", token}}),
             [db = resources_.billing, customer, period = job_.period, token, client = host_.id()] {
                 const int changed = db->claim(customer, period, token, client);
                 return Answer<int>{changed, rows_label(changed)};
             });
    auto rows = co_await request;
    co_return *rows;
}

Task<int> JobServer::insert_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, resources_.billing_node,
        MessageText(fmt::format("INSERT INTO renewals (customer, period, status) VALUES ({}, '{}', 'claimed')",
                                customer, job_.period),
                    {{"customer", customer}}),
        [db = resources_.billing, customer, period = job_.period, client = host_.id()] {
            const int inserted = db->insert_claim(customer, period, client);
            return Answer<int>{inserted, inserted == 1 ? std::string("INSERT 0 1")
                                                       : std::string("duplicate key: renewals_customer_period_key")};
        });
    auto rows = co_await request;
    co_return *rows;
}

Task<bool> JobServer::index_built() {
    auto request = call(network_, host_, resources_.billing_node,
                        fmt::format("SELECT 1 FROM index_builds WHERE hour='{}'", job_.period),
                        [db = resources_.billing, period = job_.period] {
                            const bool built = db->index_built_for(period);
                            return Answer<bool>{built, built ? std::string("1 row") : std::string("0 rows")};
                        });
    auto built = co_await request;
    co_return *built;
}

Task<void> JobServer::record_index_build() {
    auto request = call(network_, host_, resources_.billing_node,
                        fmt::format("INSERT INTO index_builds (hour, cpu) VALUES ('{}', '{}')", job_.period,
                                    format_duration(job_.rebuild_work)),
                        [db = resources_.billing, period = job_.period, cpu = job_.rebuild_work, client = host_.id()] {
                            db->record_index_build(period, cpu, client);
                            return Answer<bool>{true, std::string("INSERT 0 1")};
                        });
    co_await request;
}

Task<int> JobServer::record_charged(std::int64_t customer, std::optional<std::int64_t> token) {
    const std::string statement =
        token ? fmt::format(
                    "UPDATE renewals SET status='charged', fence={0} WHERE customer={1} AND period='{2}' AND fence <= "
                    "{0}",
                    *token, customer, job_.period)
              : fmt::format("UPDATE renewals SET status='charged' WHERE customer={} AND period='{}'", customer,
                            job_.period);
    std::vector<Field> about{{"customer", customer}};
    if (token) about.push_back({"token", *token});
    auto request = call(network_, host_, resources_.billing_node, MessageText(statement, std::move(about)),
                        [db = resources_.billing, customer, period = job_.period, token, client = host_.id()] {
                            const int changed = db->record_charged(customer, period, token, client);
                            return Answer<int>{changed, rows_label(changed)};
                        });
    auto rows = co_await request;
    co_return *rows;
}

Task<ChargeReceipt> JobServer::charge(std::int64_t customer) {
    const auto key = idempotency_key(customer);
    const std::string label = key ? fmt::format("charge customer {} (Idempotency-Key: {})", customer, *key)
                                  : fmt::format("charge customer {}", customer);
    std::vector<Field> about{{"customer", customer}};
    if (key) about.push_back({"key", *key});
    auto request =
        call(network_, host_, resources_.provider_node, MessageText(label, std::move(about)),
             [provider = resources_.provider, customer, period = job_.period, key, client = host_.id()] {
                 const ChargeReceipt r = provider->charge(customer, period, key, client);
                 return Answer<ChargeReceipt>{r, r.replayed ? fmt::format("already charged (charge {})", r.charge_id)
                                                            : fmt::format("charged (charge {})", r.charge_id)};
             });
    auto receipt = co_await request;
    co_return *receipt;
}

}  // namespace locksim
