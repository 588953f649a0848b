#pragma once
// The payment provider. It honours an idempotency key: a second request with a key it has
// seen returns the first charge instead of charging again — unless it does not support
// keys, or has forgotten the key (providers keep them for a while, Stripe for 24 hours).
// Where the design fences at the provider, a request carries the lock's token and the
// provider refuses one below the highest it has seen; the same token passes again, since
// one holder charges many customers with it.
//
// Where the design writes conditionally, each customer's charges are versions of one object
// (an index in an object store, a row with a version column): the writer reads the version
// first and the charge names it, and the provider refuses a charge on a version that is no
// longer the object's: someone wrote it since (S3's 412 Precondition Failed on If-Match).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "models/requests_in_flight.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"

namespace locksim {

struct ChargeReceipt {
    std::int64_t charge_id = 0;
    bool replayed = false;  // the key was seen before: no money moved
    bool refused = false;   // the token was below the highest seen: no money moved
    // A conditional charge's object had changed since its writer read it: no money moved.
    bool changed_since_read = false;
    NodeId changed_by;  // then: whose charge made the version now
};

// Which step of the item's effect a request is, when the effect has several (the first is
// the effect proper; the others write elsewhere, unconditionally). Empty name: one step.
struct EffectStep {
    int number = 1;
    std::string name;
};

// What a conditional charge names: the version of the object its writer read.
struct ReadVersion {
    std::int64_t version = 0;
};

class PaymentProvider {
public:
    PaymentProvider(Host host, ProviderSpec spec) : host_(host), spec_(spec) {}

    ChargeReceipt charge(std::int64_t customer, const std::string& period,
                         const std::optional<std::string>& idempotency_key, std::optional<std::int64_t> token,
                         std::optional<ReadVersion> if_version, NodeId client, const EffectStep& step = {});
    // GET the customer's object for the period: its version, to charge on conditionally.
    ReadVersion read_version(std::int64_t customer, const std::string& period, NodeId client);

    // Charge requests on their way here.
    RequestsInFlight& requests() { return requests_; }

private:
    // What a key's first request charged, and for what: a replay tells whose charge it
    // returned, so a key that does not tell two periods apart shows in the trace.
    struct KeptKey {
        std::int64_t charge_id = 0;
        std::int64_t customer = 0;
        std::string period;
        Instant first_used;  // on the provider's monotonic clock
    };

    // One customer's object in one period: how many charges have written it, and the last
    // writer's node.
    struct ObjectVersion {
        std::int64_t version = 0;
        NodeId written_by;
    };

    Host host_;
    ProviderSpec spec_;
    std::int64_t next_charge_id_ = 1;
    std::int64_t highest_token_ = 0;
    std::map<std::string, KeptKey> charges_by_key_;
    std::map<std::pair<std::int64_t, std::string>, ObjectVersion> objects_;  // written conditionally at least once
    RequestsInFlight requests_;
};

}  // namespace locksim
