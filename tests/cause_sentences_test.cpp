// Every cause a report states is checked against the trace event it names, in every design
// of every shipped scenario: the kind of a crash and what a restart loaded, the tokens a
// refused write is compared with, and why a holder stopped believing it held the lock
// (reports/figure/fault_causes.cpp, protection_story.cpp; the holders' reasons in
// models/lock_holder.cpp, job_server.cpp and the store clients). The order of the times a
// violation cites is checked in violation_story_test.cpp.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <variant>
#include <vector>

#include "models/trace_kinds.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// How many causes of each sort the shipped scenarios state: each sort must be met, or the
// check of it checked nothing.
using CausesChecked = std::map<std::string, int>;

bool on_named(const Trace& trace, const TraceEvent& event, const std::string& name) {
    return event.node.valid() && trace.node_name(event.node) == name;
}

bool holder_is(const TraceEvent& event, NodeId holder) {
    return event.has("holder") && event.node_ref("holder") == holder;
}

// "lock-store crashed at 0.500s (its machine lost power) and restarted at 1.500s with
// persistence aof-everysec, …": a crash of that kind on that node at that time, and a
// restart that loaded no key with that persistence.
void check_crash_causes(const Trace& trace, const std::string& sentence, CausesChecked& checked) {
    static const std::regex crash(
        R"(([\w-]+(?:, [\w-]+)*(?: and [\w-]+)?) crashed at (\d+\.\d{3}s)(?: \(its (machine lost power|process died)\))?)"
        R"((?: and restarted at (\d+\.\d{3}s) with(out persistence| persistence ([\w -]+?)(?:,|:| and)))?)");
    for (std::sregex_iterator it(sentence.begin(), sentence.end(), crash), end; it != end; ++it) {
        const std::smatch& said = *it;
        const std::regex separator(", | and ");
        const std::string names = said[1];
        std::vector<std::string> stores(std::sregex_token_iterator(names.begin(), names.end(), separator, -1),
                                        std::sregex_token_iterator());
        const TraceEvent* crashed = nullptr;
        for (const auto* event : events_of(trace, trace_kind::node_crashed))
            for (const auto& store : stores)
                if (on_named(trace, *event, store) && format_seconds(event->at) == said[2].str()) crashed = event;
        INFO("a crash of " << names << " at " << said[2]);
        REQUIRE(crashed != nullptr);
        ++checked["crash"];
        if (said[3].matched) {
            CHECK(crashed->text("kind") == (said[3] == "machine lost power" ? "machine" : "process"));
            ++checked[said[3] == "machine lost power" ? "crash: machine" : "crash: process"];
        }
        if (!said[4].matched) continue;
        const TraceEvent* loaded = nullptr;
        for (const auto* event : events_of(trace, trace_kind::store_loaded, crashed->node))
            if (format_seconds(event->at) == said[4].str()) loaded = event;
        REQUIRE(loaded != nullptr);
        CHECK(loaded->integer("keys") == 0);
        const std::string persistence = said[6].matched ? said[6].str() : "none";
        CHECK(loaded->text("persistence") == persistence);
        ++checked["restart loaded nothing"];
    }
}

// The write a sentence cites: on that row, with that token, accepted, before `until`; by
// that server at that time when the sentence says so.
const TraceEvent* accepted_write(const Trace& trace, std::int64_t customer, std::int64_t token, std::uint64_t until,
                                 const std::string& writer = "", const std::string& at = "") {
    for (const auto* event : events_of(trace, trace_kind::db_write))
        if (event->sequence < until && event->integer("customer") == customer && event->has("token") &&
            event->integer("token") == token && event->integer("rows") > 0 &&
            (writer.empty() || trace.node_name(event->node_ref("client")) == writer) &&
            (at.empty() || format_seconds(event->at) == at))
            return event;
    return nullptr;
}

