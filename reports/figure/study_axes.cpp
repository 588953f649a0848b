#include "reports/figure/study_axes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <variant>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// log10 of an exact power of ten can come out a hair off it; this keeps 0.01 in decade -2.
constexpr double decade_slack = 1e-9;

// A value as a magnitude for the log scale: a duration in nanoseconds or a plain number.
struct Magnitude {
    bool duration = false;
    double amount = 0;
};

std::optional<Magnitude> magnitude_of(const nlohmann::ordered_json& value) {
    if (value.is_number()) return Magnitude{false, value.get<double>()};
    if (!value.is_string()) return std::nullopt;
    const auto parsed = parse_duration(value.get<std::string>());
    if (const auto* d = std::get_if<Duration>(&parsed)) return Magnitude{true, static_cast<double>(d->ns)};
    return std::nullopt;
}

}  // namespace

RateInterval rate_interval(const DesignTally& tally) {
    assert(tally.runs > 0);
    const auto ci = wilson_interval(tally.runs_with_violation, tally.runs);
    return RateInterval{tally.runs_with_violation, tally.runs,
                        static_cast<double>(tally.runs_with_violation) / static_cast<double>(tally.runs), ci.low,
                        ci.high};
}

RateAxis::RateAxis(const std::vector<RateInterval>& intervals) {
    double smallest = 0;
    double largest = 0;
    for (const auto& interval : intervals) {
        for (const double bound : {interval.low, interval.rate, interval.high})
            if (bound > 0) smallest = smallest == 0 ? bound : std::min(smallest, bound);
        largest = std::max(largest, interval.high);
    }
    if (smallest == 0) return;  // nothing to draw: the default decades
    top_ = std::min(0, static_cast<int>(std::ceil(std::log10(largest) - decade_slack)));
    bottom_ = std::min(top_ - 1, static_cast<int>(std::floor(std::log10(smallest) + decade_slack)));
}

double RateAxis::height_fraction(double rate) const {
    assert(rate > 0);
    return (std::log10(rate) - bottom_) / static_cast<double>(decades());
}

std::string gridline_label(int decade, int mantissa) {
    assert(mantissa >= 1 && mantissa <= 9);
    // Written out digit by digit, never in scientific notation: 10^decade as a
    // percentage is 10^(decade + 2).
    const int exponent = decade + 2;
    if (exponent >= 0) return fmt::format("{}{}%", mantissa, std::string(static_cast<std::size_t>(exponent), '0'));
    return fmt::format("0.{}{}%", std::string(static_cast<std::size_t>(-exponent - 1), '0'), mantissa);
}

ValueAxis::ValueAxis(const VariedField& field) : fractions_(field.values.size(), 0.5) {
    const std::size_t count = field.values.size();
    std::vector<Magnitude> magnitudes;
    for (const auto& value : field.values)
        if (const auto magnitude = magnitude_of(value)) magnitudes.push_back(*magnitude);
    const bool comparable =
        magnitudes.size() == count && std::all_of(magnitudes.begin(), magnitudes.end(), [&](const Magnitude& m) {
            return m.duration == magnitudes.front().duration && m.amount > 0;
        });
    if (comparable) {
        const auto [least, most] =
            std::minmax_element(magnitudes.begin(), magnitudes.end(),
                                [](const Magnitude& a, const Magnitude& b) { return a.amount < b.amount; });
        span_ = most->amount / least->amount;
        logarithmic_ = span_ >= 10;
        if (logarithmic_) {
            for (std::size_t i = 0; i < count; ++i)
                fractions_[i] = std::log10(magnitudes[i].amount / least->amount) / std::log10(span_);
            return;
        }
    }
    if (count > 1)
        for (std::size_t i = 0; i < count; ++i) fractions_[i] = static_cast<double>(i) / static_cast<double>(count - 1);
}

}  // namespace locksim
