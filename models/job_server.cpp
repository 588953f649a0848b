#include "models/job_server.hpp"

#include <fmt/format.h>

#include <cassert>

#include "models/idempotency_key.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

JobServer::JobServer(Host host, Network& network, LockHolder* lock, JobResources resources, ServerPlace place,
                     const JobSpec& job, const ProtectionSpec& protection, std::optional<std::int64_t> bad_record)
    : host_(host),
      lock_(lock),
      billing_(host, network, resources.billing_node, resources.billing, job.period_of_run(1), *resources.words,
               resources.statement_session, resources.statement_relay, job.read_timeout),
      provider_(host, network, resources.provider_node, resources.provider, job.period_of_run(1), job.charge_request,
                *resources.words),
      place_(place),
      job_(job),
      protection_(protection),
      bad_record_(bad_record),
      words_(*resources.words),
      work_(host.random_stream("work")),
      period_(job.period_of_run(1)) {}

Task<void> JobServer::run_nightly_job(std::function<void()> finished) {
    finished_ = std::move(finished);
    if (job_.kind == JobKind::leader_loop) {
        co_await run_leader_loop();
        co_return;
    }
    if (job_.lock_scope == LockScope::leadership) {
        host_.record(trace_kind::job_campaigning, {{"job", job_.name}});
        host_.spawn(campaign());
    }
    // A run that overran its successor's tick starts as soon as it ends, as a cron job
    // that forbids concurrent runs would.
    const Duration offset = job_.start_offset_of(host_.name());
    for (std::int64_t run = 1; run <= job_.runs; ++run) {
        co_await host_.sleep_until_wall(job_.starts_at + offset + job_.every * (run - 1));
        period_ = job_.period_of_run(run);
        billing_.begin_period(period_);
        provider_.begin_period(period_);
        co_await run_with_retries();
    }
    finished_();
}

// A run, and under a retry policy each retry of it a run that failed is given: the whole
// job again once its backoff has passed, as a job queue re-enqueues a job that raised.
Task<void> JobServer::run_with_retries() {
    const ErrorPolicy& policy = job_.on_error;
    for (int retry = 1;; ++retry) {
        const bool may_retry = policy.then == ErrorPolicy::Then::retry && retry <= policy.retries;
        const bool failed = co_await run_once(may_retry ? std::optional(retry) : std::nullopt);
        if (!failed || !may_retry) co_return;
        co_await host_.sleep(retry_wait(retry));
    }
}

// Before retry k: the backoff, doubled for each retry before it.
Duration JobServer::retry_wait(int retry) const {
    return job_.on_error.backoff * (std::int64_t{1} << (retry - 1));
}

// The error as the trace tells it, with what the job's error policy does next.
void JobServer::met_error(const JobError& error, std::string_view then, std::optional<int> retry) {
    FieldList fields{{"error", std::string_view(error.what())}, {"then", then}};
    if (error.item) fields.push_back({"customer", *error.item});
    if (retry) {
        fields.push_back({"retry", std::int64_t{*retry}});
        fields.push_back({"retry_in", retry_wait(*retry)});
    }
    host_.record(trace_kind::job_error, fields);
}

// One run of the job, from its start to its release: the story every scenario tells.
// Whether an error failed it; `retry`: the retry that follows if one does.
Task<bool> JobServer::run_once(std::optional<int> retry) {
    const bool leadership = job_.lock_scope == LockScope::leadership;
    if (leadership && !may_act(leadership_.get())) {
        // Only the leader's scheduler runs jobs; the others stay candidates.
        host_.record(trace_kind::job_finished, {{"job", job_.name}, {"outcome", "skipped: not the leader"}});
        co_return false;
    }
    host_.record(trace_kind::job_started, {{"job", job_.name}});
    fenced_out_ = false;
    std::shared_ptr<HeldLease> held = leadership_;
    if (lock_ != nullptr && !leadership) {
        // Two statements each, not a conditional expression: GCC 12 and co_await (above).
        if (job_.skip_when_refused)
            held = co_await lock_->acquire_once();
        else
            held = co_await lock_->acquire();
        if (!held) {
            // Another server holds the lock: this one waits for its next run.
            host_.record(trace_kind::job_finished,
                         {{"job", job_.name}, {"outcome", "skipped: another server holds the lock"}});
            co_return false;
        }
    }

    Ending ending;
    try {
        ending = co_await run_job(held.get());
    } catch (const JobError& error) {
        met_error(error, retry ? "retry" : "fail", retry);
        ending = Ending{fmt::format("failed: {}", error.what()), true};
    }
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
    co_return ending.failed;
}

