#include "scenarios/schema/scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <vector>

#include "checks/metric_table.hpp"
#include "models/idempotency_key.hpp"
#include "models/stores/client_profiles.hpp"
#include "models/stores/store_registry.hpp"
#include "scenarios/schema/design_world.hpp"
#include "scenarios/schema/explore_schema.hpp"
#include "scenarios/schema/input_file.hpp"
#include "scenarios/schema/json_text.hpp"
#include "scenarios/schema/sample_file.hpp"
#include "scenarios/schema/sha256.hpp"
#include "scenarios/schema/study_schema.hpp"
#include "scenarios/schema/varied_field.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"
#include "sim/text_chars.hpp"

namespace locksim {
namespace {

// The fixed names of the service nodes; servers are named by the scenario.
constexpr std::string_view billing_node = "billing-db";
constexpr std::string_view provider_node = "payment-provider";

// Defaults for fields a scenario may leave out; docs/scenario-format.md lists them.
constexpr Duration default_horizon = hours(1);

// A node the file names (a server, a service node): its name, refused unless it is one.
std::string read_node_name(const JsonReader& value) {
    std::string name = value.string();
    const bool usable = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    });
    if (!usable)
        value.fail(fmt::format("expected a node name of lowercase letters, digits, '-' or '_', got \"{}\"", name));
    return name;
}

// "vocabulary": {"item": "user", "effect": "email", "provider": "email provider",
// "record": "statement"}: the job's words, for the reports; any word left out keeps the renewals job's.
Vocabulary read_vocabulary(const JsonReader& field) {
    field.allow_only({"item", "effect", "provider", "record", "items", "effected", "table"});
    Vocabulary words;
    const auto read = [&field](std::string_view key, std::string& word) {
        if (!field.has(key)) return;
        const JsonReader value = field[key];
        word = value.string();  // text, as every text field is
        if (word.empty() || word.size() > 40)
            value.fail("expected a word or two of printable text, at most 40 bytes (\"user\", \"email\")");
    };
    read("item", words.item);
    read("effect", words.effect);
    read("provider", words.provider);
    read("record", words.record);
    read("items", words.items_written);
    read("effected", words.effected_written);
    read("table", words.table_written);
    return words;
}

// The service nodes' names: the defaults, or the file's "nodes": {"provider": "partner-bank",
// "database": "ledger-db"}, so that lanes, links and faults name the engineer's own system.
struct ServiceNodes {
    std::string provider{provider_node};
    std::string database{billing_node};
};

ServiceNodes read_service_nodes(const JsonReader& field) {
    field.allow_only({"provider", "database"});
    ServiceNodes names;
    const auto read = [&field](std::string_view key, std::string& name) {
        if (!field.has(key)) return;
        const JsonReader value = field[key];
        name = read_node_name(value);
        if (name == "world" || is_store_node_name(name))
            value.fail(
                fmt::format("\"{}\" is reserved for a lock store's node or the world; name it differently", name));
    };
    read("provider", names.provider);
    read("database", names.database);
    if (names.provider == names.database)
        field["database"].fail(
            fmt::format("expected a name other than the provider's, got \"{}\" for both", names.database));
    return names;
}

class WorldReader {
public:
    WorldReader(const JsonReader& root, const ServiceNodes& services) : root_(root), services_(services) {}

