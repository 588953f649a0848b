// The pictures of a run (the HTML page with its SVG figures, Mermaid, Perfetto) and the
// course index, checked against the trace they are drawn from: a lane per node, an arrow
// per message, numbers without gaps, violations marked exactly where the checkers found
// them, self-contained and byte-for-byte repeatable pages.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "cli/course_order.hpp"
#include "models/trace_kinds.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "reports/html/course_index.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/html/svg_figure.hpp"
#include "reports/mermaid.hpp"
#include "reports/perfetto.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "support.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/small_explore.hpp"

using namespace locksim;
using namespace std::string_literals;
using namespace locksim::testing;

namespace {

struct Loaded {
    Scenario scenario;
    ScenarioOutcome outcome;
};

Loaded run_file(const std::string& name) {
    Scenario scenario = load_scenario_file(scenario_path(name), metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    return {std::move(scenario), std::move(outcome)};
}

HtmlReport report_of(const Loaded& ran) {
    return render_html_report(
        ran.outcome,
        ReportPage{ran.scenario.section, "locksim run scenarios/" + ran.outcome.name + ".json --seed 1", "index.html"});
}

// The scenario's page, with each design's story.
std::string page_of(const Loaded& ran) {
    return report_of(ran).page;
}

// One design's part of the page: its <article>.
std::string article_of(const std::string& page, const std::string& design_name) {
    const std::string opening = "data-design=\"" + design_name + "\">";
    const auto from = page.find(opening);
    REQUIRE(from != std::string::npos);
    const auto to = page.find("</article>", from);
    REQUIRE(to != std::string::npos);
    return page.substr(from, to - from);
}

bool flagged_a_violation(const DesignOutcome& d) {
    return std::any_of(d.metrics.flagged.begin(), d.metrics.flagged.end(),
                       [](const FlaggedEvent& f) { return f.violation(); });
}

std::size_t messages_sent(const DesignOutcome& d) {
    return static_cast<std::size_t>(
        std::count_if(d.trace.events().begin(), d.trace.events().end(),
                      [](const TraceEvent& e) { return e.kind == trace_kind::message_sent; }));
}

const std::vector<std::string> structure_scenarios{"gc-pause-40s.json", "zookeeper-gc-pause.json", "partition.json",
                                                   "hash-sharding.json"};

std::vector<std::string> shipped_scenarios() {
    std::vector<std::string> names;
    const std::filesystem::path root = std::string(LOCKSIM_SOURCE_DIR) + "/scenarios";
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
        if (is_scenario_file(entry.path())) names.push_back(entry.path().lexically_relative(root).string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST_CASE("SVG figures draw one lane per node of the trace, named as the design's lanes") {
    for (const auto& file : structure_scenarios) {
        const auto ran = run_file(file);
        for (const auto& d : ran.outcome.designs) {
            INFO(file << " · " << d.name);
            const std::string svg = render_svg_figure(build_sequence_figure(d), slug(d.name));
            const auto lanes = all_matches(svg, std::regex("<g class=\"lane\" data-node=\"([^\"]*)\">"));
            CHECK(lanes.size() == d.trace.node_names().size());
            CHECK(lanes == d.lanes);
            CHECK(count_of(svg, "<g class=\"lane\"") == d.trace.node_names().size());
            auto sorted_lanes = lanes;
            auto sorted_nodes = d.trace.node_names();
            std::sort(sorted_lanes.begin(), sorted_lanes.end());
            std::sort(sorted_nodes.begin(), sorted_nodes.end());
            CHECK(sorted_lanes == sorted_nodes);
        }
    }
}

TEST_CASE("SVG figures draw an arrow for every message the trace sent") {
    for (const auto& file : structure_scenarios) {
        const auto ran = run_file(file);
        for (const auto& d : ran.outcome.designs) {
            INFO(file << " · " << d.name);
            const SequenceFigure figure = build_sequence_figure(d);
            REQUIRE(figure.left_out == 0);
            const std::string svg = render_svg_figure(figure, slug(d.name));
            const std::size_t sent = messages_sent(d);
            CHECK(sent > 0);
            CHECK(count_of(svg, "<g class=\"step message") == sent);
            CHECK(figure.messages == sent);
            // The rest of the steps are events, drawn as marks.
            CHECK(count_of(svg, "<g class=\"step event") == figure.steps.size() - sent);
        }
    }
}

TEST_CASE("the violation mark is drawn exactly when a checker flagged a violation") {
    const std::regex marked("<g class=\"step [^\"]*\\bviolation\\b[^\"]*\"");
    for (const auto& file : structure_scenarios) {
        const auto ran = run_file(file);
        for (const auto& d : ran.outcome.designs) {
            INFO(file << " · " << d.name);
            const std::string svg = render_svg_figure(build_sequence_figure(d), slug(d.name));
            const bool flagged = flagged_a_violation(d);
            CHECK(std::regex_search(svg, marked) == flagged);
            CHECK((svg.find("<g class=\"caption tone-violation\">") != std::string::npos) == flagged);
            // One mark per violation the checkers flagged.
            const auto violations = std::count_if(d.metrics.flagged.begin(), d.metrics.flagged.end(),
                                                  [](const FlaggedEvent& f) { return f.violation(); });
            CHECK(all_matches(svg, marked, 0).size() == static_cast<std::size_t>(violations));
        }
    }

    const auto ran = run_file("gc-pause-40s.json");
    const auto svg_of = [&](const std::string& name) {
        return render_svg_figure(build_sequence_figure(design_named(ran.outcome, name)), name);
    };
    CHECK(std::regex_search(svg_of("unfenced"), marked));
    CHECK_FALSE(std::regex_search(svg_of("fenced"), marked));
    // The idempotency key stops the second charge. The database row is still set to
    // charged by a second server, which double_applies counts without flagging (the same
    // status written again): no step of the idempotent design is marked a violation.
    const SequenceFigure idempotent = build_sequence_figure(design_named(ran.outcome, "idempotent"));
    CHECK(std::none_of(idempotent.steps.begin(), idempotent.steps.end(),
                       [](const FigureStep& step) { return step.tone == EventTone::violation; }));
    CHECK(design_named(ran.outcome, "idempotent").metrics.value(Metric::double_applies) == 1);
    CHECK(design_named(ran.outcome, "idempotent").metrics.value(Metric::double_charges) == 0);
}

TEST_CASE("a design that charged no one is shown as having done nothing, never as nothing lost in green") {
    // replica-failover-wait's crash-before-replication stalls: WAIT is never acknowledged
    // again, every holder gives the lock back unused, and no customer is charged: its three
    // customers never charged are the loss the badge names, in red.
    const auto ran = run_file("replica-failover-wait.json");
    const std::string page = page_of(ran);
    const std::string stalled = article_of(page, "crash-before-replication");
    CHECK(design_named(ran.outcome, "crash-before-replication").did_nothing());
    CHECK_THAT(stalled, Catch::Contains("<span class=\"outcome outcome-harmed\">3 customers never charged</span>") &&
                            Catch::Contains("customers 41, 42 and 43 never charged for 2026-10 because ") &&
                            !Catch::Contains("outcome-safe") && !Catch::Contains("Nothing went wrong in this run."));
    // A design that charged everyone but left jobs waiting for ever is no green either.
    CHECK_FALSE(design_named(ran.outcome, "crash-after-replication").did_nothing());
    CHECK_THAT(article_of(page, "crash-after-replication"),
               Catch::Contains("outcome-harmed\">2 unfinished work") && !Catch::Contains("outcome-safe"));
    // A design that charged and lost nothing keeps its green.
    const auto pause = run_file("gc-pause-40s.json");
    CHECK_THAT(article_of(page_of(pause), "fenced"), Catch::Contains("outcome-safe\">nothing lost"));
}

TEST_CASE("steps are numbered 1 to N without gaps, each id once in the figure and once in the table") {
    for (const auto& file : structure_scenarios) {
        const auto ran = run_file(file);
        const HtmlReport report = report_of(ran);
        REQUIRE(report.step_pages.size() == ran.outcome.designs.size());
        for (std::size_t index = 0; index < ran.outcome.designs.size(); ++index) {
            const DesignOutcome& d = ran.outcome.designs[index];
            INFO(file << " · " << d.name);
            const std::string anchor = design_anchor(ran.outcome, index);
            const std::string& page = report.step_pages[index].html;
            CHECK(report.step_pages[index].path == slug(ran.outcome.name) + "-steps/" + anchor + ".html");
            // The story links each of its steps to its row on that page.
            for (const auto& target :
                 all_matches(report.page, std::regex("href=\"" + slug(ran.outcome.name) + "-steps/" + anchor +
                                                     ".html#" + anchor + "-e([0-9]+)\""))) {
                CHECK(count_of(page, "<tr id=\"" + anchor + "-e" + target + "\"") == 1);
            }
            const SequenceFigure figure = build_sequence_figure(d);
            const std::string svg = render_svg_figure(figure, anchor);
            REQUIRE_FALSE(figure.steps.empty());
            for (std::size_t i = 0; i < figure.steps.size(); ++i)
                CHECK(figure.steps[i].number == static_cast<int>(i) + 1);
            for (const auto& step : figure.steps) {
                const std::string n = std::to_string(step.number);
                CHECK(count_of(svg, "id=\"" + anchor + "-fig-e" + n + "\"") == 1);
                CHECK(count_of(page, "id=\"" + anchor + "-fig-e" + n + "\"") == 1);
                CHECK(count_of(page, "id=\"" + anchor + "-e" + n + "\"") == 1);
            }
            // And no other step ids: as many as there are steps.
            const auto figure_ids = all_matches(svg, std::regex("id=\"" + anchor + "-fig-e([0-9]+)\""));
            CHECK(figure_ids.size() == figure.steps.size());
            const auto row_ids = all_matches(page, std::regex("<tr id=\"" + anchor + "-e([0-9]+)\""));
            CHECK(row_ids.size() == figure.steps.size());
            // The figure is the one on the page.
            CHECK(page.find(svg) != std::string::npos);
        }
    }
}

TEST_CASE("gc-pause-40s fenced page shows the refused stale write with both tokens and a protection caption") {
    const auto ran = run_file("gc-pause-40s.json");
    const std::string fenced = article_of(page_of(ran), "fenced");
    CHECK(fenced.find("token 33") != std::string::npos);
    CHECK(fenced.find("token 34") != std::string::npos);
    CHECK(fenced.find("<ul class=\"protections\">") != std::string::npos);
    CHECK(fenced.find("stale write refused: token 33 came after token 34 had written customer 42") !=
          std::string::npos);
    CHECK(count_of(fenced, "<g class=\"caption tone-protection\">") == 1);
    CHECK(fenced.find("<g class=\"caption tone-violation\">") == std::string::npos);
    CHECK(fenced.find("<ul class=\"violations\">") == std::string::npos);
    // The lease bars carry the token the holder was given.
    CHECK(fenced.find("lease as server-1 believed it (token 33)") != std::string::npos);
    CHECK(fenced.find("lease as server-2 believed it (token 34)") != std::string::npos);
}

TEST_CASE("gc-pause-40s unfenced page tells the second charge of customer 42 and why it happened") {
    const auto ran = run_file("gc-pause-40s.json");
    const std::string unfenced = article_of(page_of(ran), "unfenced");
    const auto list = unfenced.find("<ul class=\"violations\">");
    REQUIRE(list != std::string::npos);
    const std::string violations = unfenced.substr(list, unfenced.find("</ul>", list) - list);
    CHECK(
        violations.find("customer 42 charged a second time for 2026-10: server-1 sent it at 46.000s, 15.999s after its "
                        "lease had ended at the store (30.001s), because a gc pause froze it for 40s from 6.000s, and "
                        "it could not notice") != std::string::npos);
    CHECK(count_of(unfenced, "<g class=\"caption tone-violation\">") == 1);  // the second charge
}

TEST_CASE("gc-pause-40s figure: server-1 paused from 6s for 40s, its lease believed from 0.002s") {
    const auto ran = run_file("gc-pause-40s.json");
    for (const auto& d : ran.outcome.designs) {
        INFO(d.name);
        const SequenceFigure figure = build_sequence_figure(d);
        const auto lane = static_cast<std::size_t>(std::find(figure.lanes.begin(), figure.lanes.end(), "server-1") -
                                                   figure.lanes.begin());
        REQUIRE(lane < figure.lanes.size());

        std::vector<const FigureSpan*> pauses, beliefs;
        for (const auto& span : figure.spans) {
            if (span.kind == FigureSpan::Kind::paused) pauses.push_back(&span);
            if (span.kind == FigureSpan::Kind::believed && span.lane == lane) beliefs.push_back(&span);
        }
        REQUIRE(pauses.size() == 1);
        CHECK(pauses[0]->lane == lane);
        CHECK(pauses[0]->from == at(seconds(6)));
        CHECK(pauses[0]->to == at(seconds(46)));
        CHECK(pauses[0]->to - pauses[0]->from == seconds(40));
        CHECK_FALSE(pauses[0]->open);
        CHECK(pauses[0]->label == "gc pause");

        REQUIRE_FALSE(beliefs.empty());
        CHECK(beliefs[0]->from > at(milliseconds(1)));
        CHECK(beliefs[0]->from < at(milliseconds(3)));
        const auto acquired = std::find_if(d.trace.events().begin(), d.trace.events().end(), [&](const TraceEvent& e) {
            return e.kind == "belief.acquired" && d.trace.node_name(e.node) == "server-1";
        });
        REQUIRE(acquired != d.trace.events().end());
        CHECK(beliefs[0]->from == acquired->at);
        CHECK(beliefs[0]->label.starts_with("lease as server-1 believed it"));

        // The SVG draws each span once, of its kind.
        const std::string svg = render_svg_figure(figure, slug(d.name));
        const auto spans_of = [&](FigureSpan::Kind kind) {
            return static_cast<std::size_t>(std::count_if(figure.spans.begin(), figure.spans.end(),
                                                          [&](const FigureSpan& s) { return s.kind == kind; }));
        };
        CHECK(count_of(svg, "<g class=\"believed\">") == spans_of(FigureSpan::Kind::believed));
        CHECK(count_of(svg, "<g class=\"granted\">") == spans_of(FigureSpan::Kind::granted));
        CHECK(count_of(svg, "<g class=\"pause\">") == 1);
        CHECK(count_of(svg, "<g class=\"down\">") == 0);
        CHECK(svg.find("<g class=\"pause\"><title>gc pause: 6.000s to 46.000s</title>") != std::string::npos);
    }
}

// build_sequence_figure(design, max_steps) ends a long run's figure at its last drawn step;
// the bars must end there too, not start after it or run backwards.
TEST_CASE("a figure cut short at its step cap keeps every span within its end") {
    const auto ran = run_file("gc-pause-40s.json");
    const DesignOutcome& unfenced = design_named(ran.outcome, "unfenced");
    const SequenceFigure whole = build_sequence_figure(unfenced);
    REQUIRE(whole.left_out == 0);
    const SequenceFigure cut = build_sequence_figure(unfenced, 20);
    REQUIRE(cut.steps.size() == 20);
    CHECK(cut.left_out == whole.steps.size() - 20);
    CHECK(cut.end == cut.steps.back().at);
    CHECK(cut.end < at(seconds(6)));  // before server-1's pause
    for (const auto& span : cut.spans) {
        INFO(span.label << ": " << format_seconds(span.from) << " to " << format_seconds(span.to));
        CHECK(span.from <= span.to);
        CHECK(span.from <= cut.end);
        CHECK(span.to <= cut.end);
    }
    // The pause begins after the cut: it is not in the cut figure.
    CHECK(std::none_of(cut.spans.begin(), cut.spans.end(),
                       [](const FigureSpan& s) { return s.kind == FigureSpan::Kind::paused; }));
}

TEST_CASE("the HTML page is self-contained: nothing fetched, no script") {
    for (const auto& file : structure_scenarios) {
        INFO(file);
        const std::string page = page_of(run_file(file));
        std::string rest = page;
        for (auto at = rest.find("http://www.w3.org/2000/svg"); at != std::string::npos;
             at = rest.find("http://www.w3.org/2000/svg"))
            rest.erase(at, std::string("http://www.w3.org/2000/svg").size());
        CHECK(count_of(page, "http://www.w3.org/2000/svg") >= 2);  // the legend and a figure per design
        CHECK(rest.find("http://") == std::string::npos);
        CHECK(rest.find("https://") == std::string::npos);
        CHECK(page.find("<script") == std::string::npos);
        CHECK(page.find("src=") == std::string::npos);
        CHECK(page.find("<link") == std::string::npos);
        CHECK(page.find("@import") == std::string::npos);
        // Every url(...) points inside the page.
        for (const auto& target : all_matches(page, std::regex("url\\(([^)]*)\\)"))) CHECK(target.starts_with("#"));
    }
}

TEST_CASE("the same outcome renders byte-identical pages, and so do two runs of the binary") {
    const auto ran = run_file("gc-pause-40s.json");
    const std::string first = page_of(ran);
    CHECK(page_of(ran) == first);
    CHECK(page_of(run_file("gc-pause-40s.json")) == first);  // a second run of the same seed

    const auto one = fresh_directory("determinism-1");
    const auto two = fresh_directory("determinism-2");
    const auto a = run_locksim("run scenarios/gc-pause-40s.json --report '" + one.string() + "'");
    const auto b = run_locksim("run scenarios/gc-pause-40s.json --report '" + two.string() + "'");
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    CHECK(a.err == "HTML report: " + (one / "gc-pause-40s.html").string() + " (open it in a browser)\n");
    const std::string page_one = slurp(one / "gc-pause-40s.html");
    CHECK(page_one.size() > 10000);
    CHECK(page_one == slurp(two / "gc-pause-40s.html"));
    // The page and the folder of its designs' pages of every step, also the same bytes.
    CHECK(std::distance(std::filesystem::directory_iterator(one), std::filesystem::directory_iterator()) == 2);
    for (const std::string design : {"d1-unfenced", "d2-fenced", "d3-idempotent"}) {
        const auto steps = std::filesystem::path("gc-pause-40s-steps") / (design + ".html");
        const std::string steps_one = slurp(one / steps);
        CHECK(steps_one.find("<table class=\"events\">") != std::string::npos);
        CHECK(steps_one == slurp(two / steps));
    }
    std::filesystem::remove_all(one);
    std::filesystem::remove_all(two);
}

TEST_CASE("Mermaid: a fenced sequenceDiagram per design, a participant per lane, an arrow per drawn message") {
    const auto ran = run_file("gc-pause-40s.json");
    const std::string markdown = render_mermaid(ran.outcome);
    CHECK(markdown.starts_with("### gc-pause-40s · unfenced\n\n```mermaid\n"));
    CHECK(count_of(markdown, "```mermaid\n") == ran.outcome.designs.size());

    // Split into the designs' fenced blocks.
    const auto lines = lines_of(markdown);
    std::vector<std::vector<std::string>> blocks;
    std::vector<std::string> headings;
    bool inside = false;
    for (const auto& line : lines) {
        if (line.starts_with("### ")) headings.push_back(line);
        if (line == "```mermaid") {
            REQUIRE_FALSE(inside);
            inside = true;
            blocks.emplace_back();
        } else if (line == "```") {
            REQUIRE(inside);
            inside = false;
        } else if (inside) {
            blocks.back().push_back(line);
        }
    }
    CHECK_FALSE(inside);
    REQUIRE(blocks.size() == ran.outcome.designs.size());
    REQUIRE(headings.size() == ran.outcome.designs.size());

    const std::regex arrow("^    n([0-9]+)(->>|-->>|-x|--x)n([0-9]+): e([0-9]+) ");
    const std::regex participant("^    participant n([0-9]+) as (.*)$");
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const DesignOutcome& d = ran.outcome.designs[b];
        INFO(d.name);
        CHECK(headings[b] == "### gc-pause-40s · " + d.name);
        const SequenceFigure figure = build_sequence_figure(d);
        const auto& block = blocks[b];
        // Comments (%%) may come first; the diagram's type is the first statement.
        const auto first =
            std::find_if(block.begin(), block.end(), [](const std::string& l) { return !l.starts_with("%%"); });
        REQUIRE(first != block.end());
        CHECK(*first == "sequenceDiagram");

        std::vector<std::string> participants;
        std::size_t arrows = 0, arrow_like = 0;
        std::set<int> arrow_numbers;
        std::map<std::string, int> depth;
        for (const auto& line : block) {
            std::smatch m;
            if (std::regex_match(line, m, participant)) {
                CHECK(m[1].str() == std::to_string(participants.size()));
                participants.push_back(m[2].str());
            }
            if (std::regex_search(line, m, arrow)) {
                ++arrows;
                arrow_numbers.insert(std::stoi(m[4].str()));
            }
            if (line.find("->>") != std::string::npos || line.find("-->>") != std::string::npos ||
                line.find("-x") != std::string::npos || line.find("--x") != std::string::npos)
                ++arrow_like;
            if (line.starts_with("    activate ")) {
                const std::string who = line.substr(13);
                CHECK(++depth[who] == 1);
            }
            if (line.starts_with("    deactivate ")) {
                const std::string who = line.substr(15);
                CHECK(--depth[who] == 0);
            }
        }
        CHECK(participants == d.lanes);
        std::set<int> expected_numbers;
        for (const auto& step : figure.steps)
            if (step.is_message() && !step.retry) expected_numbers.insert(step.number);
        CHECK(arrows == expected_numbers.size());
        CHECK(arrow_like == expected_numbers.size());
        CHECK(arrow_numbers == expected_numbers);
        CHECK_FALSE(depth.empty());  // somebody held the lock
        for (const auto& [who, open] : depth) {
            INFO(who);
            CHECK(open == 0);
        }
    }
}

TEST_CASE("Perfetto: slices on a track nest, flows pair up, every event belongs to a named process") {
    for (const auto& file : shipped_scenarios()) {
        INFO(file);
        const auto ran = run_file(file);
        const auto document = nlohmann::json::parse(render_perfetto(ran.outcome));
        REQUIRE(document.contains("traceEvents"));
        const auto& events = document["traceEvents"];
        REQUIRE(events.is_array());

        std::set<int> processes;
        for (const auto& e : events)
            if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["pid"].get<int>());
        CHECK_FALSE(processes.empty());

        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> tracks;
        std::map<std::string, int> flows_out, flows_in;
        std::size_t message_steps = 0, delivered_steps = 0, instants = 0, event_steps = 0;
        const std::regex step_number("e[1-9][0-9]*");
        for (const auto& e : events) {
            const std::string ph = e["ph"];
            if (ph == "M") continue;
            REQUIRE(e.contains("pid"));
            CHECK(processes.contains(e["pid"].get<int>()));
            if (ph == "X") {
                const double ts = e["ts"].get<double>();
                const double dur = e["dur"].get<double>();
                CHECK(dur >= 0);
                tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(ts, ts + dur);
            } else if (ph == "i") {
                ++instants;
                REQUIRE(e.contains("args"));
                REQUIRE(e["args"].contains("event"));
                CHECK(std::regex_match(e["args"]["event"].get<std::string>(), step_number));
            } else {
                FAIL("unexpected phase " << ph);
            }
            if (e.contains("flow_out")) {
                ++flows_out[e["bind_id"].get<std::string>()];
                CHECK(std::regex_match(e["args"]["event"].get<std::string>(), step_number));
            }
            if (e.contains("flow_in")) ++flows_in[e["bind_id"].get<std::string>()];
            if (e.contains("bind_id")) CHECK((e.contains("flow_out") != e.contains("flow_in")));
        }
        for (const auto& d : ran.outcome.designs) {
            const SequenceFigure figure = build_sequence_figure(d);
            for (const auto& step : figure.steps) {
                if (!step.is_message()) {
                    ++event_steps;
                    continue;
                }
                ++message_steps;
                if (!step.lost && !step.in_flight) ++delivered_steps;
            }
        }
        CHECK(instants == event_steps);
        CHECK(flows_out.size() == message_steps);
        CHECK(flows_in.size() == delivered_steps);
        for (const auto& [id, n] : flows_out) CHECK(n == 1);
        for (const auto& [id, n] : flows_in) {
            INFO(id);
            CHECK(n == 1);
            CHECK(flows_out.contains(id));
        }

        // On one track, sorted by start (longest first), each slice lies inside the one
        // still open around it or after it has ended.
        for (auto& [track, slices] : tracks) {
            std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
                return a.first != b.first ? a.first < b.first : a.second > b.second;
            });
            std::vector<std::pair<double, double>> open;
            for (const auto& slice : slices) {
                while (!open.empty() && open.back().second <= slice.first && open.back().first < slice.first)
                    open.pop_back();
                if (!open.empty()) {
                    INFO("pid " << track.first << " tid " << track.second << ": [" << slice.first << ", "
                                << slice.second << "] against [" << open.back().first << ", " << open.back().second
                                << "]");
                    CHECK(slice.second <= open.back().second);
                }
                open.push_back(slice);
            }
        }
    }
}

