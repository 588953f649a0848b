#pragma once
// A world to simulate, with every unit resolved: what a scenario file says once it has
// been read and checked, and what one design of it runs. Plain data, no behaviour.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/faults/fault.hpp"
#include "models/stores/lock_spec.hpp"
#include "models/vocabulary.hpp"
#include "sim/clock.hpp"
#include "sim/distribution.hpp"
#include "sim/network.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

enum class JobKind {
    renewals,       // charge each customer's renewal: a double run charges twice (correctness)
    index_rebuild,  // rebuild the search index: a double run wastes processor time (efficiency)
    // While elected, every `every`: read the queue's pending items and send each (a leader
    // elected with client-go exporting batches): work starts when leadership is won, and
    // stops when the leader itself notices it is lost.
    leader_loop,
};

// Which customers a server's job handles.
enum class Assignment {
    all,   // every server runs the whole job; the lock decides who
    hash,  // each customer belongs to one server: id modulo the server count (give each key one owner)
};

// What a server holds the lock for.
enum class LockScope {
    each_run,    // take it when the job starts, release it when the job ends
    leadership,  // campaign from the start of the run and keep it: only the leader's scheduler runs jobs
};

// The job's HTTP client of the payment provider: how long it waits for a charge's reply,
// and how often it asks again. Without a timeout it waits for ever.
struct ChargeRequestSpec {
    std::optional<Duration> timeout;
    int retries = 0;     // after the first attempt, each after its own timeout
    Duration backoff{};  // before retry k: backoff x 2^(k-1)…
    Duration jitter{};   // …plus a uniform draw from [0, jitter]
    // Each retry on a connection of its own, beside the attempts still in flight (an HTTP
    // client that opens a new one); shared: behind them, as on one TCP connection.
    Connection retry_connection = Connection::shared;
};

// A leader loop's work: items with ids, pending in the database until sent (the job's
// `customers` are those pending at the start), and more arriving while the service runs.
struct QueueSpec {
    // Arrivals, one every `arrive_every`, or at the times of a Poisson process of this
    // mean drawn from the run's seed; neither: no arrivals.
    std::optional<Duration> arrive_every;
    std::optional<Duration> arrive_mean_interval;
    // The arrivals' id from which ids count up (the one after the highest pending, or 1).
    std::int64_t first_arrival_id = 1;
};

// What the job's code does when it meets an error (a statement or a charge that got no
// answer, a bad record): fail the run (its finally path releases the lock, or not), skip
// the item and go on, or fail the run and have it retried, the whole job again after a
// backoff (a Sidekiq-style retry: what was done is found done and skipped).
struct ErrorPolicy {
    enum class Then { fail, skip, retry };
    Then then = Then::fail;
    int retries = 0;     // retry: how many times the job runs again at most
    Duration backoff{};  // retry: before retry k, backoff x 2^(k-1)
};

struct JobSpec {
    JobKind kind = JobKind::renewals;
    std::string name;
    Instant starts_at;  // a wall-clock reading: each server's scheduler fires at it
    std::vector<std::int64_t> customers;
    std::string period;
    // Preparing one invoice, between the lease check and the charge: drawn per customer
    // from the server's own "work" stream (a fixed duration draws nothing).
    DurationDistribution work_per_customer = DurationDistribution::fixed(Duration{});
    bool recheck_before_charge = false;  // check the lease once more just before charging (it does not help)
    // Start a customer only with at least this much lease left (by the holder's clock):
    // less, and the run stops so the lock can pass on before the lease runs out.
    std::optional<Duration> min_lease_left;
    ChargeRequestSpec charge_request;
    // The effect's steps, each a request of its own to the provider, in order ("write the
    // new index", "delete the old segments"): the first is the effect proper, and a fault
    // can land between any two. Empty: one step, the effect itself.
    std::vector<std::string> effect_steps;
    bool check_lease = true;                        // check the lease before each customer; false: only stop when told
    bool skip_when_refused = false;                 // a server refused the lock ends its run instead of retrying
    std::optional<std::int64_t> error_at_customer;  // the job throws while handling this customer…
    std::string error_on_server;                    // …on this server
    bool release_in_finally = true;  // false: an error skips the release; the lock stays until it expires
    ErrorPolicy on_error;
    // Each database statement fails if its answer has not come this long after it was sent
    // (the client's own deadline: a driver's socket or read timeout). None: it waits as
    // long as the connection lasts.
    std::optional<Duration> read_timeout;
    Duration rebuild_work{};  // index_rebuild: processor time one build takes
    Assignment assignment = Assignment::all;
    LockScope lock_scope = LockScope::each_run;
    // A recurring job, as a cron runs it: `runs` runs, `every` apart from `starts_at`; a
    // server's scheduler fires `start_offsets[server]` later (its clock or its queue).
    // Each run renews its own period, so a run's duplicates are its own.
    Duration every{};
    std::int64_t runs = 1;
    std::map<std::string, Duration> start_offsets;
    // leader_loop: the queue it works through, and the true time the service is stopped
    // (a leader finishes its tick and releases; candidates stop standing). `every` is the
    // loop's interval.
    QueueSpec queue;
    Instant stops_at;