    WorldSpec read() {
        WorldSpec world;
        world.horizon = root_.has("horizon") ? root_["horizon"].duration() : default_horizon;
        if (world.horizon.ns <= 0) root_["horizon"].fail("expected a horizon above 0s");
        world.servers = read_servers(root_["servers"]);
        world.lock = read_lock(root_["lock"]);
        world.store_nodes = store_node_names(world.lock);
        if (world.lock.pooler) world.pooler_node = pooler_node_name;
        world.billing_node = services_.database;
        world.provider_node = services_.provider;
        nodes_ = node_names(world);

        if (root_.has("clocks")) world.clocks = read_clocks(root_["clocks"]);
        read_network(root_["network"], nodes_, world);
        world.job = read_job(root_["job"], world.servers);
        check_last_run(world);
        world.protection = read_protection(world.lock, world.job);
        if (root_.has("provider")) world.provider = read_provider(root_["provider"]);
        const StoreEntry& store = store_entry(world.lock.store);
        if (world.job.skip_when_refused && !store.polls)
            root_["job"]["on_refused"].fail(fmt::format(
                "this lock store queues a waiter rather than refusing it, so there is no refusal to skip on; "
                "\"skip\" needs {}",
                store_names([](const StoreEntry& s) { return s.polls; }, "or")));
        if (world.job.lock_scope == LockScope::leadership && !store.shared())
            root_["job"]["lock_for"].fail("a leader is elected through a shared lock store; this design has none");
        if (world.job.lock_scope == LockScope::leadership && world.job.starts_at == Instant{})
            root_["job"]["at"].fail(
                "with \"lock_for\": \"leadership\" the servers stand for leader at midnight; start "
                "the job later (\"00:01\") so that one has been elected by then");
        if (world.job.lock_scope == LockScope::leadership && world.job.assignment == Assignment::hash)
            root_["job"]["assign"].fail(
                "only the leader runs the job, so it cannot be split by hash among the servers; "
                "use one or the other");
        if (world.job.min_lease_left && (store.grant == GrantLength::no_lock || store.database_lock()))
            root_["job"]["min_lease_left"].fail(
                "this design's lock has no lease to run out (no lock, or a database lock held for the session); "
                "a margin needs a lease");
        // A client that keeps no deadline of its own always has its whole lease left: a
        // margin would never stop the job, silently.
        if (world.job.min_lease_left && client_of(world.lock).deadline == ClientProfile::Deadline::none)
            root_["job"]["min_lease_left"].fail(
                fmt::format("the {} client keeps no deadline of its own, so no margin of it is ever short; use a "
                            "client that times its lease",
                            client_of(world.lock).name));
        check_margin_below_lease(world);
        // At its read timeout the client closes the job's connection; on the lock's own
        // session that would end the lock too, which is not modelled: refused, not ignored.
        if (world.job.read_timeout && world.lock.job_statements == JobStatements::lock_session)
            root_["job"]["read_timeout"].fail(
                "at its read timeout the client closes its connection, which with lock.job_statements "
                "\"lock-session\" is the lock's own: the session would end and the lock with it, which locksim "
                "does not model; leave read_timeout out, or run the statements on their own connection");
        if (root_.has("faults")) world.faults = read_faults(root_["faults"], world);
        if (root_.has("fault_generators"))
            world.fault_generators = read_fault_generators(root_["fault_generators"], world);
        return world;
    }

private:
    // Every run of a recurring job starts before the horizon. The span of the runs is a
    // count times a duration, both from the file: 20,000 runs a week apart pass 2^63 ns, and
    // a wrapped product would pass this check and silently drop all but a few runs.
    void check_last_run(const WorldSpec& world) const {
        if (world.job.runs <= 1) return;
        std::optional<Duration> last = checked_product(world.job.every, world.job.runs - 1);
        if (last && __builtin_add_overflow(last->ns, world.job.starts_at.ns, &last->ns)) last.reset();
        if (!last)
            root_["job"]["runs"].fail(fmt::format(
                "the last run would start {} × {} after the first, past 2^63 ns (292 years) and the horizon ({}); "
                "raise \"horizon\" or lower \"runs\"",
                world.job.runs - 1, format_duration(world.job.every), format_duration(world.horizon)));
        if (*last >= world.horizon)
            root_["job"]["runs"].fail(fmt::format(
                "the last run would start at {}, at or after the horizon ({}); raise \"horizon\" or lower \"runs\"",
                format_duration(*last), format_duration(world.horizon)));
    }

    // A holder never has more lease left than the store granted, so a margin as long as
    // that stops every run before its first customer: no work would ever be done.
    void check_margin_below_lease(const WorldSpec& world) const {
        if (!world.job.min_lease_left) return;
        const std::optional<Duration> longest = longest_lease_left(world.lock);
        if (!longest || *world.job.min_lease_left < *longest) return;
        const std::string granted =
            *longest == world.lock.ttl
                ? ""
                : fmt::format(" ({} grants {} for the ttl of {})", store_entry(world.lock.store).name,
                              format_duration(*longest), format_duration(world.lock.ttl));
        root_["job"]["min_lease_left"].fail(
            fmt::format("expected a margin below the TTL of {}{}: a holder never has more lease left than that, so "
                        "every run would stop before doing any work",
                        format_duration(*longest), granted));
    }

