#include "checks/command_line.hpp"

#include <fmt/format.h>

namespace locksim {

std::string replay_command(const std::string& program, const std::string& file, std::uint64_t seed,
                           const std::optional<std::string>& design, const std::optional<std::string>& faults) {
    return fmt::format("{} run {} --seed {}{}{}", shell_quoted(program), shell_quoted(file), seed,
                       design ? " --design " + shell_quoted(*design) : "",
                       faults ? " --faults " + shell_quoted(*faults) : "");
}

}  // namespace locksim
