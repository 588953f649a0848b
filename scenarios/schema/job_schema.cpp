// "job": what every server's scheduler runs, and how it shares the work.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <utility>

#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// A run at most every few seconds of a day's horizon: bounds the database's rows.
constexpr std::int64_t max_job_runs = 100'000;
// A client that retries a charge more often than this is not a design anyone ships.
constexpr std::int64_t max_charge_retries = 10;

Instant read_time_of_day(const JsonReader& field) {
    const std::string text = field.string();
    const auto two_digits = [&text](std::size_t at, int limit) {
        if (at + 2 > text.size() || !std::isdigit(static_cast<unsigned char>(text[at])) ||
            !std::isdigit(static_cast<unsigned char>(text[at + 1])))
            return -1;
        const int value = (text[at] - '0') * 10 + (text[at + 1] - '0');
        return value <= limit ? value : -1;
    };
    const bool has_seconds = text.size() == 8;
    const int hour = two_digits(0, 23);
    const int minute = two_digits(3, 59);
    const int second = has_seconds ? two_digits(6, 59) : 0;
    const bool shape_ok = (text.size() == 5 || has_seconds) && text[2] == ':' && (!has_seconds || text[5] == ':');
    if (!shape_ok || hour < 0 || minute < 0 || second < 0)
        field.fail(fmt::format("expected a time of day \"HH:MM\" or \"HH:MM:SS\", got \"{}\"", text));
    return Instant{} + hours(hour) + minutes(minute) + seconds(second);
}

// One of a few words, each standing for a value.
template <class Value>
Value read_choice(const JsonReader& field, std::initializer_list<std::pair<std::string_view, Value>> choices) {
    const std::string text = field.string();
    std::vector<std::string> quoted;
    for (const auto& [word, value] : choices) {
        if (text == word) return value;
        quoted.push_back(fmt::format("\"{}\"", word));
    }
    const std::string last = quoted.back();
    quoted.pop_back();
    field.fail(fmt::format("unknown value \"{}\"; expected {}{}{}", text, fmt::join(quoted, ", "),
                           quoted.empty() ? "" : " or ", last));
}

// {"timeout": "5s", "retries": 2, "backoff": "1s", "jitter": "500ms", "connection": "new"}
ChargeRequestSpec read_charge_request(const JsonReader& field) {
    field.allow_only({"timeout", "retries", "backoff", "jitter", "connection"});
    ChargeRequestSpec request;
    request.timeout = field["timeout"].duration();
    if (request.timeout->ns <= 0) field["timeout"].fail("expected how long to wait for a reply, above 0s");
    if (field.has("retries")) {
        const std::int64_t retries = field["retries"].integer();
        if (retries < 0 || retries > max_charge_retries)
            field["retries"].fail(fmt::format("expected from 0 to {} retries", max_charge_retries));
        request.retries = static_cast<int>(retries);
    }
    for (const auto& [name, value] : {std::pair{"backoff", &request.backoff}, std::pair{"jitter", &request.jitter}}) {
        if (!field.has(name)) continue;
        *value = field[name].duration();
        if (value->ns < 0) field[name].fail("expected a duration of 0s or more");
    }
    if (field.has("connection"))
        request.retry_connection =
            read_choice<Connection>(field["connection"], {{"same", Connection::shared}, {"new", Connection::fresh}});
    if (request.backoff * (std::int64_t{1} << std::max(request.retries - 1, 0)) > hours(24))
        field["backoff"].fail(fmt::format(
            "expected a backoff that stays within a day: it doubles before each of the {} retries", request.retries));
    return request;
}

// "on_error": "fail" (the default), "skip", or {"retry": 3, "backoff": "15s"}.
constexpr std::int64_t max_job_retries = 20;

