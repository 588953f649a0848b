#pragma once
#include "reports/figure/sequence_figure.hpp"

namespace locksim {

// Adds to each violation's explanation who sent the request behind it, when, and how
// long after the store had let that sender's lease go (and any pause it slept through).
void explain_violations(SequenceFigure& figure);

}  // namespace locksim