TEST_CASE("the course index lists each page once, under its first chapter, in the order the files declare") {
    SECTION("render_course_index keeps the order given and heads each run of a chapter") {
        const std::vector<CourseEntry> entries{
            {"1", "first", "lesson one", "first.html", true},
            {"3-4", "span", "lesson three to four", "span.html", true},
            {"3", "catch", "lesson three", "catch.html", false},
            {"4", "fix", "lesson four", "fix.html", true},
            {"", "extra", "no section", "extra.html", true},
        };
        const std::string index = render_course_index(entries);
        const auto catch_at = index.find("<h2>3 · The catch</h2>");
        const auto fix_at = index.find("<h2>4 · The fix</h2>");
        const auto beyond_at = index.find("<h2>Beyond the basics</h2>");
        REQUIRE(index.find("<h2>1 · The problem</h2>") != std::string::npos);
        REQUIRE(catch_at != std::string::npos);
        REQUIRE(fix_at != std::string::npos);
        REQUIRE(beyond_at != std::string::npos);
        CHECK(index.find("<h2>2 · Leases</h2>") == std::string::npos);  // no entries, no heading
        CHECK(count_of(index, "<h2>") == 4);
        CHECK(catch_at < fix_at);
        CHECK(fix_at < beyond_at);
        // Each once, under its first chapter, in the order given.
        for (const char* href : {"first.html", "span.html", "catch.html", "fix.html", "extra.html"})
            CHECK(count_of(index, std::string("href=\"") + href + "\"") == 1);
        const std::string chapter3 = index.substr(catch_at, fix_at - catch_at);
        CHECK(chapter3.find("href=\"span.html\"") < chapter3.find("href=\"catch.html\""));
        CHECK_THAT(chapter3, Catch::Contains("chapters 3-4"));
        CHECK(index.substr(beyond_at).find("href=\"extra.html\"") != std::string::npos);
        CHECK(count_of(index, "an expectation failed") == 1);
        CHECK(index.find("<script") == std::string::npos);
    }
}