Task<JobServer::Ending> JobServer::run_job(HeldLease* held) {
    // Two statements, not `cond ? co_await a : co_await b`: GCC 12 miscompiles a co_await
    // inside a conditional expression (a double destruction of the result).
    Ending ending;
    if (job_.kind == JobKind::index_rebuild)
        ending = co_await rebuild_index(held);
    else
        ending = co_await renew_subscriptions(held);
    co_return ending;
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

// A customer's work must fit in what is left of the lease, with the margin the design
// asks for; a pause longer than the margin still beats it.
bool JobServer::lease_too_short(HeldLease* held) const {
    return job_.min_lease_left && held != nullptr && lock_ != nullptr &&
           lock_->lease_left(*held) < *job_.min_lease_left;
}

// Only a fenced write tells the job it lost the lock: the job knows it from the refusal
// itself, whether or not it ever asks its lock.
void JobServer::lost(HeldLease* held, std::string_view reason) {
    fenced_out_ = true;
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
        Step step = Step::next_customer;
        try {
            open_record(customer);
            step = co_await renew_subscription(customer, held);
        } catch (const JobError& error) {
            if (job_.on_error.then != ErrorPolicy::Then::skip) throw;
            // Skipped, it stays undone: the next run, or nobody, does it.
            met_error(error, "skip", std::nullopt);
            continue;
        }
        if (step == Step::stop) co_return Ending{"stopped: the lock is no longer ours", false};
        if (step == Step::short_lease)
            co_return Ending{fmt::format("stopped: less than {} of lease left", format_duration(*job_.min_lease_left)),
                             false};
    }
    co_return Ending{"done", false};
}

// The job's own code takes up the customer's record; an injected bad record throws here,
// before anything is sent.
void JobServer::open_record(std::int64_t customer) const {
    if (customer == bad_record_)
        throw JobError(fmt::format("an error while handling {} {}", words_.item, customer), customer);
}

// One customer, in the story's order: check the lease, skip what is already
// charged, prepare the invoice (where a pause can land), then charge and record it.
Task<JobServer::Step> JobServer::renew_subscription(std::int64_t customer, HeldLease* held) {
    if (const std::optional<Step> step = may_start(held)) co_return *step;

    const RenewalRow row = co_await billing_.read_renewal(customer);
    if (row.status == RenewalStatus::charged) {
        host_.record(trace_kind::job_customer_skipped, {{"customer", customer}, {"reason", "already charged"}});
        co_return Step::next_customer;
    }
    const Step step = co_await work_on(customer, held);
    co_return step;
}

// Whether the lease lets the next item start: nullopt if it does.
std::optional<JobServer::Step> JobServer::may_start(HeldLease* held) {
    // Code that never looks at its lease stops only once a fenced write has refused it: its
    // client library may stop believing, but nobody asks it.
    if (job_.check_lease ? !may_act(held) : fenced_out_) return Step::stop;
    if (lease_too_short(held)) return Step::short_lease;
    return std::nullopt;
}

