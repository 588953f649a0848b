#include "reports/sweep_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checks/command_line.hpp"
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

}  // namespace

std::string render_sweep_text(const SweepSummary& summary, const std::string& program, bool colour) {
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
    out += "\n\n";
    std::vector<std::vector<std::string>> rows{
        {"design", "runs", "with a violation", "double charges", "violation rate (95% CI)", "first failing seeds"}};
    for (const auto& d : summary.designs) {
        std::string rate = "—";
        if (d.runs > 0) {
            const auto ci = wilson_interval(d.runs_with_violation, d.runs);
            rate = fmt::format("{} ({}–{})",
                               percent(static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs)),
                               percent(ci.low), percent(ci.high));
        }
        std::vector<std::string> seeds;
        for (std::size_t i = 0; i < std::min(replayed_seeds, d.failing_seeds.size()); ++i)
            seeds.push_back(fmt::format("{}", d.failing_seeds[i]));
        if (d.failing_seeds.size() > replayed_seeds) seeds.push_back("…");
        rows.push_back({d.name, fmt::format("{}", d.runs), fmt::format("{}", d.runs_with_violation),
                        fmt::format("{}", d.double_charges), rate,
                        seeds.empty() ? "none" : fmt::format("{}", fmt::join(seeds, ", "))});
    }
    out += text_table(rows, style);
    bool any = false;
    for (const auto& d : summary.designs) {
        for (std::size_t i = 0; i < std::min(replayed_seeds, d.failing_seeds.size()); ++i) {
            if (!any) out += "\nReplay a failing seed:\n";
            any = true;
            out += fmt::format("  {} run {} --seed {} --design {}\n", shell_quoted(program), shell_quoted(summary.file),
                               d.failing_seeds[i], shell_quoted(d.name));
        }
    }
    return out;
}

}  // namespace locksim