    // "2026-10" for a job that runs once; "2026-10#3" for the third run of a recurring one.
    std::string period_of_run(std::int64_t run) const {
        return runs == 1 ? period : period + "#" + std::to_string(run);
    }
    Duration start_offset_of(const std::string& server) const {
        const auto found = start_offsets.find(server);
        return found == start_offsets.end() ? Duration{} : found->second;
    }
};

// How the job protects the resources it writes to.
struct ProtectionSpec {
    bool fence_database = false;  // claim the billing row with the lock's token before charging
    // Send the lock's token with each charge; the provider refuses a token lower than the
    // highest it has seen. It must accept the same token again (one holder charges many
    // customers), so two holders given the same number both get through.
    bool fence_provider = false;
    std::optional<std::string> idempotency_key;  // template such as "renewal-{customer}-{period}"
    // Each charge is a compare-and-set at the provider on the version of the item's object
    // the job read before preparing it (S3 If-Match on the ETag, GCS ifGenerationMatch,
    // UPDATE … WHERE version = $read): refused if anyone wrote the object since. No token,
    // no lock needed: the store checks the data itself, per object.
    bool conditional_write = false;
    bool unique_claim = false;  // INSERT the renewal row first; the unique key lets one server win
    // fence_database: the claim takes only a row still due, never one claimed or charged
    // under any token, so a stale holder that claims first keeps the newer one out…
    bool claim_once = false;
    // …unless the row was claimed (not charged) this long ago by the database's clock and
    // the new token is higher: its claimer is presumed dead. None: a claimed row is never
    // taken back (an operator must look at it).
    std::optional<Duration> reclaim_after;
};

// What the payment provider does with the idempotency keys it is sent.
struct ProviderSpec {
    bool honours_keys = true;               // false: a provider without key support charges every request
    std::optional<Duration> key_retention;  // a key is forgotten this long after its first charge (Stripe: 24h)
};

// A link whose delay differs from the network's default.
struct LinkSpec {
    std::string a;
    std::string b;
    DelayModel delay;
    LinkBehaviour behaviour;
};

struct WorldSpec {
    std::vector<std::string> servers;
    std::vector<std::string> store_nodes;  // the lock store's nodes, named after the store kind
    std::string pooler_node;               // the connection pooler's, when the lock is taken through one
    std::string billing_node;
    std::string provider_node;
    std::map<std::string, ClockSettings> clocks;  // nodes not listed keep perfect clocks
    DelayModel link_delay;
    LinkBehaviour link_behaviour;
    std::vector<LinkSpec> links;
    LockSpec lock;
    JobSpec job;
    ProtectionSpec protection;
    ProviderSpec provider;
    std::vector<Fault> faults;
    std::vector<FaultGenerator> fault_generators;
    Duration horizon;       // the run stops at this true time even if work is pending
    Vocabulary vocabulary;  // what reports call the job's things
};

}  // namespace locksim
