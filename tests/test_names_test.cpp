// CTest runs each TEST_CASE by its name (catch_discover_tests, tests/CMakeLists.txt), and
// CMake reads the names as a list: a ";" cuts a name in two, neither of which matches a test
// case, so Catch runs nothing and CTest counts two passes; "[" and "]" are list brackets, and
// a name that starts with "-" reads to Catch as an option.
#include <catch2/catch.hpp>

#include <string>

TEST_CASE("every test case's name reaches CTest whole: no list separator or bracket, no leading dash") {
    const auto& tests = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
    REQUIRE_FALSE(tests.empty());
    for (const auto& test : tests) {
        INFO(test.name);
        CHECK(test.name.find_first_of(";[]") == std::string::npos);
        CHECK_FALSE(test.name.starts_with('-'));
    }
}
