#pragma once
// How explore tries a family: at every strike point, each of a list of sizes (or, for a
// family with an end, over a range of lengths; for a clock step, over a range of sizes), and how its sizes read in
// explore's text, JSON and map. Explore builds a family's fault with its explored() (the fault on a node, struck at a
// trigger, of a size).
#include <string>
#include <string_view>
#include <vector>

#include "models/faults/fault_member.hpp"
#include "sim/odds.hpp"

namespace locksim {

struct ExploreShape {
    std::string_view key;         // "pause": how an explore block names the family
    std::string_view size_field;  // "for": the member that holds its sizes
    // What a size may be: signed (a clock steps back as well as forward), within a bound
    // (NTP slews under 128 ms). The fault's own member holds its amount to the same rule.
    AmountRule size_rule{};
    // A size may be null: the fault has no end (a crash that stays down), said as
    // `no_end` ("stays down").
    bool size_may_be_null = false;
    std::string_view no_end;         // "stays down"
    std::string_view no_end_gerund;  // "staying down"
    bool has_cause = false;          // a pause's "kind": gc, sigstop, swap
    // The fault holds something from its start until an end (a paused process until it
    // resumes, a crashed node until it restarts): explore can try it over a range of
    // lengths exactly, every start against every end (runners/fault_regions.hpp).
    bool has_end = false;
    // The fault has a size rather than an end (a clock step's "by"): explore can try it over
    // a signed range of sizes, refined to 1 ms at each start (runners/size_regions.hpp).
    bool sized_range = false;
    // The fault acts on links, and a cut link loses what is sent on it: an event of a node
    // at either end of a link it cuts (every node, when the other side is every node) can
    // separate two starts, not only the target's.
    bool strikes_links = false;
    // The fault resets the requests waiting on the target (a crash: its kernel refuses
    // them, sim/network.hpp), so whether a request had been sent to it before the start
    // tells two starts apart: its sender's sending is an event of the sender's.
    bool resets_requests = false;
    // The member that names the nodes the target is cut off from ("apart_from"); the
    // family's key then holds [[target], [those nodes]]. Empty: the family has none.
    std::string_view other_side_field;
    // The other side must be one node (a loss burst strikes one link).
    bool one_other_node = false;
    // The entry may say "one_way": true: only what the target sends is cut or lost.
    bool may_be_one_way = false;
    // The member that gives the odds a message is lost at ("loss"); empty: none.
    std::string_view odds_field;
    std::string_view name;        // "pause" ("gc pause" with its cause), "clock step"
    std::string_view listing;     // "pauses of 1s, 40s": what precedes the sizes in a list
    std::string_view size_joint;  // "gc pause 29s", "clock step by -5s", "crash, back after 10s"
    // The JSON Schema's words for an explore block's entry, its sizes and its other side.
    std::string_view description;     // "Pauses of each length at every strike point of each target."
    std::string_view size_doc;        // "The lengths to try: …"
    std::string_view other_side_doc;  // when other_side_field is set
};

// What an explored fault is besides its node, trigger and size: a pause's cause ("gc"), the
// nodes a partition cuts its target off from (empty: every other node) or the one a loss
// burst strikes the link to, whether only what the target sends is cut, the odds of a loss.
struct ExploreDetails {
    std::string cause;
    std::vector<std::string> apart_from;
    bool one_way = false;  // only what the target sends
    Odds loss{1, 1};       // a loss burst's
};

}  // namespace locksim
