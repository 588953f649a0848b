#include "sim/frame_pool.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace locksim::frame_pool {
namespace {

constexpr std::size_t granule = 16;    // sizes are rounded up to this
constexpr std::size_t largest = 1024;  // larger frames come from operator new
constexpr std::size_t first_block_bytes = 16 * 1024;
constexpr std::size_t last_block_bytes = 1024 * 1024;
constexpr std::align_val_t cache_line{64};  // a 128-byte frame spans two lines, not three

constexpr std::size_t size_class(std::size_t bytes) {
    return (bytes + granule - 1) / granule;
}

struct FreeSlot {
    FreeSlot* next;
};

// One thread's pools. Their blocks are never given back: when the thread ends, its pools
// pass to the next thread that starts, so memory is bounded by the threads running at
// once, and a frame freed late (by a static object at exit, or on another thread) always
// lands in memory that is still there.
class Pools {
public:
    void* allocate(std::size_t bytes) {
        Pool& pool = pools_[size_class(bytes)];
        if (pool.free == nullptr) refill(pool, size_class(bytes) * granule);
        FreeSlot* slot = pool.free;
        pool.free = slot->next;
        return slot;
    }
    void release(void* frame, std::size_t bytes) noexcept {
        Pool& pool = pools_[size_class(bytes)];
        auto* slot = static_cast<FreeSlot*>(frame);
        slot->next = pool.free;
        pool.free = slot;
    }

private:
    struct Pool {
        FreeSlot* free = nullptr;
        std::size_t next_block_bytes = first_block_bytes;
    };
    // Blocks double in size, so a world of ten processes takes a few kilobytes and one
    // of 100,000 a few large blocks.
    void refill(Pool& pool, std::size_t slot_bytes) {
        const std::size_t bytes = pool.next_block_bytes;
        pool.next_block_bytes = std::min(bytes * 2, last_block_bytes);
        auto* block = static_cast<std::byte*>(::operator new(bytes, cache_line));
        blocks_.push_back(block);
        // Slots handed out in address order: the processes started together sit together.
        for (std::size_t offset = bytes / slot_bytes * slot_bytes; offset >= slot_bytes; offset -= slot_bytes) {
            auto* slot = reinterpret_cast<FreeSlot*>(block + offset - slot_bytes);
            slot->next = pool.free;
            pool.free = slot;
        }
    }
    std::array<Pool, size_class(largest) + 1> pools_{};
    std::vector<std::byte*> blocks_;  // never freed, see above
};

std::mutex spare_mutex;
// Pools of threads that have ended, guarded by spare_mutex; never destroyed, so that a
// thread ending while the program exits can still hand its pools back.
std::vector<Pools*>& spare_pools() {
    static auto* const spares = new std::vector<Pools*>;
    return *spares;
}

// A trivially destructible pointer, so it can still be read while the thread ends.
thread_local Pools* this_threads_pools = nullptr;

struct HandBackAtThreadEnd {
    ~HandBackAtThreadEnd() {
        const std::lock_guard lock(spare_mutex);
        spare_pools().push_back(std::exchange(this_threads_pools, nullptr));
    }
};

Pools& pools() {
    if (this_threads_pools == nullptr) [[unlikely]] {
        {
            const std::lock_guard lock(spare_mutex);
            if (!spare_pools().empty()) {
                this_threads_pools = spare_pools().back();
                spare_pools().pop_back();
            }
        }
        if (this_threads_pools == nullptr) this_threads_pools = new Pools;
        // Constructed once per thread, on its first frame. A frame freed after it has run
        // (rare: at exit) takes pools of its own, which are then never handed back.
        thread_local HandBackAtThreadEnd hand_back;
    }
    return *this_threads_pools;
}

}  // namespace

void* allocate(std::size_t bytes) {
    if (!pooling || bytes > largest) return ::operator new(bytes);
    return pools().allocate(bytes);
}

void release(void* frame, std::size_t bytes) noexcept {
    if (!pooling || bytes > largest) return ::operator delete(frame);
    pools().release(frame, bytes);
}

}  // namespace locksim::frame_pool
