// The leader loop: a service whose replicas elect a leader (client-go's leader election,
// or any lock held as leadership) and whose leader works through a queue. Work starts
// when leadership is won (OnStartedLeading), repeats every `every` while it is held, and
// stops when the leader itself notices the loss: its lease ran out by its own clock, a
// renewal round failed, a fenced write told it. Nothing stops it when the store alone
// decides: a leader frozen between two ticks wakes still leading and works beside the new
// one. A replica that lost stands again (the process restarts and campaigns).
#include "models/job_server.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

constexpr std::string_view lock_lost = "stopped: the lock is no longer ours";
constexpr std::string_view service_stopped = "done: the service was stopped";

}  // namespace

Task<void> JobServer::run_leader_loop() {
    // The service is stopped at `until`: a candidate stops standing at once, a leader at
    // its next check (after the item in hand, or when its wait for the next tick ends),
    // releasing its lease (client-go's ReleaseOnCancel).
    host_.engine().schedule_at(job_.stops_at, host_.id(), [this] {
        stopped_ = true;
        if (!leading_) finished_();
    });
    co_await host_.sleep_until_wall(job_.starts_at + job_.start_offset_of(host_.name()));
    while (!stopped_) {
        host_.record(trace_kind::job_campaigning, {{"job", job_.name}});
        std::shared_ptr<HeldLease> held;
        if (lock_ != nullptr) held = co_await lock_->acquire();
        if (stopped_) {
            if (held) co_await lock_->release(held);
            break;
        }
        leading_ = true;
        host_.record(trace_kind::job_started, {{"job", job_.name}});
        const Ending ending = co_await lead(held.get());
        if (held && stopped_) co_await lock_->release(held);
        host_.record(trace_kind::job_finished, {{"job", job_.name}, {"outcome", ending.outcome}});
        leading_ = false;
    }
    finished_();
}

// One term as leader: each tick reads what is still pending and sends it, item by item.
Task<JobServer::Ending> JobServer::lead(HeldLease* held) {
    const Ending lost{std::string(lock_lost), false};
    const Ending stopped{std::string(service_stopped), false};
    for (;;) {
        if (stopped_) co_return stopped;
        if (may_start(held)) co_return lost;
        std::optional<Ending> ended;
        try {
            ended = co_await tick(held);
        } catch (const JobError& error) {
            // A controller logs the error and goes on: what is still pending is read again.
            met_error(error, "next tick", std::nullopt);
        }
        if (ended) co_return *ended;
        co_await host_.sleep(job_.every);
    }
}

// One tick: what is pending, item by item; an ending if the term ends within it.
Task<std::optional<JobServer::Ending>> JobServer::tick(HeldLease* held) {
    const std::vector<std::int64_t> pending = co_await billing_.pending_items();
    for (const std::int64_t item : pending) {
        if (stopped_) co_return Ending{std::string(service_stopped), false};
        if (may_start(held)) co_return Ending{std::string(lock_lost), false};
        const Step step = co_await work_on(item, held);
        if (step == Step::stop) co_return Ending{std::string(lock_lost), false};
    }
    co_return std::nullopt;
}

}  // namespace locksim
