// Every violation a shipped scenario shows is told with its cause, and every protection
// with what the resource had seen (reports/figure/violation_story.cpp, fault_causes.cpp,
// protection_story.cpp): the sentences read from the figures of real runs of every file
// in scenarios/ and scenarios/examples/, each under its own seed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/run_outcome.hpp"
#include "models/trace_kinds.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "reports/html/html_report.hpp"
#include "reports/text_timeline.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;
using namespace std::string_literals;

namespace {

// The explanations of the steps of one tone in a design's figure.
std::vector<std::string> explained(const DesignOutcome& design, EventTone tone) {
    std::vector<std::string> sentences;
    for (const auto& step : build_sequence_figure(design).steps)
        if (step.tone == tone) sentences.push_back(step.explanation);
    return sentences;
}

std::vector<std::string> violations_in(const std::string& file, const std::string& design) {
    return explained(design_named(run_shipped(file), design), EventTone::violation);
}

std::vector<std::string> protections_in(const std::string& file, const std::string& design) {
    return explained(design_named(run_shipped(file), design), EventTone::protection);
}

bool any_says(const std::vector<std::string>& sentences, const std::string& words) {
    return std::any_of(sentences.begin(), sentences.end(),
                       [&](const std::string& s) { return s.find(words) != std::string::npos; });
}

// What a cause must give: a clause after " because " of some words, in a sentence that
// names a node of the run and a time.
bool names_a_cause(const std::string& sentence, const std::vector<std::string>& lanes) {
    const auto because = sentence.find(" because ");
    if (because == std::string::npos) return false;
    const std::string cause = sentence.substr(because + 9);
    if (std::count(cause.begin(), cause.end(), ' ') < 4) return false;
    const bool names_node = std::any_of(
        lanes.begin(), lanes.end(), [&](const std::string& lane) { return sentence.find(lane) != std::string::npos; });
    return names_node && std::regex_search(sentence, std::regex("[0-9]+\\.[0-9]{3}s"));
}

}  // namespace

TEST_CASE("every violation in every shipped scenario names its cause, and every protection what protected it") {
    // "3th", "22th", "11st", "a 8th", "a 11th", "a eighth".
    const std::regex wrong_ordinal("(^|[^0-9])([0-9]*[02-9])?[123]th\\b|(^|[^0-9])([0-9]*)1[123](st|nd|rd)\\b");
    const std::regex wrong_article("\\ba (8[0-9]*(st|nd|rd|th)|11th|18th|eighth|eleventh)\\b");
    std::size_t violations = 0, protections = 0, files = 0;
    for (const auto& file : shipped_scenario_files()) {
        ++files;
        const ScenarioOutcome outcome = run_shipped(file);
        for (const auto& design : outcome.designs) {
            const SequenceFigure figure = build_sequence_figure(design);
            for (const auto& step : figure.steps) {
                INFO(file << " · " << design.name << " · e" << step.number << " " << step.text << " — "
                          << step.explanation);
                if (step.tone == EventTone::violation) {
                    ++violations;
                    CHECK(names_a_cause(step.explanation, figure.lanes));
                } else if (step.tone == EventTone::protection) {
                    ++protections;
                    CHECK_FALSE(step.explanation.empty());
                }
                // Ordinals and articles as they are said: "a third", "an 11th", never "a 3th".
                CHECK_FALSE(std::regex_search(step.explanation, wrong_ordinal));
                CHECK_FALSE(std::regex_search(step.explanation, wrong_article));
            }
        }
    }
    // The shipped scenarios show many of both: a file that stopped running would show here.
    CHECK(files >= 30);
    CHECK(violations >= 70);
    CHECK(protections >= 40);
}

TEST_CASE("a holder that charged first after its lease ended is named, not the holder granted the lock after it") {
    // partition.json, fenced: server-1 is cut off from the lease-row store, its lease ends
    // at 30.001s, server-2 is granted the lock and server-1 still charges customer 48 first.
    const auto said = violations_in("partition.json", "fenced");
    REQUIRE(said.size() == 1);
    CHECK(said[0].starts_with(
        "customer 48 charged a second time for 2026-10 because server-1 had charged it first, "
        "at 32.063s (charge 8), 2.062s after its lease had ended at the store (30.001s): a "
        "partition had cut it off from lock-store since 5.000s, and the messages renewing its lock could not get "
        "through (their stream kept retransmitting them)"));
    // Granted before that charge landed: the times read in their order, never "later".
    CHECK(said[0].ends_with("server-2 had been legitimately granted the lock at 30.789s, 1.273s before that charge"));
}

