// The list a trace keeps its events in: every element where it was put, at every size
// across the chunks' edges, copied and moved whole.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "sim/chunked_list.hpp"

using namespace locksim;

namespace {
// Small chunks, so a test crosses many edges: 4, 8, 16, then 16 each.
using SmallList = ChunkedList<std::string, 4, 16>;

SmallList list_of(std::size_t count) {
    SmallList list;
    for (std::size_t i = 0; i < count; ++i) list.push_back(std::to_string(i));
    return list;
}
}  // namespace

TEST_CASE("a chunked list holds every element in order at every size across its chunks' edges") {
    for (std::size_t count : {0, 1, 3, 4, 5, 11, 12, 13, 27, 28, 29, 43, 44, 45, 200}) {
        const SmallList list = list_of(count);
        INFO("count " << count);
        REQUIRE(list.size() == count);
        CHECK(list.empty() == (count == 0));
        for (std::size_t i = 0; i < count; ++i) CHECK(list[i] == std::to_string(i));
        CHECK(static_cast<std::size_t>(std::distance(list.begin(), list.end())) == count);
        std::size_t walked = 0;
        for (const std::string& element : list) CHECK(element == std::to_string(walked++));
        if (count > 0) {
            CHECK(list.front() == "0");
            CHECK(list.back() == std::to_string(count - 1));
        }
    }
}

TEST_CASE("a chunked list's elements never move as it grows, and it holds at most a chunk it does not use") {
    SmallList list;
    std::vector<const std::string*> places;
    for (std::size_t i = 0; i < 300; ++i) {
        list.push_back(std::to_string(i));
        places.push_back(&list.back());
    }
    for (std::size_t i = 0; i < 300; ++i) CHECK(places[i] == &list[i]);
    // 4 + 8 + 16, then chunks of 16: 300 elements take 28 + 17 * 16 = 300 places exactly.
    CHECK(list.bytes_held() == 300 * sizeof(std::string));
    list.push_back("one more");
    CHECK(list.bytes_held() == 316 * sizeof(std::string));
}

TEST_CASE("a chunked list is copied and moved whole, and its iterators do what a vector's do") {
    SmallList original = list_of(45);
    const SmallList copy = original;
    SmallList moved = std::move(original);
    CHECK(copy.size() == 45);
    CHECK(moved.size() == 45);
    CHECK(std::equal(copy.begin(), copy.end(), moved.begin(), moved.end()));
    SmallList assigned;
    assigned = copy;
    CHECK(assigned[44] == "44");
    // Random access, as the readers of a trace use it.
    const auto found =
        std::lower_bound(copy.begin(), copy.end(), std::string("30"),
                         [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
    CHECK(found - copy.begin() == 30);
    CHECK(*(copy.end() - 1) == "44");
    CHECK(copy.begin()[12] == "12");
    CHECK(std::count_if(std::make_reverse_iterator(copy.end()), std::make_reverse_iterator(copy.begin()),
                        [](const std::string& s) { return s.size() == 1; }) == 10);
}
