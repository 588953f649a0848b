#pragma once
// `--shard`: which block of a sweep's seeds this process runs. Shards count from 1 ("3/8"
// is the third of eight). A scheduler's own index can be used directly, and each form says
// where it counts from, so an array numbered from 0 cannot silently run the wrong block:
//
//   3/8            the third of eight
//   slurm/8        $SLURM_ARRAY_TASK_ID, counted from 1: submit with sbatch --array=1-8
//                  (or any part of 1-8 when rerunning shards); an array that reaches
//                  outside 1-8 fails every task at once
//   k8s/8          $JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, counted from 0
//   from0:I/8      any index counted from 0, such as HTCondor's $(Process)
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "checks/sweep_summary.hpp"

namespace locksim {

struct ShardChoice {
    std::uint32_t index = 1;  // from 1
    std::uint32_t count = 1;
    std::string source;  // where the index came from, "SLURM_ARRAY_TASK_ID=3"; empty if written out
};

// The forms `--shard` takes, for --help, a line each.
inline constexpr std::string_view shard_forms_help =
    "  3/8        the third of eight (shards count from 1)\n"
    "  slurm/8    $SLURM_ARRAY_TASK_ID, from 1: submit with sbatch --array=1-8\n"
    "  k8s/8      $JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, from 0\n"
    "  from0:I/8  an index counted from 0, such as HTCondor's $(Process)";

// The environment variable's value, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvironmentLookup process_environment();

// The shard, or a one-line message saying what is wrong and what to write instead.
std::variant<ShardChoice, std::string> parse_shard(const std::string& text, const EnvironmentLookup& environment);

// The shard `--shard` chose in this process's environment, said on stderr when a scheduler
// gave its index; nullopt after printing the message when it is wrong (exit 2).
std::optional<ShardChoice> chosen_shard(const std::string& text);

}  // namespace locksim
