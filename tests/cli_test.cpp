// The program as a user and a CI job meet it: output, exit codes, one-line errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/program_support.hpp"
#include "tests/small_explore.hpp"

using namespace std::string_literals;
using namespace locksim::testing;

TEST_CASE("locksim --version names the program and its version") {
    const auto ran = run_locksim("--version");
    CHECK(ran.exit_code == 0);
    CHECK(ran.out.starts_with("locksim "));
}

TEST_CASE("locksim run prints the designs side by side, a timeline and the replay command") {
    const auto ran = run_locksim("run scenarios/gc-pause-40s.json");
    CHECK(ran.exit_code == 0);
    CHECK(ran.out.find("unfenced     1 (customer 42)") != std::string::npos);
    CHECK(ran.out.find("Timeline of \"unfenced\"") != std::string::npos);
    CHECK(ran.out.find("gc pause: frozen for 40s") != std::string::npos);
    CHECK(ran.out.find("run scenarios/gc-pause-40s.json --seed 1") != std::string::npos);
    CHECK(ran.err.empty());
}

TEST_CASE("piped output carries no colour codes unless asked for") {
    CHECK(run_locksim("run scenarios/gc-pause-40s.json").out.find('\x1b') == std::string::npos);
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --color always").out.find('\x1b') != std::string::npos);
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --color always", "NO_COLOR=1").out.find('\x1b') !=
          std::string::npos);  // an explicit request wins over the environment
    CHECK(run_locksim("list").out.find('\x1b') == std::string::npos);
    CHECK(run_locksim("list --color always").out.find('\x1b') != std::string::npos);
    CHECK(run_locksim("list --color always").out.find("\x1b[1mchapter") == 0);
}

TEST_CASE("run with format json prints one stable document with the documented fields") {
    const auto first = run_locksim("run scenarios/gc-pause-40s.json --format json");
    const auto second = run_locksim("run scenarios/gc-pause-40s.json --format json");
    REQUIRE(first.exit_code == 0);
    CHECK(first.out == second.out);
    const auto document = nlohmann::json::parse(first.out);
    CHECK(document["scenario"] == "gc-pause-40s");
    CHECK(document["seed"] == 1);
    const auto& designs = document["designs"];
    REQUIRE(designs.size() == 3);
    CHECK(designs[0]["name"] == "unfenced");
    CHECK(designs[0]["metrics"]["double_charges"] == 1);
    CHECK(designs[1]["metrics"]["double_charges"] == 0);
    CHECK(designs[1]["metrics"]["stale_writes_rejected"] == 1);
    CHECK(designs[2]["metrics"]["double_charges"] == 0);
    for (const auto& expectation : designs[1]["expectations"]) {
        CHECK(expectation.contains("metric"));
        CHECK(expectation.contains("expected"));
        CHECK(expectation.contains("actual"));
        CHECK(expectation["held"] == true);
    }
}

TEST_CASE("run with a seed and a design replays one design under another seed") {
    const auto ran = run_locksim("run scenarios/gc-pause-40s.json --seed 9 --design fenced --format json");
    REQUIRE(ran.exit_code == 0);
    const auto document = nlohmann::json::parse(ran.out);
    CHECK(document["seed"] == 9);
    REQUIRE(document["designs"].size() == 1);
    CHECK(document["designs"][0]["name"] == "fenced");
}

TEST_CASE("an expectation that fails exits 1 and names scenario, design, metric, expected and got") {
    auto text = slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json");
    const auto at = text.find("\"double_charges\": 1");
    REQUIRE(at != std::string::npos);
    text.replace(at, 19, "\"double_charges\": 0");
    const auto ran = run_locksim("run " + write_temp("locksim_wrong_expectation.json", text));
    CHECK(ran.exit_code == 1);
    CHECK(ran.out.find("FAIL gc-pause-40s unfenced: double_charges expected 0, got 1") != std::string::npos);
}

