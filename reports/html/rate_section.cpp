#include "reports/html/rate_section.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/html/markup.hpp"
#include "reports/sweep_text.hpp"

namespace locksim {
namespace {

// The first failing seeds the table names; the JSON of `locksim sweep` keeps more.
constexpr std::size_t named_seeds = 5;

std::string seeds_text(const SeedBlock& seeds) {
    return seeds.count == 1 ? fmt::format("seed {}", seeds.first)
                            : fmt::format("seeds {}–{}", seeds.first, seeds.first + seeds.count - 1);
}

std::string failing_seeds(const DesignTally& tally) {
    if (tally.failing_seeds.empty()) return "none";
    std::vector<std::uint64_t> first(
        tally.failing_seeds.begin(),
        tally.failing_seeds.begin() + static_cast<std::ptrdiff_t>(std::min(named_seeds, tally.failing_seeds.size())));
    return fmt::format("{}{}", fmt::join(first, ", "), tally.runs_with_violation > first.size() ? ", …" : "");
}

}  // namespace

std::string rate_verdict(const DesignTally& tally) {
    const auto runs = [](std::uint64_t count) { return fmt::format("{} run{}", count, count == 1 ? "" : "s"); };
    if (tally.runs_with_violation > 0)
        return fmt::format("<span class=\"outcome outcome-harmed\">lost in {}{} of {}</span>",
                           tally.runs_unfinished > 0 ? "at least " : "", tally.runs_with_violation, runs(tally.runs));
    if (tally.runs_unfinished > 0)
        return fmt::format("<span class=\"outcome outcome-idle\">cut short in {} of {}: not all counted</span>",
                           tally.runs_unfinished, runs(tally.runs));
    // None in N runs is not none at all: the rate those runs cannot rule out goes with it.
    return fmt::format(
        "<span class=\"outcome outcome-safe\">nothing lost in {}</span> <span class=\"not-ruled-out\">(a rate up to "
        "{} is not ruled out)</span>",
        runs(tally.runs), rate_not_ruled_out(0, tally.runs));
}

std::string render_rate_section(const LessonRates& rates, std::uint64_t drawn_seed) {
    const SweepSummary& sweep = rates.sweep;
    const bool drawn_is_swept = drawn_seed >= sweep.seeds.first && drawn_seed - sweep.seeds.first < sweep.seeds.count;
    std::string html = fmt::format(
        "<section class=\"rates\">\n<h2>How often: {} runs per design</h2>\n<p>Every run draws its faults at random, "
        "so one run shows one way things can go. The figures below draw seed {}, {}; this table counts {} ({}), "
        "each run under every design.</p>\n",
        sweep.seeds.count, drawn_seed, drawn_is_swept ? "one of these runs" : "a run outside these",
        seeds_text(sweep.seeds),
        rates.seeds_from_file ? "the file's sweep block" : "a default: the file has no sweep block to say how many");
    html +=
        "<table class=\"rate-table\">\n<tr><th>design</th><th>outcome over the runs</th><th>runs that lost "
        "something: rate (95% interval)</th><th>first such seeds</th></tr>\n";
    for (std::size_t i = 0; i < sweep.designs.size(); ++i) {
        const DesignTally& tally = sweep.designs[i];
        html += fmt::format("<tr data-design=\"{}\"><th>{}</th><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                            escaped(tally.name), escaped(tally.name), rate_verdict(tally),
                            escaped(rate_with_interval(tally)), escaped(failing_seeds(tally)));
    }
    html += "</table>\n";
    for (std::size_t i = 0; i < sweep.designs.size(); ++i)
        if (!rates.unfinished[i].empty())
            html += fmt::format("<p class=\"bad\"><strong>{}:</strong> {}</p>\n", escaped(sweep.designs[i].name),
                                escaped(rates.unfinished[i]));
    std::string sampling(sampling_disclaimer());
    std::replace(sampling.begin(), sampling.end(), '\n', ' ');
    html += fmt::format("<p class=\"howto\">{}</p>\n<ul class=\"rate-commands\">\n", escaped(sampling));
    for (std::size_t i = 0; i < sweep.designs.size(); ++i)
        if (!rates.replay_first[i].empty())
            html += fmt::format("<li>Replay {}'s first failing seed: <code>{}</code></li>\n",
                                escaped(sweep.designs[i].name), escaped(rates.replay_first[i]));
    html += fmt::format("<li>The same totals, and more seeds: <code>{}</code></li>\n</ul>\n</section>\n",
                        escaped(rates.command));
    return html;
}

}  // namespace locksim