// An item found not yet charged: prepare it, claim it as the design does, charge, record.
Task<JobServer::Step> JobServer::work_on(std::int64_t customer, HeldLease* held) {
    // A conditional write is made on what the job read before its work: the object's
    // version now, whatever happens while the job prepares.
    std::optional<ReadVersion> read;
    if (protection_.conditional_write) read = co_await provider_.read_version(customer);
    host_.record(trace_kind::job_preparing, {{"customer", customer}});
    co_await host_.sleep(job_.work_per_customer.draw(work_));

    // The row's INSERT comes first: the unique key decides who may go on at all.
    if (protection_.unique_claim && co_await billing_.insert_renewal(customer) == 0) {
        // The unique key said another server inserted this renewal first: it is theirs.
        host_.record(trace_kind::job_customer_skipped,
                     {{"customer", customer}, {"reason", "another server inserted the renewal first"}});
        co_return Step::next_customer;
    }

    std::optional<std::int64_t> token;
    if (protection_.fence_database || protection_.fence_provider) {
        assert(held != nullptr && held->lease.token.has_value());  // the loader refuses fencing without tokens
        token = held->lease.token;
    }
    if (protection_.fence_database) {
        // The claim comes before the charge: a stale holder is stopped here. A pause
        // between this claim and the charge is not stopped by anything in the database.
        if (co_await billing_.claim_renewal(customer, *token) == 0) {
            // Under claim-once no row may also mean that another holder claimed or charged
            // the row first, under a token no newer than this one: it is theirs. Look.
            if (protection_.claim_once) {
                const RenewalRow now = co_await billing_.read_renewal(customer);
                if (now.fence <= *token) {
                    const std::string reason = fmt::format("{} under token {}", to_string(now.status), now.fence);
                    host_.record(trace_kind::job_customer_skipped, {{"customer", customer}, {"reason", reason}});
                    co_return Step::next_customer;
                }
            }
            // A claim needs a token newer than the row's: an equal one (a token issued again
            // after a failover) is refused too, so "newer" would not be the truth.
            lost(held, fmt::format("fenced out: the row already carried token {} or newer", *token));
            co_return Step::stop;
        }
    }
    // Checking once more narrows the window; a pause can still land between this line and
    // the charge, and the holder cannot tell.
    if (job_.recheck_before_charge && !may_act(held)) co_return Step::stop;
    // Building the charge request is a moment of its own: a safepoint where a pause placed
    // after the check can land before anything leaves the server.
    co_await host_.sleep(Duration{});

    const ChargeReceipt receipt = co_await provider_.charge(
        customer, idempotency_key(customer), protection_.fence_provider ? token : std::nullopt, read, effect_step(1));
    if (receipt.refused) {
        lost(held, "fenced out: the provider has seen a newer token");
        co_return Step::stop;
    }
    if (receipt.changed_since_read) {
        // Someone wrote this item since the job read it: that write stands, this one is
        // dropped. It says nothing about the lock, only about this item: go on.
        const std::string reason = fmt::format("its {} changed since this server read it", words_.record);
        host_.record(trace_kind::job_customer_skipped, {{"customer", customer}, {"reason", reason}});
        co_return Step::next_customer;
    }
    if (co_await later_steps(customer, held, token) == Step::stop) co_return Step::stop;

    const std::optional<std::int64_t> database_token = protection_.fence_database ? token : std::nullopt;
    if (co_await billing_.record_charged(customer, database_token) == 0 && database_token) {
        lost(held, "fenced out: a newer token wrote the row");
        co_return Step::stop;
    }
    co_return Step::next_customer;
}

// The hourly search-index rebuild, a lock for efficiency: under the lock, see whether this hour's
// index exists, and build it if not. Nothing is fenced: a second build only costs time.
Task<JobServer::Ending> JobServer::rebuild_index(HeldLease* held) {
    if (!may_act(held)) co_return Ending{"stopped: the lock is no longer ours", false};
    const bool built = co_await billing_.index_built();
    if (built) co_return Ending{"skipped: the index is already built", false};
    host_.record(trace_kind::job_rebuilding, {{"period", period_}});
    co_await host_.compute(job_.rebuild_work);
    co_await billing_.record_index_build(job_.rebuild_work);
    co_return Ending{"done", false};
}

// The effect's steps after the first, in order, each a request of its own: a fault can land
// between any two, and the item is left half done.
Task<JobServer::Step> JobServer::later_steps(std::int64_t customer, HeldLease* held,
                                             std::optional<std::int64_t> token) {
    for (int step = 2; step <= static_cast<int>(job_.effect_steps.size()); ++step) {
        co_await host_.sleep(Duration{});  // a safepoint between two writes
        const ChargeReceipt receipt = co_await provider_.charge(customer, idempotency_key(customer, step),
                                                                protection_.fence_provider ? token : std::nullopt,
                                                                std::nullopt, effect_step(step));
        if (receipt.refused) {
            lost(held, "fenced out: the provider has seen a newer token");
            co_return Step::stop;
        }
    }
    co_return Step::next_customer;
}

// Each step has a key of its own: one key for two steps would answer the second with the first.
std::optional<std::string> JobServer::idempotency_key(std::int64_t customer, int step) const {
    if (!protection_.idempotency_key) return std::nullopt;
    const std::string key = expand_idempotency_key(*protection_.idempotency_key, customer, period_);
    return step == 1 ? key : fmt::format("{}#step-{}", key, step);
}

EffectStep JobServer::effect_step(int step) const {
    if (job_.effect_steps.empty()) return {};
    return EffectStep{step, job_.effect_steps.at(static_cast<std::size_t>(step) - 1)};
}

}  // namespace locksim