TEST_CASE("unusable input exits 2 with one line naming the file and the field") {
    auto text = slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json");
    text.replace(text.find("\"for\": \"40s\""), 12, "\"for\": \"40 parsecs\"");
    const auto path = write_temp("locksim_parsecs.json", text);
    const auto ran = run_locksim("run " + path);
    CHECK(ran.exit_code == 2);
    CHECK(ran.out.empty());
    CHECK(ran.err.find(path + ":") == 0);
    CHECK(ran.err.find("/faults/0/for: expected a duration") != std::string::npos);
    CHECK(std::count(ran.err.begin(), ran.err.end(), '\n') == 1);
}

TEST_CASE("a missing file, an unknown design and an unknown option each exit 2") {
    CHECK(run_locksim("run scenarios/no-such-file.json").exit_code == 2);
    const auto design = run_locksim("run scenarios/gc-pause-40s.json --design nope");
    CHECK(design.exit_code == 2);
    CHECK(design.err.find("no design named \"nope\"; the designs are unfenced, fenced, idempotent") !=
          std::string::npos);
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --frobnicate").exit_code == 2);
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --format yaml").exit_code == 2);
    CHECK(run_locksim("").exit_code == 2);
}

TEST_CASE("locksim without arguments prints the help that lists every command, and exits 2") {
    const auto bare = run_locksim("");
    CHECK(bare.exit_code == 2);
    for (const char* command :
         {"run", "sweep", "merge", "list", "kinds", "metrics", "check", "explore", "shrink", "report"})
        CHECK(bare.err.find("\n  "s + command + " ") != std::string::npos);
}

TEST_CASE("check runs a folder: passing, failing and broken files give their lines, counts, exit code and JUnit") {
    const auto folder = std::filesystem::temp_directory_path() / ("locksim_check_" + std::to_string(getpid()));
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder / "nested");
    const std::string flagship = flagship_with_small_explore().dump(2);
    std::ofstream(folder / "a-passing.json") << flagship;
    // The fenced design with fencing switched off: its expectations no longer hold.
    std::string unfenced = flagship;
    unfenced.replace(unfenced.find("\"fencing\": true"), 15, "\"fencing\": false");
    std::ofstream(folder / "nested" / "b-failing.json") << unfenced;

    const auto failing = run_locksim("check " + folder.string() + " --junit " + (folder / "report.xml").string());
    CHECK(failing.exit_code == 1);
    CHECK(failing.out.find("PASS gc-pause-40s unfenced") != std::string::npos);
    CHECK(failing.out.find("FAIL gc-pause-40s fenced: double_charges expected 0, got 1") != std::string::npos);
    // Each file: its three designs, and the three designs of its explore block.
    CHECK(failing.out.find("PASS gc-pause-40s explore: idempotent") != std::string::npos);
    CHECK(failing.out.find("\n11 passed, 1 failed, 0 unusable\n") != std::string::npos);
    const std::string junit = slurp((folder / "report.xml").string());
    CHECK(junit.starts_with("<?xml"));
    std::size_t testcases = 0, failures = 0;
    for (auto at = junit.find("<testcase"); at != std::string::npos; at = junit.find("<testcase", at + 1)) ++testcases;
    for (auto at = junit.find("<failure"); at != std::string::npos; at = junit.find("<failure", at + 1)) ++failures;
    CHECK(testcases == 12);
    CHECK(failures == 1);
    CHECK(junit.find("<testsuites name=\"locksim check\" tests=\"12\" failures=\"1\" errors=\"0\" time=\"0\">") !=
          std::string::npos);

    std::ofstream(folder / "c-broken.json") << "{ \"name\": ";
    const auto broken = run_locksim("check " + folder.string());
    CHECK(broken.exit_code == 2);
    const auto error_at = broken.out.find("ERROR " + (folder / "c-broken.json").string() + ":1:");
    REQUIRE(error_at != std::string::npos);
    const std::string error_line = broken.out.substr(error_at, broken.out.find('\n', error_at) - error_at);
    CHECK(count_of(error_line, "c-broken.json") == 1);  // the path once, as the loader wrote it
    CHECK(broken.out.find("\n11 passed, 1 failed, 1 unusable\n") != std::string::npos);

    const auto passing = run_locksim("check " + (folder / "a-passing.json").string() + " --seed 7");
    CHECK(passing.exit_code == 0);
    CHECK(passing.out.ends_with("6 passed, 0 failed, 0 unusable\n"));
    std::filesystem::remove_all(folder);
}