// The whole shipped course, written by the program: tagged [whole-course] because it runs
// every shipped scenario with its explore and sweep blocks (a minute of processor here, a
// quarter of an hour under ASan); scripts/sanitizers.sh leaves it out, as it leaves out the
// exhaustive cross-checks, and the normal build runs it.
TEST_CASE("locksim report over the shipped scenarios writes each page once, in the course's order", "[whole-course]") {
    const auto out = fresh_directory("course");
    const auto ran = run_locksim("report scenarios --out '" + out.string() + "'");
    CHECK(ran.exit_code == 0);
    const auto files = shipped_scenarios();
    CHECK(ran.out == "Wrote " + std::to_string(files.size()) +
                         " reports and the course index: " + (out / "index.html").string() + "\n");
    const std::string index = slurp(out / "index.html");

    std::map<std::string, Scenario> by_name;
    for (const auto& file : files) {
        auto scenario = load_scenario_file(scenario_path(file), metric_names());
        CHECK(std::filesystem::exists(out / (slug(scenario.name) + ".html")));
        by_name.emplace(scenario.name, std::move(scenario));
    }
    const auto listed = all_matches(index, std::regex("<strong>([^<]*)</strong>"));
    // Every page once.
    CHECK(listed.size() == files.size());
    CHECK(std::set<std::string>(listed.begin(), listed.end()).size() == listed.size());
    // Chapters never go back, and every page comes after each page it assumes.
    const auto position = [&](const std::string& name) {
        return std::find(listed.begin(), listed.end(), name) - listed.begin();
    };
    char previous = '0';
    for (const auto& name : listed) {
        INFO(name);
        REQUIRE(by_name.contains(name));
        const Scenario& scenario = by_name.at(name);
        const char chapter = scenario.section.empty() ? '9' : scenario.section.front();
        CHECK(chapter >= previous);
        previous = chapter;
        for (const auto& assumed : scenario.assumes) {
            INFO("assumes " << assumed);
            CHECK(by_name.contains(assumed));  // a shipped file names only shipped scenarios
            CHECK(position(assumed) < position(name));
        }
    }
    // What the reviewers asked for: the flagship opens "The catch", the overview of the
    // stores opens "Where it lives".
    const auto first_of = [&](const std::string& heading) {
        const auto at = index.find(heading);
        REQUIRE(at != std::string::npos);
        return all_matches(index.substr(at), std::regex("<strong>([^<]*)</strong>")).front();
    };
    CHECK(first_of("<h2>3 · The catch</h2>") == "gc-pause-40s");
    CHECK(first_of("<h2>5 · Where it lives</h2>") == "stores-compared");
    // Every link leads to a page that was written.
    for (const auto& href : all_matches(index, std::regex("href=\"([^\"#]*)\""))) {
        INFO(href);
        CHECK(std::filesystem::is_regular_file(out / href));
    }
    // Each page links to the one before and after it in the course's order, and to the
    // others of its chapter; following "next" from the first page visits every page once,
    // in the index's order.
    std::vector<std::string> visited;
    std::string page = slug(listed.front()) + ".html";
    CHECK(slurp(out / page).find("rel=\"prev\"") == std::string::npos);
    for (std::size_t guard = 0; guard <= listed.size(); ++guard) {
        visited.push_back(page);
        const std::string html = slurp(out / page);
        for (const auto& href : all_matches(html, std::regex("<li><a href=\"([^\"#]*)\">"))) {
            INFO(page << " sees also " << href);
            CHECK(std::filesystem::is_regular_file(out / href));
        }
        const auto next = all_matches(html, std::regex("rel=\"next\" href=\"([^\"]*)\""));
        if (next.empty()) break;
        page = next.front();
    }
    std::vector<std::string> expected_order;
    for (const auto& name : listed) expected_order.push_back(slug(name) + ".html");
    CHECK(visited == expected_order);
    // A lesson with an "explore" block links its vulnerability map, written beside it, and
    // says how to read it; one without has no such link.
    for (const auto& [name, scenario] : by_name) {
        INFO(name);
        const std::string html = slurp(out / (slug(name) + ".html"));
        const std::string map = slug(name) + "-explore.html";
        CHECK((html.find("<a href=\"" + map + "\">The vulnerability map of") != std::string::npos) ==
              scenario.explore.has_value());
        CHECK(std::filesystem::is_regular_file(out / map) == scenario.explore.has_value());
        if (scenario.explore) CHECK_THAT(html, Catch::Contains("<h2>Where else it breaks: the vulnerability map</h2>"));
        // And one with a "study" block its study page, with how to read its charts.
        const std::string study = slug(name) + "-study.html";
        CHECK(count_of(html, "<a href=\"" + study + "\">The study of ") == (scenario.study ? 1U : 0U));
        CHECK(std::filesystem::is_regular_file(out / study) == scenario.study.has_value());
        if (scenario.study) CHECK_THAT(html, Catch::Contains("the band at the bottom, joined to no line"));
    }
    CHECK(
        std::any_of(by_name.begin(), by_name.end(), [](const auto& entry) { return entry.second.study.has_value(); }));
    // `locksim list` prints the same order.
    const auto list = run_locksim("list scenarios --format json");
    REQUIRE(list.exit_code == 0);
    std::vector<std::string> list_order;
    for (const auto& entry : nlohmann::json::parse(list.out)) list_order.push_back(entry["name"]);
    CHECK(list_order == listed);
    std::filesystem::remove_all(out);
}

