// A kept event's fields and text belong to the trace: what the recorder held may change or
// go, and the event still reads what was recorded. Readers of an event as it is recorded
// read the recorder's own values; a trace that keeps nothing stores nothing.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/engine.hpp"
#include "tests/support.hpp"

using namespace locksim;

namespace {
constexpr FieldSpec said_fields[] = {{"words", FieldType::text}, {"count", FieldType::integer, true}};
constexpr KindSpec test_said{"test.said", "a node said something", said_fields};

// Reads each event's words as it is recorded.
struct WordsReader : TraceReader {
    std::vector<std::string> heard;
    void read(const Trace&, const TraceEvent& event) override { heard.emplace_back(event.text("words")); }
};
}  // namespace

TEST_CASE("a kept event reads what was recorded after the recorder's string changed or went") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    WordsReader reader;
    engine.add_trace_reader(reader);
    {
        std::string words = "a long sentence that does not fit in a short string's own bytes";
        engine.record(server, test_said, {{"words", words}, {"count", std::int64_t{1}}});
        words.assign(words.size(), 'x');
        std::string later = "said again";
        engine.record(server, test_said, {{"words", later}});
        later = "changed";
    }
    const auto& events = engine.trace().events();
    REQUIRE(events.size() == 2);
    CHECK(events[0].text("words") == "a long sentence that does not fit in a short string's own bytes");
    CHECK(events[0].integer("count") == 1);
    CHECK(events[1].text("words") == "said again");
    CHECK_FALSE(events[1].has("count"));
    CHECK(reader.heard ==
          std::vector<std::string>{"a long sentence that does not fit in a short string's own bytes", "said again"});
}

TEST_CASE("equal texts of kept events are stored once, and thousands of events keep their fields") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    for (int i = 0; i < 20000; ++i) {
        const std::string words = i % 2 == 0 ? "lock:renewals" : "customer " + std::to_string(i);
        engine.record(server, test_said, {{"words", words}, {"count", std::int64_t{i}}});
    }
    const auto& events = engine.trace().events();
    REQUIRE(events.size() == 20000);
    for (int i = 0; i < 20000; ++i) {
        CHECK(events[i].integer("count") == i);
        if (i % 2 == 1) CHECK(events[i].text("words") == "customer " + std::to_string(i));
    }
    CHECK(events[0].text("words").data() == events[19998].text("words").data());
    // A copy of the trace reads the same, and outlives the original.
    std::optional<Trace> original = engine.take_trace();
    const Trace copy = *original;
    original.reset();
    CHECK(copy.events()[19999].text("words") == "customer 19999");
}

TEST_CASE("a trace that keeps no events stores none, while its readers read every one") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    engine.keep_trace_events(false);
    WordsReader reader;
    engine.add_trace_reader(reader);
    for (int i = 0; i < 3; ++i) {
        const std::string words = "event " + std::to_string(i);
        engine.record(server, test_said, {{"words", words}});
    }
    CHECK(engine.trace().events().empty());
    CHECK(engine.trace().recorded() == 3);
    CHECK(reader.heard == std::vector<std::string>{"event 0", "event 1", "event 2"});
}

TEST_CASE("an event's fields are read in the order they were given, whatever their order in the kind") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    const std::string words = "out of order";
    engine.record(server, test_said, {{"count", std::int64_t{7}}, {"words", words}});
    engine.record(server, test_said, {{"words", words}, {"count", std::int64_t{-8}}});
    const auto& events = engine.trace().events();
    std::vector<std::string> keys;
    for (const Field field : events[0].fields()) keys.emplace_back(field.key);
    CHECK(keys == std::vector<std::string>{"count", "words"});
    keys.clear();
    for (const Field field : events[1].fields()) keys.emplace_back(field.key);
    CHECK(keys == std::vector<std::string>{"words", "count"});
    CHECK(events[0].integer("count") == 7);
    CHECK(events[1].integer("count") == -8);
    CHECK(events[0].text("words") == "out of order");
}

TEST_CASE("a kept trace holds its events in under 100 bytes each when they share their texts") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    const std::string words = "SET lock:renewals 7f3a9c1e NX PX 30000";
    for (int i = 0; i < 100000; ++i) engine.record(server, test_said, {{"words", words}, {"count", std::int64_t{i}}});
    const Trace& trace = engine.trace();
    // 56 bytes an event and 8 a field: 72, and the part of the last chunks not yet used.
    CHECK(sizeof(TraceEvent) == 56);
    CHECK(trace.bytes_held() / trace.events().size() <= 75);
}