    std::vector<std::string> read_servers(const JsonReader& list) {
        std::vector<std::string> servers;
        std::set<std::string> listed;  // a world may have many thousands of servers
        for (const auto& item : list.elements()) {
            std::string name = read_node_name(item);
            if (name == services_.database || name == services_.provider || name == "world" || is_store_node_name(name))
                item.fail(
                    fmt::format("\"{}\" is reserved for a service node or the world; name servers differently", name));
            if (!listed.insert(name).second) item.fail(fmt::format("server \"{}\" is listed twice", name));
            servers.push_back(std::move(name));
        }
        if (servers.empty()) list.fail("expected at least one server");
        return servers;
    }

    std::map<std::string, ClockSettings> read_clocks(const JsonReader& clocks) const {
        std::map<std::string, ClockSettings> result;
        for (const auto& [name, spec] : clocks.members()) {
            if (std::find(nodes_.begin(), nodes_.end(), name) == nodes_.end())
                spec.fail(fmt::format("unknown node \"{}\"; the nodes are {}", name, fmt::join(nodes_, ", ")));
            spec.allow_only({"offset", "drift_ppm"});
            ClockSettings settings;
            if (spec.has("offset")) settings.offset = spec["offset"].signed_duration();
            if (spec.has("drift_ppm")) {
                settings.drift_ppm = spec["drift_ppm"].integer();
                if (settings.drift_ppm <= -1'000'000 || settings.drift_ppm > 1'000'000)
                    spec["drift_ppm"].fail("expected a drift between -999999 and 1000000 parts per million");
            }
            result[name] = settings;
        }
        return result;
    }

    // "provider": {"keys": "ignored"} for a provider without key support; "key_retention":
    // "24h" for one that forgets a key that long after its first use.
    static ProviderSpec read_provider(const JsonReader& provider) {
        provider.allow_only({"keys", "key_retention"});
        ProviderSpec spec;
        if (provider.has("keys")) {
            const std::string keys = provider["keys"].string();
            if (keys != "honoured" && keys != "ignored")
                provider["keys"].fail(
                    fmt::format("unknown \"{}\"; expected \"honoured\" (a repeated key returns the "
                                "first charge) or \"ignored\" (a provider without key support)",
                                message_safe(keys)));
            spec.honours_keys = keys == "honoured";
        }
        if (provider.has("key_retention")) {
            spec.key_retention = provider["key_retention"].duration();
            if (spec.key_retention->ns <= 0) provider["key_retention"].fail("expected a retention above 0s");
        }
        return spec;
    }

    // "fencing": true or "database" (claim the row with the token), "claim-once" (claim
    // only a row still due), "provider" (send it with the charge), "both", or false.
    static void read_fencing(const JsonReader& field, const LockSpec& lock, ProtectionSpec& protection) {
        if (field.json().is_boolean()) {
            protection.fence_database = field.boolean();
        } else {
            if (!field.json().is_string())
                field.fail("expected true, false, \"database\", \"claim-once\", \"provider\" or \"both\"");
            const std::string where = field.string();
            if (where != "database" && where != "claim-once" && where != "provider" && where != "both")
                field.fail(
                    fmt::format("unknown \"{}\"; expected \"database\" (claim the row with the token), "
                                "\"claim-once\" (claim only a row still due), \"provider\" (send the token with "
                                "each charge) or \"both\"",
                                message_safe(where)));
            protection.fence_database = where != "provider";
            protection.fence_provider = where == "provider" || where == "both";
            protection.claim_once = where == "claim-once";
        }
        if ((protection.fence_database || protection.fence_provider) && !gives_tokens(lock))
            field.fail(fmt::format(
                "fencing needs a lock that hands out tokens, and this one gives none (a Redis value is random "
                "and never increases); use {}, or give a Redis lock a \"token_counter\"",
                store_names([](const StoreEntry& s) { return s.tokens == TokenSource::store; }, "or", true)));
    }

