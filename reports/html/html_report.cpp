#include "reports/html/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>

#include "checks/metric_words.hpp"
#include "models/trace_kinds.hpp"
#include "reports/fault_text.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "reports/figure/story_figure.hpp"
#include "reports/html/course_index.hpp"
#include "reports/html/designs_strip.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/outcome_badge.hpp"
#include "reports/html/page_style.hpp"
#include "reports/html/rate_section.hpp"
#include "reports/html/story_svg.hpp"
#include "reports/html/svg_figure.hpp"
#include "reports/summary_table.hpp"
#include "reports/sweep_text.hpp"
#include "reports/text_style.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// "3-4" → "Chapters 3–4 · The catch, The fix".
std::string section_line(const std::string& section) {
    if (section.empty()) return "";
    std::string chapters = chapter_title(section.front());
    if (section.size() == 3)
        for (char c = static_cast<char>(section.front() + 1); c <= section.back(); ++c)
            chapters += ", " + chapter_title(c);
    return fmt::format("{} {} · {}", section.size() == 3 ? "Chapters" : "Chapter",
                       escaped(section.size() == 3 ? fmt::format("{}–{}", section.front(), section.back()) : section),
                       escaped(chapters));
}

// Two facts that must not look alike: whether the file's expectations held (a contract, in
// neutral ink) and whether the world lost something (the outcome, red or green).
std::string contract_verdict(const DesignOutcome& design) {
    if (design.expectations.empty()) return "<span class=\"contract\">no expectations</span>";
    const auto failed =
        std::count_if(design.expectations.begin(), design.expectations.end(), [](const auto& e) { return !e.held; });
    if (failed == 0)
        return fmt::format("<span class=\"contract contract-held\">as the file expects: {} expectation{} held</span>",
                           design.expectations.size(), design.expectations.size() == 1 ? "" : "s");
    std::string failures;
    for (const auto& e : design.expectations)
        if (!e.held) failures += (failures.empty() ? "" : "; ") + describe_failure(e, design);
    return fmt::format("<span class=\"contract contract-failed\">not as the file expects: {} of {} failed: {}</span>",
                       failed, design.expectations.size(), escaped(failures));
}

// What one run did to what the lock protects, as a badge's tone ("safe", "harmed", "idle")
// and its words.
struct RunOutcome {
    std::string_view tone;
    std::string text;
};

RunOutcome run_outcome(const DesignOutcome& design) {
    const Vocabulary words = vocabulary_of(design.trace);
    // Nothing lost because nothing was done is no green.
    if (!design.violated() && design.did_nothing())
        return {"idle", fmt::format("nothing done: no {} {}", words.item, words.effected())};
    if (!design.violated()) return {"safe", "nothing lost"};
    // The money: charged twice, or never charged at all; then work left hanging.
    for (const Metric lost : {Metric::double_charges, Metric::suppressed_effects, Metric::items_not_done,
                              Metric::unfinished_work, Metric::locks_leaked})
        if (const auto count = design.metrics.value(lost); count > 0)
            return {"harmed", metric_counted(lost, count, words)};
    const auto flagged = std::count_if(design.metrics.flagged.begin(), design.metrics.flagged.end(),
                                       [](const auto& f) { return f.violation(); });
    return {"harmed", fmt::format("{} violation{}", flagged, flagged == 1 ? "" : "s")};
}

// Which run a page draws, and whether it is one draw of many (the scenario's faults are
// random) with, where it was swept, the design's tally over the sweep.
struct DrawnRun {
    std::uint64_t seed = 0;
    bool one_of_many = false;
    const DesignTally* tally = nullptr;
};

DrawnRun drawn_run(const ScenarioOutcome& outcome, const ReportPage& page, const DesignOutcome& design) {
    return DrawnRun{outcome.seed, page.one_draw_of_many, page.rates ? page.rates->tally_of(design.name) : nullptr};
}

// A design's outcome. One run of many is evidence of what can go wrong, never that nothing
// can: on such a page the rate over the sweep leads, and the drawn run's outcome follows
// in plain ink unless it lost something.
std::string outcome_verdict(const DesignOutcome& design, const DrawnRun& drawn) {
    const RunOutcome run = run_outcome(design);
    if (!drawn.one_of_many) return badge(run.tone, run.text);
    std::string html = drawn.tally ? rate_verdict(*drawn.tally) + " " : std::string();
    const std::string this_run = fmt::format("seed {}: {}", drawn.seed, run.text);
    if (run.tone == "harmed") return html + badge(run.tone, this_run);
    return html + fmt::format("<span class=\"drawn-run\">{}</span>", escaped(this_run));
}