// A fence's sentence, against the write it was said of and the write it names:
// "stale write refused: token 1 came after token 33 had written customer 42",
// "claim refused: customer 42's row already carried token 1, written by server-1 at
// 8.017s, and a claim needs a newer one", "claim refused: customer 42's row was already
// claimed or charged, and is claimed once (token 34 is above its token 33)",
// "stale write refused: token 33 had already reached the payment provider".
void check_token_causes(const Trace& trace, const FigureStep& step, CausesChecked& checked) {
    static const std::regex stale(
        R"(^stale write (refused|ACCEPTED): token (\d+) came after token (\d+) had written \w+ (\d+))");
    static const std::regex equal(
        R"(^claim refused: \w+ (\d+)'s row already carried token (\d+), written by ([\w-]+) at (\d+\.\d{3}s), and a claim needs a newer one)");
    static const std::regex once(
        R"(^claim refused: \w+ (\d+)'s row was already claimed or charged, and is claimed once \(token (\d+) is above its token (\d+)\))");
    static const std::regex provider(R"(^stale write (refused|ACCEPTED): token (\d+) had already reached the )");
    const std::string& sentence = step.explanation;
    const TraceEvent& event = trace.events()[step.sequence];
    INFO(sentence);
    std::smatch said;
    const auto number = [&](int group) { return std::stoll(said[group].str()); };
    if (std::regex_search(sentence, said, stale)) {
        REQUIRE(event.kind == trace_kind::db_write);
        CHECK(event.integer("customer") == number(4));
        CHECK(event.integer("token") == number(2));
        CHECK((event.integer("rows") > 0) == (said[1] == "ACCEPTED"));
        CHECK(number(2) < number(3));
        CHECK(accepted_write(trace, number(4), number(3), event.sequence) != nullptr);
        ++checked["token: stale"];
    } else if (std::regex_search(sentence, said, equal)) {
        REQUIRE(event.kind == trace_kind::db_write);
        CHECK(event.integer("customer") == number(1));
        CHECK(event.integer("token") == number(2));
        CHECK(event.integer("rows") == 0);
        CHECK(accepted_write(trace, number(1), number(2), event.sequence, said[3], said[4]) != nullptr);
        ++checked["token: equal"];
    } else if (std::regex_search(sentence, said, once)) {
        REQUIRE(event.kind == trace_kind::db_write);
        CHECK(event.integer("customer") == number(1));
        CHECK(event.integer("token") == number(2));
        CHECK(event.integer("rows") == 0);
        CHECK(number(2) > number(3));
        CHECK(accepted_write(trace, number(1), number(3), event.sequence) != nullptr);
        ++checked["token: claimed once"];
    } else if (std::regex_search(sentence, said, provider)) {
        CHECK(event.integer("token") < number(2));
        bool reached = false;
        for (const auto* charged : events_of(trace, trace_kind::provider_charged))
            reached = reached || (charged->sequence < event.sequence && charged->integer("token") == number(2));
        CHECK(reached);
        ++checked["token: provider"];
    }
}

// Before `ended`, on some store node, the holder's lock was let go (expired, released,
// granted to another, or lost in a crash) after that node last granted or renewed it; or a store failed over
// or restarted while the holder had the lock.
bool store_let_go(const Trace& trace, const TraceEvent& ended) {
    const NodeId holder = ended.node;
    std::map<NodeId, bool> ours;  // by store node: the holder's lock is there
    bool let_go = false, granted = false;
    for (std::size_t i = 0; i < ended.sequence; ++i) {
        const TraceEvent& event = trace.events()[i];
        const bool mine = holder_is(event, holder);
        if ((event.kind == trace_kind::lock_granted || event.kind == trace_kind::lock_renewed) && mine) {
            ours[event.node] = true;
            granted = true;
        } else if ((event.kind == trace_kind::lock_expired || event.kind == trace_kind::lock_released) && mine) {
            let_go = let_go || ours[event.node];
            ours[event.node] = false;
        } else if ((event.kind == trace_kind::lock_granted || event.kind == trace_kind::node_crashed) &&
                   ours[event.node]) {
            let_go = true;
            ours[event.node] = false;
        } else if (event.kind == trace_kind::store_failover || event.kind == trace_kind::store_loaded) {
            let_go = let_go || granted;
        }
    }
    return let_go;
}

