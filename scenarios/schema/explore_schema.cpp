#include "scenarios/schema/explore_schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "checks/exploration.hpp"
#include "checks/sweep_summary.hpp"
#include "models/faults/fault_roles.hpp"
#include "models/stores/store_registry.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

// Two entries of "faults" that explore the same faults: the same family on the same targets
// and other side (in any order), of the same sizes, cause, direction and odds.
bool same_family(const ExploreFaultFamily& a, const ExploreFaultFamily& b) {
    const auto sorted = [](std::vector<std::string> names) {
        std::sort(names.begin(), names.end());
        return names;
    };
    const auto texts = [](const ExploreFaultFamily& family) {
        std::vector<std::string> sizes;
        for (const auto& size : family.sizes) sizes.push_back(size ? size->text : "null");
        if (family.range) sizes.push_back(family.range->from.text + " to " + family.range->to.text);
        return sizes;
    };
    const auto odds = [](const ExploreFaultFamily& family) {
        return family.loss ? std::make_pair(family.loss->numerator, family.loss->denominator)
                           : std::make_pair(std::uint64_t{1}, std::uint64_t{1});
    };
    return a.shape == b.shape && sorted(a.targets) == sorted(b.targets) &&
           sorted(a.apart_from) == sorted(b.apart_from) && texts(a) == texts(b) && a.cause == b.cause &&
           a.one_way == b.one_way && odds(a) == odds(b);
}

// "expect" by design name, each design one the file has.
std::map<std::string, std::vector<Expectation>> read_design_expectations(const JsonReader& expect,
                                                                         const std::vector<std::string>& designs,
                                                                         const std::vector<std::string>& metrics) {
    std::map<std::string, std::vector<Expectation>> by_design;
    for (const auto& [design, expected] : expect.members()) {
        if (std::find(designs.begin(), designs.end(), design) == designs.end())
            expected.fail(fmt::format("no design is called \"{}\"; the designs are: {}", message_safe(design),
                                      fmt::join(designs, ", ")));
        by_design[design] = read_expectations(expected, metrics);
    }
    return by_design;
}

constexpr std::string_view size_help =
    "expected a duration such as \"40s\", or one relative to the lock's TTL: \"ttl\", \"ttl+1ms\", \"ttl-1ms\", "
    "\"ttl/3\"";

Duration parsed_or_fail(const JsonReader& field, std::string_view text) {
    const DurationParse parsed = parse_duration(text);
    if (const auto* problem = std::get_if<std::string>(&parsed))
        field.fail(fmt::format("{}, got \"{}\": {}", size_help, message_safe(field.string()), *problem));
    const Duration value = std::get<Duration>(parsed);
    if (value > max_duration) field.fail(fmt::format("expected at most {} (a week)", format_duration(max_duration)));
    return value;
}

// The roles an explore target may name: {"role": "holder"}, {"role": "primary"} (where
// every design's store has one); none for the other side of a link.
struct ExploreRoles {
    bool allowed = false;
    bool primary = false;
};

std::string read_role(const JsonReader& target, const ExploreRoles& roles) {
    if (!roles.allowed) target.fail("expected a node's name or \"servers\"; a role names a target, not this");
    target.allow_only({"role"});
    const std::string role = target["role"].string();
    if (role == "holder") return std::string(holder_role);
    if (role == "primary" && roles.primary) return std::string(primary_role);
    if (role == "primary") target["role"].fail("a design's lock store has no primary or leader; name a node instead");
    target["role"].fail(
        fmt::format("expected \"holder\" (the server holding the lock when the fault strikes) or "
                    "\"primary\" (the store's primary or leader then), got \"{}\"",
                    message_safe(role)));
}