std::string fault_verdict(const DesignOutcome& design) {
    if (!design.faults) return "no faults";
    if (design.faults->all_missed()) return "<span class=\"bad\">no: every fault missed</span>";
    if (design.faults->changed_nothing()) return "absorbed: nothing changed";
    const auto inert = std::count_if(design.faults->each.begin(), design.faults->each.end(),
                                     [](const FaultEffect& e) { return e.inert(); });
    if (inert == 0) return "yes";
    if (static_cast<std::size_t>(inert) == design.faults->each.size()) return "together, yes; no one of them alone";
    return fmt::format("yes; {} of {} inert", inert, design.faults->each.size());
}

constexpr std::size_t designs_in_columns = 4;

// The designs side by side: a column per design when there are a few, else a row per
// design, so that the table fits the page either way.
std::string comparison(const ScenarioOutcome& outcome, const ReportPage& page) {
    std::vector<std::pair<std::string, std::vector<std::string>>> facts;  // title, a cell per design
    const auto row = [&](std::string_view title, auto cell) {
        std::vector<std::string> cells;
        for (const auto& design : outcome.designs) cells.push_back(cell(design));
        facts.emplace_back(std::string(title), std::move(cells));
    };
    const auto count = [](std::int64_t value, bool bad_if_positive) {
        if (value == 0 || !bad_if_positive) return fmt::format("{}", value);
        return fmt::format("<span class=\"bad\">{}</span>", value);
    };
    const bool one_purpose = std::all_of(outcome.designs.begin(), outcome.designs.end(), [&](const DesignOutcome& d) {
        return d.purpose == outcome.designs.front().purpose;
    });
    if (!one_purpose || outcome.designs.size() <= designs_in_columns)
        row("the lock is for", [](const DesignOutcome& d) { return std::string(to_string(d.purpose)); });
    const Vocabulary words = vocabulary_of(outcome.designs.front().trace);
    row(escaped(metric_heading(Metric::double_charges, words)), [&](const DesignOutcome& d) {
        std::string text = count(d.metrics.value(Metric::double_charges), true);
        if (!d.metrics.double_charged.empty()) {
            std::vector<std::string> customers;
            for (const auto& c : d.metrics.double_charged) customers.push_back(fmt::format("{}", c.customer));
            text += fmt::format(" ({} {})", escaped(words.item), fmt::join(customers, ", "));
        }
        return text;
    });
    row("two holders at once", [&](const DesignOutcome& d) {
        return d.metrics.overlaps.empty()
                   ? std::string("no")
                   : fmt::format("<span class=\"bad\">yes, {}</span>", format_tenths(d.metrics.overlap_time));
    });
    row(escaped(metric_heading(Metric::stale_writes_rejected, words)), [&](const DesignOutcome& d) {
        const auto refused = d.metrics.value(Metric::stale_writes_rejected);
        return refused > 0 ? fmt::format("<span class=\"good\">{}</span>", refused) : std::string("0");
    });
    for (const Metric metric : extra_columns(outcome))
        row(escaped(metric_heading(metric, words)),
            [&](const DesignOutcome& d) { return count(d.metrics.value(metric), metric_spec(metric).violation()); });
    if (std::any_of(outcome.designs.begin(), outcome.designs.end(), [](const auto& d) { return d.faults; }))
        row("did the faults matter?", [](const DesignOutcome& d) { return fault_verdict(d); });
    row("outcome", [&](const DesignOutcome& d) { return outcome_verdict(d, drawn_run(outcome, page, d)); });
    row("expectations", [](const DesignOutcome& d) { return contract_verdict(d); });

    const auto design_link = [&](std::size_t i) {
        return fmt::format("<a href=\"#{}\">{}</a>", escaped(design_anchor(outcome, i)),
                           escaped(outcome.designs[i].name));
    };
    std::string html = "<table class=\"compare\">\n";
    if (!facts.empty() && facts.front().first != "the lock is for")
        html += fmt::format("<caption>Every design's lock is for {}.</caption>\n",
                            to_string(outcome.designs.front().purpose));
    html += "<tr><th></th>";
    if (outcome.designs.size() <= designs_in_columns) {
        for (std::size_t i = 0; i < outcome.designs.size(); ++i) html += "<th>" + design_link(i) + "</th>";
        html += "</tr>\n";
        for (const auto& [title, cells] : facts)
            html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", title, fmt::join(cells, "</td><td>"));
    } else {
        for (const auto& fact : facts) html += "<th>" + fact.first + "</th>";
        html += "</tr>\n";
        for (std::size_t i = 0; i < outcome.designs.size(); ++i) {
            html += "<tr><th>" + design_link(i) + "</th>";
            for (const auto& fact : facts) html += "<td>" + fact.second[i] + "</td>";
            html += "</tr>\n";
        }
    }
    return html + "</table>\n";
}

