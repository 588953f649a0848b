// The story view (reports/figure/story_figure.cpp, reports/html/story_svg.cpp) on the runs
// of every shipped scenario: it keeps every verdict and the step behind it, folds the rest
// and counts what it folded, fits the page, and keeps the pages within their size budget.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "models/trace_kinds.hpp"
#include "reports/event_text.hpp"
#include "reports/figure/divergence.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "reports/figure/story_figure.hpp"
#include "reports/figure/time_axis.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/story_svg.hpp"
#include "sim/duration_text.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

SequenceFigure every_step(const DesignOutcome& design) {
    return build_sequence_figure(design, std::numeric_limits<std::size_t>::max());
}

bool is_flagged(const FigureStep& step) {
    return step.tone == EventTone::violation || step.tone == EventTone::protection || !step.explanation.empty();
}

// The story's steps by number, to find them in the full figure.
std::map<int, const FigureStep*> by_number(const SequenceFigure& figure) {
    std::map<int, const FigureStep*> steps;
    for (const auto& step : figure.steps) steps[step.number] = &step;
    return steps;
}

// Runs `check` on the full figure and the story of every design of every shipped scenario.
template <class Check>
void for_each_shipped_story(Check check) {
    for (const auto& file : shipped_scenario_files()) {
        const ScenarioOutcome outcome = run_shipped(file);
        for (const auto& design : outcome.designs) {
            INFO(file << " · " << design.name);
            const SequenceFigure full = every_step(design);
            check(full, build_story_figure(full));
        }
    }
}

}  // namespace

TEST_CASE("a story keeps every flagged step and every fault of a short run, and accounts for every step it folds") {
    for_each_shipped_story([](const SequenceFigure& full, const StoryFigure& story) {
        const auto kept = by_number(story.figure);
        CHECK(kept.size() == story.figure.steps.size());  // each step once
        for (const auto& step : full.steps)
            if (is_flagged(step)) CHECK(kept.contains(step.number));
        // Every step is kept or counted once among the folded.
        CHECK(story.figure.steps.size() + story.retries_folded + story.repeats_folded + story.far_from_flags +
                  story.store_traffic_folded + story.other_left_out ==
              full.steps.size());
        // A kept step is the full figure's step, unchanged but for its lanes.
        for (const auto& step : story.figure.steps) {
            const auto original = std::find_if(full.steps.begin(), full.steps.end(),
                                               [&](const FigureStep& s) { return s.number == step.number; });
            REQUIRE(original != full.steps.end());
            CHECK(step.text == original->text);
            CHECK(step.at == original->at);
            CHECK(story.figure.lanes[step.lane] == full.lanes[original->lane]);
            if (step.is_message()) CHECK(story.figure.lanes[*step.to_lane] == full.lanes[*original->to_lane]);
            CHECK_FALSE(step.retry);
        }
        // Steps stay in the order they happened.
        CHECK(std::is_sorted(story.figure.steps.begin(), story.figure.steps.end(),
                             [](const FigureStep& a, const FigureStep& b) { return a.number < b.number; }));
        // A lane is left out only when no kept step touches it.
        for (const auto& name : story.lanes_left_out)
            CHECK(std::find(story.figure.lanes.begin(), story.figure.lanes.end(), name) == story.figure.lanes.end());
        CHECK(story.figure.lanes.size() + story.lanes_left_out.size() == full.lanes.size());
    });
}

TEST_CASE("a story draws the messages a fault stopped: the cause its sentence names is on the page") {
    // partition.json: the checker's sentence says server-1's renewals could not get through;
    // the story draws each renewal its stream held, and the release held behind them.
    for (const std::string name : {"unfenced", "fenced"}) {
        INFO(name);
        const SequenceFigure full = every_step(design_named(run_shipped("partition.json"), name));
        const StoryFigure story = build_story_figure(full);
        std::size_t stopped = 0;
        for (const auto& step : story.figure.steps) stopped += step.lost || step.stalled ? 1 : 0;
        CHECK(stopped >= 3);
        // Server-1 lets the lock go, and its release is drawn held on its stream: the story
        // never says the lock was released when the store never heard it.
        const auto let_go = std::find_if(story.figure.steps.begin(), story.figure.steps.end(), [](const FigureStep& s) {
            return s.text == "stops holding: lets the lock go";
        });
        REQUIRE(let_go != story.figure.steps.end());
        CHECK(std::any_of(let_go, story.figure.steps.end(),
                          [&](const FigureStep& s) { return s.stalled && s.in_flight && s.lane == let_go->lane; }));
        CHECK(std::none_of(story.figure.steps.begin(), story.figure.steps.end(),
                           [](const FigureStep& s) { return s.text == "stops holding: released"; }));
    }
    // Wherever a story had room for all its background, every lost message is in it.
    for_each_shipped_story([](const SequenceFigure& full, const StoryFigure& story) {
        if (story.far_from_flags > 0) return;
        const auto kept = by_number(story.figure);
        // A refused retry is folded into its first attempt, lost or not.
        for (const auto& step : full.steps)
            if (step.lost && !step.retry) CHECK(kept.contains(step.number));
    });
}