TEST_CASE("scenarios that assume each other in a circle are refused with the circle named, exit 2") {
    const auto in = fresh_directory("circle-in");
    const auto write = [&](const std::string& name, const std::string& assumes) {
        std::string text = slurp(scenario_path("gc-pause-40s.json"));
        text.replace(text.find("\"name\": \"gc-pause-40s\""), std::string("\"name\": \"gc-pause-40s\"").size(),
                     "\"name\": \"" + name + "\"");
        text.replace(text.find("\"assumes\": [\"lease-vs-no-lease\"]"),
                     std::string("\"assumes\": [\"lease-vs-no-lease\"]").size(), "\"assumes\": [\"" + assumes + "\"]");
        std::ofstream(in / (name + ".json")) << text;
    };
    write("a", "b");
    write("b", "c");
    write("c", "a");
    write("d", "a");
    for (const std::string& command :
         {"report '" + in.string() + "' --out '" + (in / "site").string() + "'", "list '" + in.string() + "'"}) {
        INFO(command);
        const auto ran = run_locksim(command);
        CHECK(ran.exit_code == 2);
        CHECK(ran.err == (in / "a.json").string() +
                             ": /assumes: a assumes b, which assumes c, which assumes a: a course cannot put each "
                             "after the other; remove one of these from \"assumes\"\n");
    }
    CHECK_FALSE(std::filesystem::exists(in / "site"));
}