ErrorPolicy read_error_policy(const JsonReader& field) {
    ErrorPolicy policy;
    if (!field.json().is_object()) {
        const std::string then = field.string();
        if (then == "skip")
            policy.then = ErrorPolicy::Then::skip;
        else if (then != "fail")
            field.fail(fmt::format(
                "unknown \"{}\"; expected \"fail\" (the run ends; its finally path decides the release, the "
                "default), \"skip\" (the item is left undone and the job goes on) or {{\"retry\": 3, \"backoff\": "
                "\"15s\"}} (the run fails and the whole job runs again after the backoff)",
                message_safe(then)));
        return policy;
    }
    field.allow_only({"retry", "backoff"});
    policy.then = ErrorPolicy::Then::retry;
    const std::int64_t retries = field["retry"].integer();
    if (retries < 1 || retries > max_job_retries)
        field["retry"].fail(fmt::format("expected from 1 to {} retries of the job", max_job_retries));
    policy.retries = static_cast<int>(retries);
    policy.backoff = field["backoff"].duration();
    if (policy.backoff.ns <= 0) field["backoff"].fail("expected the wait before the first retry, above 0s");
    if (policy.backoff.ns > max_duration.ns / (std::int64_t{1} << (policy.retries - 1)))
        field["backoff"].fail(
            fmt::format("expected a backoff that stays within a week: it doubles before each of "
                        "the {} retries",
                        policy.retries));
    return policy;
}

// A list of ids, each once: a job's customers, or a queue's pending items.
std::vector<std::int64_t> read_ids(const JsonReader& list, std::string_view what) {
    std::vector<std::int64_t> ids;
    std::set<std::int64_t> seen;
    for (const auto& item : list.elements()) {
        const std::int64_t id = item.integer();
        if (!seen.insert(id).second) item.fail(fmt::format("{} {} is listed twice", what, id));
        ids.push_back(id);
    }
    return ids;
}

// "effect_steps": ["write the new index", "delete the old segments"]: 2 to 10 names.
std::vector<std::string> read_effect_steps(const JsonReader& field) {
    constexpr std::size_t most_steps = 10;
    if (!field.json().is_array() || field.json().size() < 2 || field.json().size() > most_steps)
        field.fail(
            fmt::format("expected the effect's steps in order, 2 to {} names such as [\"write the new index\", "
                        "\"delete the old segments\"]",
                        most_steps));
    std::vector<std::string> steps;
    for (const JsonReader& step : field.elements()) {
        std::string name = step.string();
        if (name.empty()) step.fail("expected a step's name, such as \"delete the old segments\"");
        if (std::find(steps.begin(), steps.end(), name) != steps.end())
            step.fail(fmt::format("step \"{}\" is listed twice", message_safe(name)));
        steps.push_back(std::move(name));
    }
    return steps;
}

// What the renewals job and the leader loop do for each item: prepare it (`work_field`),
// check the lease as the design says, and send the charge.
void read_item_work(const JsonReader& job, std::string_view work_field, JobSpec& spec) {
    spec.work_per_customer = read_distribution(job[work_field]);
    if (job.has("recheck_before_charge")) spec.recheck_before_charge = job["recheck_before_charge"].boolean();
    if (job.has("check_lease")) spec.check_lease = job["check_lease"].boolean();
    if (job.has("min_lease_left")) {
        if (!spec.check_lease)
            job["min_lease_left"].fail(
                "a job that does not check its lease (\"check_lease\": false) has no margin to keep");
        spec.min_lease_left = job["min_lease_left"].duration();
        if (spec.min_lease_left->ns <= 0) job["min_lease_left"].fail("expected a margin above 0s");
    }
    if (job.has("charge_request")) spec.charge_request = read_charge_request(job["charge_request"]);
    if (job.has("effect_steps")) spec.effect_steps = read_effect_steps(job["effect_steps"]);
    if (job.has("read_timeout")) {
        spec.read_timeout = job["read_timeout"].duration();
        if (spec.read_timeout->ns <= 0)
            job["read_timeout"].fail("expected how long a statement may wait for its answer, above 0s");
    }
}

