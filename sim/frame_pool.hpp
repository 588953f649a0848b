#pragma once
// Where coroutine frames live: pools of equal-sized slots carved from large blocks, one
// set per thread (a simulation runs on one thread). A process's frame is allocated when
// it starts and freed when it ends, never per event; frames of one size sit side by side,
// so a run with many processes touches as few cache lines as it can.
#include <cstddef>

namespace locksim::frame_pool {

void* allocate(std::size_t bytes);
void release(void* frame, std::size_t bytes) noexcept;

}  // namespace locksim::frame_pool