    ProtectionSpec read_protection(const LockSpec& lock, const JobSpec& job) const {
        ProtectionSpec protection;
        if (root_.has("unique_claim")) {
            protection.unique_claim = root_["unique_claim"].boolean();
            if (protection.unique_claim && job.kind == JobKind::index_rebuild)
                root_["unique_claim"].fail(
                    "a unique claim inserts renewal rows; the job must be the renewals job or a leader loop");
        }
        if (root_.has("fencing")) read_fencing(root_["fencing"], lock, protection);
        if (root_.has("reclaim_after")) {
            if (!protection.claim_once)
                root_["reclaim_after"].fail(
                    "only a claim-once fence refuses a claimed row and so needs a rule to take it back; add "
                    "\"fencing\": \"claim-once\"");
            protection.reclaim_after = root_["reclaim_after"].duration();
            if (protection.reclaim_after->ns <= 0) root_["reclaim_after"].fail("expected a time above 0s");
        }
        if (root_.has("conditional_write")) {
            protection.conditional_write = root_["conditional_write"].boolean();
            if (protection.conditional_write && job.kind == JobKind::index_rebuild)
                root_["conditional_write"].fail(
                    "a conditional write is a charge made on the version its writer read; the index rebuild "
                    "charges nothing, so the job must be the renewals job or a leader loop");
        }
        if (root_.has("idempotency_key")) {
            const JsonReader field = root_["idempotency_key"];
            std::string key = field.string();
            if (auto problem = check_idempotency_key_template(key)) field.fail(*problem);
            protection.idempotency_key = std::move(key);
        }
        return protection;
    }

    JsonReader root_;
    const ServiceNodes& services_;
    std::vector<std::string> nodes_;
};

LockPurpose read_purpose(const JsonReader& world) {
    if (!world.has("purpose")) return LockPurpose::correctness;
    const std::string purpose = world["purpose"].string();
    if (purpose == "correctness") return LockPurpose::correctness;
    if (purpose == "efficiency") return LockPurpose::efficiency;
    world["purpose"].fail(
        fmt::format("unknown purpose \"{}\"; expected \"correctness\" (a double run is an incident) "
                    "or \"efficiency\" (a double run wastes work)",
                    purpose));
}

// A correctness lock may never let money move twice or a stale write through
// (MetricSpec::zero_for_correctness); a design that demonstrates the failure says so with
// its own expectation of that metric.
void add_correctness_expectations(std::vector<Expectation>& expectations, const std::vector<std::string>& metrics) {
    for (const auto& spec : metric_table) {
        const std::string_view metric = spec.name;
        if (!spec.zero_for_correctness || std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) continue;
        const bool stated = std::any_of(expectations.begin(), expectations.end(),
                                        [&](const Expectation& e) { return e.metric == metric; });
        if (stated) continue;
        Expectation implied{std::string(metric), Expectation::Comparison::equals, 0, true};
        implied.implied_because = "a correctness lock";
        expectations.push_back(std::move(implied));
    }
}

// A scenario is a few kilobytes, a few levels deep, with objects of a few dozen fields.
// Refusing what is far beyond that before parsing keeps every later walk of the document
// fast and safe (the JSON library's ordered objects take quadratic time in their size).
constexpr InputLimit scenario_limit{1 << 20, "1 MiB", "a scenario is a few kilobytes"};
constexpr JsonTextLimits scenario_text{.kind = "scenario",
                                       .numbers = "counts, seeds and factors",
                                       .depth = 64,
                                       .object_members = 1'000,
                                       .array_items = 100'000};

// A scenario file that cannot be read, as the loader's one line. A file too big is the
// document's fault as a whole (pointer "/"); a folder gets the name of a file to give.
ScenarioError file_error(const std::string& path, const InputFileError& error) {
    if (error.problem == InputProblem::too_big) return ScenarioError(fmt::format("{}: /: {}", path, error.what()));
    if (error.problem == InputProblem::directory)
        return ScenarioError(
            fmt::format("{}: is a directory; give a scenario file such as {}/gc-pause-40s.json", path, path));
    return ScenarioError(input_error_line(path, error));
}

}  // namespace

