#include "reports/html/study_page.hpp"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "checks/metric_words.hpp"
#include "reports/figure/study_axes.hpp"
#include "reports/figure/study_series.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/page_style.hpp"
#include "reports/html/study_chart.hpp"
#include "reports/study_report.hpp"
#include "reports/sweep_text.hpp"
#include "reports/text_style.hpp"

namespace locksim {
namespace {

constexpr std::string_view study_style = R"css(
.chart-frame { overflow-x: auto; margin: 8px 0 12px; }
section.varied { margin-top: 28px; }
svg.study { display: block; max-width: 100%; height: auto; font-family: system-ui, sans-serif; }
svg.study text { font-size: 12px; fill: var(--ink); }
svg.study .tick-label, svg.study .value-label { font-size: 11px; font-family: ui-monospace, monospace; fill: #424a53; }
svg.study .minor-label { fill: #8C959F; }
svg.study .floor-label { font-size: 11px; fill: #57606a; font-style: italic; }
svg.study .axis-title { font-size: 11.5px; fill: #57606a; }
svg.study .point:hover .marker { stroke: #000; }
.disclaimer { max-width: 90ch; }
details.numbers summary { cursor: pointer; color: #57606a; }
)css";

// The rates every chart draws, for the rate axis they share.
std::vector<RateInterval> all_intervals(const Study& study) {
    std::vector<RateInterval> intervals;
    for (const auto& point : study.points)
        for (const auto& tally : point.summary.designs)
            if (tally.runs > 0) intervals.push_back(rate_interval(tally));
    return intervals;
}

std::string varied_anchor(const Study& study, std::size_t field) {
    return fmt::format("vary-{}-{}", field + 1, slug(study.fields[field].path));
}

// What the lines of one chart are.
std::string series_sentence(const Study& study, std::size_t field) {
    const std::vector<std::string> names = short_field_names(study.fields);
    std::vector<std::string> others;
    for (std::size_t f = 0; f < study.fields.size(); ++f)
        if (f != field) others.push_back(names[f]);
    const std::size_t designs = study.points.empty() ? 0 : study.points.front().summary.designs.size();
    if (others.empty()) return designs == 1 ? "A line for the design." : "A line per design.";
    return fmt::format("A line per design and {} of the other varied {} ({}), named in the legend.",
                       others.size() == 1 ? "value" : "combination of values", others.size() == 1 ? "field" : "fields",
                       fmt::join(others, ", "));
}

std::string chart_section(const Study& study, std::size_t field, const RateAxis& rates) {
    const std::string anchor = varied_anchor(study, field);
    const VariedField& varied = study.fields[field];
    return fmt::format(
        "<section class=\"varied\" id=\"{0}\" data-field=\"{1}\">\n<h2>The violation rate against {1}</h2>\n"
        "<p>{1} = {2}. {3}</p>\n<div class=\"chart-frame\">\n{4}</div>\n</section>\n",
        anchor, escaped(varied.path), escaped(fmt::format("{}", fmt::join(varied.written, ", "))),
        escaped(series_sentence(study, field)), render_study_chart(study, field, rates, anchor));
}

// The text table of `sweep --vary`, as HTML: a row per point and design.
std::string numbers_table(const Study& study) {
    std::string html =
        "<details class=\"numbers\">\n<summary>Every rate: a row per point and design, as the text "
        "table prints them</summary>\n<table>\n<tr>";
    for (const auto& field : study.fields) html += fmt::format("<th>{}</th>", escaped(field.path));
    html += "<th>design</th><th>runs</th><th>with a violation</th><th>violation rate (95% CI)</th></tr>\n";
    for (const auto& point : study.points)
        for (const auto& tally : point.summary.designs) {
            html += "<tr>";
            for (std::size_t f = 0; f < study.fields.size(); ++f)
                html += fmt::format("<td>{}</td>", escaped(study_value_cell(study, point, tally.name, f)));
            html += fmt::format(
                "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                escaped(tally.name), grouped(tally.runs), grouped(tally.runs_with_violation),
                escaped(rate_with_interval(tally)));
        }
    return html + "</table>\n</details>\n";
}

// sampling_disclaimer() is laid out for a terminal; a paragraph flows by itself.
std::string one_paragraph(std::string_view text) {
    std::string flowing(text);
    for (auto& c : flowing)
        if (c == '\n') c = ' ';
    return flowing;
}

}  // namespace

std::string render_study_page(const Study& study) {
    std::vector<std::string> paths;
    for (const auto& field : study.fields) paths.push_back(field.path);
    const std::string varied = fmt::format("{}", fmt::join(paths, " and "));
    const std::uint64_t last_seed = study.seeds.first + study.seeds.count - 1;
    std::string html = page_head(fmt::format("{} · parameter study · locksim", study.scenario), study_style);
    html += fmt::format(
        "<header>\n<p class=\"chapter\">locksim sweep · a parameter study</p>\n<h1>{}: the violation rate against "
        "{}</h1>\n<p>{} point{} of the grid, every one run under the same {} seed{} ({}…{}), so that the rates differ "
        "only by what was varied.</p>\n",
        escaped(study.scenario), escaped(varied), grouped(study.points.size()), study.points.size() == 1 ? "" : "s",
        grouped(study.seeds.count), study.seeds.count == 1 ? "" : "s", study.seeds.first, last_seed);
    html += fmt::format(
        "<p class=\"description\">A chart per varied field. Each point is the share of the runs at that point (one "
        "per seed) in which the design broke the lock's promise (a {1}, a stale write accepted, a lock "
        "released by "
        "a non-holder), and the bar through it is its 95 % Wilson interval, the one the text table prints. "
        "<strong>Up, the rate runs on a log scale</strong>: each darker line is ten times the one below, so a "
        "rate that falls from 1 % to 0.01 % falls two steps. A rate of 0 has no place on a log scale: it is drawn "
        "hollow in the band at the bottom, labelled “{0}”, and its bar rises to the largest rate that "
        "these runs cannot rule out, which is how much a 0 can hide. No line joins a 0: a line up from the band "
        "would climb decades no run measured, so a design's line stops at its last rate above 0. Across, the field's "
        "values as written: on a "
        "log scale when they are durations or numbers spanning a factor of 10 or more, evenly spaced otherwise. "
        "Hover over a point for its numbers; the table under the charts has them all.</p>\n</header>\n",
        zero_label(study.seeds.count),
        escaped(metric_one(Metric::double_charges,
                           study.points.empty() ? Vocabulary{} : study.points.front().summary.words)));
    const RateAxis rates(all_intervals(study));
    for (const auto& note : own_value_notes(study))
        html += fmt::format("<p class=\"own-value\">{}</p>\n", escaped(note));
    for (std::size_t f = 0; f < study.fields.size(); ++f) html += chart_section(study, f, rates);
    html += fmt::format(
        "<section class=\"provenance\">\n<p class=\"disclaimer\">{}</p>\n<p>Seeds {}…{} at every point. The same "
        "study from the command line: <code>{}</code></p>\n{}</section>\n",
        escaped(one_paragraph(sampling_disclaimer())), study.seeds.first, last_seed, escaped(study.command),
        numbers_table(study));
    html += fmt::format(
        "<footer><p>Generated by <code>locksim sweep --vary … --report</code> from <code>{}</code>. The same file, "
        "seeds and values give the same page, byte for byte.</p></footer>\n</body>\n</html>\n",
        escaped(study.file));
    return html;
}

}  // namespace locksim
