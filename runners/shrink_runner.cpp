#include "runners/shrink_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <variant>

#include "checks/exploration.hpp"
#include "checks/metric_words.hpp"
#include "checks/metrics.hpp"
#include "models/world/fault_schedule.hpp"
#include "models/world/world.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/design_world.hpp"
#include "scenarios/schema/fault_json.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

// The node a fault on one node strikes, by name; "" for a fault between nodes or a role
// such as {"role": "holder"}.
std::string struck_node(const Json& fault) {
    for (auto key : node_fault_keys())
        if (fault.contains(key) && fault[std::string(key)].is_string())
            return fault[std::string(key)].get<std::string>();
    return "";
}

struct Trial {
    std::uint32_t violations = 0;
    RunMetrics metrics;
    Trace trace;
    Instant ended;
};

class Shrinker {
public:
    explicit Shrinker(const ShrinkRequest& request) : request_(request) {}

    // The document's run, or nullopt when the loader refuses it or it runs away.
    std::optional<Trial> attempt(const Json& document) {
        ++runs_;
        try {
            const Scenario scenario = parse_scenario(document.dump(), request_.file, metric_names());
            RunResult run = run_world(scenario.designs.front().world, request_.seed,
                                      RunOptions{.event_limit = request_.event_limit});
            RunMetrics metrics = check_trace(run.trace, run.summary.ended_at);
            const std::uint32_t violations = judge_design(scenario.designs.front(), metrics).violations;
            return Trial{violations, std::move(metrics), std::move(run.trace), run.summary.ended_at};
        } catch (const ScenarioError&) {
            return std::nullopt;
        } catch (const RunawayRun&) {
            return std::nullopt;
        }
    }

    bool keeps(const Json& document) {
        const auto trial = attempt(document);
        return trial && (trial->violations & target_) != 0;
    }

    void aim_at(std::uint32_t violation) { target_ = violation; }
    std::uint64_t runs() const { return runs_; }

private:
    const ShrinkRequest& request_;
    std::uint32_t target_ = 0;
    std::uint64_t runs_ = 0;
};

// Delta debugging over one list of the document: removes as much of it as it can, in
// chunks that halve until single items, keeping every removal that still violates.
// Returns the items removed.
Json minimise_list(Json& document, const Json::json_pointer& where, std::size_t at_least, Shrinker& shrinker,
                   const std::function<void(Json&, const Json&)>& also_remove = {}) {
    Json removed = Json::array();
    if (!document.contains(where) || !document[where].is_array()) return removed;
    std::size_t chunks = 2;
    for (;;) {
        const Json items = document[where];
        const std::size_t n = items.size();
        if (n <= at_least) break;
        const std::size_t size = std::max<std::size_t>(1, (n + chunks - 1) / chunks);
        bool progress = false;
        for (std::size_t start = 0; start < n && !progress; start += size) {
            const std::size_t end = std::min(n, start + size);
            if (n - (end - start) < at_least) continue;
            Json candidate = document;
            Json kept = Json::array();
            Json dropped = Json::array();
            for (std::size_t i = 0; i < n; ++i) (i >= start && i < end ? dropped : kept).push_back(items[i]);
            candidate[where] = kept;
            if (also_remove)
                for (const auto& item : dropped) also_remove(candidate, item);
            if (!shrinker.keeps(candidate)) continue;
            document = std::move(candidate);
            for (auto& item : dropped) removed.push_back(item);
            chunks = std::max<std::size_t>(2, chunks - 1);
            progress = true;
        }
        if (progress) continue;
        if (size == 1) break;
        chunks = std::min(n, chunks * 2);
    }
    return removed;
}

// The shortest duration, at millisecond steps, in [floor, the current value] that still
// violates; the field is left as it was if nothing shorter does. Signed values shrink
// towards zero.
std::optional<std::string> shorten(Json& document, const Json::json_pointer& where, Duration floor,
                                   Shrinker& shrinker) {
    if (!document.contains(where) || !document[where].is_string()) return std::nullopt;
    const std::string text = document[where].get<std::string>();
    const bool negative = text.starts_with("-");
    const DurationParse parsed = parse_duration(negative ? std::string_view(text).substr(1) : std::string_view(text));
    if (!std::holds_alternative<Duration>(parsed)) return std::nullopt;
    const std::int64_t unit = milliseconds(1).ns;
    const std::int64_t current = std::get<Duration>(parsed).ns;
    std::int64_t low = floor.ns / unit;  // candidates in whole milliseconds
    std::int64_t high = current / unit;  // the best known to violate, in ms (the current value at worst)
    const auto spelled = [negative](std::int64_t ms) {
        return (negative ? "-" : "") + format_duration(Duration{ms * milliseconds(1).ns});
    };
    std::optional<std::int64_t> best;
    while (low < high) {
        const std::int64_t middle = low + (high - low) / 2;
        Json candidate = document;
        candidate[where] = spelled(middle);
        if (shrinker.keeps(candidate)) {
            high = middle;
            best = middle;
        } else {
            low = middle + 1;
        }
    }
    if (!best || *best * unit >= current) return std::nullopt;
    document[where] = spelled(*best);
    return fmt::format("{} {} → {}", where.to_string(), text, spelled(*best));
}