TEST_CASE("a reply in a story comes with the request it answers, never bare") {
    std::size_t replies = 0;
    for_each_shipped_story([&replies](const SequenceFigure& full, const StoryFigure& story) {
        std::set<std::uint64_t> drawn;
        for (const auto& step : full.steps) drawn.insert(step.sequence);
        std::set<std::uint64_t> kept;
        for (const auto& step : story.figure.steps) kept.insert(step.sequence);
        for (const auto& step : story.figure.steps) {
            if (!step.reply) continue;
            ++replies;
            INFO("e" << step.number << " " << step.text);
            // Every reply knows its request when the full figure drew it.
            REQUIRE(step.request.has_value() == drawn.contains(step.request.value_or(~std::uint64_t{0})));
            if (step.request) CHECK(kept.contains(*step.request));
        }
    });
    CHECK(replies > 100);  // the shipped stories show many
}

TEST_CASE("the gc-pause-40s story tells the pause, the expiry, both grants and the stale charge that caused it") {
    const ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    const SequenceFigure full = every_step(design_named(outcome, "unfenced"));
    const StoryFigure story = build_story_figure(full);
    const auto has = [&](const std::string& text) {
        return std::any_of(story.figure.steps.begin(), story.figure.steps.end(),
                           [&](const FigureStep& step) { return step.text.find(text) != std::string::npos; });
    };
    CHECK(has("grants lock:renewals to server-1"));
    CHECK(has("gc pause: frozen for 40s"));
    CHECK(has("server-1's lease expires"));
    CHECK(has("grants lock:renewals to server-2"));
    CHECK(has("charges customer 42 (charge 2)"));
    // The second charge, and the message that set it off: server-1's charge sent at 46s.
    const auto second = std::find_if(story.figure.steps.begin(), story.figure.steps.end(),
                                     [](const FigureStep& step) { return step.tone == EventTone::violation; });
    REQUIRE(second != story.figure.steps.end());
    CHECK(std::any_of(story.figure.steps.begin(), second, [&](const FigureStep& step) {
        return step.is_message() && story.figure.lanes[step.lane] == "server-1" && step.arrives == second->at &&
               step.text == "charge customer 42";
    }));
    // Server-2 and server-3's refused attempts while server-1 held the lock: one step each,
    // counting the retries folded into it.
    CHECK(story.retries_folded > 40);
    CHECK(std::count_if(story.figure.steps.begin(), story.figure.steps.end(),
                        [](const FigureStep& step) { return !step.note.empty(); }) >= 2);
    CHECK(story.figure.steps.size() < full.steps.size() / 2);
}

TEST_CASE("a long run's story stays short: its background is what lies nearest to the flagged steps") {
    const ScenarioOutcome outcome = run_shipped("examples/monthly-statements.json");
    for (const auto& design : outcome.designs) {
        INFO(design.name);
        const SequenceFigure full = every_step(design);
        REQUIRE(full.steps.size() > 5000);
        const StoryFigure story = build_story_figure(full);
        CHECK(story.far_from_flags > 1000);
        CHECK(story.figure.steps.size() <= 200);
        for (const auto& step : full.steps)
            if (is_flagged(step)) CHECK(by_number(story.figure).contains(step.number));
    }
}

