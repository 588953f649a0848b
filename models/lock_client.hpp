#pragma once
// The wire protocol of one kind of lock store, as its client library speaks it. The
// retry, renewal and belief logic every store shares lives in LockHolder.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/task.hpp"
#include "sim/time.hpp"

namespace locksim {

struct Lease {
    std::string key;
    std::string value;                  // what identifies this holder at the store
    std::optional<std::int64_t> token;  // a fencing token, where the store hands one out
    Instant valid_until;                // on the holder's monotonic clock: after this, assume it is gone
};

struct ExtendResult {
    enum class Outcome { extended, refused, no_reply };
    Outcome outcome = Outcome::no_reply;
    Instant valid_until;  // when extended
};

class LockStoreClient {
public:
    virtual ~LockStoreClient() = default;

    // One attempt; nullopt if the lock is taken or the store did not answer in time.
    virtual Task<std::optional<Lease>> try_acquire() = 0;
    // Extends the lease only if it is still ours.
    virtual Task<ExtendResult> extend(const Lease& lease) = 0;
    virtual Task<void> release(const Lease& lease) = 0;
};

}  // namespace locksim