// A node's own clock readings, shown where they differ from true time.
std::string clocks_cell(const FigureStep& step) {
    std::vector<std::string> readings;
    const Duration shown_from = milliseconds(1);
    if (step.wall && (*step.wall - step.at > shown_from || step.at - *step.wall > shown_from))
        readings.push_back("wall " + format_time_of_day(*step.wall));
    if (step.monotonic && (*step.monotonic - step.at > shown_from || step.at - *step.monotonic > shown_from))
        readings.push_back("mono " + format_seconds(*step.monotonic));
    return escaped(fmt::format("{}", fmt::join(readings, ", ")));
}

std::string event_table(const SequenceFigure& figure, const std::string& anchor) {
    std::string html =
        "<table class=\"events\">\n<tr><th>#</th><th>true time</th><th>node</th><th>its clocks</th><th>what "
        "happened</th>"
        "<th>why it matters</th></tr>\n";
    for (const auto& step : figure.steps) {
        std::string classes;
        if (!step.related) classes += " faded";
        if (step.tone == EventTone::violation) classes += " violation";
        if (step.tone == EventTone::protection) classes += " protection";
        std::string what =
            step.is_message()
                ? fmt::format("→ {}: <code>{}</code>{}{}", escaped(figure.lanes[*step.to_lane]), escaped(step.text),
                              step.lost                        ? " <em>(lost)</em>"
                              : step.stalled && step.in_flight ? " <em>(stalled, in flight when the run stopped)</em>"
                              : step.stalled                   ? " <em>(stalled, retransmitted)</em>"
                              : step.in_flight                 ? " <em>(in flight when the run stopped)</em>"
                                                               : "",
                              step.note.empty() ? "" : fmt::format(" <em>(refused, {})</em>", escaped(step.note)))
                : escaped(step.text);
        html += fmt::format(
            "<tr id=\"{0}-e{1}\" class=\"{2}\"><td><a href=\"#{0}-fig-e{1}\">e{1}</a></td><td class=\"num "
            "mono\">{3}</td>"
            "<td>{4}</td><td class=\"mono\">{5}</td><td>{6}</td><td>{7}</td></tr>\n",
            escaped(anchor), step.number, classes, format_seconds(step.at), escaped(figure.lanes[step.lane]),
            clocks_cell(step), what, escaped(step.explanation));
    }
    html += "</table>\n";
    return html;
}

// Faults that changed nothing any node did: a pass they leave standing is no evidence
// about them, and the page says so where the design's verdict is read.
std::string inert_warning(const DesignOutcome& design) {
    std::string items;
    for (const auto& line : describe_inert_faults(design, false, FaultNaming::number_only))
        items += fmt::format("<li>{}</li>\n", escaped(line));
    const std::string all = describe_all_inert(design);
    if (items.empty() && all.empty()) return "";
    std::string html = "<div class=\"inert\">\n";
    if (!all.empty()) html += fmt::format("<p><strong>Warning:</strong> {}.</p>\n", escaped(all));
    if (!items.empty()) html += "<p>Inert faults:</p>\n<ul>\n" + items + "</ul>\n";
    return html + "</div>\n";
}

// The page of every step draws at most this many: about 900 KB of figure and table.
constexpr std::size_t every_step_cap = 1000;

