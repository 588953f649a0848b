// The JUnit writer in this process, every kind of testcase at once: passed, passed with an
// efficiency lock's cost, failed, and a file that could not be loaded, its text escaped.
// tests/junit_schema_test.sh checks the files `locksim check --junit` and `locksim sweep
// --junit` write against tests/junit.xsd; this test is what the sanitizer build runs
// instead (scripts/sanitizers.sh), with the commands' own JUnit files written by the
// tests of check and sweep (cli_test.cpp, sweep_gate_test.cpp, explore_test.cpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "reports/junit.hpp"

using namespace locksim;

TEST_CASE("the JUnit report holds passed, costly, failed and unloadable scenarios, escaped, the same every time") {
    const std::vector<CheckedScenario> scenarios = {
        {"scenarios/a&b.json",
         "a<b>",
         "",
         {{"plain", {}, "", {}},
          {"efficient", {}, "35s of duplicated work", {"a fault that changed nothing"}},
          {"fenced \"f\"", {"double_charges expected 0, got 1", "stale_writes expected 0, got 2"}, "", {}}}},
        {"scenarios/broken's.json", "", "scenarios/broken's.json:1:10: syntax error <here>", {}},
    };
    const std::string junit = render_junit(scenarios, "locksim check");
    CHECK(junit ==
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"locksim check\" tests=\"4\" failures=\"1\" errors=\"1\" time=\"0\">\n"
          "  <testsuite name=\"a&lt;b&gt;\" tests=\"3\" failures=\"1\" errors=\"0\" time=\"0\" "
          "file=\"scenarios/a&amp;b.json\">\n"
          "    <testcase classname=\"a&lt;b&gt;\" name=\"plain\" time=\"0\"/>\n"
          "    <testcase classname=\"a&lt;b&gt;\" name=\"efficient\" time=\"0\">\n"
          "      <system-out>efficiency lock: 35s of duplicated work</system-out>\n"
          "    </testcase>\n"
          "    <testcase classname=\"a&lt;b&gt;\" name=\"fenced &quot;f&quot;\" time=\"0\">\n"
          "      <failure message=\"double_charges expected 0, got 1; stale_writes expected 0, got 2\">FAIL "
          "a&lt;b&gt; fenced &quot;f&quot;: double_charges expected 0, got 1; stale_writes expected 0, got "
          "2</failure>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "  <testsuite name=\"scenarios/broken&#39;s.json\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\" "
          "file=\"scenarios/broken&#39;s.json\">\n"
          "    <testcase classname=\"scenarios/broken&#39;s.json\" name=\"load\" time=\"0\">\n"
          "      <error message=\"scenarios/broken&#39;s.json:1:10: syntax error &lt;here&gt;\"/>\n"
          "    </testcase>\n"
          "  </testsuite>\n"
          "</testsuites>\n");
    CHECK(render_junit(scenarios, "locksim check") == junit);
    CHECK(render_junit({}, "locksim sweep") ==
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"locksim sweep\" tests=\"0\" failures=\"0\" errors=\"0\" time=\"0\">\n"
          "</testsuites>\n");
}

TEST_CASE("the JUnit report stays XML whatever a name or a message holds: U+FFFE, U+FFFF, controls, bytes not UTF-8") {
    // The loader refuses all of these in a scenario's text (tests/scenario_text_rule_test.cpp);
    // a file's name and an error line come from elsewhere, and the writer holds either way.
    const std::vector<CheckedScenario> scenarios = {
        {"scenarios/a\xEF\xBF\xBE.json", "name \xEF\xBF\xBE\xEF\xBF\xBF", "", {{"d\x1b[31m\xC2\x9B", {}, "", {}}}},
        {"scenarios/b\xFF.json", "", "scenarios/b\xFF.json:1:1: bad \x01 byte", {}},
    };
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(render_junit(scenarios, "locksim check") ==
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"locksim check\" tests=\"2\" failures=\"0\" errors=\"1\" time=\"0\">\n"
          "  <testsuite name=\"name " +
              fffd + fffd +
              "\" tests=\"1\" failures=\"0\" errors=\"0\" time=\"0\" "
              "file=\"scenarios/a" +
              fffd +
              ".json\">\n"
              "    <testcase classname=\"name " +
              fffd + fffd + "\" name=\"d" + fffd + "[31m" + fffd +
              "\" time=\"0\"/>\n"
              "  </testsuite>\n"
              "  <testsuite name=\"scenarios/b" +
              fffd +
              ".json\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0\" "
              "file=\"scenarios/b" +
              fffd +
              ".json\">\n"
              "    <testcase classname=\"scenarios/b" +
              fffd +
              ".json\" name=\"load\" time=\"0\">\n"
              "      <error message=\"scenarios/b" +
              fffd + ".json:1:1: bad " + fffd +
              " byte\"/>\n"
              "    </testcase>\n"
              "  </testsuite>\n"
              "</testsuites>\n");
}
