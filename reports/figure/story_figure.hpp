#pragma once
// The story view of one design's run: only the steps that tell its outcome. Kept: every
// violation and protection, every fault, the lock's life (grants, beliefs, expiries,
// releases, failovers), everything about the customers a checker flagged, and the message
// that set each kept step off, step by step back (the request behind a grant, the reply
// behind a belief). Folded: a client's refused retries into its first attempt, which
// counts them; a flagged customer's message said again in the same words (a status read
// each round); store-internal traffic (replication, consensus, heartbeats) unless it set
// a kept step off; other customers' work; and in a long run, the background far from
// anything flagged. Lanes with nothing kept are left out.
// Steps keep their numbers, so e178 in the story is e178 in the full figure.
#include <cstddef>
#include <string>
#include <vector>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {

struct StoryFigure {
    SequenceFigure figure;  // the kept steps, in order, on the lanes they use
    std::size_t retries_folded = 0;
    std::size_t repeats_folded = 0;        // a flagged customer's message said again, the same words
    std::size_t far_from_flags = 0;        // in a long run, background far from anything flagged
    std::size_t store_traffic_folded = 0;  // messages between store or service nodes
    std::size_t other_left_out = 0;        // the rest: other customers' work, renewals, reads
    std::vector<std::string> lanes_left_out;
};

StoryFigure build_story_figure(const SequenceFigure& full);

}  // namespace locksim
