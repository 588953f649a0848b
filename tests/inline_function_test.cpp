// sim/inline_function.hpp: callables kept inside when they fit, on the heap when not,
// moved without copying what they hold, copied only when what they hold can be.
#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim/inline_function.hpp"

using namespace locksim;

TEST_CASE("a small callable is kept inside, a large one on the heap, and both run") {
    int calls = 0;
    InlineFunction<int(int), 32> small = [&calls](int x) {
        ++calls;
        return x + 1;
    };
    std::array<char, 200> big{};
    big[0] = 5;
    InlineFunction<int(int), 32> large = [&calls, big](int x) {
        ++calls;
        return x + big[0];
    };
    CHECK(small(1) == 2);
    CHECK(large(1) == 6);
    CHECK(calls == 2);
}

TEST_CASE("moving a callable moves what it holds and leaves the source empty") {
    auto owned = std::make_shared<int>(7);
    InlineFunction<int(), 64> first = [owned] { return *owned; };
    CHECK(owned.use_count() == 2);
    InlineFunction<int(), 64> second = std::move(first);
    CHECK(owned.use_count() == 2);  // moved, not copied
    CHECK_FALSE(static_cast<bool>(first));
    CHECK(second() == 7);
    second.reset();
    CHECK(owned.use_count() == 1);  // what it held is destroyed with it
}

TEST_CASE("a copy holds its own copy of what was captured, inline or on the heap") {
    InlineFunction<std::string(), 64> counter = [n = 0]() mutable { return std::to_string(++n); };
    CHECK(counter() == "1");
    InlineFunction<std::string(), 64> copy = counter;
    CHECK(copy() == "2");
    CHECK(counter() == "2");  // the copy counted on its own

    std::array<char, 100> padding{};
    InlineFunction<std::string(), 16> large = [n = 0, padding]() mutable { return std::to_string(++n + padding[0]); };
    CHECK(large() == "1");
    InlineFunction<std::string(), 16> large_copy = large;
    CHECK(large_copy() == "2");
    CHECK(large() == "2");
}

TEST_CASE("copying a callable that holds something that cannot be copied is refused") {
    using Callable = InlineFunction<int(), 64>;
    Callable unique = [p = std::make_unique<int>(3)] { return *p; };
    CHECK(unique() == 3);
    CHECK_THROWS_AS(Callable(unique), std::logic_error);
    Callable empty;
    Callable empty_copy = empty;
    CHECK_FALSE(static_cast<bool>(empty_copy));
}

TEST_CASE("a callable of plain bytes, inline or on the heap, keeps its state through moves and assignments") {
    // No captured object has a destructor here: these move as a copy of their bytes.
    InlineFunction<int(), 64> inline_one = [n = 40]() mutable { return ++n; };
    CHECK(inline_one() == 41);
    std::array<int, 64> table{};
    table[63] = 100;
    InlineFunction<int(), 64> heap_one = [n = 0, table]() mutable { return ++n + table[63]; };
    CHECK(heap_one() == 101);

    InlineFunction<int(), 64> moved_inline = std::move(inline_one);
    InlineFunction<int(), 64> moved_heap = std::move(heap_one);
    CHECK_FALSE(static_cast<bool>(inline_one));
    CHECK_FALSE(static_cast<bool>(heap_one));
    CHECK(moved_inline() == 42);  // the count went with it
    CHECK(moved_heap() == 102);

    // Assigned over one that holds something with a destructor: that is destroyed.
    auto owned = std::make_shared<int>(1);
    InlineFunction<int(), 64> target = [owned] { return *owned; };
    CHECK(owned.use_count() == 2);
    target = std::move(moved_heap);
    CHECK(owned.use_count() == 1);
    CHECK(target() == 103);
    target = std::move(moved_inline);
    CHECK(target() == 43);
}