std::vector<std::string> read_targets(const JsonReader& field, const std::vector<std::string>& nodes,
                                      const std::vector<std::string>& servers, const ExploreRoles& roles = {}) {
    if (field.json().is_string() && field.string() == "servers") return servers;
    if (field.json().is_string()) return {read_node_ref(field, nodes)};
    if (field.json().is_object()) return {read_role(field, roles)};
    std::vector<std::string> targets;
    for (const auto& target : field.elements()) {
        if (target.json().is_string() && target.string() == "servers")
            targets.insert(targets.end(), servers.begin(), servers.end());
        else if (target.json().is_object())
            targets.push_back(read_role(target, roles));
        else
            targets.push_back(read_node_ref(target, nodes));
    }
    if (targets.empty()) field.fail("expected at least one node, or \"servers\"");
    std::vector<std::string> unique;
    for (const auto& name : targets)
        if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
    return unique;
}

std::vector<std::string> names_of(const std::vector<Design>& designs) {
    std::vector<std::string> names;
    for (const auto& design : designs) names.push_back(design.name);
    return names;
}

// The names in every list: the first list's order, without those some other list lacks.
std::vector<std::string> in_every(std::vector<std::vector<std::string>> lists) {
    std::vector<std::string> common = lists.front();
    for (const auto& names : lists)
        std::erase_if(common, [&names](const std::string& name) {
            return std::find(names.begin(), names.end(), name) == names.end();
        });
    return common;
}

// A size as written, held to the family's bound where it is fixed; one taken from the TTL
// is held to it once the design's TTL is known (runners/explore_runner.cpp).
SizeExpression read_bounded_size(const JsonReader& field, const AmountRule& rule) {
    SizeExpression size = read_size(field, rule.signed_values);
    if (!size.from_ttl && rule.beyond(size.offset, size.offset))
        field.fail(
            fmt::format("expected a size within {} either way: {}", format_duration(rule.bound), rule.bound_help));
    return size;
}

std::vector<std::optional<SizeExpression>> read_sizes(const JsonReader& field, const ExploreShape& shape) {
    std::vector<std::optional<SizeExpression>> sizes;
    const auto read_one = [&](const JsonReader& item) -> std::optional<SizeExpression> {
        if (shape.size_may_be_null && item.json().is_null()) return std::nullopt;
        return read_bounded_size(item, shape.size_rule);
    };
    if (!field.json().is_array()) {
        sizes.push_back(read_one(field));
        return sizes;
    }
    for (const auto& item : field.elements()) sizes.push_back(read_one(item));
    if (sizes.empty()) field.fail("expected at least one size to try");
    return sizes;
}

// {"from": "1ms", "to": "2m"}: lengths, not sizes that may be null or signed; or, for a
// family with a size rather than an end, {"from": "-40s", "to": "40s"}: signed sizes.
LengthRange read_range(const JsonReader& field, const ExploreShape& shape) {
    if (!shape.has_end && !shape.sized_range)
        field.fail(
            fmt::format("expected a list of sizes; a range {{\"from\", \"to\"}} is for faults with an end "
                        "(a pause, a crash that restarts, a partition that heals) or a clock step"));
    field.allow_only({"from", "to"});
    LengthRange range{read_bounded_size(field["from"], shape.size_rule),
                      read_bounded_size(field["to"], shape.size_rule)};
    if (range.from.from_ttl || range.to.from_ttl) return range;  // compared once the design's TTL is known
    if (!shape.sized_range && range.to.offset < range.from.offset)
        field["to"].fail(fmt::format("expected a length not below \"from\" ({})", range.from.text));
    if (shape.sized_range && range.to.offset <= range.from.offset)
        field["to"].fail(fmt::format("expected a size above \"from\" ({})", range.from.text));
    return range;
}

}  // namespace

