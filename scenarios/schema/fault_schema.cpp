#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "models/faults/fault.hpp"
#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "scenarios/schema/scenario.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

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

// A role resolved when the fault strikes, {"role": "holder"} at `field`: "holder" (the
// server holding the lock), "trigger" (the node that recorded the "when" event of `item`),
// "primary" (the store's primary or leader), "servers" (every server).
std::string read_fault_role(const JsonReader& field, const JsonReader& item, const WorldSpec& world) {
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

// A node by name, or a role resolved when the fault strikes (read_fault_role).
std::string read_target(const JsonReader& item, std::string_view target_field, const WorldSpec& world) {
    const JsonReader field = item[target_field];
    if (!field.json().is_object()) return read_node_ref(field, node_names(world));
    return read_fault_role(field, item, world);
}

// The end of a link that may be a role: a node by name, or a role that names one node.
std::string read_link_role(const JsonReader& field, const JsonReader& item, const WorldSpec& world) {
    if (!field.json().is_object()) return read_node_ref(field, node_names(world));
    std::string role = read_fault_role(field, item, world);
    if (role == servers_role)
        field["role"].fail(
            "\"servers\" strikes every server, and this end of a link is one node; name the servers, or use "
            "{\"role\": \"holder\"}");
    return role;
}

// A node by name where a role may not stand, saying where it may.
std::string read_named_end(const JsonReader& field, const std::vector<std::string>& nodes, std::string_view where) {
    if (field.json().is_object()) field.fail(fmt::format("expected a node's name; a role may stand only {}", where));
    return read_node_ref(field, nodes);
}

Instant read_time(const JsonReader& item) {
    return item.has("when") ? Instant{} : Instant{} + item["at"].duration();
}

// "partition": [[side a], [side b]], two sides sharing no node; or one node's name, which
// cuts it off from every other node (side b empty). Side a may instead be one role
// ({"role": "holder"}), alone or as the whole of side a, resolved when the partition strikes.
std::pair<std::vector<std::string>, std::vector<std::string>> read_sides(const JsonReader& field,
                                                                         const JsonReader& item,
                                                                         const WorldSpec& world) {
    const std::vector<std::string> nodes = node_names(world);
    if (!field.json().is_array()) return {{read_link_role(field, item, world)}, {}};
    const auto sides = field.elements();
    if (sides.size() != 2) field.fail("expected two lists of nodes: [[side a], [side b]]");
    std::pair<std::vector<std::string>, std::vector<std::string>> read;
    auto& [side_a, side_b] = read;
    const auto names_a = sides[0].elements();
    for (const auto& name : names_a) {
        if (name.json().is_object() && names_a.size() > 1)
            name.fail("a role stands alone on side a: [[{\"role\": \"holder\"}], [side b]]");
        side_a.push_back(read_link_role(name, item, world));
    }
    for (const auto& name : sides[1].elements()) side_b.push_back(read_named_end(name, nodes, "on side a"));
    if (side_a.empty() || side_b.empty()) field.fail("expected at least one node on each side");
    for (const auto& a : side_a)
        if (std::find(side_b.begin(), side_b.end(), a) != side_b.end())
            field.fail(fmt::format("node {} is on both sides", a));
    return read;
}

// "delay_spike", "loss_burst" or "hold_message": [from, to], two different nodes; `from`
// may be a role ({"role": "holder"}), resolved when the fault strikes.
std::pair<std::string, std::string> read_link_ends(const JsonReader& field, const JsonReader& item,
                                                   const WorldSpec& world) {
    const auto ends = field.elements();
    if (ends.size() != 2) field.fail("expected [from, to]");
    std::pair<std::string, std::string> link{read_link_role(ends[0], item, world),
                                             read_named_end(ends[1], node_names(world), "at the first end")};
    if (link.first == link.second) ends[1].fail("expected two different nodes");
    return link;
}

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
    // A node named twice (["servers", "server-1"]) is one target: one stream of faults, and
    // one in the count that the probability of a strike is reckoned from.
    std::vector<std::string> once;
    for (auto& target : targets)
        if (std::find(once.begin(), once.end(), target) == once.end()) once.push_back(std::move(target));
    return once;
}