void read_renewals(const JsonReader& job, const std::vector<std::string>& servers, JobSpec& spec) {
    job.allow_only({"kind",
                    "name",
                    "at",
                    "every",
                    "runs",
                    "start_offsets",
                    "customers",
                    "period",
                    "work_per_customer",
                    "recheck_before_charge",
                    "check_lease",
                    "on_refused",
                    "error",
                    "release_in_finally",
                    "assign",
                    "lock_for",
                    "charge_request",
                    "effect_steps",
                    "min_lease_left",
                    "read_timeout",
                    "on_error"});
    spec.customers = read_ids(job["customers"], "customer");
    if (spec.customers.empty()) job["customers"].fail("expected at least one customer");
    read_item_work(job, "work_per_customer", spec);
    if (job.has("on_refused")) {
        const std::string refused = job["on_refused"].string();
        if (refused != "retry" && refused != "skip")
            job["on_refused"].fail(
                fmt::format("unknown \"{}\"; expected \"retry\" (wait for the lock, the default) or "
                            "\"skip\" (end this run, as a cron job whose next tick will try again)",
                            message_safe(refused)));
        spec.skip_when_refused = refused == "skip";
    }
    if (job.has("error")) {
        const JsonReader error = job["error"];
        error.allow_only({"server", "customer"});
        spec.error_on_server = error["server"].string();
        if (std::find(servers.begin(), servers.end(), spec.error_on_server) == servers.end())
            error["server"].fail(fmt::format("expected one of the servers: {}", fmt::join(servers, ", ")));
        spec.error_at_customer = error["customer"].integer();
        if (std::find(spec.customers.begin(), spec.customers.end(), *spec.error_at_customer) == spec.customers.end())
            error["customer"].fail("expected one of the job's customers");
    }
    if (job.has("release_in_finally")) spec.release_in_finally = job["release_in_finally"].boolean();
    if (job.has("on_error")) spec.on_error = read_error_policy(job["on_error"]);
    if (job.has("assign"))
        spec.assignment =
            read_choice<Assignment>(job["assign"], {{"all", Assignment::all}, {"hash", Assignment::hash}});
}

// A leader loop's queue: {"pending": [1, 2, 3], "arrive": {"every": "5m"}} or
// {"arrive": {"mean_interval": "5m"}}.
constexpr std::int64_t max_queue_items = 100'000;

void read_queue(const JsonReader& field, Duration service_time, JobSpec& spec) {
    field.allow_only({"pending", "arrive"});
    if (field.has("pending")) spec.customers = read_ids(field["pending"], "item");
    if (static_cast<std::int64_t>(spec.customers.size()) > max_queue_items)
        field["pending"].fail(fmt::format("expected at most {} items", max_queue_items));
    if (!field.has("arrive")) {
        if (spec.customers.empty())
            field.fail("expected \"pending\" items or items that \"arrive\": a queue that never holds one is no work");
        return;
    }
    const JsonReader arrive = field["arrive"];
    arrive.allow_only({"every", "mean_interval"});
    if (arrive.has("every") == arrive.has("mean_interval"))
        arrive.fail(
            "expected \"every\" (one item each interval) or \"mean_interval\" (at random, drawn from the seed)");
    // The items that arrive take the ids after the highest pending one: leave them room, far
    // more than any run could bring (a run records an event per arrival).
    constexpr std::int64_t max_id_before_arrivals = std::numeric_limits<std::int64_t>::max() / 2;
    if (!spec.customers.empty()) {
        const auto highest = std::max_element(spec.customers.begin(), spec.customers.end());
        if (*highest > max_id_before_arrivals)
            field["pending"].elements()[static_cast<std::size_t>(highest - spec.customers.begin())].fail(
                fmt::format("expected an item id of at most {} when items arrive: the ids after it are theirs",
                            max_id_before_arrivals));
        spec.queue.first_arrival_id = *highest + 1;
    }
    const std::string_view which = arrive.has("every") ? "every" : "mean_interval";
    const Duration interval = arrive[which].duration();
    if (interval.ns <= 0 || service_time.ns / interval.ns > max_queue_items)
        arrive[which].fail(
            fmt::format("expected an interval that brings at most {} items while the service runs", max_queue_items));
    (which == "every" ? spec.queue.arrive_every : spec.queue.arrive_mean_interval) = interval;
}