SizeExpression read_size(const JsonReader& field, bool signed_values) {
    if (!field.json().is_string()) field.fail(std::string(size_help));
    const std::string text = field.string();
    SizeExpression size{text};
    std::string_view rest = text;
    if (rest.starts_with("ttl")) {
        size.from_ttl = true;
        rest.remove_prefix(3);
        if (rest.empty()) return size;
        const char op = rest.front();
        rest.remove_prefix(1);
        if (op == '/') {
            std::int64_t divisor = 0;
            const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), divisor);
            if (error != std::errc{} || end != rest.data() + rest.size() || divisor < 1 || divisor > 1000)
                field.fail(fmt::format("expected \"ttl/N\" with N a whole number from 1 to 1000, got \"{}\"",
                                       message_safe(text)));
            size.divisor = divisor;
            return size;
        }
        if (op != '+' && op != '-') field.fail(fmt::format("{}, got \"{}\"", size_help, message_safe(text)));
        const Duration offset = parsed_or_fail(field, rest);
        size.offset = op == '-' ? Duration{-offset.ns} : offset;
        return size;
    }
    bool negative = false;
    if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
        negative = rest.front() == '-';
        if (!signed_values) field.fail(fmt::format("expected a length without a sign, got \"{}\"", message_safe(text)));
        rest.remove_prefix(1);
    }
    const Duration value = parsed_or_fail(field, rest);
    size.offset = negative ? Duration{-value.ns} : value;
    return size;
}

ExploreSpec read_explore(const JsonReader& block, const std::vector<Design>& all_designs) {
    std::vector<std::vector<std::string>> node_lists, server_lists;
    for (const auto& design : all_designs) {
        node_lists.push_back(node_names(design.world));
        server_lists.push_back(design.world.servers);
    }
    const std::vector<std::string> nodes = in_every(node_lists);
    const std::vector<std::string> servers = in_every(server_lists);
    const std::vector<std::string> designs = names_of(all_designs);
    ExploreRoles roles{true, std::all_of(all_designs.begin(), all_designs.end(),
                                         [](const Design& design) { return has_primary(design.world.lock.store); })};
    block.allow_only({"faults", "depth", "expect"});
    ExploreSpec spec;
    const auto families = block["faults"].elements();
    if (families.empty())
        block["faults"].fail(
            "expected at least one fault to try, such as {\"pause\": \"servers\", \"for\": [\"40s\"]}");
    for (const auto& item : families) {
        ExploreFaultFamily family;
        const std::vector<const ExploreShape*> explorable = explorable_families();
        for (const ExploreShape* shape : explorable)
            if (!family.shape && item.has(shape->key)) family.shape = shape;
        if (!family.shape) {
            std::vector<std::string> keys;
            for (const ExploreShape* shape : explorable) keys.push_back(fmt::format("\"{}\"", shape->key));
            item.fail(fmt::format("expected a fault to explore: {} or {}, naming its targets",
                                  fmt::join(keys.begin(), keys.end() - 1, ", "), keys.back()));
        }
        const ExploreShape& shape = *family.shape;
        std::vector<std::string_view> allowed{shape.key, shape.size_field};
        if (shape.has_cause) allowed.push_back("kind");
        if (!shape.other_side_field.empty()) allowed.push_back(shape.other_side_field);
        if (shape.may_be_one_way) allowed.push_back("one_way");
        if (!shape.odds_field.empty()) allowed.push_back(shape.odds_field);
        item.allow_only(allowed);
        if (shape.may_be_one_way && item.has("one_way")) family.one_way = item["one_way"].boolean();
        if (!shape.odds_field.empty() && item.has(shape.odds_field)) family.loss = read_odds(item[shape.odds_field]);
        if (shape.has_cause) {
            family.cause = item.has("kind") ? item["kind"].string() : "gc";
            if (family.cause != "gc" && family.cause != "sigstop" && family.cause != "swap")
                item["kind"].fail("expected \"gc\", \"sigstop\" or \"swap\"");
        }
        if (item.has(shape.size_field) && item[shape.size_field].json().is_object())
            family.range = read_range(item[shape.size_field], shape);
        else if (item.has(shape.size_field) || !shape.size_may_be_null)
            family.sizes = read_sizes(item[shape.size_field], shape);
        else
            family.sizes = {std::nullopt};
        const std::string_view target_field = shape.key;
        family.targets = read_targets(item[target_field], nodes, servers, roles);
        const bool by_role = std::any_of(family.targets.begin(), family.targets.end(),
                                         [](const std::string& target) { return role_of(target) != nullptr; });
        if (by_role && !shape.has_end)
            item[target_field].fail(fmt::format(
                "a role strikes one node over a range of lengths; a {} is explored on named nodes", shape.name));
        if (by_role && !family.range)
            item[target_field].fail(
                fmt::format("a role is explored over a range of lengths, {{\"from\", \"to\"}}, not a list: the node it "
                            "names changes with the strike time"));
        if (!shape.other_side_field.empty() && item.has(shape.other_side_field)) {
            const JsonReader other = item[shape.other_side_field];
            family.apart_from = read_targets(other, nodes, servers);
            if (shape.one_other_node && family.apart_from.size() != 1)
                other.fail(fmt::format("expected one node: a {} strikes the link between its target and one node",
                                       shape.name));
            for (const auto& target : family.targets)
                if (std::find(family.apart_from.begin(), family.apart_from.end(), target) != family.apart_from.end())
                    other.fail(fmt::format("{} is a target: a node has no link to itself to cut", target));
        } else if (shape.one_other_node) {
            item.fail(fmt::format("expected \"{}\": the node at the other end of the link a {} strikes",
                                  shape.other_side_field, shape.name));
        }
        // The same family twice would be tried twice and counted twice.
        for (std::size_t k = 0; k < spec.faults.size(); ++k)
            if (same_family(spec.faults[k], family))
                item.fail(
                    fmt::format("the same fault family as {}/{}: explore would try and count it twice; remove one",
                                block["faults"].pointer(), k));
        spec.faults.push_back(std::move(family));
    }
    if (block.has("depth")) {
        const std::int64_t depth = block["depth"].integer();
        if (depth < 1 || depth > max_explore_depth)
            block["depth"].fail(
                fmt::format("expected 1 (one fault per run) or 2 (every pair of faults), got {}", depth));
        spec.depth = static_cast<int>(depth);
        const bool ranged = std::any_of(spec.faults.begin(), spec.faults.end(),
                                        [](const ExploreFaultFamily& family) { return family.range.has_value(); });
        if (ranged && spec.depth != 1)
            block["depth"].fail(
                "expected 1: a range of lengths or sizes is explored one fault at a time; give lists of "
                "sizes to try pairs");
    }
    if (block.has("expect"))
        spec.expect = read_design_expectations(block["expect"], designs, total_names(explore_totals()));
    return spec;
}

