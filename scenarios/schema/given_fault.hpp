#pragma once
// Runs drawn given that a rare fault strikes. A fault that comes monthly strikes in one
// run of an hour in some hundreds: a plain sweep spends nearly every seed on runs in
// which nothing of it happens. Given one of its generators, every run draws at least one
// of that generator's faults (FaultGenerator::given), and the probability that a plain
// run would, known exactly, turns a rate per run given the fault into the rate of
// incidents in runs where it strikes. Runs in which it does not strike are not drawn:
// what happens in them is not in that rate, and the output says so.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checks/sweep_summary.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// An unusable --given-fault: the message is one line to print.
class GivenFaultError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Marks fault generator `index` given in every design that runs (`design`, or all), and
// says what it is and how likely it strikes. Throws GivenFaultError when a design has no
// such generator, or when the designs' generators differ in that probability (one
// probability weighs every design). Its message starts with how the fault was asked for and
// its index ("--given-fault 1: "), or with neither when `asked_as` is empty (a scenario's
// sweep block, whose error names the field).
GivenFault give_fault(Scenario& scenario, std::uint64_t index, const std::optional<std::string>& design,
                      std::string_view asked_as = "--given-fault");

}  // namespace locksim