// A generator's links: one link [from, to], or a list of them ([[from, to], …]), each
// its own stream.
std::vector<std::pair<std::string, std::string>> read_generator_links(const JsonReader& field, const JsonReader& item,
                                                                      const WorldSpec& world) {
    const auto elements = field.elements();
    const bool several = !elements.empty() && elements.front().json().is_array();
    if (!several) return {read_link_ends(field, item, world)};
    std::vector<std::pair<std::string, std::string>> links;
    for (const auto& link : elements) {
        links.push_back(read_link_ends(link, item, world));
        if (std::count(links.begin(), links.end(), links.back()) > 1) link.fail("expected each link once");
    }
    return links;
}

// One entry of "faults" or "fault_generators" as its family reads it. A placed fault's
// members are fixed; a generator's targets are a list and its amounts distributions.
class JsonFaultReader final : public FaultReader {
public:
    JsonFaultReader(const JsonReader& item, const WorldSpec& world, const std::vector<std::string>& nodes,
                    FaultGenerator* generator)
        : item_(item), world_(world), nodes_(nodes), generator_(generator) {}

    bool drawn() const override { return generator_ != nullptr; }
    bool has(std::string_view field) const override { return item_.has(field); }

    void declare(const FaultEntry& entry) const override {
        entry_ = &entry;
        // Listed in errors as a file writes them: the key, a placed fault's timing, the
        // family's own members, a generator's window.
        std::vector<std::string_view> allowed;
        for (const FaultMember& member : entry.members) allowed.push_back(member.name);
        if (drawn())
            allowed.insert(allowed.end(), std::begin(generator_window_members), std::end(generator_window_members));
        else
            allowed.insert(allowed.begin() + 1, std::begin(placed_timing_members), std::end(placed_timing_members));
        item_.allow_only(allowed);
    }

    std::string target(std::string_view field) const override {
        declared(field, MemberType::target);
        return drawn() ? drawn_targets(field) : read_target(item_, field, world_);
    }
    std::string node(std::string_view field) const override {
        declared(field, MemberType::node);
        return drawn() ? drawn_targets(field) : read_node_ref(item_[field], nodes_);
    }
    std::pair<std::vector<std::string>, std::vector<std::string>> sides(std::string_view field) const override {
        declared(field, MemberType::sides);
        return read_sides(item_[field], item_, world_);
    }
    std::pair<std::string, std::string> link(std::string_view field) const override {
        declared(field, MemberType::link);
        if (!drawn()) {
            const auto ends = item_[field].elements();
            if (!ends.empty() && ends.front().json().is_array())
                item_[field].fail("expected one link [from, to]; a list of links is for a generator");
            return read_link_ends(item_[field], item_, world_);
        }
        generator_->links = read_generator_links(item_[field], item_, world_);
        return {};
    }

    Duration amount(std::string_view field) const override {
        const AmountRule& rule = declared(field, MemberType::amount).rule;
        const JsonReader value = item_[field];
        if (drawn()) {
            const DurationDistribution distribution = read_distribution(value, rule.signed_values);
            if (rule.beyond(distribution.low, distribution.high)) value.fail(std::string(rule.bound_help));
            generator_->amounts.set(field, distribution);
            return Duration{};
        }
        const Duration fixed = rule.signed_values ? value.signed_duration() : value.duration();
        if (rule.above_zero && fixed.ns <= 0) value.fail(std::string(rule.above_zero_help));
        if (rule.beyond(fixed, fixed)) value.fail(std::string(rule.bound_help));
        return fixed;
    }
    Odds odds(std::string_view field) const override {
        declared(field, MemberType::odds);
        return read_odds(item_[field]);
    }
    bool flag(std::string_view field) const override {
        declared(field, MemberType::flag);
        return item_.has(field) && item_[field].boolean();
    }
    std::string text(std::string_view field) const override {
        declared(field, MemberType::choice);
        return item_[field].string();
    }
    void fail_at(std::string_view field, const std::string& message) const override { item_[field].fail(message); }

private:
    std::string drawn_targets(std::string_view field) const {
        generator_->targets = read_generator_targets(item_[field], world_);
        return "";
    }

    // A family reads only what its entry declares, as the type it declares: what the
    // JSON Schema, printed from the declaration, says the member is.
    const FaultMember& declared(std::string_view field, MemberType type) const {
        assert(entry_ != nullptr);  // declare() comes first
        const FaultMember* member = entry_->find(field);
        assert(member != nullptr && member->type == type);
        return *member;
    }

    mutable const FaultEntry* entry_ = nullptr;
    const JsonReader& item_;
    const WorldSpec& world_;
    const std::vector<std::string>& nodes_;
    FaultGenerator* generator_;  // null: a placed fault
};

