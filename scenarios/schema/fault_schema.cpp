#include <fmt/format.h>

#include <algorithm>

#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "scenarios/schema/scenario.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

// "kind": "process" (the default: the kernel keeps what was written) or "machine" (power lost).
CrashKind read_crash_kind(const JsonReader& kind) {
    const std::string text = kind.string();
    if (text == "process") return CrashKind::process;
    if (text == "machine") return CrashKind::machine;
    kind.fail(
        fmt::format("unknown crash kind \"{}\"; expected \"process\" (the process dies, the kernel keeps what "
                    "was written to it) or \"machine\" (power lost: unsynced writes are gone)",
                    text));
}

// "when": {"event": "job.preparing", "node": "server-1", "customer": 42, "nth": 1}
std::optional<EventTrigger> read_trigger(const JsonReader& item, const std::vector<std::string>& nodes) {
    if (!item.has("when")) return std::nullopt;
    if (item.has("at")) item["at"].fail("a fault has \"at\" (a time) or \"when\" (an event), not both");
    const JsonReader when = item["when"];
    EventTrigger trigger;
    // The kind first: its declaration says which other members name fields of its events,
    // and what type each one is.
    const KindSpec* kind = nullptr;
    {
        const JsonReader value = when["event"];
        trigger.kind = value.string();
        kind = find_trace_kind(trigger.kind);
        if (kind == nullptr) {
            std::vector<std::string_view> names;
            for (const KindSpec* known : all_trace_kinds()) names.push_back(known->name);
            value.fail(
                fmt::format("unknown event kind \"{}\"; expected one of: {}", trigger.kind, fmt::join(names, ", ")));
        }
    }
    for (const auto& [key, value] : when.members()) {
        if (key == "event") continue;
        if (key == "node") {
            trigger.node = read_node_ref(value, nodes);
            continue;
        }
        if (key == "nth") {
            const std::int64_t nth = value.integer();
            if (nth < 1 || nth > 1'000'000) value.fail("expected a count from 1");
            trigger.nth = static_cast<int>(nth);
            continue;
        }
        const FieldSpec* field = kind->field(key);
        if (field == nullptr) {
            std::vector<std::string_view> names;
            for (const auto& known : kind->fields) names.push_back(known.name);
            value.fail(fmt::format("\"{}\" events have no field \"{}\"; expected \"node\", \"nth\" or one of: {}",
                                   trigger.kind, key, fmt::join(names, ", ")));
        }
        switch (field->type) {
            case FieldType::integer: trigger.fields.emplace_back(key, FieldValue(value.integer())); break;
            case FieldType::flag: trigger.fields.emplace_back(key, FieldValue(value.boolean())); break;
            case FieldType::text: trigger.fields.emplace_back(key, FieldValue(value.string())); break;
            case FieldType::duration: trigger.fields.emplace_back(key, FieldValue(value.signed_duration())); break;
            case FieldType::instant: trigger.fields.emplace_back(key, FieldValue(Instant{} + value.duration())); break;
            // A node by its name; the world, which numbers the nodes, makes it a node.
            case FieldType::node: trigger.fields.emplace_back(key, FieldValue(read_node_ref(value, nodes))); break;
        }
    }
    return trigger;
}

// A node by name, or a role resolved when the fault strikes: {"role": "holder"} (the
// server holding the lock), "trigger" (the node that recorded the "when" event),
// "primary" (the store's primary or leader), "servers" (every server).
std::string read_target(const JsonReader& item, std::string_view target_field, const WorldSpec& world) {
    const JsonReader field = item[target_field];
    if (!field.json().is_object()) return read_node_ref(field, node_names(world));
    field.allow_only({"role"});
    const std::string role = field["role"].string();
    if (role == "holder") return std::string(holder_role);
    if (role == "servers") return std::string(servers_role);
    if (role == "trigger") {
        if (!item.has("when"))
            field["role"].fail("\"trigger\" is the node that recorded the \"when\" event; this fault has no \"when\"");
        return std::string(trigger_role);
    }
    if (role == "primary") {
        if (!has_primary(world.lock.store))
            field["role"].fail(
                "this design's lock store has no primary or leader (redlock's nodes are independent; in-memory and "
                "none have no store node); name a node instead");
        return std::string(primary_role);
    }
    field["role"].fail(
        fmt::format("unknown role \"{}\"; expected \"holder\" (the server holding the lock when the fault "
                    "strikes), \"trigger\" (the node that recorded the \"when\" event), \"primary\" (the "
                    "store's primary or leader then) or \"servers\" (every server)",
                    message_safe(role)));
}

