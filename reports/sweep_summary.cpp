#include "reports/sweep_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/text_style.hpp"

namespace locksim {

void DesignTally::add(std::uint64_t seed, const RunMetrics& metrics) {
    ++runs;
    double_charges += static_cast<std::uint64_t>(metrics.double_charges());
    const bool violation = std::any_of(metrics.flagged.begin(), metrics.flagged.end(),
                                       [](const FlaggedEvent& flag) { return flag.violation; });
    if (!violation) return;
    ++runs_with_violation;
    failing_seeds.insert(std::upper_bound(failing_seeds.begin(), failing_seeds.end(), seed), seed);
    if (failing_seeds.size() > kept_failing_seeds) failing_seeds.pop_back();
}

void DesignTally::merge(const DesignTally& other) {
    runs += other.runs;
    runs_with_violation += other.runs_with_violation;
    double_charges += other.double_charges;
    std::vector<std::uint64_t> both;
    std::merge(failing_seeds.begin(), failing_seeds.end(), other.failing_seeds.begin(), other.failing_seeds.end(),
               std::back_inserter(both));
    both.erase(std::unique(both.begin(), both.end()), both.end());
    if (both.size() > kept_failing_seeds) both.resize(kept_failing_seeds);
    failing_seeds = std::move(both);
}

void SweepSummary::merge_tallies(const SweepSummary& other) {
    for (std::size_t d = 0; d < designs.size(); ++d) designs[d].merge(other.designs[d]);
}

SeedBlock shard_block(SeedBlock seeds, std::uint32_t shard, std::uint32_t shards) {
    const std::uint64_t begin = seeds.count * (shard - 1) / shards;
    const std::uint64_t end = seeds.count * shard / shards;
    return SeedBlock{seeds.first + begin, end - begin};
}

WilsonInterval wilson_interval(std::uint64_t successes, std::uint64_t trials) {
    constexpr double z = 1.959963984540054;  // the 97.5th percentile of the normal distribution
    const double n = static_cast<double>(trials);
    const double p = static_cast<double>(successes) / n;
    const double denominator = 1 + z * z / n;
    const double centre = (p + z * z / (2 * n)) / denominator;
    const double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator;
    // At p = 0 (or 1) the bound is exactly 0 (or 1); rounding would leave a speck.
    return WilsonInterval{successes == 0 ? 0.0 : std::max(0.0, centre - half),
                          successes == trials ? 1.0 : std::min(1.0, centre + half)};
}

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
    std::string out = style.heading(summary.scenario) +
                      fmt::format(" · seeds {}…{}", summary.covered.first, summary.covered.first + summary.covered.count - 1);
    if (summary.shards > 1) out += fmt::format(" · shard {}/{}", summary.shard, summary.shards);
    out += "\n\n";
    std::vector<std::vector<std::string>> rows{
        {"design", "runs", "with a violation", "double charges", "violation rate (95% CI)", "first failing seeds"}};
    for (const auto& d : summary.designs) {
        std::string rate = "—";
        if (d.runs > 0) {
            const auto ci = wilson_interval(d.runs_with_violation, d.runs);
            rate = fmt::format("{} ({}–{})", percent(static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs)),
                               percent(ci.low), percent(ci.high));
        }
        std::vector<std::string> seeds;
        for (std::size_t i = 0; i < std::min(replayed_seeds, d.failing_seeds.size()); ++i)
            seeds.push_back(fmt::format("{}", d.failing_seeds[i]));
        if (d.failing_seeds.size() > replayed_seeds) seeds.push_back("…");
        rows.push_back({d.name, fmt::format("{}", d.runs), fmt::format("{}", d.runs_with_violation),
                        fmt::format("{}", d.double_charges), rate, seeds.empty() ? "none" : fmt::format("{}", fmt::join(seeds, ", "))});
    }
    std::vector<std::size_t> widths(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line;
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            const std::string cell = r == 0 ? style.heading(rows[r][c]) : rows[r][c];
            line += c + 1 == rows[r].size() ? cell : pad_right(cell, widths[c] + 3);
        }
        out += line + "\n";
    }
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

