// sim/frame_pool.hpp: where coroutine frames live.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "sim/engine.hpp"
#include "sim/frame_pool.hpp"
#include "sim/task.hpp"

using namespace locksim;

TEST_CASE("frames handed out at once never overlap, whatever their sizes") {
    struct Frame {
        std::byte* start;
        std::size_t bytes;
    };
    std::vector<Frame> frames;
    for (std::size_t i = 0; i < 5'000; ++i) {            // enough to need several blocks per size
        const std::size_t bytes = 8 + (i * 37) % 1'500;  // some above the pooled sizes
        auto* start = static_cast<std::byte*>(frame_pool::allocate(bytes));
        std::memset(start, static_cast<int>(i & 0xff), bytes);
        frames.push_back({start, bytes});
    }
    for (std::size_t i = 0; i < frames.size(); ++i)  // every byte still holds what was written
        REQUIRE(std::all_of(frames[i].start, frames[i].start + frames[i].bytes,
                            [i](std::byte b) { return b == static_cast<std::byte>(i & 0xff); }));
    std::sort(frames.begin(), frames.end(), [](const Frame& a, const Frame& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < frames.size(); ++i)
        REQUIRE(frames[i - 1].start + frames[i - 1].bytes <= frames[i].start);
    for (const Frame& frame : frames) frame_pool::release(frame.start, frame.bytes);
}

TEST_CASE("a released frame is reused for the next frame of its size") {
    if (!frame_pool::pooling) return;  // under AddressSanitizer frames come from operator new
    void* first = frame_pool::allocate(120);
    frame_pool::release(first, 120);
    void* second = frame_pool::allocate(120);
    CHECK(second == first);
    frame_pool::release(second, 120);
}

TEST_CASE("frames of 128 bytes start on a cache line") {
    if (!frame_pool::pooling) return;  // under AddressSanitizer frames come from operator new
    std::vector<void*> frames;
    for (int i = 0; i < 300; ++i) frames.push_back(frame_pool::allocate(128));
    for (void* frame : frames) CHECK(reinterpret_cast<std::uintptr_t>(frame) % 64 == 0);
    for (void* frame : frames) frame_pool::release(frame, 128);
}

TEST_CASE("a thread's pools pass to the next thread when it ends, frames and all") {
    if (!frame_pool::pooling) return;  // under AddressSanitizer frames come from operator new
    void* freed_by_first = nullptr;
    std::thread first([&] {
        freed_by_first = frame_pool::allocate(200);
        frame_pool::release(freed_by_first, 200);
    });
    first.join();
    void* taken_by_second = nullptr;
    std::thread second([&] {
        taken_by_second = frame_pool::allocate(200);
        frame_pool::release(taken_by_second, 200);
    });
    second.join();
    CHECK(taken_by_second == freed_by_first);
}

TEST_CASE("a frame made on a thread that has ended can be freed on another") {
    void* frame = nullptr;
    std::thread maker([&] { frame = frame_pool::allocate(96); });
    maker.join();
    std::memset(frame, 0x5a, 96);  // still the frame's memory: the maker's blocks were not freed
    frame_pool::release(frame, 96);
    void* next = frame_pool::allocate(96);
    std::memset(next, 0, 96);
    frame_pool::release(next, 96);
}

namespace {
Task<int> add(int a, int b) {
    co_return a + b;
}
Task<void> sum_to(int n, int& total) {
    for (int i = 1; i <= n; ++i) total = co_await add(total, i);  // a child frame made and freed each time
}
}  // namespace

TEST_CASE("processes whose frames come from the pool run to the right result") {
    Engine engine(1);
    const NodeId node = engine.add_node("n");
    int first = 0;
    int second = 0;
    engine.spawn(node, sum_to(1'000, first));
    engine.spawn(node, sum_to(10, second));
    engine.run(never);
    CHECK(first == 500'500);
    CHECK(second == 55);
}
