#include "checks/sweep_merge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checks/vocabulary_json.hpp"

namespace locksim {
namespace {

// Throws unless `s` is a shard of the same sweep as `first`, naming the field that differs.
// Every field must agree but the file's path: the same scenario under another path (another
// machine's checkout) is the same sweep, as its SHA-256 proves.
void check_same_sweep(const SweepSummary& first, const std::string& first_file, const SweepSummary& s,
                      const std::string& file) {
    const auto design = [](const SweepSettings& settings) {
        return settings.design ? nlohmann::json(*settings.design).dump() : std::string("every design");
    };
    const std::string edited =
        what_changed(first.provenance, first_file, s.provenance.data_files, file, "between the shards");
    const SweepField fields[] = {
        {"provenance.scenario_sha256", s.provenance.scenario_sha256, first.provenance.scenario_sha256,
         fmt::format(" ({})", edited)},
        {"provenance.locksim_version", s.provenance.locksim_version, first.provenance.locksim_version,
         " (another build of locksim)"},
        {"provenance.commit", s.provenance.commit, first.provenance.commit, " (another build of locksim)"},
        {"explore", s.explore.empty() ? "absent (a sweep's shard)" : s.explore,
         first.explore.empty() ? "absent (a sweep's shard)" : first.explore},
        {"seeds", fmt::format("{} from {}", s.seeds.count, s.seeds.first),
         fmt::format("{} from {}", first.seeds.count, first.seeds.first)},
        {"shard.of", fmt::format("{}", s.shards), fmt::format("{}", first.shards)},
        {"settings.design", design(s.settings), design(first.settings)},
        {"settings.max_events", fmt::format("{}", s.settings.event_limit),
         fmt::format("{}", first.settings.event_limit)},
    };
    std::optional<SweepField> differs;
    for (const auto& field : fields)
        if (!differs && field.mine != field.theirs) differs = field;
    if (!differs) differs = recomputed_difference(s, first);
    if (!differs) return;
    throw SweepError(
        fmt::format("merge: {} is not a shard of the same sweep as {}: {} is {}, not {}{}; rerun "
                    "every shard with one scenario file and one locksim",
                    file, first_file, differs->name, differs->mine, differs->theirs, differs->why));
}

// Checks the complete shards are one sweep, each index at most once; returns which
// file holds each index (empty where none does).
std::vector<std::string> files_by_index(const ShardFiles& files) {
    if (files.complete.empty()) {
        if (files.incomplete.empty()) throw SweepError("merge: no shard files given");
        throw SweepError(
            fmt::format("merge: every file given is incomplete ({} and {} more): no shard says which sweep "
                        "this is; rerun the sweep",
                        files.incomplete.front().file, files.incomplete.size() - 1));
    }
    const SweepSummary& first = files.complete.front();
    std::vector<std::string> seen(first.shards + 1);
    for (std::size_t i = 0; i < files.complete.size(); ++i) {
        const SweepSummary& s = files.complete[i];
        check_same_sweep(first, files.complete_files.front(), s, files.complete_files[i]);
        if (!seen[s.shard].empty())
            throw SweepError(fmt::format("merge: shard {}/{} is given twice: {} and {}", s.shard, s.shards,
                                         seen[s.shard], files.complete_files[i]));
        seen[s.shard] = files.complete_files[i];
    }
    return seen;
}

std::string rerun_hint(const SweepSummary& sweep, std::uint32_t index) {
    return sweep_command_line(sweep, index);
}

// Every total of every design added up over the shards fits 64 bits, or SweepError naming
// the shard with the most of it: a count past 2^64 - 1 in all is no count of runs, and the
// shard that holds the most of it is the one to rerun, not the one added last.
void check_totals_fit(const ShardFiles& files) {
    const SweepSummary& first = files.complete.front();
    const auto names = counted_total_names();
    for (std::size_t d = 0; d < first.designs.size(); ++d)
        for (std::size_t t = 0; t < counted_totals; ++t) {
            std::uint64_t sum = 0;
            std::size_t most = 0;
            bool overflow = false;
            for (std::size_t i = 0; i < files.complete.size(); ++i) {
                const std::uint64_t count = files.complete[i].designs[d].counted()[t];
                overflow = __builtin_add_overflow(sum, count, &sum) || overflow;
                if (count > files.complete[most].designs[d].counted()[t]) most = i;
            }
            if (!overflow) continue;
            const SweepSummary& blamed = files.complete[most];
            throw SweepError(fmt::format(
                "merge: {}: design {}'s {} add up past 2^64 - 1 over the shards; shard {}/{}, the one with the most, "
                "counts {} in {} runs: rerun it: {}",
                files.complete_files[most], blamed.designs[d].name, names[t], blamed.shard, blamed.shards,
                blamed.designs[d].counted()[t], blamed.designs[d].runs, rerun_hint(blamed, blamed.shard)));
        }
}

}  // namespace

std::optional<SweepField> recomputed_difference(const SweepSummary& mine, const SweepSummary& theirs) {
    // As JSON, so that names with commas in them cannot make two lists look alike.
    const auto design_names = [](const SweepSummary& summary) {
        nlohmann::json names = nlohmann::json::array();
        for (const auto& d : summary.designs) names.push_back(d.name);
        return names.dump();
    };
    const auto words = [](const Vocabulary& v) { return vocabulary_json(v).dump(); };
    // As it reads: the generator, the probability the runs were weighed by, and the fault in
    // words; a probability written back exactly as it was read (JSON keeps 17 digits).
    const auto given = [](const SweepSummary& summary) {
        return summary.given ? nlohmann::json{{"generator", summary.given->generator},
                                              {"probability", summary.given->probability},
                                              {"fault", summary.given->fault}}
                                   .dump()
                             : std::string("none (plain runs)");
    };
    const SweepField fields[] = {
        {"scenario", nlohmann::json(mine.scenario).dump(), nlohmann::json(theirs.scenario).dump()},
        {"vocabulary", words(mine.words), words(theirs.words)},
        {"given_fault", given(mine), given(theirs)},
        {"designs", design_names(mine), design_names(theirs)},
    };
    for (const auto& field : fields)
        if (field.mine != field.theirs) return field;
    return std::nullopt;
}

std::vector<std::uint32_t> missing_shards(const ShardFiles& files) {
    const std::vector<std::string> seen = files_by_index(files);
    std::vector<std::uint32_t> missing;
    for (std::uint32_t index = 1; index < seen.size(); ++index)
        if (seen[index].empty()) missing.push_back(index);
    return missing;
}

void require_every_shard(const ShardFiles& files) {
    const std::vector<std::uint32_t> missing = missing_shards(files);
    const SweepSummary& first = files.complete.front();
    const std::vector<std::string> seen = files_by_index(files);
    for (const auto& cut : files.incomplete) {
        const bool known = cut.index && cut.count == first.shards && *cut.index >= 1 && *cut.index <= first.shards;
        if (known && !seen[*cut.index].empty())
            throw SweepError(
                fmt::format("merge: {} is an incomplete copy of shard {}/{}, which {} holds whole: "
                            "leave it out",
                            cut.file, *cut.index, *cut.count, seen[*cut.index]));
        if (known)
            throw SweepError(
                fmt::format("merge: {}: shard {}/{} is incomplete (the file ends after {} bytes; its "
                            "task was stopped while writing): rerun it: {}",
                            cut.file, *cut.index, *cut.count, cut.bytes, rerun_hint(first, *cut.index)));
        std::string which;
        if (missing.empty())
            which = "nothing: every shard is present elsewhere; leave it out";
        else if (missing.size() == 1)
            which = fmt::format("shard {}/{}, the one missing: {}", missing[0], first.shards,
                                rerun_hint(first, missing[0]));
        else
            which = fmt::format("the missing shards {} of {} (locksim merge --missing lists them)",
                                index_ranges(missing), first.shards);
        throw SweepError(
            fmt::format("merge: {} is an incomplete shard ({} bytes: its task was stopped before it "
                        "wrote its result): rerun {}",
                        cut.file, cut.bytes, which));
    }
    if (!missing.empty()) {
        std::vector<std::string> names;
        for (auto index : missing) names.push_back(fmt::format("{}/{}", index, first.shards));
        throw SweepError(
            fmt::format("merge: {} {} {} missing; run {} with --shard and merge all {} files (locksim "
                        "merge --missing prints them for sbatch --array=)",
                        missing.size() == 1 ? "shard" : "shards", fmt::join(names, ", "),
                        missing.size() == 1 ? "is" : "are", missing.size() == 1 ? "it" : "them", first.shards));
    }
}

SweepSummary merge_shards(const ShardFiles& files, MergeMode mode) {
    const std::vector<std::uint32_t> missing = missing_shards(files);
    const SweepSummary& first = files.complete.front();
    if (mode == MergeMode::whole) require_every_shard(files);
    check_totals_fit(files);

    std::vector<std::size_t> order(files.complete.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return files.complete[a].shard < files.complete[b].shard; });
    SweepSummary merged = files.complete[order.front()];
    for (auto& design : merged.designs) {  // the whole keeps no per-seed counts, as an unsharded sweep
        design.keeps_seeds = false;
        design.seeds_counted.clear();
    }
    for (std::size_t i = 1; i < order.size(); ++i) merged.merge_tallies(files.complete[order[i]]);
    merged.shard = 1;
    merged.shards = 1;
    merged.covered = merged.seeds;
    merged.provenance.command = sweep_command_line(merged, 0);
    if (!missing.empty()) {
        merged.shards = first.shards;
        for (auto i : order) merged.partial_shards.push_back(files.complete[i].shard);
    }
    return merged;
}

}  // namespace locksim
