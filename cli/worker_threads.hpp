#pragma once
// How many threads a command that runs many simulations uses, and the progress bar it
// shows on a terminal while they run.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace locksim {

// More threads than this is a typing mistake, not a machine.
constexpr unsigned max_jobs = 4096;

// The CPUs this process may run on: its affinity mask, which taskset and Slurm's CPU
// allotment narrow, rather than every CPU of the machine. (A CPU quota, such as docker
// --cpus or a Kubernetes CPU limit, is not an affinity: give --jobs there.)
unsigned usable_cpus();

// --jobs as given (0: every usable CPU), or nullopt after printing why it is refused.
std::optional<unsigned> worker_threads(unsigned jobs);

// A bar on the terminal, redrawn in place. When stderr is a file, a pipe or a CI log, a
// plain line instead, once the work has run 10 s and every 10 s after: a long explore or
// sweep in CI says how far it is rather than print nothing. The wall clock here measures
// this process for the rate and the time left only; nothing of it reaches stdout.
class ProgressBar {
public:
    // `unit`: what is counted, plural ("seeds", "placements").
    ProgressBar(std::uint64_t total, std::string unit);
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;
    ~ProgressBar();

    void update(std::uint64_t done);
    void update(std::uint64_t done, std::uint64_t total);

private:
    std::uint64_t total_;
    std::string unit_;
    bool shown_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_line_;  // of the plain lines, when not on a terminal
};

}  // namespace locksim