// Why a holder stopped believing, as it said so (the step's text quotes it), against what
// the store and the resource recorded.
void check_belief_ended(const Trace& trace, const TraceEvent& ended, CausesChecked& checked) {
    const std::string reason(ended.text("reason"));
    INFO(trace.node_name(ended.node) << " at " << format_seconds(ended.at) << ": " << reason);
    static const std::regex deadline(R"(^renewal failed: none went through within its renew deadline \((\w+)\)$)");
    static const std::regex fenced_row(R"(^fenced out: the row already carried token (\d+) or newer$)");
    std::smatch said;
    // Its own doing, or its own clock.
    if (reason == "released" || reason == "abandoned: an error skipped the release" ||
        reason == "lease ran out by own clock")
        return;
    if (reason == "renewal refused: the value is no longer ours" ||
        reason == "renewal answered 404: the server had invalidated the session" ||
        reason == "lock lost: its watch saw the key no longer carry its session" ||
        reason.starts_with("lock lost: its watch on the key got no answer")) {
        CHECK(store_let_go(trace, ended));
        ++checked["renewal: the store let go"];
    } else if (std::regex_match(reason, said, deadline)) {
        const Duration window = std::get<Duration>(parse_duration(said[1].str()));
        for (const auto* renewed : events_of(trace, trace_kind::lock_renewed))
            if (holder_is(*renewed, ended.node))
                CHECK_FALSE((renewed->at > ended.at - window && renewed->at <= ended.at));
        ++checked["renewal: deadline passed"];
    } else if (std::regex_match(reason, said, fenced_row)) {
        const std::int64_t token = std::stoll(said[1]);
        const TraceEvent* refused = nullptr;
        for (const auto* write : events_of(trace, trace_kind::db_write))
            if (write->node_ref("client") == ended.node && write->integer("rows") == 0 && write->has("token") &&
                write->integer("token") == token && write->at <= ended.at)
                refused = write;
        REQUIRE(refused != nullptr);
        bool row_had_it = false;
        for (const auto* write : events_of(trace, trace_kind::db_write))
            row_had_it = row_had_it || (write->sequence < refused->sequence && write->integer("rows") > 0 &&
                                        write->integer("customer") == refused->integer("customer") &&
                                        write->has("token") && write->integer("token") >= token);
        CHECK(row_had_it);
        ++checked["fenced out: row token"];
    } else if (reason == "fenced out: the provider has seen a newer token") {
        bool refused = false;
        for (const auto* event : events_of(trace, trace_kind::provider_refused))
            refused = refused || (event->sequence < ended.sequence && event->node_ref("by") == ended.node &&
                                  event->integer("token") < event->integer("highest"));
        CHECK(refused);
        ++checked["fenced out: provider token"];
    } else {
        FAIL_CHECK("a reason this test does not know how to check against the trace");
    }
}

}  // namespace

TEST_CASE("every cause a shipped scenario states matches the trace event it names") {
    CausesChecked checked;
    for (const auto& file : shipped_scenario_files()) {
        const ScenarioOutcome outcome = run_shipped(file);
        for (const auto& design : outcome.designs) {
            INFO(file << " · " << design.name);
            const Trace& trace = design.trace;
            for (const auto& step : build_sequence_figure(design).steps) {
                INFO("e" << step.number << " " << step.text << " — " << step.explanation);
                check_crash_causes(trace, step.explanation, checked);
                check_token_causes(trace, step, checked);
            }
            for (const auto* ended : events_of(trace, trace_kind::belief_ended))
                check_belief_ended(trace, *ended, checked);
        }
    }
    for (const std::string sort :
         {"crash: machine", "crash: process", "restart loaded nothing", "token: stale", "token: equal",
          "token: claimed once", "token: provider", "renewal: the store let go", "renewal: deadline passed",
          "fenced out: row token", "fenced out: provider token"}) {
        INFO(sort);
        CHECK(checked[sort] >= 1);
    }
}

// A Consul (or Kubernetes Lease) client keeps no deadline of its own: its holder's checks
// read none, and the story says so instead of the time left until the end of time.
TEST_CASE("a Consul holder that charges after losing its session found no deadline of its own at its last check") {
    std::ifstream shipped(scenario_path("consul-lock-delay.json"));
    nlohmann::json file = nlohmann::json::parse(shipped);
    file["faults"] =
        nlohmann::json::parse(R"([{"partition": [["server-1"], ["consul"]], "at": "6s", "heal_after": "40s"}])");
    file["job"]["customers"] = nlohmann::json::array();
    for (int customer = 41; customer <= 60; ++customer) file["job"]["customers"].push_back(customer);
    file["designs"] = nlohmann::json::parse(R"({"cut-off": {"lock": {"lock_delay": "0s"}}})");
    const Scenario scenario = parse_scenario(file.dump(), "consul-cut-off.json", metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    std::vector<std::string> lasts;
    for (const auto& step : build_sequence_figure(outcome.designs.front()).steps) {
        const auto at = step.explanation.find("its last check");
        if (at != std::string::npos) lasts.push_back(step.explanation.substr(at, step.explanation.find(';', at) - at));
    }
    REQUIRE_FALSE(lasts.empty());
    CHECK(lasts.front() == "its last check, at 24.040s, found no deadline of its own");
    for (const auto& last : lasts) CHECK_THAT(last, Catch::EndsWith("found no deadline of its own"));
}