TEST_CASE("the mark sits on the write the sentence blames: the stale holder's first charge, not the second") {
    // partition.json and stores-compared.json's redis/failover: the stale holder charged
    // first, so the checker flags the legitimate holder's second charge, and the sentence
    // blames the first. The figure, and every output drawn from it, marks the first.
    for (const auto& [file, name] : {std::pair{"partition.json", "fenced"}, std::pair{"partition.json", "unfenced"},
                                     std::pair{"stores-compared.json", "redis/failover"}}) {
        INFO(file << " " << name);
        const DesignOutcome design = design_named(run_shipped(file), name);
        const SequenceFigure figure = build_sequence_figure(design);
        int marked = 0;
        for (const auto& step : figure.steps) {
            if (step.tone != EventTone::violation) continue;
            const TraceEvent& event = design.trace.events()[step.sequence];
            if (event.kind != trace_kind::provider_charged.name) continue;
            ++marked;
            // The charge marked is the one whose sender the sentence names as having charged first.
            const std::string sender = design.trace.node_name(event.node_ref("by"));
            INFO(step.explanation);
            CHECK(step.explanation.find("because " + sender + " had charged it first, at " +
                                        format_seconds(event.at)) != std::string::npos);
            // The checker flagged another event, a later charge of the same customer by another server.
            CHECK(design.metrics.flag_for(event.sequence) == nullptr);
        }
        CHECK(marked >= 1);
        // The flagged later charges are drawn plain.
        for (const auto& flag : design.metrics.flagged) {
            if (!flag.violation()) continue;
            const auto step = std::find_if(figure.steps.begin(), figure.steps.end(),
                                           [&](const FigureStep& s) { return s.sequence == flag.sequence; });
            REQUIRE(step != figure.steps.end());
            CHECK(step->tone == EventTone::normal);
        }
    }
    // The terminal draws the same mark: on charge 8, server-1's, not on charge 9.
    const auto text =
        render_compact_timeline(design_named(run_shipped("partition.json"), "unfenced"), TextStyle{false});
    CHECK_THAT(text, Catch::Contains("✗ charges customer 48 (charge 8): customer 48 charged a second time"));
    CHECK_THAT(text, !Catch::Contains("✗ charges customer 48 (charge 9)"));
}

TEST_CASE("a 40 s gc pause is named as the cause of the late holder's second charge") {
    const auto said = violations_in("gc-pause-40s.json", "unfenced");
    REQUIRE(said.size() == 1);
    CHECK(said[0] ==
          "customer 42 charged a second time for 2026-10: server-1 sent it at 46.000s, 15.999s after its lease had "
          "ended at the store (30.001s), because a gc pause froze it for 40s from 6.000s, and it could not notice");
}

TEST_CASE("a clock jump on one Redlock node is named, with the second majority it let another server win") {
    const auto said = violations_in("redlock-clock-jump.json", "unfenced");
    REQUIRE(said.size() == 3);
    for (const auto& sentence : said) {
        CHECK(sentence.find("because server-1 had charged it first") != std::string::npos);
        CHECK(sentence.find("redis-3's wall clock jumped 40s forward at 2.000s and expired its key there 28.001s "
                            "early, which left it 2 of 5 nodes") != std::string::npos);
        CHECK(sentence.ends_with("server-2 then won a second majority (redis-3, redis-4, redis-5) at 3.312s"));
    }
}

TEST_CASE("a clock jump on the lock store is named as what expired the lease early") {
    const auto said = violations_in("redis-clock-jump.json", "unfenced");
    REQUIRE_FALSE(said.empty());
    CHECK(said[0].find("lock-store's wall clock jumped 40s forward at 6.000s and expired the lease 24.001s early") !=
          std::string::npos);
}

TEST_CASE("a failover to a replica that never received the lock is named") {
    const auto said = violations_in("replica-failover.json", "unfenced");
    REQUIRE(said.size() == 2);
    CHECK(said[0].find("because server-1 had charged it first, at 8.011s (charge 2), 7.961s after the store had "
                       "lost its lock (0.050s): redis-primary crashed at 0.050s before copying the lock to a replica, "
                       "and sentinel promoted redis-replica-1 at 5.007s, which had never received it") !=
          std::string::npos);
    CHECK(said[0].ends_with("server-3 had been legitimately granted the lock at 5.524s, 2.487s before that charge"));
}