void read_leader_loop(const JsonReader& job, JobSpec& spec) {
    job.allow_only({"kind", "name", "at", "every", "until", "queue", "period", "work_per_item", "recheck_before_charge",
                    "check_lease", "charge_request", "effect_steps", "read_timeout"});
    spec.every = job["every"].duration();
    if (spec.every.ns <= 0) job["every"].fail("expected the loop's interval, above 0s");
    spec.stops_at = Instant{} + job["until"].duration();
    read_item_work(job, "work_per_item", spec);
}

void read_index_rebuild(const JsonReader& job, JobSpec& spec) {
    job.allow_only({"kind", "name", "at", "every", "runs", "start_offsets", "period", "work", "lock_for"});
    spec.rebuild_work = job["work"].duration();
    if (spec.rebuild_work.ns <= 0) job["work"].fail("expected the processor time of one build, above 0s");
}

// "every": "5m", "runs": 12, "start_offsets": {"pod-2": "150ms"}: a cron's schedule.
void read_schedule(const JsonReader& job, const std::vector<std::string>& servers, JobSpec& spec) {
    if (job.has("every") != job.has("runs"))
        job.fail("a recurring job needs both \"every\" (the interval between runs) and \"runs\" (how many)");
    if (job.has("runs")) {
        spec.runs = job["runs"].integer();
        if (spec.runs < 1 || spec.runs > max_job_runs)
            job["runs"].fail(fmt::format("expected between 1 and {} runs", max_job_runs));
        spec.every = job["every"].duration();
        if (spec.every.ns <= 0) job["every"].fail("expected an interval between runs above 0s");
    }
    if (!job.has("start_offsets")) return;
    for (const auto& [server, offset] : job["start_offsets"].members()) {
        if (std::find(servers.begin(), servers.end(), server) == servers.end())
            offset.fail(fmt::format("unknown server \"{}\"; the servers are {}", message_safe(server),
                                    fmt::join(servers, ", ")));
        spec.start_offsets[server] = offset.duration();
    }
}

}  // namespace

JobSpec read_job(const JsonReader& job, const std::vector<std::string>& servers) {
    JobSpec spec;
    if (job.has("kind"))
        spec.kind = read_choice<JobKind>(job["kind"], {{"renewals", JobKind::renewals},
                                                       {"index-rebuild", JobKind::index_rebuild},
                                                       {"leader-loop", JobKind::leader_loop}});
    if (spec.kind == JobKind::renewals)
        read_renewals(job, servers, spec);
    else if (spec.kind == JobKind::leader_loop)
        read_leader_loop(job, spec);
    else
        read_index_rebuild(job, spec);
    spec.name = job["name"].string();
    spec.starts_at = read_time_of_day(job["at"]);
    if (spec.kind == JobKind::leader_loop) {
        if (spec.stops_at <= spec.starts_at)
            job["until"].fail(
                fmt::format("expected a time after the service starts (\"at\", {})", format_seconds(spec.starts_at)));
        read_queue(job["queue"], spec.stops_at - spec.starts_at, spec);
        // A queue's items are sent once, not once per period: the period only names them.
        spec.period = job.has("period") ? job["period"].string() : spec.name;
        return spec;
    }
    read_schedule(job, servers, spec);
    spec.period = job["period"].string();
    if (job.has("lock_for"))
        spec.lock_scope = read_choice<LockScope>(
            job["lock_for"], {{"each-run", LockScope::each_run}, {"leadership", LockScope::leadership}});
    return spec;
}

}  // namespace locksim
