#include "checks/sweep_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "checks/command_line.hpp"
#include "checks/metric_words.hpp"
#include "sim/wide_int.hpp"

namespace locksim {

namespace {

// A sweep's own counts of runs, by the names its JSON and a sweep's "expect" use; the
// metrics it totals follow them (MetricSpec::swept).
struct RunCount {
    std::string_view name;
    std::string_view meaning;
    std::uint64_t DesignTally::*count;
};
constexpr RunCount run_counts[] = {
    {"runs", "Runs, one per seed.", &DesignTally::runs},
    {"runs_with_violation",
     "Runs that broke what the lock is for: a checker flagged a violation (the metrics `locksim metrics` marks as "
     "violations).",
     &DesignTally::runs_with_violation},
    {"runs_unfinished",
     "Runs cut by their horizon with work pending: a job run started and not ended, or a charge request that timed "
     "out and had not reached the provider. What they would have done is not counted, so a sweep's expectations "
     "fail while this is above 0 unless they name it.",
     &DesignTally::runs_unfinished},
};

// Keeps `seed` among the smallest kept_failing_seeds of `seeds` (ascending, no repeats).
void keep_smallest(std::vector<std::uint64_t>& seeds, std::uint64_t seed) {
    const auto at = std::lower_bound(seeds.begin(), seeds.end(), seed);
    if (at != seeds.end() && *at == seed) return;
    seeds.insert(at, seed);
    if (seeds.size() > kept_failing_seeds) seeds.pop_back();
}

// The smallest kept_failing_seeds of both lists.
std::vector<std::uint64_t> smallest_of_both(const std::vector<std::uint64_t>& mine,
                                            const std::vector<std::uint64_t>& theirs) {
    std::vector<std::uint64_t> both;
    std::merge(mine.begin(), mine.end(), theirs.begin(), theirs.end(), std::back_inserter(both));
    both.erase(std::unique(both.begin(), both.end()), both.end());
    if (both.size() > kept_failing_seeds) both.resize(kept_failing_seeds);
    return both;
}

// Every total a summary keeps per design, by name, in the order its JSON lists them.
template <class Tally, class Action>  // Tally: DesignTally or const DesignTally
void for_each_total(Tally& tally, Action action) {
    for (const auto& count : run_counts) action(count.name, tally.*count.count);
    for (const auto& spec : metric_table)
        if (spec.swept) action(spec.name, tally.metric_total(spec.metric));
}

}  // namespace

std::vector<TotalSpec> sweep_totals() {
    std::vector<TotalSpec> totals;
    for (const auto& count : run_counts)
        totals.push_back(TotalSpec{std::string(count.name), std::string(count.meaning)});
    for (const auto& spec : metric_table)
        if (spec.swept)
            totals.push_back(
                TotalSpec{std::string(spec.name), fmt::format("{} Added up over the runs.", spec.meaning)});
    return totals;
}

void DesignTally::add(std::uint64_t seed, const RunMetrics& metrics, std::uint32_t violations, bool unfinished) {
    ++runs;
    for (const auto& spec : metric_table)
        if (spec.swept) metric_total(spec.metric) += static_cast<std::uint64_t>(metrics.value(spec.metric));
    if (unfinished) {
        ++runs_unfinished;
        keep_smallest(unfinished_seeds, seed);
    }
    if (violations == 0) return;
    ++runs_with_violation;
    keep_smallest(failing_seeds, seed);
}

std::int64_t DesignTally::total(std::string_view name) const {
    std::optional<std::uint64_t> found;
    for_each_total(*this, [&](std::string_view total_name, std::uint64_t total) {
        if (total_name == name) found = total;
    });
    if (!found) throw std::logic_error(fmt::format("a sweep has no total named \"{}\"", name));
    return static_cast<std::int64_t>(*found);
}

void DesignTally::merge(const DesignTally& other) {
    runs += other.runs;
    runs_with_violation += other.runs_with_violation;
    runs_unfinished += other.runs_unfinished;
    for (std::size_t m = 0; m < metric_count; ++m) metric_totals[m] += other.metric_totals[m];
    failing_seeds = smallest_of_both(failing_seeds, other.failing_seeds);
    unfinished_seeds = smallest_of_both(unfinished_seeds, other.unfinished_seeds);
}

void SweepSummary::merge_tallies(const SweepSummary& other) {
    assert(other.designs.size() == designs.size());
    for (std::size_t d = 0; d < designs.size(); ++d) {
        assert(other.designs[d].name == designs[d].name);
        designs[d].merge(other.designs[d]);
    }
}

SeedBlock shard_block(SeedBlock seeds, std::uint32_t shard, std::uint32_t shards) {
    // In 128 bits: count × shard passes 2^64 for a sweep of more than 2^64 / shards seeds.
    const auto begin = static_cast<std::uint64_t>(uint128{seeds.count} * (shard - 1) / shards);
    const auto end = static_cast<std::uint64_t>(uint128{seeds.count} * shard / shards);
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

std::string describe_unfinished(const DesignTally& tally, const std::string& program, const std::string& file) {
    if (tally.runs_unfinished == 0) return "";
    std::string text = fmt::format(
        "{} of {} runs were cut by their horizon with work pending (runs_unfinished): what they would have done "
        "after it is not counted",
        tally.runs_unfinished, tally.runs);
    if (!tally.unfinished_seeds.empty())
        text += "; replay the first: " + replay_command(program, file, tally.unfinished_seeds.front(), tally.name);
    return text;
}

std::string index_ranges(const std::vector<std::uint32_t>& indices) {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < indices.size();) {
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
        parts.push_back(j == i ? fmt::format("{}", indices[i]) : fmt::format("{}-{}", indices[i], indices[j]));
        i = j + 1;
    }
    return fmt::format("{}", fmt::join(parts, ","));
}

std::string sweep_command_line(const std::string& file, SeedBlock seeds, std::uint32_t shard, std::uint32_t shards) {
    std::string command =
        fmt::format("locksim sweep {} --seeds {} --start {}", shell_quoted(file), seeds.count, seeds.first);
    if (shards > 1) command += fmt::format(" --shard {}/{}", shard, shards);
    return command;
}

void add_totals_json(const DesignTally& tally, nlohmann::ordered_json& entry) {
    for_each_total(tally, [&entry](std::string_view name, std::uint64_t total) { entry[std::string(name)] = total; });
}

nlohmann::ordered_json sweep_json(const SweepSummary& summary) {
    using Json = nlohmann::ordered_json;
    Json designs = Json::array();
    for (const auto& d : summary.designs) {
        Json entry{{"name", d.name}};
        add_totals_json(d, entry);
        if (d.runs > 0) {
            const auto ci = wilson_interval(d.runs_with_violation, d.runs);
            entry["violation_rate"] = static_cast<double>(d.runs_with_violation) / static_cast<double>(d.runs);
            entry["wilson_95"] = {ci.low, ci.high};
        }
        entry["failing_seeds"] = d.failing_seeds;
        entry["unfinished_seeds"] = d.unfinished_seeds;
        designs.push_back(std::move(entry));
    }
    // The shard comes first after the sweep, so a file cut short still says which it was.
    Json document{{"scenario", summary.scenario},
                  {"file", summary.file},
                  {"seeds", {{"first", summary.seeds.first}, {"count", summary.seeds.count}}}};
    if (summary.partial_shards.empty()) {
        document["shard"] = {{"index", summary.shard}, {"of", summary.shards}};
        document["covered"] = {{"first", summary.covered.first}, {"count", summary.covered.count}};
    } else {
        document["shard"] = {{"of", summary.shards}};
        std::uint64_t covered = 0;
        for (auto index : summary.partial_shards) covered += shard_block(summary.seeds, index, summary.shards).count;
        document["partial"] = {{"shards_present", summary.partial_shards}, {"seeds_covered", covered}};
    }
    document["provenance"] = {{"scenario_sha256", summary.provenance.scenario_sha256},
                              {"locksim_version", summary.provenance.locksim_version},
                              {"commit", summary.provenance.commit},
                              {"command", summary.provenance.command}};
    document["vocabulary"] = {{"item", summary.words.item},
                              {"effect", summary.words.effect},
                              {"provider", summary.words.provider},
                              {"record", summary.words.record}};
    document["designs"] = std::move(designs);
    return document;
}

namespace {

// One line naming the file and what is wrong with its totals.
void check_arithmetic(const SweepSummary& summary, const std::string& file) {
    const auto fail = [&](const std::string& what) {
        throw SweepError(fmt::format("{}: shard {}/{}: {}; its totals cannot be trusted: rerun it with {}", file,
                                     summary.shard, summary.shards, what,
                                     sweep_command_line(summary.file, summary.seeds, summary.shard, summary.shards)));
    };
    if (summary.shards == 0 || summary.shards > max_shards || summary.shard == 0 || summary.shard > summary.shards)
        throw SweepError(fmt::format("{}: shard {}/{} is not a shard index from 1 to its count", file, summary.shard,
                                     summary.shards));
    if (summary.seeds.count == 0 || summary.seeds.first > UINT64_MAX - (summary.seeds.count - 1))
        throw SweepError(fmt::format("{}: the seeds {} and {} more are not a block of seeds", file, summary.seeds.first,
                                     summary.seeds.count));
    const SeedBlock expected = shard_block(summary.seeds, summary.shard, summary.shards);
    if (summary.covered.first != expected.first || summary.covered.count != expected.count)
        fail(fmt::format("it covers seeds {} and {} more, but shard {}/{} of seeds {}…{} is {} and {} more",
                         summary.covered.first, summary.covered.count, summary.shard, summary.shards,
                         summary.seeds.first, summary.seeds.first + summary.seeds.count - 1, expected.first,
                         expected.count));
    if (summary.designs.empty()) fail("it has no designs");
    for (std::size_t d = 1; d < summary.designs.size(); ++d)
        for (std::size_t e = 0; e < d; ++e)
            if (summary.designs[d].name == summary.designs[e].name)
                fail(fmt::format("design {} is listed twice", summary.designs[d].name));
    for (const auto& d : summary.designs) {
        if (d.runs != summary.covered.count)
            fail(fmt::format("design {} has {} runs for {} seeds", d.name, d.runs, summary.covered.count));
        if (d.runs_with_violation > d.runs)
            fail(
                fmt::format("design {} has {} runs with a violation out of {}", d.name, d.runs_with_violation, d.runs));
        for (const auto& spec : metric_table)
            if (spec.swept && spec.violation() && d.metric_total(spec.metric) > 0 && d.runs_with_violation == 0)
                fail(fmt::format("design {} has {} {} but no run with a violation", d.name, d.metric_total(spec.metric),
                                 metric_many(spec.metric, summary.words)));
        if (d.runs_unfinished > d.runs)
            fail(fmt::format("design {} has {} unfinished runs out of {}", d.name, d.runs_unfinished, d.runs));
        // The kept seeds of `count` runs: the first of them, ascending, inside the block.
        const auto sound_seeds = [&](const std::vector<std::uint64_t>& seeds, std::uint64_t count) {
            const bool in_block = std::all_of(seeds.begin(), seeds.end(), [&](std::uint64_t seed) {
                return seed >= summary.covered.first && seed - summary.covered.first < summary.covered.count;
            });
            const bool ascending =
                std::adjacent_find(seeds.begin(), seeds.end(), std::greater_equal<>()) == seeds.end();
            return seeds.size() == std::min<std::uint64_t>(kept_failing_seeds, count) && in_block && ascending;
        };
        const std::size_t kept = std::min<std::uint64_t>(kept_failing_seeds, d.runs_with_violation);
        if (!sound_seeds(d.failing_seeds, d.runs_with_violation))
            fail(
                fmt::format("design {} lists failing seeds that are not the first {} of its {} failing runs in its "
                            "block",
                            d.name, kept, d.runs_with_violation));
        if (!sound_seeds(d.unfinished_seeds, d.runs_unfinished))
            fail(fmt::format(
                "design {} lists unfinished seeds that are not the first {} of its {} unfinished runs in its block",
                d.name, std::min<std::uint64_t>(kept_failing_seeds, d.runs_unfinished), d.runs_unfinished));
    }
}

}  // namespace

SweepSummary sweep_from_json(const nlohmann::ordered_json& document, const std::string& file) {
    // Every count is a whole number within its type: a sign, a fraction or an exponent
    // means the file was not written by sweep_json, and a cast would hide that.
    const auto count = [&](const nlohmann::ordered_json& value, const char* name,
                           std::uint64_t max = UINT64_MAX) -> std::uint64_t {
        if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
            throw SweepError(
                fmt::format("{}: not a locksim sweep summary (written by sweep --shard i/n): {} is {}, not "
                            "a whole number from 0 to {}",
                            file, name, value.dump(), max));
        return value.get<std::uint64_t>();
    };
    SweepSummary summary;
    try {
        summary.scenario = document.at("scenario").get<std::string>();
        summary.file = document.at("file").get<std::string>();
        summary.seeds = SeedBlock{count(document.at("seeds").at("first"), "seeds.first"),
                                  count(document.at("seeds").at("count"), "seeds.count")};
        if (document.contains("partial"))
            throw SweepError(fmt::format("{}: the totals of a partial merge; merge the shard files themselves", file));
        summary.shard = static_cast<std::uint32_t>(count(document.at("shard").at("index"), "shard.index", max_shards));
        summary.shards = static_cast<std::uint32_t>(count(document.at("shard").at("of"), "shard.of", max_shards));
        summary.covered = SeedBlock{count(document.at("covered").at("first"), "covered.first"),
                                    count(document.at("covered").at("count"), "covered.count")};
        if (!document.contains("provenance"))
            throw SweepError(
                fmt::format("{}: says nothing of what produced it (no \"provenance\"): written by an older "
                            "locksim; rerun the shard",
                            file));
        const auto& provenance = document.at("provenance");
        summary.provenance = SweepProvenance{
            provenance.at("scenario_sha256").get<std::string>(), provenance.at("locksim_version").get<std::string>(),
            provenance.at("commit").get<std::string>(), provenance.at("command").get<std::string>()};
        // Absent from a summary written before sweeps spoke the scenario's words.
        if (document.contains("vocabulary")) {
            const auto& words = document.at("vocabulary");
            summary.words = Vocabulary{words.at("item").get<std::string>(), words.at("effect").get<std::string>(),
                                       words.at("provider").get<std::string>(), words.at("record").get<std::string>()};
        }
        for (const auto& d : document.at("designs")) {
            DesignTally tally;
            tally.name = d.at("name").get<std::string>();
            for_each_total(tally, [&](std::string_view name, std::uint64_t& total) {
                const std::string key(name);
                // A summary from before sweeps totalled overlaps and stale writes lacks them;
                // one without even "runs" is no summary at all, which at() reports below.
                if (!d.contains(key) && d.contains("runs"))
                    throw SweepError(
                        fmt::format("{}: design {} has no {}: written by an older locksim; rerun the shard", file,
                                    tally.name, key));
                total = count(d.at(key), key.c_str());
            });
            for (const auto& seed : d.at("failing_seeds")) tally.failing_seeds.push_back(count(seed, "a failing seed"));
            for (const auto& seed : d.at("unfinished_seeds"))
                tally.unfinished_seeds.push_back(count(seed, "an unfinished seed"));
            summary.designs.push_back(std::move(tally));
        }
    } catch (const nlohmann::json::exception& error) {
        throw SweepError(
            fmt::format("{}: not a locksim sweep summary (written by sweep --shard i/n): {}", file, error.what()));
    }
    check_arithmetic(summary, file);
    return summary;
}

}  // namespace locksim