// Where a design's page of every step lives, relative to the scenario's page.
std::string steps_page_path(const ScenarioOutcome& outcome, const ReportPage& page, const std::string& anchor) {
    std::string stem = page.file_name.empty() ? slug(outcome.name) : page.file_name;
    if (stem.size() > 5 && stem.ends_with(".html")) stem.resize(stem.size() - 5);
    return fmt::format("{}-steps/{}.html", stem, anchor);
}

// The violations, protections and faults of a run, each linked to its step in `href_of`;
// past `limit` of a kind, a line says how many more there are and where.
struct StepLists {
    std::string faults, violations, protections;
};

template <class Href>
StepLists step_lists(const SequenceFigure& figure, Href href_of, std::size_t limit, std::string_view rest_where) {
    StepLists lists;
    std::size_t faults = 0, violations = 0, protections = 0;
    const auto add = [&](std::string& list, std::size_t& count, const std::string& item) {
        if (++count <= limit) list += item;
    };
    for (const auto& step : figure.steps) {
        const std::string link =
            fmt::format("<a href=\"{}\">e{}</a> at {}", escaped(href_of(step)), step.number, format_seconds(step.at));
        if (step.tone == EventTone::violation && !step.explanation.empty())
            add(lists.violations, violations, fmt::format("<li>{}: {}</li>\n", link, escaped(step.explanation)));
        else if (step.tone == EventTone::protection && !step.explanation.empty())
            add(lists.protections, protections, fmt::format("<li>{}: {}</li>\n", link, escaped(step.explanation)));
        else if (step.tone == EventTone::fault)
            add(lists.faults, faults,
                fmt::format("<li>{} on {}: {}{}</li>\n", link, escaped(figure.lanes[step.lane]), escaped(step.text),
                            step.explanation.empty() ? "" : ": " + escaped(step.explanation)));
    }
    const auto more = [&](std::string& list, std::size_t count, std::string_view what) {
        if (count > limit) list += fmt::format("<li>… and {} more {}, {}</li>\n", count - limit, what, rest_where);
    };
    more(lists.faults, faults, "fault steps");
    more(lists.violations, violations, "violations");
    more(lists.protections, protections, "protections");
    return lists;
}

// A design's verdicts, faults, and what went wrong or protected it.
std::string design_summary(const DesignOutcome& design, const StepLists& lists, const DrawnRun& drawn) {
    std::string html = fmt::format("<p>A {} lock. {} {}</p>\n", to_string(design.purpose),
                                   outcome_verdict(design, drawn), contract_verdict(design));
    if (!lists.faults.empty()) html += "<p>Faults:</p>\n<ul class=\"faults\">\n" + lists.faults + "</ul>\n";
    html += inert_warning(design);
    if (!lists.violations.empty())
        html += "<p class=\"bad\">What went wrong:</p>\n<ul class=\"violations\">\n" + lists.violations + "</ul>\n";
    if (!lists.protections.empty())
        html +=
            "<p class=\"good\">What protected it:</p>\n<ul class=\"protections\">\n" + lists.protections + "</ul>\n";
    const bool nothing_wrong =
        lists.violations.empty() && design.metrics.double_charged.empty() && design.metrics.overlaps.empty();
    if (nothing_wrong && design.did_nothing()) {
        const Vocabulary words = vocabulary_of(design.trace);
        html +=
            fmt::format("<p class=\"idle\">Nothing went wrong, and nothing was done: no {} was {} in this run.</p>\n",
                        escaped(words.item), escaped(words.effected()));
    } else if (nothing_wrong) {
        html += "<p class=\"good\">Nothing went wrong in this run.</p>\n";
    }
    return html;
}