TEST_CASE("a story's drawing fits a page: at most 1,000 units wide, whatever the number of lanes") {
    const std::regex view_box("class=\"figure story\" viewBox=\"0 0 ([0-9]+) ([0-9]+)\"");
    for (const auto& file : shipped_scenario_files()) {
        const ScenarioOutcome outcome = run_shipped(file);
        for (const auto& design : outcome.designs) {
            INFO(file << " · " << design.name);
            const std::string svg = render_story_svg(build_story_figure(every_step(design)), "d1-x", "x.html");
            std::smatch size;
            REQUIRE(std::regex_search(svg, size, view_box));
            CHECK(std::stoi(size[1]) <= 1000);
            // Every step of the story is drawn and linked to its row on the page of every step.
            CHECK(std::regex_search(svg, std::regex("<a href=\"x.html#d1-x-e[0-9]+\">")));
        }
    }
}

TEST_CASE("the pages keep their size budget: gc-pause-40s within 150 KB, none over 1 MB") {
    for (const auto& file : shipped_scenario_files()) {
        const ScenarioOutcome outcome = run_shipped(file);
        const HtmlReport report = render_html_report(outcome, ReportPage{"", "locksim run " + file, ""});
        INFO(file << ": " << report.page.size() << " bytes");
        CHECK(report.page.size() <= 1'000'000);
        if (file == "gc-pause-40s.json") CHECK(report.page.size() <= 150'000);
        for (const auto& steps : report.step_pages) {
            INFO(steps.path << ": " << steps.html.size() << " bytes");
            CHECK(steps.html.size() <= 1'000'000);
        }
    }
}

TEST_CASE("designs part ways at their first different effect: fenced at the refused claim, idempotent at the replay") {
    const ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    const Trace& unfenced = design_named(outcome, "unfenced").trace;
    const Trace& fenced = design_named(outcome, "fenced").trace;
    const Trace& idempotent = design_named(outcome, "idempotent").trace;
    CHECK_FALSE(first_divergence(unfenced, unfenced).has_value());

    const auto refused = first_divergence(unfenced, fenced);
    REQUIRE(refused.has_value());
    REQUIRE(refused->first != nullptr);
    REQUIRE(refused->second != nullptr);
    CHECK(refused->first->kind == "provider.charged");
    CHECK(refused->first->integer("customer") == 42);
    CHECK(refused->second->kind == "db.write");
    CHECK(refused->second->integer("rows") == 0);
    CHECK(refused->at > at(seconds(46)));
    CHECK(refused->at < at(seconds(47)));

    const auto replayed = first_divergence(unfenced, idempotent);
    REQUIRE(replayed.has_value());
    REQUIRE(replayed->second != nullptr);
    CHECK(replayed->second->kind == "provider.replayed");

    // The page says so beneath the designs on one time axis.
    const std::string page = render_html_report(outcome, ReportPage{"3-4", "locksim run", ""}).page;
    CHECK(page.find("<strong>fenced</strong> parts ways with <strong>unfenced</strong> at 46.001s: in unfenced, "
                    "payment-provider charges customer 42") != std::string::npos);
    CHECK(page.find("<g class=\"divergence\">") != std::string::npos);
}

TEST_CASE("designs with the same effects in the same order are said to run alike, and one design draws no strip") {
    const ScenarioOutcome outcome = run_shipped("partition.json");
    CHECK_FALSE(first_divergence(design_named(outcome, "unfenced").trace, design_named(outcome, "fenced").trace));
    const std::string page = render_html_report(outcome, ReportPage{"", "locksim run", ""}).page;
    CHECK(page.find("<strong>fenced</strong> and <strong>unfenced</strong> had the same effects in the same order "
                    "(each charge, refusal and skip); how the lock passed between the servers may still differ") !=
          std::string::npos);

    ScenarioOutcome one = outcome;
    one.designs.resize(1);
    CHECK(render_html_report(one, ReportPage{"", "locksim run", ""}).page.find("class=\"strip\"") == std::string::npos);
}

TEST_CASE("the designs' time axis draws a pause as a band from its start to its end, not a diamond at each") {
    const ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    const std::string page = render_html_report(outcome, ReportPage{"", "locksim run", ""}).page;
    const auto strip_at = page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"strip\"");
    REQUIRE(strip_at != std::string::npos);
    const std::string strip = page.substr(strip_at, page.find("</svg>", strip_at) - strip_at);
    // Server-1's 40 s gc pause, in every design's row.
    std::size_t bands = 0;
    for (auto at = strip.find("<title>server-1 paused from 6.000s to 46.000s</title>"); at != std::string::npos;
         at = strip.find("<title>server-1 paused from 6.000s to 46.000s</title>", at + 1))
        ++bands;
    CHECK(bands == outcome.designs.size());
    // No diamond at the pause's ends: the band says when it began and ended.
    CHECK(strip.find("rotate(45") == std::string::npos);
    CHECK_THAT(page, Catch::Contains("a purple band while a node is paused or down"));
}

