#pragma once
// What a fault family reads of one entry of a scenario file, the same way whether the
// entry is a fault ("faults": one fault, fixed) or a generator ("fault_generators": a
// shape whose targets and amounts are drawn per seed). The scenario reader implements it;
// a family reads its own members through it and never sees JSON.
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/faults/fault_member.hpp"
#include "sim/network.hpp"
#include "sim/time.hpp"

namespace locksim {

// What the reader takes besides a family's declared members: a placed fault's time (one
// of the two), or a generator's window and whether it strikes its targets at once.
inline constexpr std::string_view placed_timing_members[] = {"at", "when"};
inline constexpr std::string_view generator_window_members[] = {"mean_interval", "from", "until", "at_once"};

class FaultReader {
public:
    virtual ~FaultReader() = default;

    // Whether the entry is a generator's: targets and amounts are drawn per seed.
    virtual bool drawn() const = 0;
    virtual bool has(std::string_view field) const = 0;
    // The entry's declared members: the reader refuses any other besides the timing ("at"
    // and "when", or a generator's "mean_interval", "from", "until" and "at_once"), which
    // it adds.
    // Called first; every member read below must be declared, with its type.
    virtual void declare(const FaultEntry& entry) const = 0;

    // The node a fault on one node strikes: a node's name or a role ({"role": "holder"}).
    // Drawn: a list of targets, each its own stream; returns "" (each draw names one).
    virtual std::string target(std::string_view field) const = 0;
    // The same, by a node's name only (no role).
    virtual std::string node(std::string_view field) const = 0;
    // [[side a], [side b]]: two lists of nodes that share none; a node's name alone is
    // side a, with side b empty (every other node).
    virtual std::pair<std::vector<std::string>, std::vector<std::string>> sides(std::string_view field) const = 0;
    // [from, to]: two different nodes. Drawn: one link or a list of them, each its own
    // stream; returns {"", ""} (each draw names one).
    virtual std::pair<std::string, std::string> link(std::string_view field) const = 0;

    // An amount, held to its declared rule: fixed, the duration written; drawn, a
    // distribution the draws read (in the order the family's draw() reads them) and
    // Duration{} here.
    virtual Duration amount(std::string_view field) const = 0;
    virtual Odds odds(std::string_view field) const = 0;
    virtual bool flag(std::string_view field) const = 0;  // absent: false
    virtual std::string text(std::string_view field) const = 0;
    // Unusable input at `field`: the message is what was expected.
    [[noreturn]] void fail(std::string_view field, const std::string& message) const {
        fail_at(field, message);
        std::abort();  // fail_at throws
    }

protected:
    virtual void fail_at(std::string_view field, const std::string& message) const = 0;  // throws
};

}  // namespace locksim
