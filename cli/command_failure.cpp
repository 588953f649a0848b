#include "cli/command_failure.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cstdio>

#include "checks/sweep_summary.hpp"
#include "cli/atomic_file.hpp"
#include "runners/explore_runner.hpp"
#include "runners/shrink_runner.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/json_reader.hpp"
#include "sim/engine.hpp"

namespace locksim {

int report_failure(std::exception_ptr failure, std::string_view file) {
    assert(failure != nullptr);
    // "{file}: " where the message does not start with its file.
    const auto in_file = [file]() { return file.empty() ? std::string() : fmt::format("{}: ", file); };
    try {
        std::rethrow_exception(failure);
    } catch (const ScenarioError& error) {  // its message names its file, pointer and place
        fmt::print(stderr, "{}\n", error.what());
    } catch (const ExploreError& error) {
        fmt::print(stderr, "{}/explore: {}\n", in_file(), error.what());
    } catch (const RunawayRun& runaway) {
        fmt::print(stderr, "{}{}\n", in_file(), runaway.what());
    } catch (const ShrinkError& error) {
        fmt::print(stderr, "{}\n", error.what());
    } catch (const GivenFaultError& error) {  // its message starts with the option and its value
        fmt::print(stderr, "{}{}\n", in_file(), error.what());
    } catch (const OutputError& error) {
        fmt::print(stderr, "{}\n", error.what());
    } catch (const SweepError& error) {
        fmt::print(stderr, "{}\n", error.what());
    } catch (const std::exception& error) {
        // A model or the engine broke an invariant: a bug, not bad input.
        fmt::print(stderr, "locksim: internal error: {}\n", error.what());
        return 3;
    }
    return 2;
}

}  // namespace locksim
