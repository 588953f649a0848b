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
#include "checks/vocabulary_json.hpp"
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
    {"runs_fault_reached",
     "Runs in which a fault, the scenario's own or one drawn from the seed, reached the lock: struck its holder, "
     "the store while it held one, or a message of theirs (as `locksim run` judges each fault). A rate over runs no "
     "fault reached says nothing about the faults, so a rate gate or a sweep's expectations fail while this is 0 "
     "unless they name it.",
     &DesignTally::runs_fault_reached},
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

// The totals a run adds to besides "runs", with their place in SeedCounts::counts.
template <class Tally, class Action>  // Tally: DesignTally or const DesignTally
void for_each_counted(Tally& tally, Action action) {
    std::size_t index = 0;
    for_each_total(tally, [&](std::string_view name, auto&& total) {
        if (name != run_counts[0].name) action(index++, name, total);
    });
}

// `total` + `more`, refused rather than wrapped: a sum past 2^64 - 1 would read as a small
// count, a green result from numbers that cannot be.
void add_to(std::uint64_t& total, std::uint64_t more, const std::string& design, std::string_view name) {
    if (__builtin_add_overflow(total, more, &total))
        throw SweepError(fmt::format("design {}'s {} pass 2^64 - 1 when added up", design, name));
}

}  // namespace

bool SeedCounts::counted_anything() const {
    return std::any_of(counts.begin(), counts.end(), [](std::uint64_t count) { return count > 0; });
}

SeedCounts seed_counts(std::uint64_t seed, const RunMetrics& metrics, std::uint32_t violations, bool unfinished) {
    SeedCounts run{seed, {}};
    run.counts[0] = violations > 0 ? 1 : 0;
    run.counts[1] = unfinished ? 1 : 0;
    run.counts[2] = metrics.fault_reached_the_lock ? 1 : 0;
    std::size_t index = 3;
    for (const auto& spec : metric_table)
        if (spec.swept) run.counts[index++] = static_cast<std::uint64_t>(metrics.value(spec.metric));
    return run;
}

std::vector<std::string_view> counted_total_names() {
    std::vector<std::string_view> names;
    const DesignTally none;
    for_each_counted(none, [&](std::size_t, std::string_view name, std::uint64_t) { names.push_back(name); });
    return names;
}

std::array<std::uint64_t, counted_totals> DesignTally::counted() const {
    std::array<std::uint64_t, counted_totals> totals{};
    for_each_counted(*this, [&](std::size_t index, std::string_view, std::uint64_t total) { totals[index] = total; });
    return totals;
}

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

void DesignTally::add(const SeedCounts& run) {
    add_to(runs, 1, name, run_counts[0].name);
    for_each_counted(*this, [&](std::size_t index, std::string_view total_name, std::uint64_t& total) {
        add_to(total, run.counts[index], name, total_name);
    });
    if (run.unfinished()) keep_smallest(unfinished_seeds, run.seed);
    if (run.violated()) keep_smallest(failing_seeds, run.seed);
    if (!keeps_seeds || !run.counted_anything()) return;
    // Seeds come nearly in order: each worker takes the next.
    const auto later = [](const SeedCounts& a, const SeedCounts& b) { return a.seed < b.seed; };
    seeds_counted.insert(std::upper_bound(seeds_counted.begin(), seeds_counted.end(), run, later), run);
}

std::int64_t DesignTally::total(std::string_view name) const {
    std::optional<std::uint64_t> found;
    for_each_total(*this, [&](std::string_view total_name, std::uint64_t total) {
        if (total_name == name) found = total;
    });
    if (!found) throw std::logic_error(fmt::format("a sweep has no total named \"{}\"", name));
    return static_cast<std::int64_t>(*found);
}

std::uint64_t& DesignTally::total_named(std::string_view name) {
    std::uint64_t* found = nullptr;
    for_each_total(*this, [&](std::string_view total_name, std::uint64_t& total) {
        if (total_name == name) found = &total;
    });
    if (found == nullptr) throw std::logic_error(fmt::format("a sweep has no total named \"{}\"", name));
    return *found;
}

