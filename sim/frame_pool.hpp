#pragma once
// Where coroutine frames live: pools of equal-sized slots carved from large blocks, one
// set per thread (a simulation runs on one thread). A process's frame is allocated when
// it starts and freed when it ends, never per event; frames of one size sit side by side,
// so a run with many processes touches as few cache lines as it can.
#include <cstddef>

namespace locksim::frame_pool {

// Under AddressSanitizer every frame comes from operator new, so that a frame used after
// its process ended is caught rather than hidden inside a pool.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool pooling = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool pooling = false;
#else
inline constexpr bool pooling = true;
#endif
#else
inline constexpr bool pooling = true;
#endif

void* allocate(std::size_t bytes);
void release(void* frame, std::size_t bytes) noexcept;

// A coroutine promise that derives from this has its frames allocated from the pools.
struct PooledFrame {
    static void* operator new(std::size_t bytes) { return allocate(bytes); }
    static void operator delete(void* frame, std::size_t bytes) noexcept { release(frame, bytes); }
};

}  // namespace locksim::frame_pool