TEST_CASE(
    "course_order: chapter by chapter, each after what it assumes, else by name, and unknown names bind nothing") {
    const auto scenario = [](std::string name, std::string section, std::vector<std::string> assumes) {
        Scenario s;
        s.name = std::move(name);
        s.section = std::move(section);
        s.assumes = std::move(assumes);
        return s;
    };
    const std::vector<Scenario> course{
        scenario("zz-overview", "5", {}),
        scenario("a-store", "5", {"zz-overview"}),
        scenario("flagship", "3-4", {"basics"}),
        scenario("b-check", "3", {"flagship"}),
        scenario("a-clock", "3", {"nowhere"}),
        scenario("basics", "2", {}),
        scenario("appendix", "", {}),
    };
    std::vector<const Scenario*> pointers;
    for (const auto& s : course) pointers.push_back(&s);
    std::vector<std::string> names;
    for (const std::size_t k : course_order(pointers)) names.push_back(course[k].name);
    CHECK(names ==
          std::vector<std::string>{"basics", "a-clock", "flagship", "b-check", "zz-overview", "a-store", "appendix"});
    CHECK(course_order({}).empty());
    const Scenario one = scenario("only", "", {"only-elsewhere"});
    CHECK(course_order({&one}) == std::vector<std::size_t>{0});
}

