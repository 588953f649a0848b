#include "cli/worker_threads.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "cli/terminal.hpp"
#include "reports/text_style.hpp"

namespace locksim {

unsigned usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) return static_cast<unsigned>(count);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

std::optional<unsigned> worker_threads(unsigned jobs) {
    if (jobs > max_jobs) {
        fmt::print(stderr, "--jobs: at most {} threads (this process may use {} CPUs); got {}\n", max_jobs,
                   usable_cpus(), jobs);
        return std::nullopt;
    }
    return jobs > 0 ? jobs : usable_cpus();
}

ProgressBar::ProgressBar(std::uint64_t total, std::string unit)
    : total_(total),
      unit_(std::move(unit)),
      shown_(show_progress()),
      started_(std::chrono::steady_clock::now()),
      last_line_(started_) {}

ProgressBar::~ProgressBar() {
    if (drawn_) fmt::print(stderr, "\r{}\r", std::string(100, ' '));
}

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
    total_ = total;
    update(done);
}

void ProgressBar::update(std::uint64_t done) {
    if (total_ == 0) return;
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - started_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
    if (!shown_) {
        constexpr std::chrono::seconds every{10};
        if (now - last_line_ < every || done >= total_) return;
        last_line_ = now;
        fmt::print(stderr, "locksim: {} of {} {} done after {:.0f}s · {:.0f} {}/s · about {:.0f}s left\n",
                   grouped(done), grouped(total_), unit_, seconds, rate, unit_, eta);
        std::fflush(stderr);
        return;
    }
    constexpr int width = 30;
    const int filled = static_cast<int>(width * done / total_);
    fmt::print(stderr, "\r[{}{}] {:3}% {}/{} {} · {:.0f} {}/s · ETA {:.0f}s ", std::string(filled, '#'),
               std::string(width - filled, '.'), 100 * done / total_, done, total_, unit_, rate, unit_, eta);
    std::fflush(stderr);
    drawn_ = true;
}

}  // namespace locksim