namespace {

// {"at_least": n} and/or {"at_most": n} of an object: a count, or a time for the first violation.
void read_bounds(const JsonReader& value, Expectation base, std::vector<Expectation>& expectations) {
    for (const auto& [bound, comparison] : {std::pair{"at_least", Expectation::Comparison::at_least},
                                            std::pair{"at_most", Expectation::Comparison::at_most}}) {
        if (!value.has(bound)) continue;
        Expectation expectation = base;
        expectation.comparison = comparison;
        if (base.subject == Expectation::Subject::time) {
            expectation.value = value[bound].duration().ns;
        } else {
            expectation.value = value[bound].integer();
            if (expectation.value < 0) value[bound].fail("expected a count of 0 or more: no metric is negative");
        }
        expectations.push_back(std::move(expectation));
    }
    if (value.has("at_least") && value.has("at_most") &&
        expectations[expectations.size() - 2].value > expectations.back().value)
        value.fail("expected \"at_least\" no greater than \"at_most\": no run can meet both");
}

// {"customers": [42, 7]}: exactly these customers were charged twice.
Expectation read_customers(const JsonReader& list, Expectation expectation) {
    expectation.subject = Expectation::Subject::customers;
    for (const auto& customer : list.elements()) expectation.customers.push_back(customer.integer());
    std::sort(expectation.customers.begin(), expectation.customers.end());
    if (std::adjacent_find(expectation.customers.begin(), expectation.customers.end()) != expectation.customers.end())
        list.fail("expected each customer once");
    return expectation;
}

// {"between": ["server-1", "server-2"]}: two of the design's servers.
Expectation read_between(const JsonReader& pair, Expectation expectation, const std::vector<std::string>& servers) {
    expectation.subject = Expectation::Subject::holders;
    for (const auto& server : pair.elements()) expectation.holders.push_back(read_node_ref(server, servers));
    if (expectation.holders.size() != 2 || expectation.holders[0] == expectation.holders[1])
        pair.fail("expected two different servers, such as [\"server-1\", \"server-2\"]");
    return expectation;
}

}  // namespace

std::vector<Expectation> read_expectations(const JsonReader& expect, const std::vector<std::string>& metrics,
                                           const std::vector<std::string>* run_servers) {
    std::vector<Expectation> expectations;
    std::vector<std::string> names = metrics;
    if (run_servers) names.emplace_back(first_violation_metric);
    for (const auto& [metric, value] : expect.members()) {
        if (std::find(names.begin(), names.end(), metric) == names.end())
            value.fail(fmt::format("unknown metric \"{}\"; expected one of: {}", metric, fmt::join(names, ", ")));
        Expectation base{metric, Expectation::Comparison::equals, 0};
        if (metric == first_violation_metric) {
            base.subject = Expectation::Subject::time;
            value.allow_only({"at_least", "at_most"});
            if (!value.has("at_least") && !value.has("at_most"))
                value.fail(
                    "expected {\"at_least\": duration} and/or {\"at_most\": duration}, such as {\"at_most\": "
                    "\"50s\"}");
            read_bounds(value, base, expectations);
            continue;
        }
        if (!value.json().is_object()) {
            base.value = value.integer();
            if (base.value < 0) value.fail("expected a count of 0 or more: no metric is negative");
            expectations.push_back(std::move(base));
            continue;
        }
        std::vector<std::string_view> allowed{"at_least", "at_most"};
        const MetricSpec* spec = find_metric(metric);
        const MetricDetail detail = run_servers && spec ? spec->detail : MetricDetail::none;
        if (detail == MetricDetail::customers) allowed.push_back("customers");
        if (detail == MetricDetail::holders) allowed.push_back("between");
        value.allow_only(allowed);
        if (value.members().empty()) value.fail(fmt::format("expected at least one of: {}", fmt::join(allowed, ", ")));
        read_bounds(value, base, expectations);
        if (value.has("customers")) expectations.push_back(read_customers(value["customers"], base));
        if (value.has("between")) expectations.push_back(read_between(value["between"], base, *run_servers));
    }
    return expectations;
}

