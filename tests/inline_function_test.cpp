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