TEST_CASE("a restart that loaded nothing from disk is named") {
    const auto said = violations_in("redis-restart-no-persistence.json", "no-persistence");
    REQUIRE_FALSE(said.empty());
    CHECK(any_says(said,
                   "lock-store crashed at 5.000s (its process died) and restarted at 6.000s without persistence, "
                   "loading nothing from disk"));
}

TEST_CASE("a restart after a power loss names the persistence it had, and the second it never synced") {
    // appendfsync everysec: a killed process loses nothing, a dead machine the unsynced second.
    const auto said = violations_in("redis-aof-everysec-crash.json", "power-lost");
    REQUIRE_FALSE(said.empty());
    CHECK(any_says(said,
                   "lock-store crashed at 0.500s (its machine lost power) and restarted at 1.500s with persistence "
                   "aof-everysec, whose last second of writes was never synced to disk: it loaded no lock"));
    for (const auto& sentence : said) CHECK(sentence.find("without persistence") == std::string::npos);
    CHECK(violations_in("redis-aof-everysec-crash.json", "process-killed").empty());
}

TEST_CASE("a request held back by a delay spike is told as sent in time and landed late") {
    const auto said = violations_in("network-delay-spike.json", "unfenced");
    REQUIRE(said.size() == 1);
    CHECK(said[0].find("server-1 sent it at 8.010s while it held the lock, but it landed at 98.011s") !=
          std::string::npos);
    CHECK(said[0].find("because a delay spike held back its messages to payment-provider by 90s from 4.010s") !=
          std::string::npos);
}

TEST_CASE("an expired session and an idle timeout are named beside the pause that caused them") {
    CHECK(any_says(violations_in("zookeeper-gc-pause.json", "unfenced"),
                   "because its session expired at 32.000s while a gc pause froze it for 40s from 6.000s"));
    CHECK(any_says(
        violations_in("db-for-update.json", "idle-timeout-10s"),
        "because billing-db ended its session at 13.338s (idle-in-transaction timeout) while a gc pause froze it"));
}

TEST_CASE("a lease that ran out under a working holder is told with the holder's own last check") {
    const auto monotonic = violations_in("wall-clock-durations.json", "monotonic");
    REQUIRE(monotonic.size() == 1);
    CHECK(monotonic[0].find("its 30s lease ran out while it was still working, and it did not renew it; its last "
                            "check, at 28.044s, found 1.956s left") != std::string::npos);
    // Timed on the wall clock, the step back is why it went on.
    CHECK(any_says(violations_in("wall-clock-durations.json", "wall-clock"),
                   "it timed the lease on its wall clock, which stepped 30s back at 10.000s"));
    // A plain delete of the next holder's lock, by a holder whose lease ran out.
    CHECK(any_says(violations_in("plain-delete.json", "plain-delete"),
                   "because its 30s lease ran out while it was still working"));
}

TEST_CASE("a charge made under the lock by a holder that froze before recording it is named as the first") {
    // gc-pause-40s with another pause: server-1 sends customer 41's charge and freezes for
    // 29s at once; its lease ends while it is frozen and server-2 charges customer 41 again.
    Scenario scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    replace_faults(scenario,
                   R"([{"pause": "server-1", "for": "29s", "kind": "gc",
                        "when": {"event": "message.sent", "node": "server-1", "nth": 3}}])",
                   "test");
    const auto said = explained(design_named(run_scenario(scenario, scenario.seed), "unfenced"), EventTone::violation);
    REQUIRE(said.size() == 1);
    CHECK(said[0] ==
          "customer 41 charged a second time for 2026-10 because server-1 had charged it first, at 4.005s (charge 1), "
          "while it held the lock, but its lease had ended at the store (30.001s): a gc pause froze it for 29s from "
          "4.004s; server-2 was legitimately granted the lock later, at 30.789s");
}

TEST_CASE("a request the network delivered twice is named as the cause of the second charge") {
    // gc-pause-40s without its pause, on a link that delivers every message twice.
    std::ifstream file(scenario_path("gc-pause-40s.json"));
    std::stringstream text;
    text << file.rdbuf();
    auto json = nlohmann::json::parse(text.str());
    json["network"] = {{"delay", "1ms"},
                       {"links", {{{"between", {"server-1", "payment-provider"}}, {"duplicate", "1/1"}}}}};
    json["faults"] = nlohmann::json::array();
    const Scenario scenario = parse_scenario(json.dump(), "twice.json", metric_names());
    const auto said = explained(design_named(run_scenario(scenario, scenario.seed), "unfenced"), EventTone::violation);
    REQUIRE_FALSE(said.empty());
    CHECK(said[0] ==
          "customer 41 charged a second time for 2026-10: server-1 sent it once, at 4.004s, because the network "
          "delivered a second copy of it to payment-provider");
}

