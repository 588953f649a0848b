#pragma once
// Pending events in a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990), keyed on the
// integer time. It relies on simulated time never running backwards: every event pushed
// is due no earlier than the floor (`floor_`, at most the time of the last event popped).
// An event sits in the bucket named by the highest bit in which its time differs from the
// floor. Bucket 0 is the run: events sorted by (time, sequence), all due before anything
// in another bucket; pops come from its front. When the run is spent, the lowest occupied
// bucket becomes the next run: sorted where it is if it is small (at most 16 events), or
// else emptied into the buckets below it, its earliest time becoming the new floor. An
// event moves down a few times in its life, never more than 64; nothing is compared
// against the whole queue, so a large queue costs little more than a small one.
//
// Ties stay in insertion order for free: a bucket is only ever appended to, and is
// redistributed in order into buckets that were empty.
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.hpp"

namespace locksim {

class RadixEventHeap {
public:
    // Events due at the same time must be pushed in the order they are to fire.
    void push(const Event& event) {
        const std::uint64_t key = key_of(event);
        assert(key >= floor_ && "an event in the past");
        ++size_;
        std::vector<Event>& run = buckets_[0];
        if (front_ < run.size() && event.at < run.back().at && run.size() - front_ >= run_up_to) dissolve_run();
        if (front_ < run.size() && event.at < run.back().at) {  // due within the sorted run: into its place
            const auto later = std::upper_bound(run.begin() + static_cast<std::ptrdiff_t>(front_), run.end(), event.at,
                                                [](Instant at, const Event& other) { return at < other.at; });
            run.insert(later, event);
            return;
        }
        const std::vector<Event>& bucket = place(event, key);
        // Bucket 0 comes first anyway; any other earlier event is the new next one.
        if (found_ != nullptr && &bucket != &buckets_[0] && event.at < (*found_)[found_index_].at) {
            found_ = &bucket;
            found_index_ = bucket.size() - 1;
        }
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // The next event; the queue must not be empty. This moves nothing: the floor may only
    // rise to an event's time when that event is popped, for until then the code running
    // now may still schedule something earlier. Outside bucket 0 the next event is found
    // by a search of the lowest occupied bucket, remembered until a pop uses it or an
    // earlier push displaces it.
    const Event& next() {
        assert(size_ > 0);
        if (front_ < buckets_[0].size()) return buckets_[0][front_];
        if (!found_) {
            const std::vector<Event>& lowest = buckets_[lowest_occupied()];
            found_index_ = 0;
            for (std::size_t index = 1; index < lowest.size(); ++index)
                if (lowest[index].at < lowest[found_index_].at) found_index_ = index;
            found_ = &lowest;
        }
        return (*found_)[found_index_];
    }
    Event pop() {
        settle();
        --size_;
        std::vector<Event>& run = buckets_[0];
        const Event event = run[front_++];
        // Events due at the run's own instant are appended to it: drop what has been popped,
        // or a run that is topped up as fast as it drains would grow without end.
        if (front_ == run.size()) {
            run.clear();
            front_ = 0;
        } else if (front_ >= 1024 && 2 * front_ >= run.size()) {
            run.erase(run.begin(), run.begin() + static_cast<std::ptrdiff_t>(front_));
            front_ = 0;
        }
        return event;
    }
    // Takes every event out, in no particular order.
    std::vector<Event> take_all() {
        std::vector<Event> all(buckets_[0].begin() + static_cast<std::ptrdiff_t>(front_), buckets_[0].end());
        for (auto& bucket : buckets_) {
            if (&bucket != &buckets_[0]) all.insert(all.end(), bucket.begin(), bucket.end());
            bucket.clear();
        }
        front_ = 0;
        occupied_ = 0;
        size_ = 0;
        found_ = nullptr;
        return all;
    }

private:
    // Times as unsigned keys in the same order (negative times, before midnight, too).
    static std::uint64_t key_of(const Event& event) {
        return static_cast<std::uint64_t>(event.at.ns) ^ (std::uint64_t{1} << 63);
    }
    const std::vector<Event>& place(const Event& event, std::uint64_t key) {
        const std::size_t bucket = static_cast<std::size_t>(std::bit_width(key ^ floor_));  // 0 when due at the floor
        buckets_[bucket].push_back(event);
        if (bucket > 0) occupied_ |= std::uint64_t{1} << (bucket - 1);
        return buckets_[bucket];
    }
    // A long run would make every push that lands inside it cost its length: its events go
    // back to the buckets instead (those due at the floor stay), ahead of the events already
    // in the lowest bucket, which all fire after them.
    void dissolve_run() {
        std::vector<Event>& run = buckets_[0];
        const std::vector<Event> remaining(run.begin() + static_cast<std::ptrdiff_t>(front_), run.end());
        run.clear();
        front_ = 0;
        found_ = nullptr;
        const std::size_t lowest = occupied_ != 0 ? lowest_occupied() : buckets_.size();
        std::vector<Event> ahead;
        for (const Event& event : remaining) {
            const std::uint64_t key = key_of(event);
            if (static_cast<std::size_t>(std::bit_width(key ^ floor_)) == lowest)
                ahead.push_back(event);
            else
                place(event, key);
        }
        if (!ahead.empty()) buckets_[lowest].insert(buckets_[lowest].begin(), ahead.begin(), ahead.end());
    }
    std::size_t lowest_occupied() const { return static_cast<std::size_t>(std::countr_zero(occupied_)) + 1; }
    // Makes bucket 0 hold the next event.
    void settle() {
        assert(size_ > 0);
        if (front_ < buckets_[0].size()) return;
        buckets_[0].clear();
        front_ = 0;
        const std::size_t lowest = lowest_occupied();
        std::vector<Event>& spill = buckets_[lowest];
        floor_ = key_of(next());
        found_ = nullptr;
        occupied_ &= ~(std::uint64_t{1} << (lowest - 1));
        // A small spill is the next few events to fire: start fetching the frames they
        // will resume (one frame per process, far apart when there are many).
        if (spill.size() <= prefetch_up_to)
            for (const Event& event : spill)
                if (event.action.is_resume()) __builtin_prefetch(event.action.frame());
        if (spill.size() <= sort_up_to) {
            // Sorted where it is and made the run, instead of moving down bucket by bucket.
            std::swap(buckets_[0], spill);
            std::sort(buckets_[0].begin(), buckets_[0].end(), fires_before);
            return;
        }
        for (const Event& event : spill) place(event, key_of(event));  // all land below `lowest`
        spill.clear();
    }

    static constexpr std::size_t sort_up_to = 16;  // std::sort is an insertion sort up to 16
    static constexpr std::size_t prefetch_up_to = 64;
    static constexpr std::size_t run_up_to = 64;  // longer, and a push into it dissolves it
    std::array<std::vector<Event>, 65> buckets_;  // bucket 0 is the run: sorted, due before all the rest
    std::size_t front_ = 0;                       // the next event in bucket 0
    std::uint64_t occupied_ = 0;                  // bit b-1 set when bucket b (1..64) holds events
    std::uint64_t floor_ = key_of(Event{.at = Instant{INT64_MIN}});
    std::size_t size_ = 0;
    const std::vector<Event>* found_ = nullptr;  // where next() found the next event, if it searched
    std::size_t found_index_ = 0;
};

}  // namespace locksim