TEST_CASE("locksim report writes the good pages and the index even when a file is broken, and exits 2") {
    const auto in = fresh_directory("mixed-in");
    const auto out = fresh_directory("mixed-out") / "reports";
    std::ofstream(in / "good.json") << flagship_without_explore("gc-pause-40s");
    std::ofstream(in / "broken.json") << "{\"name\": \"broken\",\n";
    const auto ran = run_locksim("report '" + in.string() + "' --out '" + out.string() + "'");
    CHECK(ran.exit_code == 2);
    CHECK(ran.out == "Wrote 1 report and the course index: " + (out / "index.html").string() + "\n");
    CHECK(ran.err.starts_with((in / "broken.json").string() + ":2:1: not valid JSON"));
    // Named again once the index is written: a course without the lesson says so.
    CHECK(ran.err.ends_with("\nLeft out of the course, each for the error above: " + (in / "broken.json").string() +
                            "\n"));
    CHECK(count_of(ran.err, "\n") == 2);
    CHECK(std::filesystem::is_regular_file(out / "gc-pause-40s.html"));
    const std::string index = slurp(out / "index.html");
    CHECK(count_of(index, "href=\"gc-pause-40s.html\"") == 1);  // once, under its first chapter
    CHECK(index.find("broken") == std::string::npos);
    std::filesystem::remove_all(in);
    std::filesystem::remove_all(out.parent_path());
}

