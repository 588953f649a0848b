#include "cli/sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/metrics.hpp"
#include "checks/sweep_merge.hpp"
#include "cli/atomic_file.hpp"
#include "cli/build_info.hpp"
#include "cli/shard_choice.hpp"
#include "cli/terminal.hpp"
#include "cli/worker_threads.hpp"
#include "reports/sweep_text.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

std::string rendered(const SweepSummary& summary, const std::string& format, const std::string& color,
                     const std::string& program) {
    if (format == "json") return sweep_json(summary).dump(2) + "\n";
    // Colour only ever goes to a terminal, never into a file.
    return render_sweep_text(summary, program, use_colour(color_choice(color)));
}

// Prints the result, or writes it whole to `output`: false after printing why it could not.
bool deliver(const std::string& text, const std::optional<std::string>& output) {
    if (!output) {
        fmt::print("{}", text);
        return true;
    }
    try {
        write_file_atomically(*output, text);
    } catch (const OutputError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return false;
    }
    return true;
}

SweepProvenance provenance_of(const Scenario& scenario, SeedBlock seeds, std::uint32_t shard, std::uint32_t shards,
                              std::uint64_t max_events) {
    std::string command = sweep_command_line(scenario.file, seeds, shard, shards);
    if (max_events != Engine::default_event_limit) command += fmt::format(" --max-events {}", max_events);
    return SweepProvenance{scenario.content_sha256, locksim_version, build_commit, std::move(command)};
}

}  // namespace

int sweep_command(const SweepCommandOptions& options) {
    if (options.seeds == 0) {
        fmt::print(stderr, "--seeds: expected at least 1 seed\n");
        return 2;
    }
    if (options.start > UINT64_MAX - (options.seeds - 1)) {
        fmt::print(stderr, "--start: seeds {} and up would pass 2^64-1\n", options.start);
        return 2;
    }
    ShardChoice shard;
    if (options.shard) {
        auto parsed = parse_shard(*options.shard, process_environment());
        if (const auto* error = std::get_if<std::string>(&parsed)) {
            fmt::print(stderr, "{}\n", *error);
            return 2;
        }
        shard = std::get<ShardChoice>(parsed);
        if (!shard.source.empty())
            fmt::print(stderr, "locksim: shard {}/{} ({})\n", shard.index, shard.count, shard.source);
    }
    if (shard.count > options.seeds) {
        fmt::print(stderr, "--shard {}: {} seeds cannot fill {} shards; split them into at most {}\n", *options.shard,
                   options.seeds, shard.count, options.seeds);
        return 2;
    }
    const auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    const Scenario& scenario = *loaded;
    const SeedBlock all{options.start, options.seeds};
    const SeedBlock mine = shard_block(all, shard.index, shard.count);
    const auto threads = worker_threads(options.jobs);
    if (!threads) return 2;

    SweepSummary summary;
    try {
        ProgressBar bar(mine.count, "seeds");
        summary = run_sweep(
            scenario, mine, *threads, [&bar](std::uint64_t done) { bar.update(done); }, options.max_events);
    } catch (const RunawayRun& runaway) {
        fmt::print(stderr, "{}: {}\n", options.file, runaway.what());
        return 2;
    }
    summary.seeds = all;
    summary.shard = shard.index;
    summary.shards = shard.count;
    summary.provenance = provenance_of(scenario, all, shard.index, shard.count, options.max_events);
    // A shard is always JSON: it is for `merge`.
    const std::string format = options.shard ? "json" : options.format;
    return deliver(rendered(summary, format, options.output ? "never" : options.color, options.program), options.output)
               ? 0
               : 2;
}

int merge_command(const MergeCommandOptions& options) {
    ShardFiles files;
    try {
        for (const auto& file : options.files) {
            if (std::filesystem::is_directory(file))
                throw SweepError(
                    fmt::format("{}: is a directory; give the shard files in it, such as {}/shard-*.json", file, file));
            std::ifstream in(file, std::ios::binary);
            if (!in) throw SweepError(fmt::format("{}: cannot open the file: {}", file, std::strerror(errno)));
            std::ostringstream text;
            text << in.rdbuf();
            add_shard_file(files, file, text.str());
        }
        if (options.missing) {
            const auto missing = missing_shards(files);
            const std::uint32_t shards = files.complete.front().shards;
            if (missing.empty())
                fmt::print(stderr, "merge: {} present and complete\n",
                           shards == 1 ? "the one shard is" : fmt::format("all {} shards are", shards));
            else
                fmt::print("{}\n", index_ranges(missing));
            return 0;
        }
        if (options.partial)
            for (const auto& cut : files.incomplete)
                fmt::print(stderr, "merge: {} is incomplete; left out\n", cut.file);
        const SweepSummary merged = merge_shards(files, options.partial ? MergeMode::partial : MergeMode::whole);
        const std::string color = options.output ? "never" : options.color;
        return deliver(rendered(merged, options.format, color, options.program), options.output) ? 0 : 2;
    } catch (const SweepError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return 2;
    }
}

}  // namespace locksim