// "92 refused retries": a count and its noun in the right number.
std::string counted(std::size_t count, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

// What the story view left out, and the way to all of it.
std::string story_note(const StoryFigure& story, const SequenceFigure& full, const std::string& steps_page,
                       const Vocabulary& words) {
    std::vector<std::string> folded;
    const auto fold = [&](std::size_t count, std::string_view one, std::string_view many, std::string_view rest) {
        if (count > 0) folded.push_back(counted(count, one, many) + std::string(rest));
    };
    fold(story.retries_folded, "refused retry", "refused retries", " folded into the first attempt");
    fold(story.repeats_folded, "message", "messages", " repeating one already shown");
    fold(story.far_from_flags, "step", "steps",
         " of the lock's life, faults and work far from any violation or protection");
    fold(story.store_traffic_folded, "message", "messages", " between store nodes");
    fold(story.other_left_out, "other step", "other steps",
         fmt::format(" (the work on other {}, the lock's upkeep, reads)", words.items()));
    if (!story.lanes_left_out.empty())
        folded.push_back(fmt::format("the lane{} of {}, where nothing in the story happens",
                                     story.lanes_left_out.size() == 1 ? "" : "s",
                                     fmt::join(story.lanes_left_out, ", ")));
    std::string html =
        fmt::format("<p class=\"story-note\">The story: {} of {} steps", story.figure.steps.size(), full.steps.size());
    if (!folded.empty()) html += fmt::format("; left out: {}", escaped(fmt::format("{}", fmt::join(folded, "; "))));
    return html +
           fmt::format(". <a href=\"{}\">Every step, in the full figure and a table →</a></p>\n", escaped(steps_page));
}

std::string design_article(const DesignOutcome& design, const SequenceFigure& full, const StoryFigure& story,
                           const std::string& anchor, const std::string& steps_page, const DrawnRun& drawn) {
    std::string html = fmt::format("<article class=\"design\" id=\"{}\" data-design=\"{}\">\n<h2>{}</h2>\n",
                                   escaped(anchor), escaped(design.name), escaped(design.name));
    std::set<int> in_story;
    for (const auto& step : story.figure.steps) in_story.insert(step.number);
    const auto href = [&](const FigureStep& step) {
        return in_story.contains(step.number) ? fmt::format("#{}-story-e{}", anchor, step.number)
                                              : fmt::format("{}#{}-e{}", steps_page, anchor, step.number);
    };
    html += design_summary(
        design,
        step_lists(full, href, 12, fmt::format("on <a href=\"{}\">the page of every step</a>", escaped(steps_page))),
        drawn);
    html += story_note(story, full, steps_page, vocabulary_of(design.trace));
    html += render_story_svg(story, anchor, steps_page);
    return html + "</article>\n";
}

// A design's page of every step: the full figure and the table of every event.
std::string every_step_page(const ScenarioOutcome& outcome, const DesignOutcome& design, const SequenceFigure& figure,
                            const std::string& anchor, const std::string& back, const DrawnRun& drawn) {
    std::string html = page_head(fmt::format("{} · {} · every step · locksim", outcome.name, design.name));
    html += fmt::format(
        "<header>\n<p><a href=\"{}\">← the story of {}</a></p>\n<p class=\"chapter\">{}</p>\n<h1>{}: every "
        "step</h1>\n</header>\n",
        escaped(back), escaped(outcome.name), escaped(outcome.name), escaped(design.name));
    html +=
        "<section>\n" +
        design_summary(design,
                       step_lists(
                           figure, [&](const FigureStep& step) { return fmt::format("#{}-e{}", anchor, step.number); },
                           std::numeric_limits<std::size_t>::max(), ""),
                       drawn) +
        "</section>\n";
    html +=
        "<section>\n<h2>How to read the figure</h2>\n<p class=\"howto\">One lane per node; the figure scrolls in "
        "its own frame, and the lane names stay at its top. Time runs down in true time, which no node can read: "
        "spacing grows with elapsed time, and a message's arrow runs from its sending to its arrival, so a slanted "
        "arrow is a slow message, except where steps closer than their text are spread apart. A zig-zag marks a "
        "stretch in which nothing happened, cut short and labelled with its length. Every step has a row of its "
        "own: its number and exact time on the left, its arrow or mark in the lanes, and on the right what "
        "happened, with the checker's sentence in full under it. Beside a server's lane, a solid bar is its lease "
        "as it believed it, ending where its own clock said the lease ran out; on the store's lane a hatched bar "
        "is the lock as the store saw it. e17 in the figure is row e17 of the table below it (click either). "
        "When a design went wrong, the steps that tell that story are drawn strong and the rest fade.</p>\n" +
        render_svg_legend() + "</section>\n";
    html += fmt::format("<div class=\"every-step\" id=\"{}\">\n", escaped(anchor));
    if (figure.left_out > 0)
        html += fmt::format(
            "<p class=\"banner\">This run is long: the figure and the table show its first {} steps, up to {}; "
            "{} later steps are left out (<code>--format trace</code> has every event).</p>\n",
            figure.steps.size(), format_seconds(figure.end), figure.left_out);
    html += render_svg_figure(figure, anchor);
    html += fmt::format("<h2>Every step ({} steps, {} messages)</h2>\n", figure.steps.size(), figure.messages);
    html += event_table(figure, anchor);
    html += "</div>\n";
    html +=
        fmt::format("<footer><p>Generated by locksim from <code>{}</code>, seed {}.</p></footer>\n</body>\n</html>\n",
                    escaped(outcome.file), outcome.seed);
    return html;
}

// The first step of a tone that a checker explained: the mechanism an answer names.
const FigureStep* first_explained(const SequenceFigure& figure, EventTone tone) {
    for (const auto& step : figure.steps)
        if (step.tone == tone && !step.explanation.empty()) return &step;
    return nullptr;
}

// Why a run lost nothing, or what it lost, in the checker's words: "No: the payment provider
// had seen key renewal-42-2026-10 …". An answer names the mechanism, never the question again.
std::string run_answer(const DesignOutcome& design, const SequenceFigure& figure) {
    const Vocabulary words = vocabulary_of(design.trace);
    if (design.purpose == LockPurpose::efficiency)
        return design.metrics.duplicate_work.ns > 0 ? fmt::format("Yes: {}.", efficiency_cost(design))
                                                    : std::string("No: no work was done twice in this run.");
    if (const FigureStep* wrong = first_explained(figure, EventTone::violation))
        return fmt::format("{}: {}.", design.metrics.double_charged.empty() ? "Not twice, but it went wrong" : "Yes",
                           wrong->explanation);
    if (const FigureStep* stopped = first_explained(figure, EventTone::protection))
        return fmt::format("No: {}.", stopped->explanation);
    if (design.did_nothing()) return fmt::format("No: no {} was {} at all.", words.item, words.effected());
    const bool took_a_lock =
        std::any_of(design.trace.events().begin(), design.trace.events().end(),
                    [](const TraceEvent& event) { return event.kind == trace_kind::lock_granted; });
    if (!took_a_lock)
        return fmt::format("No: each {} was {} by one server alone, and no lock was taken.", words.item,
                           words.effected());
    if (design.metrics.overlaps.empty())
        return fmt::format("No: no two servers ever held the lock at once, so each {} was {} by one holder.",
                           words.item, words.effected());
    return fmt::format("No: two servers held the lock at once, but no {} was {} by both.", words.item,
                       words.effected());
}

// What a reader should guess before reading on: per design, whether it loses what the
// lock protects (on a page that teaches a rate: how often); the answer is folded away
// until asked for.
std::string prediction(const DesignOutcome& design, const SequenceFigure& figure, const DrawnRun& drawn) {
    const Vocabulary words = vocabulary_of(design.trace);
    const bool efficiency = design.purpose == LockPurpose::efficiency;
    const std::string what =
        efficiency ? std::string("do the same work twice") : fmt::format("{} any {} twice", words.effect, words.item);
    if (!drawn.one_of_many)
        return fmt::format("<details class=\"predict\"><summary>Will “{}” {}?</summary><p>{}</p></details>\n",
                           escaped(design.name), escaped(what), escaped(run_answer(design, figure)));
    std::string answer;
    if (const DesignTally* tally = drawn.tally; tally)
        answer = tally->runs_with_violation == 0
                     ? fmt::format("In none of the {} runs swept. ", tally->runs)
                     : fmt::format("In {} of the {} runs swept: {}. ", tally->runs_with_violation, tally->runs,
                                   rate_with_interval(*tally));
    answer += fmt::format("In the run drawn below (seed {}): {}", drawn.seed, run_answer(design, figure));
    return fmt::format("<details class=\"predict\"><summary>How often will “{}” {}?</summary><p>{}</p></details>\n",
                       escaped(design.name), escaped(what), escaped(answer));
}

std::string exercises(const ScenarioOutcome& outcome, const ReportPage& page, const std::vector<SequenceFigure>& runs) {
    std::string html =
        "<section class=\"exercises\">\n<h2>Predict, then reveal</h2>\n<p>Say what you expect before you open "
        "each answer, and before you read on: everything below the questions gives the answers away.</p>\n";
    for (std::size_t i = 0; i < outcome.designs.size(); ++i)
        html += prediction(outcome.designs[i], runs[i], drawn_run(outcome, page, outcome.designs[i]));
    if (!page.what_ifs.empty()) {
        html +=
            "<h3>What if…</h3>\n<p>Each command runs this scenario's seed at the file's own value and at half and "
            "double it (where the file allows them), and prints which designs go wrong at which value.</p>\n"
            "<ul class=\"what-if\">\n";
        for (const auto& exercise : page.what_ifs)
            html +=
                fmt::format("<li>{}<br><code>{}</code></li>\n", escaped(exercise.question), escaped(exercise.command));
        html += "</ul>\n";
    }
    return html + "</section>\n";
}

// Previous and next in the course's order, where the page is part of a course.
std::string course_navigation(const ReportPage& page) {
    if (!page.previous && !page.next) return "";
    std::string html = "<nav class=\"course-nav\">";
    if (page.previous)
        html += fmt::format("<a rel=\"prev\" href=\"{}\">‹ {}</a>", escaped(page.previous->href),
                            escaped(page.previous->title));
    if (page.previous && page.next) html += " · ";
    if (page.next)
        html +=
            fmt::format("<a rel=\"next\" href=\"{}\">{} ›</a>", escaped(page.next->href), escaped(page.next->title));
    return html + "</nav>\n";
}

// Where else the designs break: the map of every moment the file's explored faults can
// strike, and how to read it.
std::string explore_map_link(const ScenarioOutcome& outcome, const ReportPage& page) {
    if (page.explore_map.empty()) return "";
    return fmt::format(
        "<section class=\"explore-link\">\n<h2>Where else it breaks: the vulnerability map</h2>\n<p "
        "class=\"howto\">The stories above are one run, with the file's own faults. The map tries each fault of the "
        "file's explore block at every moment it can strike, design by design, one run each: across, true time at "
        "the scale its caption states (cut only at a labelled zig-zag); down, the fault's size; a dark cell where a "
        "run there broke the lock's promise, a pale one where every run kept it. Each block of dark cells is a "
        "window, outlined and numbered, listed under the map with the sentence that says why its first run fails "
        "and the command that replays it; a design with no dark cell held at every moment tried, and only at "
        "those.</p>\n<p><a href=\"{}\">The vulnerability map of {} →</a></p>\n</section>\n",
        escaped(page.explore_map), escaped(outcome.name));
}

// How the rate moves with the values the file's study varies: the study's page, and how
// to read its charts.
std::string study_link(const ScenarioOutcome& outcome, const ReportPage& page) {
    if (!page.study) return "";
    const std::string fields = fmt::format("{}", fmt::join(page.study->fields, " and "));
    return fmt::format(
        "<section class=\"study-link\">\n<h2>How it changes with {0}: the study</h2>\n<p class=\"howto\">The "
        "rates above hold for the file's own values. The study runs the same {1} seeds again at each value of {0}, "
        "so that its rates differ only by what was varied: a chart per field, across its values (on a log scale when "
        "they span a factor of 10 or more), up the share of runs in which each design broke the lock's promise, on "
        "a log scale where each darker line is ten times the one below. The bar through a point is its 95 % "
        "interval, the rates those runs cannot rule out; where two bars overlap, the runs cannot tell the two values "
        "apart. A rate of 0 has no place on a log scale: it sits hollow in the band at the bottom, joined to no "
        "line, its bar rising to the largest rate a 0 can hide.</p>\n<p><a href=\"{2}\">The study of {3} against "
        "{0} →</a></p>\n</section>\n",
        escaped(fields), grouped(page.study->seeds), escaped(page.study->href), escaped(outcome.name));
}

std::string see_also(const ReportPage& page) {
    if (page.see_also.empty()) return "";
    std::string html = "<section class=\"see-also\">\n<h2>See also, in the same chapter</h2>\n<ul>\n";
    for (const auto& link : page.see_also)
        html += fmt::format("<li><a href=\"{}\">{}</a></li>\n", escaped(link.href), escaped(link.title));
    return html + "</ul>\n</section>\n";
}

}  // namespace