TEST_CASE("list shows every shipped scenario with its chapter and lesson, in the course's order") {
    const auto ran = run_locksim("list");
    CHECK(ran.exit_code == 0);
    CHECK(ran.out.starts_with("chapter  name"));
    CHECK(ran.out.find("3-4      gc-pause-40s") != std::string::npos);
    CHECK(ran.out.find("A 40 s GC pause outlives a 30 s lease") != std::string::npos);
    CHECK(ran.out.find("2        plain-delete") < ran.out.find("3-4      gc-pause-40s"));
    CHECK(ran.out.find("scenarios; run one with: ") != std::string::npos);
    CHECK(run_locksim("list no-such-folder").exit_code == 2);
}

TEST_CASE("a run past its event limit stops with exit 2 and says how to raise the limit") {
    // lease-vs-no-lease's no-lease design retries for ten minutes: a few thousand events.
    const auto stopped = run_locksim("run scenarios/lease-vs-no-lease.json --design no-lease --max-events 1000");
    CHECK(stopped.exit_code == 2);
    CHECK(stopped.err.find("the run handled 1000 events") != std::string::npos);
    CHECK(stopped.err.find("--max-events") != std::string::npos);
    CHECK(run_locksim("run scenarios/lease-vs-no-lease.json --design no-lease --max-events 100000").exit_code == 0);
    CHECK(run_locksim("check scenarios/lease-vs-no-lease.json --max-events 1000").exit_code == 2);
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --max-events 0").exit_code == 2);  // not a limit
}

TEST_CASE("a seed that is not a whole number within 64 bits is refused, never rounded") {
    for (const char* seed : {"-1", "+3", "1e3", "3.0", "18446744073709551616", "x"}) {
        INFO(seed);
        const auto ran = run_locksim(std::string("run scenarios/gc-pause-40s.json --seed ") + seed);
        CHECK(ran.exit_code == 2);
        CHECK_THAT(ran.err, Catch::StartsWith("--seed: expected a whole number from 0 to 18446744073709551615"));
    }
    CHECK(run_locksim("run scenarios/gc-pause-40s.json --format json --seed 18446744073709551615").exit_code == 0);
}

TEST_CASE("locksim kinds lists every kind of trace event with its typed fields") {
    const auto text = run_locksim("kinds");
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("lock.granted: the store granted the lock"));
    CHECK_THAT(text.out, Catch::Contains("token") && Catch::Contains("(optional)"));
    const auto json = run_locksim("kinds --format json");
    REQUIRE(json.exit_code == 0);
    const auto kinds = nlohmann::json::parse(json.out);
    CHECK(kinds.size() == 58);
    const auto& granted = kinds.at(0);
    CHECK(granted.at("name") == "lock.granted");
    CHECK(granted.at("fields").at(0) == nlohmann::json{{"name", "key"},
                                                       {"type", "text"},
                                                       {"optional", false},
                                                       {"meaning", "the lock's key (zookeeper/etcd: its prefix)"}});
}

TEST_CASE("run --design all draws every design's timeline in turn, and without it the first design's") {
    const auto all = run_locksim("run scenarios/gc-pause-40s.json --design all");
    CHECK(all.exit_code == 0);
    for (const char* design : {"unfenced", "fenced", "idempotent"})
        CHECK_THAT(all.out, Catch::Contains(std::string("Timeline of \"") + design + "\""));
    CHECK_THAT(all.out, Catch::Contains("║ (paused)"));  // server-1's 40 s pause, down its column
    const auto first = run_locksim("run scenarios/gc-pause-40s.json");
    CHECK_THAT(first.out, Catch::Contains("Timeline of \"unfenced\""));
    CHECK(first.out.find("Timeline of \"fenced\"") == std::string::npos);
    const auto unknown = run_locksim("run scenarios/gc-pause-40s.json --design nope");
    CHECK(unknown.exit_code == 2);
}
