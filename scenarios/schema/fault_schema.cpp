#include <fmt/format.h>

#include "scenarios/schema/world_schema.hpp"

namespace locksim {

std::vector<Fault> read_faults(const JsonReader& list, const std::vector<std::string>& nodes) {
    std::vector<Fault> faults;
    for (const auto& item : list.elements()) {
        if (item.has("pause")) {
            item.allow_only({"pause", "at", "for", "kind"});
            std::string kind = item.has("kind") ? item["kind"].string() : "gc";
            if (kind != "gc" && kind != "sigstop" && kind != "swap")
                item["kind"].fail(fmt::format("unknown pause kind \"{}\"; expected \"gc\", \"sigstop\" or \"swap\"", kind));
            const Duration length = item["for"].duration();
            if (length.ns <= 0) item["for"].fail("expected a pause longer than 0s");
            faults.push_back(
                PauseFault{read_node_ref(item["pause"], nodes), Instant{} + item["at"].duration(), length, std::move(kind)});
        } else if (item.has("clock_step")) {
            item.allow_only({"clock_step", "at", "by"});
            faults.push_back(ClockStepFault{read_node_ref(item["clock_step"], nodes), Instant{} + item["at"].duration(),
                                            item["by"].signed_duration()});
        } else if (item.has("crash")) {
            item.allow_only({"crash", "at", "restart_after"});
            CrashFault crash{read_node_ref(item["crash"], nodes), Instant{} + item["at"].duration(), std::nullopt};
            if (item.has("restart_after")) crash.restart_after = item["restart_after"].duration();
            faults.push_back(std::move(crash));
        } else {
            item.fail("expected a fault with \"pause\", \"clock_step\" or \"crash\" naming its node");
        }
    }
    return faults;
}

std::vector<FaultGenerator> read_fault_generators(const JsonReader& list, const std::vector<std::string>& nodes,
                                                  const std::vector<std::string>& servers, Duration horizon) {
    constexpr std::int64_t max_faults_per_target = 10'000;
    std::vector<FaultGenerator> generators;
    for (const auto& item : list.elements()) {
        FaultGenerator generator;
        std::string kind_field;
        if (item.has("pause")) {
            kind_field = "pause";
            item.allow_only({"pause", "mean_interval", "for", "kind", "from", "until"});
            generator.kind = FaultGenerator::Kind::pause;
            generator.amount = read_distribution(item["for"]);
            if (item.has("kind")) {
                generator.cause = item["kind"].string();
                if (generator.cause != "gc" && generator.cause != "sigstop" && generator.cause != "swap")
                    item["kind"].fail("expected \"gc\", \"sigstop\" or \"swap\"");
            }
        } else if (item.has("clock_step")) {
            kind_field = "clock_step";
            item.allow_only({"clock_step", "mean_interval", "by", "from", "until"});
            generator.kind = FaultGenerator::Kind::clock_step;
            generator.amount = read_distribution(item["by"], true);
        } else if (item.has("crash")) {
            kind_field = "crash";
            item.allow_only({"crash", "mean_interval", "restart_after", "from", "until"});
            generator.kind = FaultGenerator::Kind::crash;
            generator.restarts = item.has("restart_after");
            if (generator.restarts) generator.amount = read_distribution(item["restart_after"]);
        } else {
            item.fail("expected a generator with \"pause\", \"clock_step\" or \"crash\" listing its targets");
        }
        const JsonReader targets = item[kind_field];
        if (targets.json().is_string() && targets.string() == "servers") {
            generator.targets = servers;
        } else {
            for (const auto& target : targets.elements()) generator.targets.push_back(read_node_ref(target, nodes));
            if (generator.targets.empty()) targets.fail("expected at least one node, or \"servers\"");
        }
        generator.mean_interval = item["mean_interval"].duration();
        generator.from = Instant{} + (item.has("from") ? item["from"].duration() : Duration{});
        generator.until = Instant{} + (item.has("until") ? item["until"].duration() : horizon);
        if (generator.until <= generator.from) item["until"].fail("expected until to be after from");
        if (generator.mean_interval.ns <= 0 ||
            (generator.until - generator.from).ns / generator.mean_interval.ns > max_faults_per_target)
            item["mean_interval"].fail(fmt::format("expected a mean interval that gives at most {} faults per node in "
                                                   "the window", max_faults_per_target));
        generators.push_back(std::move(generator));
    }
    return generators;
}

}  // namespace locksim