std::string design_anchor(const ScenarioOutcome& outcome, std::size_t index) {
    return fmt::format("d{}-{}", index + 1, slug(outcome.designs[index].name));
}

HtmlReport render_html_report(const ScenarioOutcome& outcome, const ReportPage& page) {
    HtmlReport report;
    std::string html = page_head(fmt::format("{} · locksim", outcome.name));
    html += "<header>\n";
    if (!page.index_link.empty())
        html += fmt::format("<p><a href=\"{}\">← all scenarios</a></p>\n", escaped(page.index_link));
    html += course_navigation(page);
    html +=
        fmt::format("<p class=\"chapter\">{}</p>\n<h1>{}</h1>\n", section_line(page.section), escaped(outcome.name));
    if (!outcome.lesson.empty()) html += fmt::format("<p class=\"lesson\">{}</p>\n", escaped(outcome.lesson));
    html += fmt::format("<p class=\"description\">{}</p>\n", escaped(outcome.description));
    html += fmt::format("<p>{}. Replay it: <code>{}</code></p>\n</header>\n",
                        page.one_draw_of_many
                            ? fmt::format("Seed {}: one run of many, each drawing its faults at random", outcome.seed)
                            : fmt::format("Seed {}", outcome.seed),
                        escaped(page.replay_command));
    // Each design's story is told from every step of its run.
    std::vector<SequenceFigure> runs;
    std::vector<StoryFigure> stories;
    std::vector<std::string> anchors;
    for (std::size_t i = 0; i < outcome.designs.size(); ++i) {
        runs.push_back(build_sequence_figure(outcome.designs[i], std::numeric_limits<std::size_t>::max()));
        stories.push_back(build_story_figure(runs.back()));
        anchors.push_back(design_anchor(outcome, i));
    }
    // The questions come before anything that answers them.
    html += exercises(outcome, page, runs);
    if (page.rates) html += render_rate_section(*page.rates, outcome.seed);
    html += "<section>\n<h2>The designs side by side</h2>\n" + comparison(outcome, page) +
            render_designs_strip(outcome, stories, anchors) + "</section>\n";
    html +=
        "<section>\n<h2>How to read the stories</h2>\n<p class=\"howto\">Each design's story shows only the steps "
        "that decide its outcome: the lock's life, the faults, the work on the " +
        escaped(vocabulary_of(outcome.designs.front().trace).items()) +
        " a checker flagged, each "
        "violation and protection, and the message that set each of them off. One narrow lane per node, whose "
        "name stays at the top of the window; the steps follow each other down the page in time order, evenly "
        "spaced, not to scale: the true time of each is on the left, and a grey band says how much time passed "
        "between two rows. An arrow runs from a message's sending to the row of its arrival. Beside a server's "
        "lane, a solid bar is its lease as it believed it, ending where its own clock said the lease ran out; on "
        "the store's lane a hatched bar is the lock as the store saw it. On the right, each step in words, and "
        "under it the checker's sentence. Every step has a number: e17 in a story is e17 on the design's page of "
        "every step (click it).</p>\n" +
        render_story_legend() + "</section>\n";
    html += "<div class=\"designs\">\n";
    const std::string own_name = page.file_name.empty() ? slug(outcome.name) + ".html" : page.file_name;
    for (std::size_t i = 0; i < outcome.designs.size(); ++i) {
        const DesignOutcome& design = outcome.designs[i];
        const std::string& anchor = anchors[i];
        const std::string path = steps_page_path(outcome, page, anchor);
        html += design_article(design, runs[i], stories[i], anchor, path, drawn_run(outcome, page, design));
        // The page of every step draws the first steps of a long run.
        const SequenceFigure figure = build_sequence_figure(design, every_step_cap);
        report.step_pages.push_back(
            ReportFile{path, every_step_page(outcome, design, figure, anchor, fmt::format("../{}#{}", own_name, anchor),
                                             drawn_run(outcome, page, design))});
    }
    html += "</div>\n";
    html += explore_map_link(outcome, page);
    html += study_link(outcome, page);
    html += see_also(page);
    if (const std::string nav = course_navigation(page); !nav.empty()) html += "<section>\n" + nav + "</section>\n";
    html += fmt::format(
        "<footer><p>Generated by locksim from <code>{}</code>, seed {}. The same file and seed give the "
        "same page, byte for byte.</p></footer>\n</body>\n</html>\n",
        escaped(outcome.file), outcome.seed);
    report.page = std::move(html);
    return report;
}

}  // namespace locksim
