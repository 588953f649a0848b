#pragma once
// A random duration as a scenario describes it: a link's delay, a pause's length, how
// far a clock steps. Every shape draws from a named RandomStream, so it replays.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/random.hpp"
#include "sim/time.hpp"

namespace locksim {

// A point of a measured distribution: `value` is the quantile at `probability`, in parts
// per billion (p99.9 is 999'000'000).
struct QuantilePoint {
    std::uint32_t probability = 0;
    Duration value{};
};

constexpr std::uint32_t probability_scale = 1'000'000'000;

struct DurationDistribution {
    enum class Shape { fixed, uniform, exponential, pareto, lognormal, quantiles };
    Shape shape = Shape::fixed;
    Duration low{};              // fixed: the value; uniform: lower bound; exponential, pareto: the minimum
    Duration high{};             // uniform: upper bound (inclusive); pareto, lognormal: the cap
    Duration scale{};            // exponential: mean of the part above the minimum; lognormal: median
    double shape_parameter = 0;  // pareto: alpha; lognormal: sigma
    // quantiles: from probability 0 (the minimum) to probability_scale (the maximum),
    // probabilities and values never falling. Two points at the same probability are a
    // jump: no draw falls between their values (a histogram's empty bucket). Shared and
    // never changed, because a sample file gives a point per line and every link of every
    // run copies its delay.
    std::shared_ptr<const std::vector<QuantilePoint>> points;

    static DurationDistribution fixed(Duration value) { return {Shape::fixed, value, value, {}, 0}; }
    static DurationDistribution uniform(Duration low, Duration high) { return {Shape::uniform, low, high, {}, 0}; }
    static DurationDistribution exponential(Duration minimum, Duration mean) {
        return {Shape::exponential, minimum, {}, mean, 0};
    }
    static DurationDistribution pareto(Duration minimum, double alpha, Duration cap) {
        return {Shape::pareto, minimum, cap, {}, alpha};
    }
    static DurationDistribution lognormal(Duration median, double sigma, Duration cap) {
        return {Shape::lognormal, {}, cap, median, sigma};
    }
    static DurationDistribution quantiles(std::vector<QuantilePoint> points) {
        const Duration minimum = points.front().value, maximum = points.back().value;
        return {Shape::quantiles,
                minimum,
                maximum,
                {},
                0,
                std::make_shared<const std::vector<QuantilePoint>>(std::move(points))};
    }

    Duration draw(RandomStream& random) const {
        switch (shape) {
            case Shape::fixed: return low;
            case Shape::uniform: return random.uniform(low, high);
            case Shape::exponential: return low + random.exponential(scale);
            case Shape::pareto: return random.pareto(low, shape_parameter, high);
            case Shape::lognormal: return random.lognormal(scale, shape_parameter, high);
            case Shape::quantiles: return draw_quantile(random);
        }
        return low;
    }

private:
    // The inverse of the distribution function through the given points: a uniform draw
    // of a probability u (in parts per billion), then log-linear interpolation between the
    // two points around it, x = a·(b/a)^t, or linear when the lower value is 0. Exact at
    // every given point; the same on every machine (portable_log and portable_exp). The
    // segment starts at the last point whose probability is at most u, so of two points
    // at one probability the draw continues from the second: a jump.
    Duration draw_quantile(RandomStream& random) const;
};

// A link's one-way delay.
using DelayModel = DurationDistribution;

}  // namespace locksim
