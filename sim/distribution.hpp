#pragma once
// A random duration as a scenario describes it: a link's delay, a pause's length, how
// far a clock steps. Every shape draws from a named RandomStream, so it replays.
#include "sim/random.hpp"
#include "sim/time.hpp"

namespace locksim {

struct DurationDistribution {
    enum class Shape { fixed, uniform, exponential, pareto, lognormal };
    Shape shape = Shape::fixed;
    Duration low{};              // fixed: the value; uniform: lower bound; exponential, pareto: the minimum
    Duration high{};             // uniform: upper bound (inclusive); pareto, lognormal: the cap
    Duration scale{};            // exponential: mean of the part above the minimum; lognormal: median
    double shape_parameter = 0;  // pareto: alpha; lognormal: sigma

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

    Duration draw(RandomStream& random) const {
        switch (shape) {
            case Shape::fixed: return low;
            case Shape::uniform: return random.uniform(low, high);
            case Shape::exponential: return low + random.exponential(scale);
            case Shape::pareto: return random.pareto(low, shape_parameter, high);
            case Shape::lognormal: return random.lognormal(scale, shape_parameter, high);
        }
        return low;
    }
};

// A link's one-way delay.
using DelayModel = DurationDistribution;

}  // namespace locksim