Instant read_time(const JsonReader& item) {
    return item.has("when") ? Instant{} : Instant{} + item["at"].duration();
}

// "partition": [[side a], [side b]], two sides sharing no node.
void read_sides(const JsonReader& field, const std::vector<std::string>& nodes, PartitionFault& partition) {
    const auto sides = field.elements();
    if (sides.size() != 2) field.fail("expected two lists of nodes: [[side a], [side b]]");
    for (const auto& name : sides[0].elements()) partition.side_a.push_back(read_node_ref(name, nodes));
    for (const auto& name : sides[1].elements()) partition.side_b.push_back(read_node_ref(name, nodes));
    if (partition.side_a.empty() || partition.side_b.empty()) field.fail("expected at least one node on each side");
    for (const auto& a : partition.side_a)
        if (std::find(partition.side_b.begin(), partition.side_b.end(), a) != partition.side_b.end())
            field.fail(fmt::format("node {} is on both sides", a));
}

// "delay_spike" or "loss_burst": [from, to], two different nodes.
std::pair<std::string, std::string> read_link_ends(const JsonReader& field, const std::vector<std::string>& nodes) {
    const auto ends = field.elements();
    if (ends.size() != 2) field.fail("expected [from, to]");
    std::pair<std::string, std::string> link{read_node_ref(ends[0], nodes), read_node_ref(ends[1], nodes)};
    if (link.first == link.second) ends[1].fail("expected two different nodes");
    return link;
}

// "one_way": true cuts, holds or loses only what goes from the first side to the second.
bool read_one_way(const JsonReader& item) {
    return item.has("one_way") && item["one_way"].boolean();
}

// "kind" of a pause: gc (the default), sigstop or swap.
std::string read_pause_cause(const JsonReader& item) {
    std::string kind = item.has("kind") ? item["kind"].string() : "gc";
    if (kind != "gc" && kind != "sigstop" && kind != "swap")
        item["kind"].fail(fmt::format("unknown pause kind \"{}\"; expected \"gc\", \"sigstop\" or \"swap\"", kind));
    return kind;
}

// NTP slews an offset under 128 ms; it steps a larger one.
constexpr Duration slew_limit = milliseconds(128);
constexpr std::string_view slew_help = "NTP slews offsets under 128ms; a larger one it steps (use clock_step)";

}  // namespace

