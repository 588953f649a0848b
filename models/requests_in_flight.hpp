#pragma once
// Requests on their way to a node that acts on them when they land: charges to the payment
// provider, statements to the billing database. A client that gave up waiting (or died)
// leaves one that can still act when it arrives, so the run is not over until it has. A
// network that duplicates messages delivers one request twice: counted once.
#include <cstdint>
#include <functional>
#include <set>
#include <utility>

namespace locksim {

class RequestsInFlight {
public:
    // A request leaves now; the number it arrives under.
    std::int64_t sent() {
        in_flight_.insert(next_);
        return next_++;
    }
    void arrived(std::int64_t request) {
        if (in_flight_.erase(request) > 0 && in_flight_.empty() && on_all_arrived_) on_all_arrived_();
    }
    bool any() const { return !in_flight_.empty(); }
    // Called when the last request in flight has arrived.
    void on_all_arrived(std::function<void()> callback) { on_all_arrived_ = std::move(callback); }

private:
    std::int64_t next_ = 1;
    std::set<std::int64_t> in_flight_;
    std::function<void()> on_all_arrived_;
};

}  // namespace locksim
