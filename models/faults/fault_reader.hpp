#pragma once
// What a fault family reads of one entry of a scenario file, the same way whether the
// entry is a fault ("faults": one fault, fixed) or a generator ("fault_generators": a
// shape whose targets and amounts are drawn per seed). The scenario reader implements it;
// a family reads its own members through it and never sees JSON.
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/network.hpp"
#include "sim/time.hpp"

namespace locksim {

// What an amount may be: the reader checks a fixed value, or a drawn distribution's
// bounds, against it.
struct AmountRule {
    bool signed_values = false;  // a clock may step back
    // A fault's fixed amount must be above zero (a pause of 0s pauses nothing). Drawn
    // amounts are not held to it: a draw of 0 is a fault that does nothing.
    bool above_zero = false;
    std::string_view above_zero_help;
    // |amount| at most this (0: no bound), with the sentence that says why.
    Duration bound{};
    std::string_view bound_help;
};

class FaultReader {
public:
    virtual ~FaultReader() = default;

    // Whether the entry is a generator's: targets and amounts are drawn per seed.
    virtual bool drawn() const = 0;
    virtual bool has(std::string_view field) const = 0;
    // The members this family takes besides its timing ("at" and "when", or a generator's
    // "mean_interval", "from" and "until"), which the reader adds.
    virtual void allow_only(std::initializer_list<std::string_view> fields) const = 0;

    // The node a fault on one node strikes: a node's name or a role ({"role": "holder"}).
    // Drawn: a list of targets, each its own stream; returns "" (each draw names one).
    virtual std::string target(std::string_view field) const = 0;
    // The same, by a node's name only (no role).
    virtual std::string node(std::string_view field) const = 0;
    // [[side a], [side b]]: two lists of nodes that share none; a node's name alone is
    // side a, with side b empty (every other node).
    virtual std::pair<std::vector<std::string>, std::vector<std::string>> sides(std::string_view field) const = 0;
    // [from, to]: two different nodes.
    virtual std::pair<std::string, std::string> link(std::string_view field) const = 0;

    // An amount: fixed, the duration written; drawn, a distribution the draws read (in the
    // order the family's draw() reads them) and Duration{} here.
    virtual Duration amount(std::string_view field, const AmountRule& rule = {}) const = 0;
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