// A fault placed by time, placed instead right after the last event of its node before
// that time: "after server-1 prepares customer 42's invoice" says why the moment matters.
std::optional<std::string> anchor_to_event(Json& document, std::size_t index, Shrinker& shrinker) {
    Json& fault = document["faults"][index];
    const std::string node = struck_node(fault);
    if (node.empty() || !fault.contains("at")) return std::nullopt;
    const auto trial = shrinker.attempt(document);
    if (!trial) return std::nullopt;
    const DurationParse at = parse_duration(fault["at"].get<std::string>());
    if (!std::holds_alternative<Duration>(at)) return std::nullopt;
    const Instant strikes = Instant{} + std::get<Duration>(at);
    const TraceEvent* last = nullptr;
    for (const auto& event : trial->trace.events()) {
        if (event.at >= strikes) break;
        if (event.node != no_node && trial->trace.node_name(event.node) == node) last = &event;
    }
    if (last == nullptr) return std::nullopt;
    // An event about a customer is named by its customer too, so that removing other
    // customers later does not move the fault to another one's event.
    const bool about_customer = last->has("customer");
    const std::int64_t customer = about_customer ? last->integer("customer") : 0;
    int nth = 0;
    for (const auto& event : trial->trace.events()) {
        if (event.node == last->node && event.kind == last->kind &&
            (!about_customer || (event.has("customer") && event.integer("customer") == customer)))
            ++nth;
        if (&event == last) break;
    }
    Json candidate = document;
    Json& moved = candidate["faults"][index];
    const std::string was = moved["at"].get<std::string>();
    moved.erase("at");
    moved["when"] = Json{{"event", std::string(last->kind)}, {"node", node}};
    if (about_customer) moved["when"]["customer"] = customer;
    moved["when"]["nth"] = nth;
    if (!shrinker.keeps(candidate)) return std::nullopt;
    document = std::move(candidate);
    return fmt::format("/faults/{}: at {} → when the {} {} of {}", index, was,
                       nth == 1 ? "first" : fmt::format("#{}", nth), last->kind, node);
}

// "server-1 pauses 31s after its 2nd job.preparing (customer 42)": `placed` is the
// fault as the loader read it from `fault`, which says when as the file writes it.
std::string describe_fault(const Json& fault, const Fault& placed) {
    const std::string what = fault_words(placed);
    if (fault.contains("when")) {
        const Json& when = fault["when"];
        std::string detail;
        for (const auto& [key, value] : when.items())
            if (key != "event" && key != "node" && key != "nth") detail += fmt::format(" {} {}", key, value.dump());
        const int nth = when.value("nth", 1);
        return fmt::format("{} after its {} {}{}", what, nth == 1 ? "first" : fmt::format("#{}", nth),
                           when["event"].get<std::string>(), detail);
    }
    if (fault.contains("at")) return fmt::format("{} at {}", what, fault["at"].get<std::string>());
    return what;
}

// The file as JSON, with a clear error when it is not.
Json parsed_file(const ShrinkRequest& request) {
    try {
        return Json::parse(request.text);
    } catch (const Json::exception&) {
        throw ShrinkError(
            fmt::format("{}: not valid JSON; run `locksim run {}` to see where", request.file, request.file));
    }
}

