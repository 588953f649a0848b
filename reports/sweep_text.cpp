#include "reports/sweep_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "checks/command_line.hpp"
#include "checks/metric_words.hpp"
#include "reports/text_style.hpp"

namespace locksim {

namespace {

// The text shows this many failing seeds per design, each with its replay command; the
// JSON keeps kept_failing_seeds.
constexpr std::size_t replayed_seeds = 5;

// Two decimals, or enough to show a small bound that is not zero: 0.0038%.
std::string percent(double fraction) {
    const double value = 100 * fraction;
    if (value == 0 || value >= 0.1) return fmt::format("{:.2f}%", value);
    return fmt::format("{:.2g}%", value);
}

// "0.12", "3.4", "1,200": two significant figures, never in scientific notation.
std::string expected_count(double value) {
    if (value == 0) return "0";
    if (value >= 10) return fmt::format("{:.0f}", value);
    const int decimals = std::max(0, 1 - static_cast<int>(std::floor(std::log10(value))));
    return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

std::string rate_with_interval(const DesignTally& d, double weight) {
    if (d.runs == 0) return "—";
    const auto ci = wilson_interval(d.runs_with_violation, d.runs);
    return fmt::format("{} ({}–{})",
                       percent(weight * static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs)),
                       percent(weight * ci.low), percent(weight * ci.high));
}

std::string rate_not_ruled_out(std::uint64_t failed, std::uint64_t runs) {
    return runs == 0 ? "—" : percent(wilson_interval(failed, runs).high);
}

std::string_view sampling_disclaimer() {
    return "The intervals cover the sampling error of these seeds only, not the model's\n"
           "assumptions (pause lengths and how often they come, timings, the job's shape):\n"
           "vary those in the file to see which the answer hangs on.";
}

std::string render_sweep_text(const SweepSummary& summary, const std::string& program, bool colour,
                              double runs_per_day) {
    const TextStyle style(colour);
    std::string out = style.heading(summary.scenario);
    if (!summary.partial_shards.empty()) {
        std::uint64_t covered = 0;
        std::vector<std::uint32_t> missing;
        for (std::uint32_t index = 1, k = 0; index <= summary.shards; ++index) {
            if (k < summary.partial_shards.size() && summary.partial_shards[k] == index) {
                covered += shard_block(summary.seeds, index, summary.shards).count;
                ++k;
            } else {
                missing.push_back(index);
            }
        }
        out += fmt::format(" · seeds {}…{}\n", summary.seeds.first, summary.seeds.first + summary.seeds.count - 1);
        out += style.fault(fmt::format("PARTIAL: shards {} of {} ({} of {} seeds); still missing: {}",
                                       index_ranges(summary.partial_shards), summary.shards, covered,
                                       summary.seeds.count, index_ranges(missing)));
    } else {
        out += fmt::format(" · seeds {}…{}", summary.covered.first, summary.covered.first + summary.covered.count - 1);
        if (summary.shards > 1) out += fmt::format(" · shard {}/{}", summary.shard, summary.shards);
    }
    out += "\n";
    const std::optional<GivenFault>& given = summary.given;
    if (given)
        out +=
            fmt::format("Given {}: every run drew at least one of its faults; a plain run does with probability {}.\n",
                        given->fault, percent(given->probability));
    out += "\n";
    std::vector<std::string> header{"design", "runs", "with a violation", "unfinished", "a fault reached the lock"};
    for (const auto& spec : metric_table)
        if (spec.swept) header.push_back(metric_heading(spec.metric, summary.words));
    if (given)
        header.insert(header.end(), {"violation rate given it (95% CI)", "rate with it, per run (95% CI)"});
    else
        header.push_back("violation rate (95% CI)");
    header.push_back("first failing seeds");
    std::vector<std::vector<std::string>> rows{header};
    for (const auto& d : summary.designs) {
        std::vector<std::string> seeds;
        for (std::size_t i = 0; i < std::min(replayed_seeds, d.failing_seeds.size()); ++i)
            seeds.push_back(fmt::format("{}", d.failing_seeds[i]));
        if (d.failing_seeds.size() > replayed_seeds) seeds.push_back("…");
        std::vector<std::string> row{d.name, fmt::format("{}", d.runs), fmt::format("{}", d.runs_with_violation),
                                     fmt::format("{}", d.runs_unfinished), fmt::format("{}", d.runs_fault_reached)};
        for (const auto& spec : metric_table)
            if (spec.swept) row.push_back(fmt::format("{}", d.metric_total(spec.metric)));
        row.push_back(rate_with_interval(d));
        if (given) row.push_back(rate_with_interval(d, given->probability));
        row.push_back(seeds.empty() ? "none" : fmt::format("{}", fmt::join(seeds, ", ")));
        rows.push_back(std::move(row));
    }
    out += text_table(rows, style);
    // Said under the table, not only counted in it: a rate over runs cut short is no rate.
    std::string unfinished;
    for (const auto& d : summary.designs)
        if (const std::string cut = describe_unfinished(d, program, summary.file); !cut.empty())
            unfinished += style.fault(fmt::format("UNFINISHED {}: {}", d.name, cut)) + "\n";
    // And a rate over runs no fault reached is the rate of runs without faults.
    for (const auto& d : summary.designs)
        if (const std::string vacuous =
                describe_vacuous(d, program, summary.file, summary.seeds.first, summary.settings.given_fault);
            !vacuous.empty())
            unfinished += style.fault(fmt::format("VACUOUS {}: {}", d.name, vacuous)) + "\n";
    if (!unfinished.empty()) out += "\n" + unfinished;
    if (runs_per_day > 0) {
        out += given ? fmt::format("\nAt {} runs a day, incidents in runs where it strikes:\n", runs_per_day)
                     : fmt::format("\nAt {} runs a day:\n", runs_per_day);
        for (const auto& d : summary.designs) {
            if (d.runs == 0) continue;
            const double rate = static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs);
            const auto ci = wilson_interval(d.runs_with_violation, d.runs);
            // Given a fault, the runs where it strikes come that much less often than runs.
            const double day = runs_per_day * (given ? given->probability : 1.0);
            out += fmt::format("  {}: {} incidents a day ({}–{}), {} a year ({}–{})\n", d.name,
                               expected_count(rate * day), expected_count(ci.low * day), expected_count(ci.high * day),
                               expected_count(rate * day * 365), expected_count(ci.low * day * 365),
                               expected_count(ci.high * day * 365));
        }
    }
    if (given)
        out += "\n" +
               style.fault(
                   fmt::format("Only runs in which {} strikes were drawn: incidents in the others ({} of runs) are not "
                               "in these rates. Sweep without --given-fault to count those.",
                               fmt::format("fault_generators/{}", given->generator), percent(1 - given->probability))) +
               "\n";
    out += "\n" + style.quiet(sampling_disclaimer()) + "\n";
    bool any = false;
    for (const auto& d : summary.designs) {
        for (std::size_t i = 0; i < std::min(replayed_seeds, d.failing_seeds.size()); ++i) {
            if (!any) out += "\nReplay a failing seed:\n";
            any = true;
            out += "  " +
                   replay_command(program, summary.file, d.failing_seeds[i], d.name, std::nullopt,
                                  summary.settings.given_fault) +
                   "\n";
        }
    }
    return out;
}

}  // namespace locksim