TEST_CASE("designs without a shared lock say so as the cause") {
    CHECK(any_says(violations_in("unique-constraint.json", "no-lock"),
                   "because this design has no lock: server-1, server-2 and server-3 all ran the job"));
    CHECK(any_says(violations_in("in-memory-lock.json", "in-memory"),
                   "because the lock lives in each server's own memory"));
}

TEST_CASE("an idempotency key's protection names the key and the charge it had made") {
    const auto said = protections_in("gc-pause-40s.json", "idempotent");
    REQUIRE(said.size() == 1);
    CHECK(said[0] ==
          "the payment provider had seen key renewal-42-2026-10 at 34.795s (charge 2, from server-2): it returned "
          "charge 2 instead of a new charge");
    // And the page lists it under "What protected it".
    const ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    const std::string page = render_html_report(outcome, ReportPage{"3-4", "locksim run", ""}).page;
    CHECK(page.find("<ul class=\"protections\">\n<li><a href=") != std::string::npos);
    CHECK(page.find(": the payment provider had seen key renewal-42-2026-10") != std::string::npos);
}

TEST_CASE("a unique claim refused names the server whose row was there first") {
    const auto said = protections_in("unique-constraint.json", "unique-claim");
    REQUIRE_FALSE(said.empty());
    CHECK(said[0] == "duplicate key: server-1 had inserted the row of customer 41 first, at 4.003s");
}

TEST_CASE("a token granted again after a failover is marked a fault, and the fence that refused it a protection") {
    const ScenarioOutcome outcome = run_shipped("redis-counter-token-failover.json");
    const DesignOutcome& design = design_named(outcome, "fenced-at-database");
    const SequenceFigure figure = build_sequence_figure(design);
    const auto reused = std::find_if(figure.steps.begin(), figure.steps.end(), [](const FigureStep& step) {
        return step.explanation.find("is not above token 1 granted before") != std::string::npos;
    });
    REQUIRE(reused != figure.steps.end());
    CHECK(reused->tone == EventTone::fault);
    // The fence checker counts it (equal_tokens_refused) and says who wrote the row's token.
    CHECK(any_says(explained(design, EventTone::protection),
                   "claim refused: customer 42's row already carried token 1, written by server-1 at 8.017s, and a "
                   "claim needs a newer one"));
    CHECK(design.metrics.value(Metric::equal_tokens_refused) >= 1);
    CHECK(design.metrics.value(Metric::stale_writes_rejected) == 0);
}

TEST_CASE("the explanations of a run are the same every time it runs") {
    const auto first = violations_in("partition.json", "unfenced");
    CHECK(violations_in("partition.json", "unfenced") == first);
}