// "\"a\", \"b\" or \"c\"".
std::string quoted_list(const std::vector<std::string_view>& keys) {
    std::string out;
    for (std::size_t i = 0; i < keys.size(); ++i)
        out += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ", keys[i]);
    return out;
}

// The entry's fault, read by the family whose key it has; nullopt when it has none.
std::optional<Fault> read_fault_of_family(const JsonFaultReader& reader, const JsonReader& item) {
    std::optional<Fault> fault;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const FaultEntry& entry : F::entries)
            if (!fault && item.has(entry.key)) fault = F::read(entry.key, reader);
    });
    return fault;
}

}  // namespace

std::vector<Fault> read_faults(const JsonReader& list, const WorldSpec& world) {
    const std::vector<std::string> nodes = node_names(world);
    std::vector<Fault> faults;
    // A run judges each fault that strikes by a run without it (checks/fault_effects.hpp):
    // thousands of faults cost thousands of runs of thousands of faults.
    constexpr std::size_t max_fixed_faults = 1000;
    const auto items = list.elements();
    if (items.size() > max_fixed_faults)
        list.fail(
            fmt::format("expected at most {} faults, got {}: each that strikes is judged by a run without it; "
                        "draw many from \"fault_generators\" instead",
                        max_fixed_faults, items.size()));
    for (const auto& item : items) {
        const JsonFaultReader reader(item, world, nodes, nullptr);
        std::optional<Fault> fault = read_fault_of_family(reader, item);
        if (!fault) item.fail(fmt::format("expected a fault with {}", quoted_list(fault_keys())));
        std::visit(
            [&](auto& f) {
                f.at = read_time(item);
                f.when = read_trigger(item, nodes);
            },
            *fault);
        faults.push_back(std::move(*fault));
    }
    return faults;
}

// A generator's mean interval may be years, for faults that come monthly or rarer: five
// years at most, since an exponential draw reaches 36.7 times its mean (the largest -ln u
// of a 53-bit u), and 36.7 times five years of nanoseconds stays below 2^63.
constexpr Duration max_mean_interval = hours(24 * 365 * 5);
static_assert(static_cast<double>(max_mean_interval.ns) * 36.74 + static_cast<double>(max_duration.ns) < 9.2e18);

std::vector<FaultGenerator> read_fault_generators(const JsonReader& list, const WorldSpec& world) {
    constexpr std::int64_t max_faults_per_target = 10'000;
    const std::vector<std::string> nodes = node_names(world);
    std::vector<FaultGenerator> generators;
    for (const auto& item : list.elements()) {
        FaultGenerator generator;
        const JsonFaultReader reader(item, world, nodes, &generator);
        std::optional<Fault> shape = read_fault_of_family(reader, item);
        if (!shape) {
            std::vector<std::string_view> on_nodes, on_links;
            for_each_fault_family([&]<class F>(std::type_identity<F>) {
                auto& keys = requires(F f) {
                    f.node;
                }
                ? on_nodes : on_links;
                for (const FaultEntry& entry : F::entries) keys.push_back(entry.key);
            });
            item.fail(fmt::format("expected a generator with {} (listing its targets), or {} (naming the link)",
                                  quoted_list(on_nodes), quoted_list(on_links)));
        }
        generator.shape = std::move(*shape);
        generator.mean_interval = item["mean_interval"].duration(max_mean_interval);
        generator.from = Instant{} + (item.has("from") ? item["from"].duration() : Duration{});
        // A window written past the horizon ends there: no fault after it strikes, and the
        // probability that one strikes (a given fault's weight) is that of the window run.
        generator.until =
            Instant{} + std::min(item.has("until") ? item["until"].duration() : world.horizon, world.horizon);
        const bool from_past_horizon = generator.from >= Instant{} + world.horizon;
        if (generator.until <= generator.from)
            (item.has("until") && !from_past_horizon ? item["until"] : item["from"])
                .fail(fmt::format("the window from {} to {} is empty; the run ends at its horizon",
                                  format_seconds(generator.from), format_seconds(generator.until)));
        if (generator.mean_interval.ns <= 0 ||
            (generator.until - generator.from).ns / generator.mean_interval.ns > max_faults_per_target)
            item["mean_interval"].fail(
                fmt::format("expected a mean interval that gives at most {} faults per node in "
                            "the window",
                            max_faults_per_target));
        generator.at_once = item.has("at_once") && item["at_once"].boolean();
        generators.push_back(std::move(generator));
    }
    return generators;
}

}  // namespace locksim
