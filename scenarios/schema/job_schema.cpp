// "job": what every server's scheduler runs, and how it shares the work.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "scenarios/schema/world_schema.hpp"

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
    field.fail(fmt::format("unknown value \"{}\"; expected {}", text, fmt::join(quoted, " or ")));
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

void read_renewals(const JsonReader& job, const std::vector<std::string>& servers, JobSpec& spec) {
    job.allow_only({"kind", "name", "at", "every", "runs", "start_offsets", "customers", "period", "work_per_customer",
                    "recheck_before_charge", "check_lease", "on_refused", "error", "release_in_finally", "assign",
                    "lock_for", "charge_request", "min_lease_left"});
    std::set<std::int64_t> seen;
    for (const auto& item : job["customers"].elements()) {
        const std::int64_t customer = item.integer();
        if (!seen.insert(customer).second) item.fail(fmt::format("customer {} is listed twice", customer));
        spec.customers.push_back(customer);
    }
    if (spec.customers.empty()) job["customers"].fail("expected at least one customer");
    spec.work_per_customer = read_distribution(job["work_per_customer"]);
    if (job.has("recheck_before_charge")) spec.recheck_before_charge = job["recheck_before_charge"].boolean();
    if (job.has("check_lease")) spec.check_lease = job["check_lease"].boolean();
    if (job.has("min_lease_left")) {
        if (!spec.check_lease)
            job["min_lease_left"].fail(
                "a job that does not check its lease (\"check_lease\": false) has no margin to keep");
        spec.min_lease_left = job["min_lease_left"].duration();
        if (spec.min_lease_left->ns <= 0) job["min_lease_left"].fail("expected a margin above 0s");
    }
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
    if (job.has("charge_request")) spec.charge_request = read_charge_request(job["charge_request"]);
    if (job.has("assign"))
        spec.assignment =
            read_choice<Assignment>(job["assign"], {{"all", Assignment::all}, {"hash", Assignment::hash}});
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
        spec.kind = read_choice<JobKind>(job["kind"],
                                         {{"renewals", JobKind::renewals}, {"index-rebuild", JobKind::index_rebuild}});
    if (spec.kind == JobKind::renewals)
        read_renewals(job, servers, spec);
    else
        read_index_rebuild(job, spec);
    spec.name = job["name"].string();
    spec.starts_at = read_time_of_day(job["at"]);
    read_schedule(job, servers, spec);
    spec.period = job["period"].string();
    if (job.has("lock_for"))
        spec.lock_scope = read_choice<LockScope>(
            job["lock_for"], {{"each-run", LockScope::each_run}, {"leadership", LockScope::leadership}});
    return spec;
}

}  // namespace locksim