// One design, its world at the top level, under the seed that failed (and the faults of
// --faults instead of the file's, when given).
Json one_design_document(const ShrinkRequest& request) {
    const Json original = parsed_file(request);
    if (!original.contains("designs") || !original["designs"].is_object() ||
        !original["designs"].contains(request.design)) {
        std::vector<std::string> names;
        if (original.contains("designs") && original["designs"].is_object())
            for (const auto& [name, design] : original["designs"].items()) names.push_back(name);
        throw ShrinkError(fmt::format("{}: --design: no design named \"{}\"; the designs are {}", request.file,
                                      request.design, fmt::join(names, ", ")));
    }
    Json document;
    document["$schema"] = "scenario.schema.json";
    document["name"] = original.value("name", std::string("scenario")) + "-minimal";
    document["description"] = "";
    document["seed"] = request.seed;
    // The file's own words and node names: the design's world speaks of them.
    for (const char* field : {"vocabulary", "nodes"})
        if (original.contains(field)) document[field] = original[field];
    const Json world = design_world_json(original, request.design);
    for (const auto& [field, value] : world.items()) document[field] = value;
    if (request.faults) {
        try {
            document["faults"] = Json::parse(*request.faults);
        } catch (const Json::exception&) {
            throw ShrinkError(
                "--faults: not valid JSON; give a list such as '[{\"pause\": \"server-1\", \"at\": \"6s\", \"for\": "
                "\"40s\"}]'");
        }
        document.erase("fault_generators");
    }
    document["designs"] = Json{{request.design, Json::object()}};
    return document;
}

// The violation kind shrink keeps: the first the run shows, in the order outputs list them.
std::uint32_t violation_to_keep(const ShrinkRequest& request, const Json& document, Shrinker& shrinker) {
    const auto first = shrinker.attempt(document);
    if (!first)
        throw ShrinkError(
            fmt::format("{}: the design \"{}\" cannot be run as given; run `locksim run {} --design {}` to "
                        "see why",
                        request.file, request.design, request.file, request.design));
    if (first->violations == 0)
        throw ShrinkError(
            fmt::format("{}: design \"{}\" under seed {} shows no violation, so there is nothing to shrink; "
                        "find a failing run with `locksim sweep` or `locksim explore`",
                        request.file, request.design, request.seed));
    return first->violations & (~first->violations + 1);
}

// `document` with the faults its generators drew for the seed placed as faults of their
// own, so that each can be removed or shortened; drawn given that fault_generators/N
// strikes when the request says so. How many were drawn.
std::size_t with_drawn_faults(const ShrinkRequest& request, Json& document) {
    Scenario scenario = parse_scenario(document.dump(), request.file, metric_names());
    if (request.given_fault) give_fault(scenario, *request.given_fault, request.design);
    const auto drawn = draw_fault_schedule(scenario.designs.front().world.fault_generators, request.seed);
    document.erase("fault_generators");
    if (!document.contains("faults")) document["faults"] = Json::array();
    for (const auto& fault : drawn) document["faults"].push_back(fault_json(fault));
    return drawn.size();
}

std::string fixed_faults_step(const ShrinkRequest& request, std::size_t count) {
    return fmt::format("fixed the {} fault{} the generators drew for seed {}{}", count, count == 1 ? "" : "s",
                       request.seed,
                       request.given_fault ? fmt::format(" given fault_generators/{}", *request.given_fault) : "");
}

// The drawn faults fixed, if the run keeps its violation with them.
void fix_drawn_faults(const ShrinkRequest& request, Json& document, Shrinker& shrinker, ShrinkResult& result) {
    if (!document.contains("fault_generators")) return;
    Json candidate = document;
    const std::size_t count = with_drawn_faults(request, candidate);
    if (shrinker.keeps(candidate)) {
        document = std::move(candidate);
        result.steps.push_back(fixed_faults_step(request, count));
    }
}

