// The models against the real servers, offline: every case of tests/fidelity/cases runs on
// the model (tests/fidelity/model_runner.cpp) and is compared step by step with what the
// real server did (tests/fidelity/golden/, recorded by scripts/fidelity.sh). A difference
// fails unless tests/fidelity/allowlist.json names it with its reason, and an allowlisted
// difference that is gone fails too, so the list never outlives what it excuses.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/duration_text.hpp"
#include "tests/fidelity/model_runner.hpp"

using locksim::fidelity::run_on_model;
using nlohmann::json;

namespace {

const std::filesystem::path fidelity_folder = std::filesystem::path(LOCKSIM_SOURCE_DIR) / "tests" / "fidelity";

json read_json(const std::filesystem::path& path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    return json::parse(in);
}

std::vector<std::filesystem::path> case_files() {
    std::vector<std::filesystem::path> files;
    const auto folder = fidelity_folder / "cases";
    if (!std::filesystem::exists(folder)) return files;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

double seconds_of(const json& value) {
    const auto parsed = locksim::parse_duration(value.get<std::string>());
    return static_cast<double>(std::get<locksim::Duration>(parsed).ns) / 1e9;
}

// How far apart the model's and the server's expiry may be: the server's documented
// granularity (Redis checks expiry within ~0.1 s; etcd every 0.5 s, and a lease outlives a
// leader change by an election timeout; ZooKeeper expires sessions on tick boundaries),
// plus the runner's own polling and round trips.
double expiry_tolerance(const json& case_file) {
    const std::string store = case_file.at("store");
    const json server = case_file.value("server", json::object());
    if (store == "redis") return 0.15;
    if (store == "etcd") return 0.5 + 1.0 + 0.1;
    if (store == "zookeeper") return (server.contains("tick") ? seconds_of(server["tick"]) : 2.0) + 0.15;
    return 0.3;
}

// One difference between the model and the server: (case, step, field) and the two values.
struct Difference {
    std::string case_name;
    std::size_t step = 0;
    std::string field;
    std::string model;
    std::string real;
};

// The order of a run's tokens: for each granted token, how it compares with the one before
// (rising, equal, falling). The model's token values need not be the server's; their
// order must.
std::vector<int> token_order(const json& results) {
    std::vector<int> order;
    std::optional<std::int64_t> previous;
    for (const auto& r : results) {
        if (!r.contains("token")) continue;
        const auto token = r["token"].get<std::int64_t>();
        if (previous) order.push_back(token > *previous ? 1 : token == *previous ? 0 : -1);
        previous = token;
    }
    return order;
}

std::vector<Difference> compare(const json& case_file, const json& model, const json& real) {
    std::vector<Difference> found;
    const std::string name = case_file.at("name");
    const auto& m = model.at("results");
    const auto& r = real.at("results");
    REQUIRE(m.size() == r.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
        for (const char* field : {"reply", "holder", "connection", "holder_connection"}) {
            const json a = m[i].value(field, json()), b = r[i].value(field, json());
            if (a != b) found.push_back({name, i, field, a.dump(), b.dump()});
        }
        if (r[i].contains("after") || m[i].contains("after")) {
            const json a = m[i].value("after", json()), b = r[i].value("after", json());
            const bool both = a.is_number() && b.is_number();
            if ((both && std::abs(a.get<double>() - b.get<double>()) > expiry_tolerance(case_file)) ||
                (!both && a != b))
                found.push_back({name, i, "after", a.dump(), b.dump()});
        }
        // ZooKeeper's czxids count every session and write of the runner too; etcd's revision
        // counts only writes to keys, so its values are compared as well as their order.
        if (case_file.at("store") == "etcd" && m[i].contains("token") && r[i].contains("token") &&
            m[i]["token"] != r[i]["token"])
            found.push_back({name, i, "token value", m[i]["token"].dump(), r[i]["token"].dump()});
    }
    if (token_order(m) != token_order(r)) found.push_back({name, 0, "token order", "", ""});
    return found;
}

}  // namespace

TEST_CASE("the model runner replays a Redis case: a lease taken, refused to another, expiring at its PX") {
    const json case_file = json::parse(R"({
        "name": "inline-redis", "store": "redis", "server": {},
        "clients": {"A": {"ttl": "1s"}, "B": {"ttl": "1s"}},
        "steps": [
          {"do": "acquire", "client": "A"}, {"do": "acquire", "client": "B"}, {"do": "holder"},
          {"do": "expires", "client": "A"}, {"do": "wait", "for": "2s"}, {"do": "holder"},
          {"do": "acquire", "client": "B"}, {"do": "release", "client": "A"}, {"do": "release", "client": "B"},
          {"do": "holder"}]})");
    const json results = run_on_model(case_file).at("results");
    REQUIRE(results.size() == 10);
    CHECK(results[0]["reply"] == "granted");
    CHECK(results[1]["reply"] == "taken");
    CHECK(results[2]["holder"] == "A");
    CHECK(std::abs(results[3]["after"].get<double>() - 1.0) < 0.01);
    CHECK(results[5]["holder"].is_null());
    CHECK(results[6]["reply"] == "granted");
    CHECK(results[7]["reply"] == "not_held");  // A's lease had expired: compare-and-delete leaves B's
    CHECK(results[8]["reply"] == "released");
    CHECK(results[9]["holder"].is_null());
}

