#pragma once
// Counts the program's heap allocations: the benchmark that links allocation_count.cpp
// replaces the global operator new with one that counts, then forwards to malloc.
#include <cstdint>

namespace locksim::benchmark {

// Heap allocations made by every thread since the program started.
std::uint64_t allocations();

}  // namespace locksim::benchmark
