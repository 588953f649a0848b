#include "checks/sweep_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "checks/metric_words.hpp"

namespace locksim {
namespace {

// What a file cut short still says about itself: sweep_json writes the shard early.
IncompleteShard incomplete_shard(const std::string& file, const std::string& text) {
    IncompleteShard shard{file, text.size(), std::nullopt, std::nullopt};
    static const std::regex index_of(
        R"re("shard"\s*:\s*\{\s*"index"\s*:\s*([0-9]{1,9})\s*,\s*"of"\s*:\s*([0-9]{1,9}))re");
    std::smatch match;
    if (std::regex_search(text, match, index_of)) {
        shard.index = static_cast<std::uint32_t>(std::stoul(match[1]));
        shard.count = static_cast<std::uint32_t>(std::stoul(match[2]));
    }
    return shard;
}

// Throws unless `s` is a shard of the same sweep as `first`, naming the field that differs.
void check_same_sweep(const SweepSummary& first, const std::string& first_file, const SweepSummary& s,
                      const std::string& file) {
    struct Field {
        const char* name;
        std::string mine, theirs;
    };
    // As a JSON list, so that names with commas in them cannot make two lists look alike.
    const auto design_names = [](const SweepSummary& summary) {
        nlohmann::json names = nlohmann::json::array();
        for (const auto& d : summary.designs) names.push_back(d.name);
        return names.dump();
    };
    const Field fields[] = {
        {"provenance.scenario_sha256", s.provenance.scenario_sha256, first.provenance.scenario_sha256},
        {"provenance.locksim_version", s.provenance.locksim_version, first.provenance.locksim_version},
        {"provenance.commit", s.provenance.commit, first.provenance.commit},
        {"explore", s.explore.empty() ? "absent (a sweep's shard)" : s.explore,
         first.explore.empty() ? "absent (a sweep's shard)" : first.explore},
        {"seeds", fmt::format("{} from {}", s.seeds.count, s.seeds.first),
         fmt::format("{} from {}", first.seeds.count, first.seeds.first)},
        {"shard.of", fmt::format("{}", s.shards), fmt::format("{}", first.shards)},
        {"designs", design_names(s), design_names(first)},
    };
    for (const auto& field : fields) {
        if (field.mine == field.theirs) continue;
        std::string why;
        if (std::string_view(field.name) == "provenance.scenario_sha256")
            why = " (the scenario file's bytes differ: it was edited between the shards)";
        else if (std::string_view(field.name) != "seeds" && std::string_view(field.name) != "shard.of" &&
                 std::string_view(field.name) != "designs" && std::string_view(field.name) != "explore")
            why = " (another build of locksim)";
        throw SweepError(
            fmt::format("merge: {} is not a shard of the same sweep as {}: {} is {}, not {}{}; rerun "
                        "every shard with one scenario file and one locksim",
                        file, first_file, field.name, field.mine, field.theirs, why));
    }
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

// A shard's command with its --shard replaced: by shard `index`, or by nothing (0) for the
// command of the whole sweep. Anything else it carries (--max-events) stays.
std::string command_for(const SweepSummary& shard, std::uint32_t index) {
    std::string command = shard.provenance.command;
    const std::string own = fmt::format(" --shard {}/{}", shard.shard, shard.shards);
    const std::string other = index == 0 ? "" : fmt::format(" --shard {}/{}", index, shard.shards);
    const auto at = shard.shards > 1 ? command.find(own) : command.size();
    if (at == std::string::npos)  // not written by sweep_command_line: write it anew
        return index == 0 ? sweep_command_line(shard.file, shard.seeds, 1, 1)
                          : sweep_command_line(shard.file, shard.seeds, index, shard.shards);
    command.replace(at, shard.shards > 1 ? own.size() : 0, other);
    return command;
}

std::string rerun_hint(const SweepSummary& sweep, std::uint32_t index) {
    return command_for(sweep, index);
}

}  // namespace

void add_shard_file(ShardFiles& files, const std::string& file, const std::string& text) {
    nlohmann::ordered_json document;
    try {
        document = nlohmann::ordered_json::parse(text);
    } catch (const nlohmann::json::parse_error& error) {
        // Cut short (nothing wrong until the text ran out: the parser stops one past the
        // end) is a killed task; anything else is not a shard file.
        if (text.find_first_not_of(" \t\r\n") == std::string::npos || error.byte > text.size()) {
            files.incomplete.push_back(incomplete_shard(file, text));
            return;
        }
        throw SweepError(fmt::format("{}: not a locksim sweep summary: not valid JSON at byte {}", file, error.byte));
    } catch (const nlohmann::json::exception& error) {  // a number beyond a double, say
        throw SweepError(fmt::format("{}: not a locksim sweep summary: {}", file, error.what()));
    }
    if (is_explore_shard(document)) {
        ExploreShard shard = explore_shard_from_json(document, file);
        files.complete.push_back(shard_header(shard));
        files.explorations.push_back(std::move(shard));
    } else {
        files.complete.push_back(sweep_from_json(document, file));
        files.explorations.push_back(std::nullopt);
    }
    files.complete_files.push_back(file);
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

    std::vector<std::size_t> order(files.complete.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return files.complete[a].shard < files.complete[b].shard; });
    SweepSummary merged = files.complete[order.front()];
    for (std::size_t i = 1; i < order.size(); ++i) {
        const SweepSummary& next = files.complete[order[i]];
        // Runs are bounded by the seeds, which fit 64 bits; the metrics' totals are not.
        for (std::size_t d = 0; d < merged.designs.size(); ++d)
            for (const auto& spec : metric_table) {
                std::uint64_t sum = 0;
                if (spec.swept && __builtin_add_overflow(merged.designs[d].metric_total(spec.metric),
                                                         next.designs[d].metric_total(spec.metric), &sum))
                    throw SweepError(fmt::format(
                        "merge: {}: design {}'s {} overflow 64 bits when added up; "
                        "the file cannot be a locksim shard: rerun it",
                        files.complete_files[order[i]], next.designs[d].name, metric_many(spec.metric, merged.words)));
            }
        merged.merge_tallies(next);
    }
    merged.shard = 1;
    merged.shards = 1;
    merged.covered = merged.seeds;
    merged.provenance.command = command_for(files.complete[order.front()], 0);
    if (!missing.empty()) {
        merged.shards = first.shards;
        for (auto i : order) merged.partial_shards.push_back(files.complete[i].shard);
    }
    return merged;
}

}  // namespace locksim