void DesignTally::merge(const DesignTally& other) {
    add_to(runs, other.runs, name, run_counts[0].name);
    const auto theirs = other.counted();
    for_each_counted(*this, [&](std::size_t index, std::string_view total_name, std::uint64_t& total) {
        add_to(total, theirs[index], name, total_name);
    });
    failing_seeds = smallest_of_both(failing_seeds, other.failing_seeds);
    unfinished_seeds = smallest_of_both(unfinished_seeds, other.unfinished_seeds);
    if (!keeps_seeds) return;
    if (!other.keeps_seeds) {  // what was kept no longer covers every run
        keeps_seeds = false;
        seeds_counted.clear();
        return;
    }
    std::vector<SeedCounts> both;
    std::merge(seeds_counted.begin(), seeds_counted.end(), other.seeds_counted.begin(), other.seeds_counted.end(),
               std::back_inserter(both), [](const SeedCounts& a, const SeedCounts& b) { return a.seed < b.seed; });
    seeds_counted = std::move(both);
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

std::string describe_unfinished(const DesignTally& tally, const std::string& program, const std::string& file,
                                std::optional<std::uint64_t> given_fault) {
    if (tally.runs_unfinished == 0) return "";
    std::string text = fmt::format(
        "{} of {} runs were cut by their horizon with work pending (runs_unfinished): what they would have done "
        "after it is not counted",
        tally.runs_unfinished, tally.runs);
    if (!tally.unfinished_seeds.empty())
        text += "; replay the first: " +
                replay_command(program, file, tally.unfinished_seeds.front(), tally.name, std::nullopt, given_fault);
    return text;
}

std::string describe_vacuous(const DesignTally& tally, const std::string& program, const std::string& file,
                             std::uint64_t first_seed, std::optional<std::uint64_t> given_fault, std::string_view why) {
    if (tally.runs_fault_reached > 0 || tally.runs == 0) return "";
    return fmt::format(
        "no fault reached the lock (its holder, the store while it held one, or a message of theirs) in {} {}{}, so "
        "its rate says nothing about the faults; see what each fault struck: {}",
        tally.runs, tally.runs == 1 ? "run" : "runs", why,
        replay_command(program, file, first_seed, tally.name, std::nullopt, given_fault));
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

std::string sweep_command_line(const std::string& file, SeedBlock seeds, const SweepSettings& settings,
                               std::uint32_t shard, std::uint32_t shards) {
    std::string command =
        fmt::format("locksim sweep {} --seeds {} --start {}", shell_quoted(file), seeds.count, seeds.first);
    if (settings.design) command += " --design " + shell_quoted(*settings.design);
    if (settings.event_limit != Engine::default_event_limit)
        command += fmt::format(" --max-events {}", settings.event_limit);
    if (settings.given_fault) command += fmt::format(" --given-fault {}", *settings.given_fault);
    if (shards > 1) command += fmt::format(" --shard {}/{}", shard, shards);
    return command;
}

std::string sweep_command_line(const SweepSummary& summary, std::uint32_t shard) {
    return shard == 0 ? sweep_command_line(summary.file, summary.seeds, summary.settings, 1, 1)
                      : sweep_command_line(summary.file, summary.seeds, summary.settings, shard, summary.shards);
}

std::string what_changed(const SweepProvenance& before, const std::string& before_name,
                         const std::map<std::string, std::string>& data_files_now, const std::string& now_name,
                         std::string_view when) {
    const auto hash = [](const std::map<std::string, std::string>& files, const std::string& name) {
        const auto found = files.find(name);
        return found == files.end() ? std::string("none (it read no such file)") : found->second;
    };
    std::vector<std::string> names;
    for (const auto& [name, sha256] : before.data_files) names.push_back(name);
    for (const auto& [name, sha256] : data_files_now)
        if (!before.data_files.contains(name)) names.push_back(name);
    for (const auto& name : names) {
        const std::string then = hash(before.data_files, name), now = hash(data_files_now, name);
        if (then != now)
            return fmt::format("the file of samples {} changed {} (its SHA-256 is {} in {}, {} in {})", name, when,
                               then, before_name, now, now_name);
    }
    return fmt::format("the scenario file's bytes differ: it was edited {}", when);
}

void add_totals_json(const DesignTally& tally, nlohmann::ordered_json& entry) {
    for_each_total(tally, [&entry](std::string_view name, std::uint64_t total) { entry[std::string(name)] = total; });
}

std::string seed_counts_text(const std::vector<SeedCounts>& seeds, std::uint64_t first) {
    std::string text;
    for (const auto& run : seeds) {
        if (!text.empty()) text += ' ';
        text += fmt::format("{}:{}", run.seed - first, fmt::join(run.counts, ","));
    }
    return text;
}

nlohmann::ordered_json provenance_json(const SweepProvenance& provenance) {
    return nlohmann::ordered_json{{"scenario_sha256", provenance.scenario_sha256},
                                  {"data_files", provenance.data_files},
                                  {"locksim_version", provenance.locksim_version},
                                  {"commit", provenance.commit},
                                  {"command", provenance.command}};
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
            // Given a rare fault, the rate per run above is given that it strikes; weighed
            // by how often it does (an exact number), the rate of incidents with it.
            if (summary.given) {
                const double p = summary.given->probability;
                entry["rate_with_given_fault"] = p * entry["violation_rate"].get<double>();
                entry["rate_with_given_fault_95"] = {p * ci.low, p * ci.high};
            }
        }
        entry["failing_seeds"] = d.failing_seeds;
        entry["unfinished_seeds"] = d.unfinished_seeds;
        if (d.keeps_seeds) entry["per_seed"] = seed_counts_text(d.seeds_counted, summary.covered.first);
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
    document["settings"] = {{"design", summary.settings.design ? Json(*summary.settings.design) : Json(nullptr)},
                            {"max_events", summary.settings.event_limit}};
    if (summary.given)
        document["given_fault"] = {{"generator", summary.given->generator},
                                   {"probability", summary.given->probability},
                                   {"fault", summary.given->fault}};
    document["provenance"] = provenance_json(summary.provenance);
    document["vocabulary"] = vocabulary_json(summary.words);
    document["designs"] = std::move(designs);
    return document;
}

void check_arithmetic(const SweepSummary& summary, const std::string& file) {
    const auto fail = [&](const std::string& what) {
        throw SweepError(fmt::format("{}: shard {}/{}: {}; its totals cannot be trusted: rerun it with {}", file,
                                     summary.shard, summary.shards, what, sweep_command_line(summary, summary.shard)));
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
    if (summary.provenance.command != sweep_command_line(summary, summary.shard))
        fail(fmt::format("provenance.command is {}, not the command of its file, seeds and settings",
                         summary.provenance.command));
    if (summary.designs.empty()) fail("it has no designs");
    for (std::size_t d = 1; d < summary.designs.size(); ++d)
        for (std::size_t e = 0; e < d; ++e)
            if (summary.designs[d].name == summary.designs[e].name)
                fail(fmt::format("design {} is listed twice", summary.designs[d].name));
    if (summary.settings.design &&
        (summary.designs.size() != 1 || summary.designs.front().name != *summary.settings.design))
        fail(fmt::format("it ran only the design {} (settings.design), yet lists others", *summary.settings.design));
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
        if (d.runs_fault_reached > d.runs)
            fail(fmt::format("design {} has {} runs a fault reached out of {}", d.name, d.runs_fault_reached, d.runs));
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
        if (!d.keeps_seeds) continue;
        // The per-seed counts are the runs themselves: the totals and kept seeds follow
        // from them, and a total edited alone no longer does.
        if (d.seeds_counted.size() > d.runs)
            fail(fmt::format("design {} has per-seed counts for {} seeds of its {} runs", d.name,
                             d.seeds_counted.size(), d.runs));
        DesignTally again{d.name};
        again.keeps_seeds = true;
        again.runs = d.runs - d.seeds_counted.size();  // the runs that counted nothing
        for (const auto& run : d.seeds_counted) {
            if (run.seed < summary.covered.first || run.seed - summary.covered.first >= summary.covered.count)
                fail(fmt::format("design {} has per-seed counts for seed {}, outside its block", d.name, run.seed));
            if (run.counts[0] > 1 || run.counts[1] > 1 || run.counts[2] > 1)
                fail(
                    fmt::format("design {} counts seed {} as {} runs with a violation, {} unfinished runs and {} "
                                "runs a fault reached; a seed is one run",
                                d.name, run.seed, run.counts[0], run.counts[1], run.counts[2]));
            try {
                again.add(run);
            } catch (const SweepError& error) {
                fail(fmt::format("{} (its per-seed counts)", error.what()));
            }
        }
        const auto names = counted_total_names();
        const auto mine = d.counted(), theirs = again.counted();
        for (std::size_t t = 0; t < counted_totals; ++t)
            if (mine[t] != theirs[t])
                fail(fmt::format("design {}'s {} is {}, but its per-seed counts add up to {}", d.name, names[t],
                                 mine[t], theirs[t]));
        if (again.failing_seeds != d.failing_seeds || again.unfinished_seeds != d.unfinished_seeds)
            fail(fmt::format("design {} lists failing or unfinished seeds other than its per-seed counts' first",
                             d.name));
    }
}

}  // namespace locksim
