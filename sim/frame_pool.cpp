#include "sim/frame_pool.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace locksim::frame_pool {
namespace {

constexpr std::size_t granule = 16;        // sizes are rounded up to this
constexpr std::size_t largest = 1024;      // larger frames come from operator new
constexpr std::size_t block_bytes = 64 * 1024;
constexpr std::align_val_t cache_line{64};  // a 128-byte frame spans two lines, not three

struct FreeSlot {
    FreeSlot* next;
};

class Pools {
public:
    void* allocate(std::size_t bytes) {
        Pool& pool = pools_[(bytes + granule - 1) / granule];
        if (pool.free == nullptr) refill(pool, (bytes + granule - 1) / granule * granule);
        FreeSlot* slot = pool.free;
        pool.free = slot->next;
        return slot;
    }
    void release(void* frame, std::size_t bytes) noexcept {
        Pool& pool = pools_[(bytes + granule - 1) / granule];
        auto* slot = static_cast<FreeSlot*>(frame);
        slot->next = pool.free;
        pool.free = slot;
    }

private:
    struct Pool {
        FreeSlot* free = nullptr;
    };
    void refill(Pool& pool, std::size_t slot_bytes) {
        blocks_.emplace_back(static_cast<std::byte*>(::operator new(block_bytes, cache_line)));
        std::byte* block = blocks_.back().get();
        // Slots handed out in address order: the processes started together sit together.
        for (std::size_t offset = block_bytes / slot_bytes * slot_bytes; offset >= slot_bytes; offset -= slot_bytes) {
            auto* slot = reinterpret_cast<FreeSlot*>(block + offset - slot_bytes);
            slot->next = pool.free;
            pool.free = slot;
        }
    }
    std::array<Pool, largest / granule + 1> pools_{};
    struct FreeBlock {
        void operator()(std::byte* block) const { ::operator delete(block, cache_line); }
    };
    std::vector<std::unique_ptr<std::byte, FreeBlock>> blocks_;
};

Pools& pools() {
    thread_local Pools instance;
    return instance;
}

}  // namespace

void* allocate(std::size_t bytes) {
    if (bytes > largest) return ::operator new(bytes);
    return pools().allocate(bytes);
}

void release(void* frame, std::size_t bytes) noexcept {
    if (bytes > largest) return ::operator delete(frame);
    pools().release(frame, bytes);
}

}  // namespace locksim::frame_pool
