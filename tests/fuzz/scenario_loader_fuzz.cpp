// libFuzzer target: the scenario loader. Whatever the text, parse_scenario returns a
// Scenario or throws ScenarioError (a one-line message naming fuzz.json); any other
// exception, a crash, a leak or undefined behaviour is a finding.
//
// Beyond "no other exception", it checks what every caller relies on from a loaded
// scenario: at least one design, each with a server, a horizon above 0 and at most a
// week, and every named node a node of the world; that its text (names, design names,
// a trigger's field names) follows the rule for text (docs/scenario-format.md: no control
// characters, noncharacters or bidirectional controls); and that an error message is one
// line of UTF-8, free of control characters, that starts with the file name. Each of these has an id (in brackets in
// the finding) for LOCKSIM_FUZZ_KNOWN, see fuzz_support.hpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "checks/metrics.hpp"
#include "fuzz_support.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/text_chars.hpp"

namespace {

using locksim_fuzz::promise_broken;

// Text for a one-line finding: control characters as \xNN.
std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", u);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

// The one rule for text (sim/text_chars.hpp): no control character (C0, DEL, C1), no
// noncharacter, no bidirectional override, nothing that is not UTF-8.
void check_text(std::string_view text, const std::string& where) {
    if (const auto flaw = locksim::first_unshowable(text))
        promise_broken("control-in-scenario-text", "parse_scenario",
                       "loaded a scenario whose " + where + " holds " + *flaw + ": \"" + printable(text) + "\"");
}

void check_scenario(const locksim::Scenario& scenario) {
    if (scenario.designs.empty()) promise_broken("no-design", "parse_scenario", "returned a scenario without a design");
    check_text(scenario.name, "name");
    check_text(scenario.description, "description");
    check_text(scenario.lesson, "lesson");
    check_text(scenario.section, "section");
    for (const auto& design : scenario.designs) {
        const auto& world = design.world;
        check_text(design.name, "design name");
        if (world.servers.empty())
            promise_broken("no-server", "parse_scenario", "design \"" + printable(design.name) + "\" has no server");
        if (world.horizon.ns <= 0 || world.horizon > locksim::max_duration)
            promise_broken("horizon", "parse_scenario",
                           "design \"" + printable(design.name) + "\" has a horizon outside (0, a week]");
        if (world.billing_node.empty() || world.provider_node.empty())
            promise_broken("service-node", "parse_scenario",
                           "design \"" + printable(design.name) + "\" lacks a service node");
        // The world looks every name up among its nodes and dereferences the result.
        std::vector<std::string> nodes = world.servers;
        nodes.insert(nodes.end(), world.store_nodes.begin(), world.store_nodes.end());
        nodes.push_back(world.billing_node);
        nodes.push_back(world.provider_node);
        const auto known = [&](const std::string& name, const char* where) {
            if (std::find(nodes.begin(), nodes.end(), name) == nodes.end())
                promise_broken("unknown-node", "parse_scenario",
                               "design \"" + printable(design.name) + "\": " + where + " names \"" + printable(name) +
                                   "\", which is no node of its world");
        };
        for (const auto& [name, clock] : world.clocks) known(name, "clocks");
        for (const auto& link : world.links) {
            known(link.a, "a link");
            known(link.b, "a link");
        }
        for (const auto& fault : world.faults) {
            std::visit(
                [&](const auto& f) {
                    using F = std::decay_t<decltype(f)>;
                    // A role is resolved as the fault strikes: it names no node here.
                    if constexpr (std::is_same_v<F, locksim::PartitionFault>) {
                        for (const auto& n : f.side_a)
                            if (n.front() != '{') known(n, "a partition");
                        for (const auto& n : f.side_b) known(n, "a partition");
                    } else if constexpr (std::is_same_v<F, locksim::DelaySpikeFault> ||
                                         std::is_same_v<F, locksim::LossBurstFault> ||
                                         std::is_same_v<F, locksim::MessageHoldFault>) {
                        if (f.from.front() != '{') known(f.from, "a link fault");
                        known(f.to, "a link fault");
                    } else if (f.node.front() != '{') {
                        known(f.node, "a fault");
                    }
                    if (f.when && !f.when->node.empty()) known(f.when->node, "a fault's \"when\"");
                    if (f.when) {
                        check_text(f.when->kind, "trigger event");
                        for (const auto& [field, value] : f.when->fields) check_text(field, "trigger field name");
                    }
                },
                fault);
        }
        for (const auto& generator : world.fault_generators)
            for (const auto& target : generator.targets)
                if (target.front() != '{') known(target, "a fault generator");  // a role is resolved as it strikes
        if (!world.job.error_on_server.empty() &&
            std::find(world.servers.begin(), world.servers.end(), world.job.error_on_server) == world.servers.end())
            promise_broken("unknown-node", "parse_scenario",
                           "design \"" + printable(design.name) + "\": job.error names \"" +
                               printable(world.job.error_on_server) + "\", which is no server");
    }
}

void check_error(const locksim::ScenarioError& error) {
    const std::string_view message = error.what();
    if (!message.starts_with("fuzz.json"))
        promise_broken("error-file", "parse_scenario",
                       "a ScenarioError that does not start with the file name: " + printable(message));
    // The JSON library's syntax errors quote what it last read, the duplicate-field
    // error names the field, the readers quote fields and values: one id each, so that
    // one known finding does not hide the others.
    if (locksim::first_unshowable(message)) {
        const char* id = message.find(": not valid JSON: ") != std::string_view::npos ? "control-in-json-error"
                         : message.ends_with("this field appears twice in the same object")
                             ? "control-in-duplicate-field-error"
                             : "control-in-error";
        promise_broken(id, "parse_scenario",
                       "a ScenarioError with a control character (a line break, an escape, a C1 control) or "
                       "bytes that are not UTF-8: " +
                           printable(message));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const locksim::Scenario scenario = locksim::parse_scenario(text, "fuzz.json", locksim::metric_names());
        check_scenario(scenario);
    } catch (const locksim::ScenarioError& error) {
        check_error(error);
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("parse_scenario", error);
    } catch (...) {
        locksim_fuzz::unexpected_non_std_exception("parse_scenario");
    }
    return 0;
}