std::vector<Fault> read_faults(const JsonReader& list, const WorldSpec& world) {
    const std::vector<std::string> nodes = node_names(world);
    std::vector<Fault> faults;
    for (const auto& item : list.elements()) {
        if (item.has("pause")) {
            item.allow_only({"pause", "at", "when", "for", "kind"});
            std::string kind = read_pause_cause(item);
            const Duration length = item["for"].duration();
            if (length.ns <= 0) item["for"].fail("expected a pause longer than 0s");
            faults.push_back(PauseFault{read_target(item, "pause", world), read_time(item), length, std::move(kind),
                                        read_trigger(item, nodes)});
        } else if (item.has("clock_step")) {
            item.allow_only({"clock_step", "at", "when", "by"});
            faults.push_back(ClockStepFault{read_target(item, "clock_step", world), read_time(item),
                                            item["by"].signed_duration(), read_trigger(item, nodes), false});
        } else if (item.has("clock_slew")) {
            item.allow_only({"clock_slew", "at", "when", "by"});
            const Duration by = item["by"].signed_duration();
            if (by > slew_limit || by < -slew_limit) item["by"].fail(slew_help);
            faults.push_back(ClockStepFault{read_node_ref(item["clock_slew"], nodes), read_time(item), by,
                                            read_trigger(item, nodes), true});
        } else if (item.has("crash")) {
            item.allow_only({"crash", "at", "when", "restart_after", "kind"});
            CrashFault crash{read_target(item, "crash", world), read_time(item), std::nullopt,
                             read_trigger(item, nodes)};
            if (item.has("restart_after")) crash.restart_after = item["restart_after"].duration();
            if (item.has("kind")) crash.kind = read_crash_kind(item["kind"]);
            faults.push_back(std::move(crash));
        } else if (item.has("partition")) {
            item.allow_only({"partition", "at", "when", "heal_after", "one_way"});
            PartitionFault partition;
            read_sides(item["partition"], nodes, partition);
            partition.at = read_time(item);
            partition.when = read_trigger(item, nodes);
            if (item.has("heal_after")) partition.heal_after = item["heal_after"].duration();
            partition.one_way = read_one_way(item);
            faults.push_back(std::move(partition));
        } else if (item.has("delay_spike")) {
            item.allow_only({"delay_spike", "at", "when", "for", "extra", "one_way"});
            auto [from, to] = read_link_ends(item["delay_spike"], nodes);
            faults.push_back(DelaySpikeFault{std::move(from), std::move(to), read_time(item), item["for"].duration(),
                                             item["extra"].duration(), read_one_way(item), read_trigger(item, nodes)});
        } else if (item.has("loss_burst")) {
            item.allow_only({"loss_burst", "at", "when", "for", "loss", "one_way"});
            auto [from, to] = read_link_ends(item["loss_burst"], nodes);
            LossBurstFault burst{std::move(from), std::move(to), read_time(item), item["for"].duration()};
            if (item.has("loss")) burst.loss = read_odds(item["loss"]);
            burst.one_way = read_one_way(item);
            burst.when = read_trigger(item, nodes);
            faults.push_back(std::move(burst));
        } else {
            item.fail(
                "expected a fault with \"pause\", \"clock_step\", \"clock_slew\", \"crash\", \"partition\", "
                "\"delay_spike\" or \"loss_burst\"");
        }
    }
    return faults;
}

namespace {

// A generator's targets: "servers", "store" (the lock store's nodes), or a list of node
// names, "servers", "store" and roles ({"role": "primary"} or "holder", resolved when
// each fault strikes).
std::vector<std::string> read_generator_targets(const JsonReader& field, const WorldSpec& world) {
    const auto one = [&](const JsonReader& target, std::vector<std::string>& targets) {
        if (target.json().is_object()) {
            target.allow_only({"role"});
            const std::string role = target["role"].string();
            if (role == "primary" && has_primary(world.lock.store)) {
                targets.emplace_back(primary_role);
            } else if (role == "holder") {
                targets.emplace_back(holder_role);
            } else {
                target["role"].fail(
                    has_primary(world.lock.store) || role != "primary"
                        ? "expected \"holder\" or \"primary\" (a drawn fault has no \"when\" to name a trigger)"
                        : "this design's lock store has no primary or leader; name its nodes or use \"store\"");
            }
        } else if (target.string() == "servers") {
            targets.insert(targets.end(), world.servers.begin(), world.servers.end());
        } else if (target.string() == "store") {
            if (world.store_nodes.empty()) target.fail("this design's lock store has no nodes of its own");
            targets.insert(targets.end(), world.store_nodes.begin(), world.store_nodes.end());
        } else {
            targets.push_back(read_node_ref(target, node_names(world)));
        }
    };
    std::vector<std::string> targets;
    if (field.json().is_array()) {
        for (const auto& target : field.elements()) one(target, targets);
        if (targets.empty()) field.fail("expected at least one node, \"servers\" or \"store\"");
    } else {
        one(field, targets);
    }
    return targets;
}

// A clock slew's step, drawn: a fixed or uniform amount within NTP's 128 ms.
DurationDistribution read_slew_amount(const JsonReader& field) {
    DurationDistribution amount = read_distribution(field, true);
    if (amount.low < -slew_limit || amount.high > slew_limit) field.fail(slew_help);
    return amount;
}

}  // namespace

