#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include "sim/gather.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

Task<int> after(Host host, Duration delay, int value) {
    co_await host.sleep(delay);
    co_return value;
}

Task<void> gather_three(Host host, std::vector<int>& results, Instant& finished) {
    std::vector<Task<int>> tasks;
    tasks.push_back(after(host, 3_s, 1));
    tasks.push_back(after(host, 1_s, 2));
    tasks.push_back(after(host, 2_s, 3));
    results = co_await gather(host, std::move(tasks));
    finished = host.engine().now();
}

}  // namespace

TEST_CASE("gather runs its tasks side by side and returns their results in order") {
    Engine engine(1);
    const Host host(engine, engine.add_node("server-1"));
    std::vector<int> results;
    Instant finished;
    host.spawn(gather_three(host, results, finished));
    engine.run(at(1_min));
    CHECK(results == std::vector<int>{1, 2, 3});
    CHECK(finished == at(3_s));  // the slowest, not the sum
}

TEST_CASE("gather of nothing returns at once") {
    Engine engine(1);
    const Host host(engine, engine.add_node("server-1"));
    bool done = false;
    host.spawn([](Host host, bool& done) -> Task<void> {
        std::vector<int> results = co_await gather(host, std::vector<Task<int>>{});
        done = results.empty();
    }(host, done));
    engine.run(at(1_s));
    CHECK(done);
}

TEST_CASE("a crash of the gathering node ends the caller and every task") {
    Engine engine(1);
    const NodeId node = engine.add_node("server-1");
    const Host host(engine, node);
    std::vector<int> results;
    Instant finished;
    host.spawn(gather_three(host, results, finished));
    engine.schedule_at(at(2_s + 500_ms), no_node, [&] { engine.crash(node, "test"); });
    engine.run(at(1_min));
    CHECK(results.empty());
}
