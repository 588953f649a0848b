#pragma once
// Where a study chart (`sweep --vary … --report DIR`) puts a point: up, its violation rate
// on a log scale; across, the value of the varied field.
//
// Rates a study compares differ by orders of magnitude (0.3 % at a 5 s TTL, 0.003 % at
// 30 s), so the rate axis runs over whole decades chosen from the data. A rate of 0 has no
// place on a log axis; a chart draws it in a band of its own under the lowest decade,
// with its interval rising from there, since "0 of 20 runs" still allows 16 %.
#include <cstdint>
#include <string>
#include <vector>

#include "checks/study.hpp"

namespace locksim {

// A design's rate at one point of the grid, with the 95 % Wilson interval the text table
// prints (rate_with_interval).
struct RateInterval {
    std::uint64_t violating = 0;
    std::uint64_t runs = 0;  // > 0
    double rate = 0;
    double low = 0;
    double high = 0;
};

// REQUIRES: tally.runs > 0.
RateInterval rate_interval(const DesignTally& tally);

class RateAxis {
public:
    // The decades from the smallest positive rate or bound drawn to the largest upper bound,
    // at least one decade, at most up to 100 %. A rate of 0 contributes only its upper
    // bound (its lower one is 0, which sits in the band).
    explicit RateAxis(const std::vector<RateInterval>& intervals);

    // 10^bottom_decade is the axis' lowest gridline, 10^top_decade its highest.
    int bottom_decade() const { return bottom_; }
    int top_decade() const { return top_; }
    int decades() const { return top_ - bottom_; }

    // From 0 at the bottom gridline to 1 at the top one. REQUIRES: rate > 0.
    double height_fraction(double rate) const;

private:
    int bottom_ = -2;
    int top_ = 0;
};

// The label of the gridline at mantissa × 10^decade, as a percentage: "100%", "1%",
// "0.01%" for the decades (mantissa 1), "0.2%" or "50%" between them.
std::string gridline_label(int decade, int mantissa = 1);

class ValueAxis {
public:
    // Durations or positive numbers spanning a factor of 10 or more are placed on a log
    // scale; anything else (a short span, a zero, strings, objects) evenly, in the order
    // given, since the order in which a person wrote the values is the only one there is.
    explicit ValueAxis(const VariedField& field);

    bool logarithmic() const { return logarithmic_; }
    // The largest value over the smallest, when every value is a duration or a positive
    // number; 0 otherwise.
    double span() const { return span_; }
    // From 0 (the leftmost place a value may take) to 1 (the rightmost).
    double fraction(std::size_t value) const { return fractions_[value]; }

private:
    bool logarithmic_ = false;
    double span_ = 0;
    std::vector<double> fractions_;
};

}  // namespace locksim
