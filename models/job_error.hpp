#pragma once
// An exception in the job's own code (a bad record, a bug, a charge the provider never
// answered): it unwinds the job to its finally path, the way an uncaught error ends a
// real job.
#include <stdexcept>

namespace locksim {

struct JobError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace locksim
