#pragma once
// Randomness that replays on every machine: xoshiro256** seeded through splitmix64,
// one named stream per component, and distributions written here rather than taken
// from <random> (whose distributions differ between standard libraries).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "sim/time.hpp"

namespace locksim {

class RandomStream {
public:
    // The stream for component `name` in the run with `seed`. Streams of different names
    // are independent, so adding a component never shifts another component's draws.
    RandomStream(std::uint64_t seed, std::string_view name);
    // The stream named by the parts written one after the other ("server-1", "/", "work"
    // is the stream "server-1/work"), without building the name.
    RandomStream(std::uint64_t seed, std::initializer_list<std::string_view> name_parts);

    std::uint64_t next_u64();

    // Uniform in [0, bound); bound > 0. Unbiased (Lemire's method with rejection).
    std::uint64_t below(std::uint64_t bound);

    // Uniform in [low, high], both ends included; low <= high.
    Duration uniform(Duration low, Duration high);

    // Exponential with the given mean, truncated to whole nanoseconds.
    Duration exponential(Duration mean);

    // Pareto with scale `minimum` and shape `alpha` (> 0): heavy-tailed, P(X > x) =
    // (minimum/x)^alpha. Capped at `cap` so one draw cannot run past any horizon.
    Duration pareto(Duration minimum, double alpha, Duration cap);

    // Lognormal whose median is `median` and whose log has standard deviation `sigma`.
    // The normal draw is the sum of twelve uniforms minus six (Irwin-Hall): exact in
    // mean and variance, thin-tailed beyond six sigma, and the same on every machine.
    Duration lognormal(Duration median, double sigma, Duration cap);

    // True with probability numerator/denominator: integer ratios, no float probabilities.
    bool chance(std::uint64_t numerator, std::uint64_t denominator);

    // `digits` lowercase hex digits, as a Redis client's random lock value.
    std::string hex(int digits);

private:
    std::uint64_t state_[4];
};

// Natural logarithm computed with + - * / only, so it rounds identically everywhere
// (libm's log is not required to). Defined for x > 0.
double portable_log(double x);

// e^x with + - * / only, for the same reason.
double portable_exp(double x);

}  // namespace locksim