TEST_CASE("the model runner grants a ZooKeeper session the clamped timeout, and etcd its minimum TTL") {
    const auto expiry_after = [](const std::string& store, const std::string& ttl, const std::string& tick) {
        json case_file{{"name", "inline"},
                       {"store", store},
                       {"server", tick.empty() ? json::object() : json{{"tick", tick}}},
                       {"clients", {{"A", {{"ttl", ttl}}}}},
                       {"steps", json::array({{{"do", "acquire"}, {"client", "A"}},
                                              {{"do", "pause"}, {"client", "A"}, {"for", "60s"}},
                                              {{"do", "expires"}, {"client", "A"}}})}};
        const json results = run_on_model(case_file).at("results");
        REQUIRE(results[0]["reply"] == "granted");
        REQUIRE(results[2]["after"].is_number());
        return results[2]["after"].get<double>();
    };
    // tick 200 ms: asked 100 ms, granted 400 ms; asked 10 s, granted 4 s; 1 s stays 1 s.
    CHECK(expiry_after("zookeeper", "100ms", "200ms") == Approx(0.4).margin(0.25));
    CHECK(expiry_after("zookeeper", "10s", "200ms") == Approx(4.0).margin(0.25));
    CHECK(expiry_after("zookeeper", "1s", "200ms") == Approx(1.0).margin(0.25));
    // Tick 1 s: 60 s is granted 20 s (the default tick of 2 s grants 40 s, past the runner's
    // 30 s of looking); ZooKeeper expires it at the next whole tick after that.
    const double clamped = expiry_after("zookeeper", "60s", "1s");
    CHECK(clamped >= 20.0);
    CHECK(clamped <= 21.05);
    // etcd raises a 1 s TTL to 2 s and keeps 3 s.
    CHECK(expiry_after("etcd", "1s", "") == Approx(2.0).margin(0.6));
    CHECK(expiry_after("etcd", "3s", "") == Approx(3.0).margin(0.6));
}

TEST_CASE("every fidelity case runs on the model as the real server ran it, or its difference is allowlisted") {
    const auto cases = case_files();
    if (cases.empty()) {
        WARN("no fidelity cases in tests/fidelity/cases");
        return;
    }
    const json allowlist = std::filesystem::exists(fidelity_folder / "allowlist.json")
                               ? read_json(fidelity_folder / "allowlist.json")
                               : json::array();
    std::set<std::tuple<std::string, std::size_t, std::string>> allowed, used;
    for (const auto& entry : allowlist) {
        REQUIRE(entry.contains("reason"));
        REQUIRE_FALSE(entry["reason"].get<std::string>().empty());
        allowed.emplace(entry.at("case").get<std::string>(), entry.at("step").get<std::size_t>(),
                        entry.at("field").get<std::string>());
    }
    for (const auto& path : cases) {
        const json case_file = read_json(path);
        const std::string name = case_file.at("name");
        INFO(path.filename().string());
        const auto golden = fidelity_folder / "golden" / (name + ".json");
        REQUIRE(std::filesystem::exists(golden));
        for (const auto& d : compare(case_file, run_on_model(case_file), read_json(golden))) {
            const auto key = std::make_tuple(d.case_name, d.step, d.field);
            if (allowed.contains(key)) {
                used.insert(key);
                continue;
            }
            FAIL_CHECK(fmt::format("{} step {} {}: the model gives {}, the real server {}", d.case_name, d.step,
                                   d.field, d.model, d.real));
        }
    }
    for (const auto& key : allowed)
        if (!used.contains(key))
            FAIL_CHECK(fmt::format("allowlist entry {} step {} {} no longer differs: remove it", std::get<0>(key),
                                   std::get<1>(key), std::get<2>(key)));
}

TEST_CASE("a database frees a killed client process's lock at once, and keeps a dead machine's until keepalive") {
    const auto holder_after_crash = [](const std::string& kind) {
        json case_file{{"name", "inline"},
                       {"store", "postgres"},
                       {"server", json::object()},
                       {"clients", {{"A", {{"lock", "advisory"}}}}},
                       {"steps", json::array({{{"do", "acquire"}, {"client", "A"}},
                                              {{"do", "crash"}, {"client", "A"}, {"kind", kind}},
                                              {{"do", "wait"}, {"for", "10m"}},
                                              {{"do", "holder"}}})}};
        const json results = run_on_model(case_file).at("results");
        REQUIRE(results[0]["reply"] == "granted");
        return results[3]["holder"];
    };
    CHECK(holder_after_crash("process").is_null());
    CHECK(holder_after_crash("machine") == "A");  // TCP keepalive gives up after 2h11m15s
}
