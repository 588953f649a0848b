#pragma once
// The job's HTTP client of the payment provider: a charge request with the
// Idempotency-Key header when the design sends one, and the lock's token when the design
// fences at the provider. With a timeout it gives up waiting for a reply and, if the
// design retries, sends the same request again after a backoff: the first may still
// arrive, or may have charged already and lost only its reply.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "models/job_error.hpp"
#include "models/payment_provider.hpp"
#include "models/vocabulary.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"

namespace locksim {

class ProviderClient {
public:
    // `words` name the request and its reply on the arrows: "transfer batch 3", "transferred".
    ProviderClient(Host host, Network& network, NodeId provider_node, PaymentProvider* provider, std::string period,
                   ChargeRequestSpec request, const Vocabulary& words = Vocabulary::defaults());

    // POST a charge for this customer's period; the receipt says whether the provider
    // replayed an earlier charge for the same key, refused a stale fencing token, or found
    // the object changed since `if_version` was read, instead of charging. Throws
    // ChargeTimedOut when no attempt got a reply.
    Task<ChargeReceipt> charge(std::int64_t customer, std::optional<std::string> idempotency_key,
                               std::optional<std::int64_t> token, std::optional<ReadVersion> if_version,
                               EffectStep step = {});
    // GET the customer's object: the version a conditional charge names. Throws
    // ChargeTimedOut when no reply came within the request's timeout.
    Task<ReadVersion> read_version(std::int64_t customer);

    // Each run of a recurring job renews a period of its own.
    void begin_period(std::string period) { period_ = std::move(period); }

private:
    // One request's fate: its receipt, or none because the timeout passed or the
    // connection was reset.
    struct ChargeAttempt {
        std::optional<ChargeReceipt> receipt;
        bool reset = false;
    };
    Task<ChargeAttempt> attempt(std::int64_t customer, const std::optional<std::string>& key,
                                std::optional<std::int64_t> token, std::optional<ReadVersion> if_version,
                                const EffectStep& step, int retry);

    Host host_;
    Network& network_;
    NodeId provider_node_;
    PaymentProvider* provider_;
    std::string period_;
    ChargeRequestSpec request_;
    RandomStream jitter_;
    const Vocabulary& words_;
};

// What the job sees when the provider never answered: the charge may or may not have
// happened.
struct ChargeTimedOut : JobError {
    using JobError::JobError;
};

}  // namespace locksim
