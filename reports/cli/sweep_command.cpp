#include "reports/cli/sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "reports/checks/metrics.hpp"
#include "reports/cli/scenario_runner.hpp"
#include "reports/cli/sweep_runner.hpp"
#include "reports/cli/terminal.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// A bar on the terminal, redrawn in place: nothing when output goes to a file or a pipe,
// or under CI. The wall clock here measures this process for the rate and the ETA only.
class ProgressBar {
public:
    explicit ProgressBar(std::uint64_t total)
        : total_(total), shown_(show_progress()),
          started_(std::chrono::steady_clock::now()) {}

    void update(std::uint64_t done) {
        if (!shown_ || total_ == 0) return;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
        const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
        constexpr int width = 30;
        const int filled = static_cast<int>(width * done / total_);
        fmt::print(stderr, "\r[{}{}] {:3}% {}/{} seeds · {:.0f} seeds/s · ETA {:.0f}s ", std::string(filled, '#'),
                   std::string(width - filled, '.'), 100 * done / total_, done, total_, rate, eta);
        std::fflush(stderr);
        drawn_ = true;
    }

    ~ProgressBar() {
        if (drawn_) fmt::print(stderr, "\r{}\r", std::string(100, ' '));
    }

private:
    std::uint64_t total_;
    bool shown_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point started_;
};

bool parse_shard(const std::string& text, std::uint32_t& index, std::uint32_t& count) {
    unsigned long i = 0, n = 0;
    char slash = 0;
    std::istringstream in(text);
    if (!(in >> i >> slash >> n) || slash != '/' || !in.eof()) return false;
    if (n == 0 || n > 100000 || i == 0 || i > n) return false;
    index = static_cast<std::uint32_t>(i);
    count = static_cast<std::uint32_t>(n);
    return true;
}

void print(const SweepSummary& summary, const std::string& format, const std::string& color, const std::string& program) {
    if (format == "json")
        fmt::print("{}\n", sweep_json(summary).dump(2));
    else
        fmt::print("{}", render_sweep_text(summary, program, use_colour(color_choice(color))));
}

}  // namespace

int sweep_command(const SweepCommandOptions& options) {
    const auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    const Scenario& scenario = *loaded;
    if (options.seeds == 0) {
        fmt::print(stderr, "--seeds: expected at least 1 seed\n");
        return 2;
    }
    if (options.start > UINT64_MAX - (options.seeds - 1)) {
        fmt::print(stderr, "--start: seeds {} and up would pass 2^64-1\n", options.start);
        return 2;
    }
    std::uint32_t shard = 1, shards = 1;
    if (options.shard && !parse_shard(*options.shard, shard, shards)) {
        fmt::print(stderr, "--shard: expected i/n with 1 <= i <= n, such as 3/8, got \"{}\"\n", *options.shard);
        return 2;
    }
    const SeedBlock all{options.start, options.seeds};
    const SeedBlock mine = shard_block(all, shard, shards);
    const unsigned threads = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());

    SweepSummary summary;
    try {
        ProgressBar bar(mine.count);
        summary = run_sweep(scenario, mine, threads, [&bar](std::uint64_t done) { bar.update(done); }, options.max_events);
    } catch (const RunawayRun& runaway) {
        fmt::print(stderr, "{}: {}\n", options.file, runaway.what());
        return 2;
    }
    summary.seeds = all;
    summary.shard = shard;
    summary.shards = shards;
    print(summary, options.shard ? "json" : options.format, options.color, options.program);
    return 0;
}

int merge_command(const MergeCommandOptions& options) {
    std::vector<SweepSummary> shards;
    try {
        for (const auto& file : options.files) {
            std::ifstream in(file);
            if (!in) throw SweepError(fmt::format("{}: cannot open the file", file));
            nlohmann::ordered_json document;
            try {
                document = nlohmann::ordered_json::parse(in);
            } catch (const nlohmann::json::parse_error& error) {
                throw SweepError(fmt::format("{}: not valid JSON: {}", file, error.what()));
            }
            shards.push_back(sweep_from_json(document, file));
        }
        const SweepSummary merged = merge_shards(std::move(shards), options.files);
        print(merged, options.format, options.color, options.program);
    } catch (const SweepError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return 2;
    }
    return 0;
}

}  // namespace locksim