TEST_CASE("locksim run --report into a path that is a regular file exits 2 with a one-line message") {
    const auto directory = fresh_directory("in-the-way");
    const auto file = directory / "a-file";
    std::ofstream(file) << "not a directory\n";
    const auto ran = run_locksim("run scenarios/gc-pause-40s.json --report '" + file.string() + "'");
    CHECK(ran.exit_code == 2);
    CHECK(ran.err ==
          "--report " + file.string() + ": is a file, not a folder; give a folder to write the pages into\n");
    CHECK(count_of(ran.err, "\n") == 1);
    CHECK(slurp(file) == "not a directory\n");  // left as it was
    std::filesystem::remove_all(directory);
}

// The page's file name is slug(name) + ".html", in the same directory as index.html.
TEST_CASE("locksim report does not overwrite a scenario's page with the course index") {
    const auto in = fresh_directory("index-name-in");
    const auto out = fresh_directory("index-name-out");
    std::ofstream(in / "index-scenario.json") << flagship_without_explore("Index");
    const auto ran = run_locksim("report '" + in.string() + "' --out '" + out.string() + "'");
    CHECK(ran.exit_code == 0);
    const std::string index = slurp(out / "index.html");
    // The course index must link to a page that is the scenario's report, not to itself.
    const auto hrefs = all_matches(index, std::regex("<li><a href=\"([^\"]*)\">"));
    REQUIRE(hrefs.size() == 1);  // once, under its first chapter
    CHECK(hrefs[0] != "index.html");
    CHECK(slurp(out / hrefs[0]).find("<h1>Index</h1>") != std::string::npos);
    std::filesystem::remove_all(in);
    std::filesystem::remove_all(out);
}

TEST_CASE("locksim report gives scenarios whose names slug alike a page each") {
    const auto in = fresh_directory("alike-in");
    const auto out = fresh_directory("alike-out");
    for (const auto& [file, name] :
         std::vector<std::pair<std::string, std::string>>{{"a.json", "gc pause"}, {"b.json", "gc-pause"}})
        std::ofstream(in / file) << flagship_without_explore(name);
    const auto ran = run_locksim("report '" + in.string() + "' --out '" + out.string() + "'");
    CHECK(ran.exit_code == 0);
    const std::string index = slurp(out / "index.html");
    std::set<std::string> pages;
    for (const auto& href : all_matches(index, std::regex("<li><a href=\"([^\"]*)\">"))) pages.insert(href);
    CHECK(pages.size() == 2);  // two scenarios, two pages
    std::set<std::string> titles;
    for (const auto& page : pages) {
        const auto h1 = all_matches(slurp(out / page), std::regex("<h1>([^<]*)</h1>"));
        if (!h1.empty()) titles.insert(h1[0]);
    }
    CHECK(titles == std::set<std::string>{"gc pause", "gc-pause"});
    std::filesystem::remove_all(in);
    std::filesystem::remove_all(out);
}