TEST_CASE("a story says a message was refused or lost before its words, which a long message may cut") {
    const ScenarioOutcome outcome = run_shipped("check-before-charge.json");
    const std::string page = render_html_report(outcome, ReportPage{"", "locksim run", ""}).page;
    CHECK_THAT(page, Catch::Contains("→ lock-store, refused, and 26 more until"));
    CHECK(page.find("(refused; ") == std::string::npos);
    const ScenarioOutcome partition = run_shipped("partition.json");
    const std::string cut_off = render_html_report(partition, ReportPage{"", "locksim run", ""}).page;
    // Wrapped on the page: the fate, then (on the next line) the words.
    CHECK_THAT(cut_off, Catch::Contains("server-1 → lock-store, stalled, retransmitted,</text>") &&
                            Catch::Contains(">still in flight when the run stopped: SET"));
}

TEST_CASE("a long design name on the designs' time axis is cut short of the first mark") {
    ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    outcome.designs[1].name = "fenced-by-a-very-long-design-name";
    const std::string page = render_html_report(outcome, ReportPage{"", "locksim run", ""}).page;
    CHECK_THAT(page, Catch::Contains("class=\"design-name\">fenced-by-a-very-…</text>"));
}

namespace {

// partition.json with its partition replaced by `faults`.
ScenarioOutcome partition_with(const std::string& faults) {
    Scenario scenario = load_scenario_file(scenario_path("partition.json"), metric_names());
    replace_faults(scenario, faults, "the test");
    return run_scenario(scenario, scenario.seed);
}

std::string strip_of(const std::string& page) {
    const auto at = page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"strip\"");
    REQUIRE(at != std::string::npos);
    return page.substr(at, page.find("</svg>", at) - at);
}

}  // namespace

TEST_CASE("a partition is said as who is cut off from whom, and its heal as who reaches whom again") {
    const ScenarioOutcome outcome = partition_with(
        R"([{"partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "20s"},
            {"partition": [["lock-store"], ["server-2"]], "at": "6s", "heal_after": "2s", "one_way": true},
            {"partition": "server-3", "at": "7s", "heal_after": "1s"}])");
    const Trace& trace = design_named(outcome, "unfenced").trace;
    std::vector<std::string> said;
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::network_partitioned || event.kind == trace_kind::network_healed)
            said.push_back(describe_event(event, trace)->text);
    CHECK(said == std::vector<std::string>{
                      "network partition: server-1 cut off from lock-store",
                      "network partition: messages from lock-store to server-2 cut",
                      "network partition: server-3 cut off from server-1, server-2, lock-store, payment-provider, "
                      "billing-db; groups now server-1, server-2, lock-store, payment-provider, billing-db | server-3",
                      // Both heal at 8 s, the one scheduled first first: server-3 is still apart.
                      "network healed: messages from lock-store to server-2 pass again; groups now server-1, "
                      "server-2, lock-store, payment-provider, billing-db | server-3",
                      "network healed: server-3 reaches server-1, server-2, lock-store, payment-provider, billing-db "
                      "again",
                      "network healed: server-1 reaches lock-store again"});
}