namespace {

// A scenario's text (or `run --faults`') as JSON: within a scenario file's limit (the
// reader bounds a file; text given otherwise is bounded here), then the JSON layer.
ParsedJson parse_scenario_text(std::string_view text, const std::string& file) {
    if (text.size() > scenario_limit.bytes)
        throw file_error(file, input_too_big(std::to_string(text.size()), scenario_limit));
    return parse_json_text(text, file, scenario_text);
}

// Every text in the file follows one rule (sim/text_chars.hpp), wherever it stands: a
// value, a design's name or any other member's, a value every design overrides. Checked
// before anything reads the file, so a text that no design reads is refused too, at its place.
void check_every_text(const JsonReader& value) {
    if (value.json().is_string()) {
        (void)value.string();
    } else if (value.json().is_object()) {
        for (const auto& [name, member] : value.members()) {
            if (const auto flaw = first_unshowable(name))
                member.fail(fmt::format("name: {}, got {}", plain_text_expected, *flaw));
            check_every_text(member);
        }
    } else if (value.json().is_array()) {
        for (const auto& item : value.elements()) check_every_text(item);
    }
}

// Sets the value at the variation's pointer; its parent must be in the file already.
void vary(Json& document, const ScenarioVariation& variation, const std::string& file) {
    const Json::json_pointer pointer(variation.pointer);
    if (pointer.empty())
        throw ScenarioError(fmt::format("{}: --vary: give the path of one field, such as lock.ttl", file));
    if (const std::string why = unsettable_reason(document, variation.pointer); !why.empty())
        throw ScenarioError(fmt::format("{}: --vary {}: {}", file, variation.pointer, why));
    document[pointer] = variation.value;
}

// An error's line without the file and its place in it ("/lock/ttl: expected a duration
// …"), as JsonReader::fail writes it: "FILE[:LINE:COLUMN]: POINTER: MESSAGE".
std::string_view without_location(std::string_view line, std::string_view file) {
    if (!line.starts_with(file)) return line;
    line.remove_prefix(file.size());
    if (line.starts_with(':')) {
        const auto end = line.find(": ");
        if (end == std::string_view::npos) return line;
        line.remove_prefix(end);
    }
    return line.starts_with(": ") ? line.substr(2) : line;
}

// Every value of a study, tried alone: a value the file cannot take is refused where the
// block names it, when the file is read, rather than in the middle of a course.
void try_study_values(const JsonReader& block, const StudySpec& study, std::string_view text, const std::string& file,
                      const std::vector<std::string>& metrics) {
    for (const auto& field : study.fields) {
        const auto values = block["vary"][field.path].elements();
        for (std::size_t v = 0; v < field.values.size(); ++v) {
            try {
                (void)parse_scenario(text, file, metrics, {ScenarioVariation{field.pointer, field.values[v]}});
            } catch (const ScenarioError& error) {
                values[v].fail(fmt::format("{}={} is not a value the file can take: {}", field.path, field.written[v],
                                           without_location(error.what(), file)));
            }
        }
    }
}

}  // namespace