nlohmann::ordered_json sweep_json(const SweepSummary& summary) {
    using Json = nlohmann::ordered_json;
    Json designs = Json::array();
    for (const auto& d : summary.designs) {
        Json entry{{"name", d.name},
                   {"runs", d.runs},
                   {"runs_with_violation", d.runs_with_violation},
                   {"double_charges", d.double_charges}};
        if (d.runs > 0) {
            const auto ci = wilson_interval(d.runs_with_violation, d.runs);
            entry["violation_rate"] = static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs);
            entry["wilson_95"] = {ci.low, ci.high};
        }
        entry["failing_seeds"] = d.failing_seeds;
        designs.push_back(std::move(entry));
    }
    return Json{{"scenario", summary.scenario},
                {"file", summary.file},
                {"seeds", {{"first", summary.seeds.first}, {"count", summary.seeds.count}}},
                {"shard", {{"index", summary.shard}, {"of", summary.shards}}},
                {"covered", {{"first", summary.covered.first}, {"count", summary.covered.count}}},
                {"designs", designs}};
}

SweepSummary sweep_from_json(const nlohmann::ordered_json& document, const std::string& file) {
    try {
        SweepSummary summary;
        summary.scenario = document.at("scenario").get<std::string>();
        summary.file = document.at("file").get<std::string>();
        summary.seeds = SeedBlock{document.at("seeds").at("first").get<std::uint64_t>(),
                                  document.at("seeds").at("count").get<std::uint64_t>()};
        summary.shard = document.at("shard").at("index").get<std::uint32_t>();
        summary.shards = document.at("shard").at("of").get<std::uint32_t>();
        summary.covered = SeedBlock{document.at("covered").at("first").get<std::uint64_t>(),
                                    document.at("covered").at("count").get<std::uint64_t>()};
        for (const auto& d : document.at("designs")) {
            DesignTally tally;
            tally.name = d.at("name").get<std::string>();
            tally.runs = d.at("runs").get<std::uint64_t>();
            tally.runs_with_violation = d.at("runs_with_violation").get<std::uint64_t>();
            tally.double_charges = d.at("double_charges").get<std::uint64_t>();
            tally.failing_seeds = d.at("failing_seeds").get<std::vector<std::uint64_t>>();
            summary.designs.push_back(std::move(tally));
        }
        if (summary.shards == 0 || summary.shard == 0 || summary.shard > summary.shards)
            throw SweepError(fmt::format("{}: shard {}/{} is not a shard index from 1 to its count", file, summary.shard,
                                         summary.shards));
        return summary;
    } catch (const nlohmann::json::exception& error) {
        throw SweepError(fmt::format("{}: not a locksim sweep summary (written by sweep --shard i/n --format json): {}",
                                     file, error.what()));
    }
}

SweepSummary merge_shards(std::vector<SweepSummary> shards, const std::vector<std::string>& files) {
    if (shards.empty()) throw SweepError("merge: no shard files given");
    const SweepSummary& first = shards.front();
    std::vector<std::string> seen(first.shards + 1);
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const SweepSummary& s = shards[i];
        const bool same_sweep = s.scenario == first.scenario && s.file == first.file && s.seeds.first == first.seeds.first &&
                                s.seeds.count == first.seeds.count && s.shards == first.shards &&
                                s.designs.size() == first.designs.size();
        if (!same_sweep)
            throw SweepError(fmt::format("merge: {} is a shard of another sweep than {} (scenario, file, seeds or shard "
                                         "count differ)", files[i], files[0]));
        if (!seen[s.shard].empty())
            throw SweepError(fmt::format("merge: shard {}/{} is given twice: {} and {}", s.shard, s.shards, seen[s.shard], files[i]));
        seen[s.shard] = files[i];
        const SeedBlock expected = shard_block(s.seeds, s.shard, s.shards);
        if (s.covered.first != expected.first || s.covered.count != expected.count)
            throw SweepError(fmt::format("merge: {} says shard {}/{} but covers other seeds", files[i], s.shard, s.shards));
    }
    std::vector<std::string> missing;
    for (std::uint32_t index = 1; index <= first.shards; ++index)
        if (seen[index].empty()) missing.push_back(fmt::format("{}/{}", index, first.shards));
    if (!missing.empty())
        throw SweepError(fmt::format("merge: {} {} {} missing; run {} with --shard and merge all {} files",
                                     missing.size() == 1 ? "shard" : "shards", fmt::join(missing, ", "),
                                     missing.size() == 1 ? "is" : "are", missing.size() == 1 ? "it" : "them", first.shards));

    std::sort(shards.begin(), shards.end(), [](const SweepSummary& a, const SweepSummary& b) { return a.shard < b.shard; });
    SweepSummary merged = shards.front();
    for (std::size_t i = 1; i < shards.size(); ++i) merged.merge_tallies(shards[i]);
    merged.shard = 1;
    merged.shards = 1;
    merged.covered = merged.seeds;
    return merged;
}

}  // namespace locksim