TEST_CASE("a partition is a band on each lane it cuts off, from the cut to its own heal") {
    const ScenarioOutcome outcome = partition_with(
        R"([{"partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "20s"},
            {"partition": [["server-1", "server-2"], ["billing-db"]], "at": "6s", "heal_after": "2s"},
            {"partition": [["server-3"], ["lock-store"]], "at": "9s", "heal_after": "1s"}])");
    const SequenceFigure full = build_sequence_figure(design_named(outcome, "unfenced"), 100000);
    std::vector<std::tuple<std::string, std::string, double, double>> bands;
    for (const auto& span : full.spans)
        if (span.kind == FigureSpan::Kind::cut_off)
            bands.emplace_back(full.lanes[span.lane], span.label, in_seconds(span.from - Instant{}),
                               in_seconds(span.to - Instant{}));
    std::sort(bands.begin(), bands.end());
    CHECK(bands == std::vector<std::tuple<std::string, std::string, double, double>>{
                       {"server-1", "server-1 cut off from lock-store", 5.0, 25.0},
                       {"server-1", "server-1, server-2 cut off from billing-db", 6.0, 8.0},
                       {"server-2", "server-1, server-2 cut off from billing-db", 6.0, 8.0},
                       {"server-3", "server-3 cut off from lock-store", 9.0, 10.0}});

    // On the designs' time axis, a partition is one dashed band a row, however many nodes it
    // cuts off, titled with who from whom and when.
    const std::string strip = strip_of(render_html_report(outcome, ReportPage{"", "locksim run", ""}).page);
    CHECK(count_of(strip, "<title>server-1 cut off from lock-store from 5.000s to 25.000s</title>") ==
          outcome.designs.size());
    CHECK(count_of(strip, "<title>server-1, server-2 cut off from billing-db from 6.000s to 8.000s</title>") ==
          outcome.designs.size());
    CHECK(count_of(strip, "<g class=\"cut-off\">") == 3 * outcome.designs.size());
    // Not a diamond at the cut and another at the heal, whichever lane the partition's step is on.
    CHECK(strip.find("rotate(45") == std::string::npos);
}

TEST_CASE("a tick on the designs' time axis says who got the lock, in its title and under it") {
    const ScenarioOutcome outcome = run_shipped("gc-pause-40s.json");
    const std::string strip = strip_of(render_html_report(outcome, ReportPage{"", "locksim run", ""}).page);
    // Each design: server-1 at the start, then server-2 once the store let server-1's lease go.
    for (const auto& design : outcome.designs) {
        INFO(design.name);
        const SequenceFigure full = build_sequence_figure(design, 100000);
        std::size_t holds = 0;
        for (const auto& span : full.spans)
            if (span.kind == FigureSpan::Kind::believed) {
                ++holds;
                CHECK_THAT(strip, Catch::Contains(fmt::format("<title>{} got the lock at {}", full.lanes[span.holder],
                                                              format_seconds(span.from))));
            }
        CHECK(holds >= 2);
    }
    CHECK(count_of(strip, "class=\"holder\">server-1</text>") == outcome.designs.size());
    CHECK(count_of(strip, "class=\"holder\">server-2</text>") == outcome.designs.size());
    // The lock's other milestones (an expiry, a release) are the stories' to tell, not unnamed ticks.
    CHECK(count_of(strip, "<g class=\"holder-tick\">") == count_of(strip, " got the lock at "));
}

TEST_CASE("every message a violation's sentence names is drawn in its story, and is the message it says") {
    std::size_t sentences_citing = 0;
    for_each_shipped_story([&](const SequenceFigure& full, const StoryFigure& story) {
        const auto drawn = by_number(story.figure);
        for (const auto& step : full.steps) {
            if (step.tone != EventTone::violation) continue;
            const bool names_lost = step.explanation.find(" were lost") != std::string::npos;
            const bool names_stalled = step.explanation.find(" could not get through") != std::string::npos;
            const bool names_held = step.explanation.find(" was held in flight") != std::string::npos;
            INFO("e" << step.number << ": " << step.explanation);
            CHECK((names_lost || names_stalled || names_held) == !step.cites.empty());
            if (!step.cites.empty()) ++sentences_citing;
            for (const std::uint64_t cited : step.cites) {
                const auto found = std::find_if(full.steps.begin(), full.steps.end(),
                                                [cited](const FigureStep& s) { return s.sequence == cited; });
                REQUIRE(found != full.steps.end());
                CHECK(found->is_message());
                CHECK(found->at < step.at);
                // "were lost": each one lost where the partition cut it off; "could not get
                // through": each one stalled on its stream.
                if (names_lost && !names_held) CHECK(found->lost);
                if (names_stalled && !names_held) CHECK(found->stalled);
                CHECK(drawn.contains(found->number));
            }
        }
    });
    // partition (two designs), claim-once-fencing, kubernetes-lease-pause, min-lease-margin.
    CHECK(sentences_citing >= 5);
}