Scenario parse_scenario(std::string_view text, const std::string& file, const std::vector<std::string>& metrics,
                        const std::vector<ScenarioVariation>& variations) {
    ParsedJson parsed = parse_scenario_text(text, file);
    for (const auto& variation : variations) vary(parsed.document, variation, file);
    const Json& document = parsed.document;
    const JsonPositions& positions = parsed.positions;

    std::map<std::string, std::string> data_files;
    const JsonSource base_source{file, &positions, nullptr, "", "", &data_files};
    const JsonReader root(base_source, document, "");
    std::vector<std::string_view> top_level_fields{"$schema", "name",       "description", "lesson",  "section",
                                                   "assumes", "seed",       "designs",     "explore", "sweep",
                                                   "study",   "vocabulary", "nodes"};
    top_level_fields.insert(top_level_fields.end(), world_fields.begin(), world_fields.end());
    check_every_text(root);
    root.allow_only(top_level_fields);

    // "$schema" names the JSON Schema editors check the file against; it changes nothing here.
    if (root.has("$schema")) root["$schema"].string();
    Scenario scenario;
    scenario.file = file;
    scenario.content_sha256 = sha256_hex(text);
    scenario.name = root["name"].string();
    scenario.description = root["description"].string();
    if (root.has("section")) scenario.section = root["section"].string();
    if (root.has("lesson")) scenario.lesson = root["lesson"].string();
    const auto section_ok = [](const std::string& text) {
        const auto digit = [](char c) { return c >= '1' && c <= '6'; };
        return (text.size() == 1 && digit(text[0])) ||
               (text.size() == 3 && digit(text[0]) && text[1] == '-' && digit(text[2]) && text[0] < text[2]);
    };
    if (root.has("section") && !section_ok(scenario.section))
        root["section"].fail(fmt::format(
            "expected the chapter of the course it tells, \"1\" to \"6\" or a range such as \"3-4\", got \"{}\"",
            scenario.section));
    if (root.has("assumes")) {
        for (const auto& assumed : root["assumes"].elements()) {
            std::string name = assumed.string();
            if (name.empty() || name == scenario.name ||
                std::find(scenario.assumes.begin(), scenario.assumes.end(), name) != scenario.assumes.end())
                assumed.fail(fmt::format("expected the name of another scenario, named once, got \"{}\"", name));
            scenario.assumes.push_back(std::move(name));
        }
    }
    scenario.seed = root["seed"].unsigned_integer();

    const Json base_world = base_world_json(document);
    const Vocabulary vocabulary = root.has("vocabulary") ? read_vocabulary(root["vocabulary"]) : Vocabulary{};
    const ServiceNodes services = root.has("nodes") ? read_service_nodes(root["nodes"]) : ServiceNodes{};

    const auto designs = root["designs"].members();
    if (designs.empty()) root["designs"].fail("expected at least one design");
    for (const auto& [name, design] : designs) {
        // Its text is checked with every other (check_every_text).
        if (name.empty()) design.fail("expected a design name (it is shown in tables and used with --design)");
        std::vector<std::string_view> design_fields(world_fields.begin(), world_fields.end());
        design_fields.push_back("expect");
        design.allow_only(design_fields);
        refuse_nulls_removing_nothing(design, base_world);
        Json overrides = design.json();
        overrides.erase("expect");
        const Json merged = merged_world_json(base_world, overrides);

        const JsonSource design_source{file, &positions, &overrides, design.pointer(), name, &data_files};
        const JsonReader merged_reader(design_source, merged, "");
        WorldReader world(merged_reader, services);
        Design result{name, world.read(), read_purpose(merged_reader), {}};
        result.world.vocabulary = vocabulary;
        if (design.has("expect"))
            result.expectations = read_expectations(design["expect"], metrics, &result.world.servers);
        if (result.purpose == LockPurpose::correctness) add_correctness_expectations(result.expectations, metrics);
        scenario.designs.push_back(std::move(result));
    }
    if (root.has("explore")) scenario.explore = read_explore(root["explore"], scenario.designs);
    if (root.has("sweep")) scenario.sweep = read_sweep_block(root["sweep"], scenario.designs);
    if (root.has("study")) {
        scenario.study = read_study_block(root["study"], document);
        // A point of the study is read with its values set; they were tried when the file was read plainly.
        if (variations.empty()) try_study_values(root["study"], *scenario.study, text, file, metrics);
    }
    // A file of samples is part of what a sweep ran: the names and hashes of the files read
    // join the scenario's bytes in the hash, so editing one is as visible as editing the file.
    scenario.data_file_sha256 = data_files;
    for (const auto& [name, sha256] : data_files) scenario.data_files.push_back(sample_file_path(file, name));
    if (!data_files.empty()) {
        std::string identity(text);
        for (const auto& [name, sha256] : data_files) identity += fmt::format("\n{} {}", name, sha256);
        scenario.content_sha256 = sha256_hex(identity);
    }
    return scenario;
}

std::vector<std::string> node_names(const WorldSpec& world) {
    std::vector<std::string> nodes = world.servers;
    nodes.insert(nodes.end(), world.store_nodes.begin(), world.store_nodes.end());
    if (!world.pooler_node.empty()) nodes.push_back(world.pooler_node);
    nodes.push_back(world.provider_node);
    nodes.push_back(world.billing_node);
    return nodes;
}

void replace_faults(Scenario& scenario, std::string_view faults_text, const std::string& origin) {
    const ParsedJson parsed = parse_scenario_text(faults_text, origin);
    const JsonSource source{origin, &parsed.positions, nullptr, "", ""};
    const JsonReader faults(source, parsed.document, "");
    for (auto& design : scenario.designs) {
        design.world.faults = read_faults(faults, design.world);
        design.world.fault_generators.clear();
    }
}

std::string read_scenario_text(const std::string& path) {
    try {
        return read_input_file(path, scenario_limit);
    } catch (const InputFileError& error) {
        throw file_error(path, error);
    }
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& metrics,
                            const std::vector<ScenarioVariation>& variations) {
    return parse_scenario(read_scenario_text(path), path, metrics, variations);
}

}  // namespace locksim