TEST_CASE("a figure relates a violation to the messages about its customer by their fields, not their labels") {
    // Customer 4 is charged twice; customer 42's messages, whose labels contain
    // "customer 4", are not part of that story.
    std::string text = slurp(scenario_path("gc-pause-40s.json"));
    const std::string customers = "\"customers\": [41, 42, 43]";
    REQUIRE(text.find(customers) != std::string::npos);
    text.replace(text.find(customers), customers.size(), "\"customers\": [42, 4, 43]");
    const Scenario scenario = parse_scenario(text, "customer-4.json", metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    const DesignOutcome& unfenced = design_named(outcome, "unfenced");
    REQUIRE(unfenced.metrics.value(Metric::double_charges) == 1);

    const SequenceFigure figure = build_sequence_figure(unfenced);
    int about_42 = 0;
    int about_4 = 0;
    for (const auto& step : figure.steps) {
        if (step.text.find("customer 42") != std::string::npos || step.text.find("customer=42") != std::string::npos) {
            ++about_42;
            CHECK_FALSE(step.related);
        }
        if (step.text.find("charge customer 4 ") != std::string::npos || step.text.ends_with("charge customer 4")) {
            ++about_4;
            CHECK(step.related);
        }
    }
    CHECK(about_42 > 0);
    CHECK(about_4 > 0);
}

TEST_CASE("a message to a crashed node is drawn as lost, ending where it was swallowed, not at the end of the run") {
    const auto scenario = load_scenario_file(scenario_path("replica-failover.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);
    const auto figure = build_sequence_figure(design_named(outcome, "unfenced"));
    const auto primary = std::find(figure.lanes.begin(), figure.lanes.end(), "redis-primary") - figure.lanes.begin();
    std::size_t to_the_dead = 0;
    for (const auto& step : figure.steps) {
        if (!step.is_message() || *step.to_lane != static_cast<std::size_t>(primary) ||
            step.at < Instant{} + milliseconds(50))
            continue;
        ++to_the_dead;
        INFO("e" << step.number << ": " << step.text);
        CHECK(step.lost);
        CHECK(step.arrives == step.at);  // the primary was already down: the message goes nowhere
    }
    CHECK(to_the_dead > 5);  // the sentinel's pings, at least
}

TEST_CASE("a design that holds its expectations and lost money shows two verdicts that look different") {
    const auto ran = run_file("gc-pause-40s.json");
    const std::string page = page_of(ran);
    const std::string unfenced = article_of(page, "unfenced");
    CHECK_THAT(unfenced, Catch::Contains("<span class=\"outcome outcome-harmed\">1 double charge</span>"));
    CHECK_THAT(unfenced, Catch::Contains("<span class=\"contract contract-held\">as the file expects:"));
    CHECK(unfenced.find("outcome-safe") == std::string::npos);
    const std::string fenced = article_of(page, "fenced");
    CHECK_THAT(fenced, Catch::Contains("<span class=\"outcome outcome-safe\">nothing lost</span>"));
    // The comparison table has a row for each fact.
    CHECK_THAT(page, Catch::Contains("<tr><th>outcome</th>"));
    CHECK_THAT(page, Catch::Contains("<tr><th>expectations</th>"));
    CHECK(ran.outcome.violated_designs() == std::vector<std::string>{"unfenced"});
}

TEST_CASE("the course index says where money was lost apart from whether the files' expectations held") {
    const std::vector<CourseEntry> entries{
        {"3", "shown", "a failure shown on purpose", "shown.html", true, {"unfenced", "checked"}},
        {"4", "safe", "nothing lost", "safe.html", true, {}},
        {"4", "broken", "a contract broken", "broken.html", false, {}},
    };
    const std::string index = render_course_index(entries);
    CHECK_THAT(index, Catch::Contains("<span class=\"outcome outcome-harmed\">lost in unfenced, checked</span> "
                                      "<span class=\"contract contract-held\">as expected</span>"));
    CHECK(count_of(index, "<span class=\"outcome outcome-safe\">nothing lost</span>") == 2);
    CHECK(count_of(index, "<span class=\"contract contract-failed\">an expectation failed</span>") == 1);
}

TEST_CASE("the believed lease ends where the holder's own clock said, not where the holder noticed") {
    const auto ran = run_file("gc-pause-40s.json");
    const auto figure = build_sequence_figure(design_named(ran.outcome, "unfenced"));
    const auto server_1 = std::find(figure.lanes.begin(), figure.lanes.end(), "server-1") - figure.lanes.begin();
    const FigureSpan* first = nullptr;
    for (const auto& span : figure.spans)
        if (span.kind == FigureSpan::Kind::believed && span.lane == static_cast<std::size_t>(server_1)) {
            first = &span;
            break;
        }
    REQUIRE(first != nullptr);
    REQUIRE(first->own_deadline.has_value());
    // Its 30 s lease ran out by its own clock during the 40 s pause; it noticed only later.
    CHECK(first->to == *first->own_deadline);
    CHECK(first->to - first->from < seconds(31));
    CHECK(first->to - first->from > seconds(29));
    CHECK_FALSE(first->open);
}

TEST_CASE("every lane's name reaches WCAG AA contrast on its lane colour") {
    CHECK(palette::contrast("#FFFFFF", "#000000") == Approx(21.0));
    CHECK(palette::contrast("#777777", "#777777") == Approx(1.0));
    for (std::size_t rank = 0; rank < 6; ++rank) {
        const auto colour = palette::node_colour(rank, true);
        INFO(colour);
        CHECK(palette::contrast(colour, palette::text_on(colour)) >= 4.5);
    }
    CHECK(palette::contrast(palette::service, palette::text_on(palette::service)) >= 4.5);
    CHECK(palette::text_on("#E69F00") == palette::ink);  // orange: white would be about 2.1:1
    CHECK(palette::text_on("#0072B2") == "#FFFFFF");
}

TEST_CASE("a message still in flight when the run stops is a short stub, not a line across the figure") {
    const auto ran = run_file("redlock-clock-jump.json");
    std::size_t in_flight = 0;
    for (const auto& design : ran.outcome.designs) {
        const auto figure = build_sequence_figure(design);
        for (const auto& step : figure.steps) {
            if (!step.is_message() || !step.in_flight) continue;
            ++in_flight;
            CHECK_FALSE(step.lost);
            CHECK(step.arrives == step.at);
        }
        const std::string svg = render_svg_figure(figure, "d");
        if (in_flight > 0) CHECK_THAT(svg, Catch::Contains("still in flight when the run stopped"));
    }
    CHECK(in_flight > 0);
    const std::string mermaid = render_mermaid(ran.outcome);
    CHECK_THAT(mermaid, Catch::Contains("-)"));
}

// A design that takes no lock cannot be praised for keeping two holders apart.
TEST_CASE("the answer for a design that takes no lock says so, never that no two servers held it") {
    const Loaded ran = run_file("hash-sharding.json");
    const std::string page = page_of(ran);
    int answered = 0;
    for (const auto& design : ran.outcome.designs) {
        INFO(design.name);
        bool took_a_lock = false;
        for (const auto& event : design.trace.events()) took_a_lock |= event.kind == trace_kind::lock_granted;
        if (took_a_lock) continue;
        // The predict-then-reveal answer: the paragraph after the design's question.
        const auto question = page.find("Will \u201c" + design.name + "\u201d");
        REQUIRE(question != std::string::npos);
        const auto from = page.find("<p>", question);
        const std::string answer = page.substr(from, page.find("</p>", from) - from);
        CHECK(answer.find("no two servers ever held the lock") == std::string::npos);
        if (answer == "<p>No: each customer was charged by one server alone, and no lock was taken.") ++answered;
    }
    CHECK(answered == 2);  // by-hash and by-hash/gc-pause; the other two answers name what went wrong
}
