#pragma once
// An exception in the job's own code (a bad record, a bug, a statement or a charge that
// got no answer): it unwinds the job to where its error policy decides what follows (the
// job's "on_error": fail the run, skip the item, retry the job), the way an error reaches
// a real job's code.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace locksim {

struct JobError : std::runtime_error {
    // `item`: the one the job was handling when it met the error, if any.
    explicit JobError(const std::string& what, std::optional<std::int64_t> item = std::nullopt)
        : std::runtime_error(what), item(item) {}

    std::optional<std::int64_t> item;
};

}  // namespace locksim
