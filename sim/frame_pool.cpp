#include "sim/frame_pool.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <vector>

namespace locksim::frame_pool {
namespace {

constexpr std::size_t granule = 16;        // sizes are rounded up to this
constexpr std::size_t largest = 1024;      // larger frames come from operator new
constexpr std::size_t first_block_bytes = 16 * 1024;
constexpr std::size_t last_block_bytes = 1024 * 1024;
constexpr std::align_val_t cache_line{64};  // a 128-byte frame spans two lines, not three

constexpr std::size_t size_class(std::size_t bytes) { return (bytes + granule - 1) / granule; }

struct FreeSlot {
    FreeSlot* next;
};

class Pools {
public:
    Pools() = default;
    Pools(const Pools&) = delete;
    Pools& operator=(const Pools&) = delete;
    ~Pools() {
        for (std::byte* block : blocks_) ::operator delete(block, cache_line);
    }

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
    std::vector<std::byte*> blocks_;
};

Pools& pools() {
    thread_local Pools instance;
    return instance;
}

}  // namespace

// Under AddressSanitizer every frame comes from operator new, so that a frame used after
// its process ended is caught rather than hidden inside a pool.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool pooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool pooled = false;
#else
constexpr bool pooled = true;
#endif
#else
constexpr bool pooled = true;
#endif

void* allocate(std::size_t bytes) {
    if (!pooled || bytes > largest) return ::operator new(bytes);
    return pools().allocate(bytes);
}

void release(void* frame, std::size_t bytes) noexcept {
    if (!pooled || bytes > largest) return ::operator delete(frame);
    pools().release(frame, bytes);
}

}  // namespace locksim::frame_pool
