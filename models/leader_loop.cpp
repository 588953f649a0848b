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
    const Ending lost{"stopped: the lock is no longer ours", false};
    const Ending stopped{"done: the service was stopped", false};
    for (;;) {
        if (stopped_) co_return stopped;
        if (may_start(held)) co_return lost;
        const std::vector<std::int64_t> pending = co_await billing_.pending_items();
        for (const std::int64_t item : pending) {
            if (stopped_) co_return stopped;
            if (may_start(held)) co_return lost;
            const Step step = co_await work_on(item, held);
            if (step == Step::stop) co_return lost;
        }
        co_await host_.sleep(job_.every);
    }
}

}  // namespace locksim