std::vector<FaultGenerator> read_fault_generators(const JsonReader& list, const WorldSpec& world) {
    constexpr std::int64_t max_faults_per_target = 10'000;
    const std::vector<std::string> nodes = node_names(world);
    std::vector<FaultGenerator> generators;
    for (const auto& item : list.elements()) {
        FaultGenerator generator;
        constexpr std::string_view window[] = {"mean_interval", "from", "until"};
        const auto allow = [&](std::initializer_list<std::string_view> own) {
            std::vector<std::string_view> allowed(own);
            allowed.insert(allowed.end(), std::begin(window), std::end(window));
            item.allow_only(allowed);
        };
        if (item.has("pause")) {
            allow({"pause", "for", "kind"});
            generator.shape = PauseFault{{}, {}, {}, read_pause_cause(item), std::nullopt};
            generator.targets = read_generator_targets(item["pause"], world);
            generator.amount = read_distribution(item["for"]);
        } else if (item.has("clock_step")) {
            allow({"clock_step", "by"});
            generator.shape = ClockStepFault{};
            generator.targets = read_generator_targets(item["clock_step"], world);
            generator.amount = read_distribution(item["by"], true);
        } else if (item.has("clock_slew")) {
            allow({"clock_slew", "by"});
            generator.shape = ClockStepFault{{}, {}, {}, std::nullopt, true};
            generator.targets = read_generator_targets(item["clock_slew"], world);
            generator.amount = read_slew_amount(item["by"]);
        } else if (item.has("crash")) {
            allow({"crash", "restart_after", "kind"});
            CrashFault crash;
            if (item.has("kind")) crash.kind = read_crash_kind(item["kind"]);
            if (item.has("restart_after")) {
                crash.restart_after = Duration{};
                generator.amount = read_distribution(item["restart_after"]);
            }
            generator.shape = std::move(crash);
            generator.targets = read_generator_targets(item["crash"], world);
        } else if (item.has("partition")) {
            allow({"partition", "heal_after", "one_way"});
            PartitionFault partition;
            read_sides(item["partition"], nodes, partition);
            partition.one_way = read_one_way(item);
            generator.shape = std::move(partition);
            // A drawn partition that never heals would end every later draw's story.
            generator.amount = read_distribution(item["heal_after"]);
        } else if (item.has("delay_spike")) {
            allow({"delay_spike", "for", "extra", "one_way"});
            auto [from, to] = read_link_ends(item["delay_spike"], nodes);
            generator.shape =
                DelaySpikeFault{std::move(from), std::move(to), {}, {}, {}, read_one_way(item), std::nullopt};
            generator.amount = read_distribution(item["for"]);
            generator.extra = read_distribution(item["extra"]);
        } else if (item.has("loss_burst")) {
            allow({"loss_burst", "for", "loss", "one_way"});
            auto [from, to] = read_link_ends(item["loss_burst"], nodes);
            LossBurstFault burst{std::move(from), std::move(to)};
            if (item.has("loss")) burst.loss = read_odds(item["loss"]);
            burst.one_way = read_one_way(item);
            generator.shape = std::move(burst);
            generator.amount = read_distribution(item["for"]);
        } else {
            item.fail(
                "expected a generator with \"pause\", \"clock_step\", \"clock_slew\" or \"crash\" (listing its "
                "targets), or \"partition\", \"delay_spike\" or \"loss_burst\" (naming the link)");
        }
        generator.mean_interval = item["mean_interval"].duration();
        generator.from = Instant{} + (item.has("from") ? item["from"].duration() : Duration{});
        generator.until = Instant{} + (item.has("until") ? item["until"].duration() : world.horizon);
        if (generator.until <= generator.from)
            (item.has("until") ? item["until"] : item["from"])
                .fail(fmt::format("the window from {} to {} is empty; the run ends at its horizon",
                                  format_seconds(generator.from), format_seconds(generator.until)));
        if (generator.mean_interval.ns <= 0 ||
            (generator.until - generator.from).ns / generator.mean_interval.ns > max_faults_per_target)
            item["mean_interval"].fail(
                fmt::format("expected a mean interval that gives at most {} faults per node in "
                            "the window",
                            max_faults_per_target));
        generators.push_back(std::move(generator));
    }
    return generators;
}

}  // namespace locksim
