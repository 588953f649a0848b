#include "cli/shard_choice.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "sim/whole_number.hpp"

namespace locksim {
namespace {

// An index or a count: digits only, within 32 bits.
std::optional<std::uint32_t> whole_number(const std::string& text) {
    const auto value = parse_whole_number(text, UINT32_MAX);
    if (!value) return std::nullopt;
    return static_cast<std::uint32_t>(*value);
}

constexpr const char* forms = "3/8 (the third of eight), slurm/8, k8s/8 or from0:2/8";

struct Counted {
    std::uint32_t index = 0;  // as written, in the base of `from`
    std::uint32_t from = 1;   // 0 or 1
    std::string source;
};

// Reads `name` from the environment for a scheduler's form: nullopt after setting `error`.
std::optional<std::uint32_t> scheduler_index(const std::string& name, const std::string& form, const std::string& hint,
                                             const EnvironmentLookup& environment, std::string& error) {
    const auto value = environment(name);
    if (!value) {
        error = fmt::format("--shard {}: {} is not set: {}", form, name, hint);
        return std::nullopt;
    }
    const auto index = whole_number(*value);
    if (!index) error = fmt::format("--shard {}: {} is \"{}\", not a whole number", form, name, *value);
    return index;
}

}  // namespace

EnvironmentLookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
    };
}

std::variant<ShardChoice, std::string> parse_shard(const std::string& text, const EnvironmentLookup& environment) {
    const auto slash = text.rfind('/');
    if (slash == std::string::npos) return fmt::format("--shard: expected {}, got \"{}\"", forms, text);
    const std::string which = text.substr(0, slash);
    const auto count = whole_number(text.substr(slash + 1));
    if (!count || *count == 0 || *count > max_shards)
        return fmt::format("--shard {}: the shard count after \"/\" must be a whole number from 1 to {}", text,
                           max_shards);

    Counted counted;
    std::string error;
    if (which == "slurm") {
        const std::string hint =
            fmt::format("this is not a Slurm array task (submit with sbatch --array=1-{})", *count);
        const auto id = scheduler_index("SLURM_ARRAY_TASK_ID", text, hint, environment, error);
        if (!id) return error;
        // Slurm numbers an array as it was submitted. An array that reaches outside 1…N
        // (0-7 for 8 shards, say) is refused in every task, not only in the task that
        // falls outside, so the mistake cannot produce a sweep with one block run twice.
        for (const char* bound : {"SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX"}) {
            const auto value = environment(bound);
            const auto number = value ? whole_number(*value) : std::nullopt;
            if (number && (*number < 1 || *number > *count))
                return fmt::format(
                    "--shard {}: this array runs {}-{}, but slurm/{} counts shards from 1 to {}: "
                    "submit with sbatch --array=1-{}",
                    text, environment("SLURM_ARRAY_TASK_MIN").value_or("?"),
                    environment("SLURM_ARRAY_TASK_MAX").value_or("?"), *count, *count, *count);
        }
        counted = Counted{*id, 1, fmt::format("SLURM_ARRAY_TASK_ID={}", *id)};
    } else if (which == "k8s") {
        const std::string hint = "this is not a pod of a Kubernetes Indexed Job (completionMode: Indexed)";
        const auto index = scheduler_index("JOB_COMPLETION_INDEX", text, hint, environment, error);
        if (!index) return error;
        counted = Counted{*index, 0, fmt::format("JOB_COMPLETION_INDEX={}", *index)};
    } else if (which.starts_with("from0:") || which.starts_with("from1:")) {
        const auto index = whole_number(which.substr(6));
        if (!index) return fmt::format("--shard {}: expected a whole number after \"{}\"", text, which.substr(0, 6));
        counted = Counted{*index, which[4] == '0' ? 0u : 1u, ""};
    } else {
        const auto index = whole_number(which);
        if (!index) return fmt::format("--shard: expected {}, got \"{}\"", forms, text);
        counted = Counted{*index, 1, ""};
    }

    const std::uint32_t last = *count - 1 + counted.from;
    if (counted.index < counted.from || counted.index > last) {
        const std::string got = counted.source.empty() ? fmt::format("{}", counted.index) : counted.source;
        if (counted.source.empty() && counted.from == 1 && counted.index == 0)
            return fmt::format(
                "--shard {}: {} is not a shard: shards count from 1 to {} here; for an index that "
                "counts from 0 (HTCondor's $(Process)) write from0:{}/{}",
                text, got, *count, counted.index, *count);
        return fmt::format("--shard {}: {} is outside {} to {}", text, got, counted.from, last);
    }
    return ShardChoice{counted.index + 1 - counted.from, *count, counted.source};
}

std::optional<ShardChoice> chosen_shard(const std::string& text) {
    auto parsed = parse_shard(text, process_environment());
    if (const auto* error = std::get_if<std::string>(&parsed)) {
        fmt::print(stderr, "{}\n", *error);
        return std::nullopt;
    }
    const ShardChoice shard = std::get<ShardChoice>(parsed);
    if (!shard.source.empty())
        fmt::print(stderr, "locksim: shard {}/{} ({})\n", shard.index, shard.count, shard.source);
    return shard;
}

}  // namespace locksim
