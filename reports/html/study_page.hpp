#pragma once
// The page of `locksim sweep FILE --vary … --report DIR`: one self-contained page (inline
// CSS and SVG, no script, nothing fetched) with a chart per varied field of the violation
// rate against its values (study_chart.hpp), what the intervals cover, the seeds, the
// command that reproduces the study, and every rate in a table.
#include <string>

#include "checks/study.hpp"

namespace locksim {

// The whole page; the same study gives the same bytes.
std::string render_study_page(const Study& study);

}  // namespace locksim