TEST_CASE("a store clock that NTP slewed forward is named when it expired a lease early") {
    // Written by hand: no shipped scenario slews a clock far enough to charge twice. The
    // store's clock gains 0.5 ms a second from 1s, so server-1's lease ends 10ms early;
    // server-2 is granted the lock, and server-1 charges customer 42 before server-2 does.
    Trace trace;
    trace.set_node_names({"server-1", "server-2", "lock-store", "payment-provider"});
    const NodeId server_one{0}, server_two{1}, lock_store{2}, payments{3};
    const auto record = [&trace](Duration at, Duration wall, NodeId node, const KindSpec& kind,
                                 std::initializer_list<Field> fields) {
        TraceEvent event;
        event.at = Instant{} + at;
        event.wall = Instant{} + wall;
        event.monotonic = Instant{} + at;
        event.node = node;
        event.kind = kind;
        trace.append(event, fields);
    };
    const auto granted = [&](Duration at, Duration wall, NodeId holder, std::string value) {
        record(at, wall, lock_store, trace_kind::lock_granted,
               {{"key", "k"},
                {"value", value},
                {"holder", holder},
                {"ttl", 30_s},
                {"expires_at", Instant{} + wall + 30_s}});
        record(at + 1_ms, at + 1_ms, holder, trace_kind::belief_acquired,
               {{"key", "k"}, {"believed_until", Instant{} + at + 30_s}, {"value", value}});
    };
    const auto charged = [&](Duration at, NodeId by, std::int64_t id) {
        record(at - 1_ms, at - 1_ms, by, trace_kind::message_sent,
               {{"id", id},
                {"to", payments},
                {"label", "charge customer 42"},
                {"deliver_at", Instant{} + at},
                {"customer", std::int64_t{42}}});
        record(at, at, payments, trace_kind::message_delivered,
               {{"id", id}, {"from", by}, {"label", "charge customer 42"}, {"duplicate", false}});
        record(at, at, payments, trace_kind::provider_charged,
               {{"customer", std::int64_t{42}}, {"period", "2026-10"}, {"by", by}, {"charge", id}});
    };
    granted(1_ms, 1_ms, server_one, "v1");
    record(1_s, 1_s, lock_store, trace_kind::clock_slewing, {{"by", 10_s}, {"over", 20000_s}});
    // By 29.991s the slew has moved the store's clock 14.4955ms: it reads past the expiry.
    record(29'991_ms, 29'991_ms + 14'495'500_ns, lock_store, trace_kind::lock_expired,
           {{"key", "k"}, {"value", "v1"}, {"holder", server_one}, {"expires_at", Instant{} + 30'001_ms}});
    granted(29'992_ms, 30'006_ms, server_two, "v2");
    charged(29'996_ms, server_one, 1);
    charged(30'501_ms, server_two, 2);

    DesignOutcome design;
    design.name = "slewed";
    design.lanes = trace.node_names();
    design.trace = trace;
    design.summary.ended_at = Instant{} + 31_s;
    design.metrics = check_trace(design.trace, design.summary.ended_at);
    const auto said = explained(design, EventTone::violation);
    REQUIRE(said.size() == 1);
    CHECK(
        said[0] ==
        "customer 42 charged a second time for 2026-10 because server-1 had charged it first, at 29.996s (charge 1), "
        "5ms after its lease had ended at the store (29.991s): NTP slewed lock-store's wall clock 10s forward from "
        "1.000s, and it expired the lease 10ms early; server-2 had been legitimately granted the lock at 29.992s, 4ms "
        "before that charge");
}

TEST_CASE("a violation's sentence cites its times in their order: the stale write, then what came later") {
    // "… had charged it first, at 32.063s …; server-2 was legitimately granted the lock later,
    // at T" claims T after the charge; "had been … granted the lock at T, D before that charge"
    // claims T before it, by D.
    const std::regex first(R"( first, at (\d+\.\d{3})s)");
    const std::regex later(R"(granted the lock later, at (\d+\.\d{3})s)");
    const std::regex before(R"(had been legitimately granted the lock at (\d+\.\d{3})s, )");
    std::size_t checked = 0;
    for (const auto& file : shipped_scenario_files()) {
        const ScenarioOutcome outcome = run_shipped(file);
        for (const auto& design : outcome.designs)
            for (const auto& sentence : explained(design, EventTone::violation)) {
                INFO(file << " · " << design.name << ": " << sentence);
                std::smatch at, granted;
                if (!std::regex_search(sentence, at, first)) continue;
                const double written = std::stod(at[1]);
                if (std::regex_search(sentence, granted, later)) {
                    CHECK(std::stod(granted[1]) > written);
                    ++checked;
                }
                if (std::regex_search(sentence, granted, before)) {
                    CHECK(std::stod(granted[1]) <= written);
                    ++checked;
                }
            }
    }
    CHECK(checked >= 5);
}

TEST_CASE("a claim refused under claim-once with a newer token is counted as such, never as a stale write") {
    const ScenarioOutcome outcome = run_shipped("claim-once-fencing.json");
    const DesignOutcome& design = design_named(outcome, "claim-once");
    CHECK(design.metrics.value(Metric::claims_refused_once) == 1);
    CHECK(design.metrics.value(Metric::equal_tokens_refused) == 0);
    CHECK(design.metrics.value(Metric::stale_writes_rejected) == 0);
    const auto said = explained(design, EventTone::protection);
    CHECK(std::count_if(said.begin(), said.end(), [](const std::string& sentence) {
              return sentence.find("claim refused: customer ") == 0 &&
                     sentence.find("'s row was already claimed or charged, and is claimed once (token ") !=
                         std::string::npos;
          }) == 1);
    // Without claim-once the same fence refuses nothing a newer token sends.
    CHECK(design_named(outcome, "fenced").metrics.value(Metric::claims_refused_once) == 0);
}

// The API server expires nothing: server 2 judged the Lease over by its own clock and took it.
TEST_CASE("a Kubernetes Lease taken over is named as the takeover, not as an end at the store") {
    const auto said = violations_in("kubernetes-lease-pause.json", "unfenced");
    REQUIRE_FALSE(said.empty());
    CHECK(said[0].find("22.876s after server-2 had taken its lease over (23.124s)") != std::string::npos);
    for (const auto& sentence : said) CHECK(sentence.find("ended at the store") == std::string::npos);
}