// Rounds of removing faults, customers, servers and links, anchoring faults to events and
// shortening amounts, until a round changes nothing (at most four).
void minimise(Json& document, Shrinker& shrinker, ShrinkResult& result) {
    const auto removal = [&result](const std::string& what, const Json& removed) {
        if (removed.empty()) return;
        std::vector<std::string> items;
        for (const auto& item : removed) items.push_back(item.is_string() ? item.get<std::string>() : item.dump());
        result.steps.push_back(fmt::format("removed {} {}: {}", removed.size(), what, fmt::join(items, ", ")));
    };
    for (int round = 0; round < 4; ++round) {
        const std::size_t before = result.steps.size();
        removal("fault(s)", minimise_list(document, Json::json_pointer("/faults"), 0, shrinker));
        removal("customer(s)", minimise_list(document, Json::json_pointer("/job/customers"), 1, shrinker));
        removal("server(s)", minimise_list(document, Json::json_pointer("/servers"), 1, shrinker,
                                           [](Json& candidate, const Json& server) {
                                               if (!candidate.contains("faults")) return;
                                               Json kept = Json::array();
                                               for (const auto& fault : candidate["faults"])
                                                   if (struck_node(fault) != server.get<std::string>())
                                                       kept.push_back(fault);
                                               candidate["faults"] = kept;
                                           }));
        removal("link(s)", minimise_list(document, Json::json_pointer("/network/links"), 0, shrinker));
        if (document.contains("faults"))
            for (std::size_t f = 0; f < document["faults"].size(); ++f) {
                if (auto step = anchor_to_event(document, f, shrinker)) result.steps.push_back(*step);
                for (std::string_view field : amount_fields()) {
                    const auto where = Json::json_pointer(fmt::format("/faults/{}/{}", f, field));
                    const Duration floor = field == "for" ? milliseconds(1) : Duration{};
                    if (auto step = shorten(document, where, floor, shrinker)) result.steps.push_back(*step);
                }
            }
        if (auto step = shorten(document, Json::json_pointer("/network/delay"), Duration{}, shrinker))
            result.steps.push_back(*step);
        if (result.steps.size() == before) break;
    }
}

// The horizon moved in to a second past the run's end, if that is earlier.
void pull_in_horizon(Json& document, Shrinker& shrinker, ShrinkResult& result) {
    const auto last = shrinker.attempt(document);
    if (!last) return;
    const std::int64_t second = seconds(1).ns;
    const Duration end{((last->ended - Instant{}).ns / second + 2) * second};
    Json candidate = document;
    candidate["horizon"] = format_duration(end);
    const auto was = document.contains("horizon") ? document["horizon"].get<std::string>() : std::string("the default");
    const DurationParse current = parse_duration(document.value("horizon", std::string("1h")));
    if (std::holds_alternative<Duration>(current) && end < std::get<Duration>(current) && shrinker.keeps(candidate)) {
        document = std::move(candidate);
        result.steps.push_back(fmt::format("horizon {} → {}", was, format_duration(end)));
    }
}

// What the minimal run shows, pinned as the design's expectation and said in words, the
// designs last as in every shipped file.
void pin_outcome(const ShrinkRequest& request, std::uint32_t target, Json& document, Shrinker& shrinker,
                 const ShrinkResult& result) {
    const auto final_run = shrinker.attempt(document);
    if (!final_run || (final_run->violations & target) == 0)
        throw std::logic_error("shrink lost the violation it kept at every step");
    std::vector<std::string> faults;
    const Scenario minimal = parse_scenario(document.dump(), request.file, metric_names());
    if (document.contains("faults")) {
        const std::vector<Fault>& placed = minimal.designs.front().world.faults;
        assert(placed.size() == document["faults"].size());
        for (std::size_t f = 0; f < placed.size(); ++f)
            faults.push_back(describe_fault(document["faults"][f], placed[f]));
    }
    const std::int64_t count = final_run->metrics.value(result.violation);
    // In the file's own words ("1 double payout"), and by the name its expect pins.
    const MetricSpec* violation = find_metric(result.violation);
    assert(violation != nullptr);
    document["description"] = fmt::format(
        "Shrunk by locksim shrink from {} (design \"{}\", seed {}): {}; the run shows {} ({} {}).", request.file,
        request.design, request.seed,
        faults.empty() ? std::string("no fault at all") : fmt::format("{}", fmt::join(faults, "; ")),
        metric_counted(violation->metric, count, minimal.designs.front().world.vocabulary), result.violation, count);
    document["designs"][request.design]["expect"] = Json{{result.violation, count}};
    Json designs = document["designs"];
    document.erase("designs");
    document["designs"] = std::move(designs);
}

}  // namespace

ShrinkResult shrink(const ShrinkRequest& request) {
    Json document = one_design_document(request);
    Shrinker shrinker(request);
    ShrinkResult result;
    // A conditioned draw is no draw of the file as it stands: its faults are fixed first,
    // and the run that failed is the run with them.
    if (request.given_fault) result.steps.push_back(fixed_faults_step(request, with_drawn_faults(request, document)));
    const std::uint32_t target = violation_to_keep(request, document, shrinker);
    shrinker.aim_at(target);
    result.violation = violation_names(target).front();
    fix_drawn_faults(request, document, shrinker, result);
    minimise(document, shrinker, result);
    pull_in_horizon(document, shrinker, result);
    pin_outcome(request, target, document, shrinker, result);
    result.minimal = std::move(document);
    result.runs = shrinker.runs();
    return result;
}

}  // namespace locksim
