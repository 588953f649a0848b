#pragma once
// One chart of a study page (`sweep --vary … --report DIR`): the violation rate against
// one varied field's values, as inline SVG. Up: the rate on a log scale (RateAxis, shared
// by every chart of the page so that they compare), each point with its 95 % Wilson
// interval as a bar; a rate of 0 sits hollow in a band under the lowest decade, labelled
// "0 of N runs", with its bar rising to its upper bound, and no line to it. Across: the
// field's values (ValueAxis). A line per series (study_series.hpp) through its rates on the
// scale, each with its own colour and marker shape so that it reads in grey too, and a
// legend under the plot. 720 px wide, scaled down in a narrower window.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/study.hpp"
#include "reports/figure/study_axes.hpp"

namespace locksim {

// "0 of 20 runs", "0 of 1 run": what the band of zeros is labelled, for `runs` per point.
std::string zero_label(std::uint64_t runs);

// `anchor` prefixes the SVG's ids: a slug, unique on the page.
std::string render_study_chart(const Study& study, std::size_t field, const RateAxis& rates, const std::string& anchor);

}  // namespace locksim