SweepSpec read_sweep_block(const JsonReader& block, const std::vector<Design>& all_designs) {
    const std::vector<std::string> designs = names_of(all_designs);
    block.allow_only({"seeds", "start", "given_fault", "expect"});
    SweepSpec spec;
    spec.seeds = block["seeds"].unsigned_integer();
    if (spec.seeds == 0 || spec.seeds > max_sweep_block_seeds)
        block["seeds"].fail(
            fmt::format("expected from 1 to {} seeds; a larger sweep belongs to `locksim sweep "
                        "--shard`",
                        max_sweep_block_seeds));
    if (block.has("start")) spec.first_seed = block["start"].unsigned_integer();
    if (spec.first_seed > UINT64_MAX - (spec.seeds - 1))
        block["start"].fail("the seeds would pass 2^64-1; start lower");
    if (block.has("given_fault")) {
        // As `sweep --given-fault N` is refused, before any run: a generator every design
        // has, at one probability.
        spec.given_fault = block["given_fault"].unsigned_integer();
        Scenario designs_only;
        designs_only.designs = all_designs;
        try {
            give_fault(designs_only, *spec.given_fault, std::nullopt, "");
        } catch (const GivenFaultError& error) {
            block["given_fault"].fail(error.what());
        }
    }
    if (!block.has("expect")) block.fail("expected \"expect\": what each design's totals must show");
    spec.expect = read_design_expectations(block["expect"], designs, total_names(sweep_totals()));
    return spec;
}

}  // namespace locksim
