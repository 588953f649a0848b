// A scenario file is text from anyone: every free-text field of a hostile one reaches the
// HTML page, the SVG figures, the course index and the Mermaid diagrams only as text,
// never as markup or diagram syntax.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "reports/html/course_index.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/svg_figure.hpp"
#include "reports/mermaid.hpp"
#include "reports/perfetto.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// Quotes, an apostrophe, an ampersand and a script element.
const std::string hostile_file = R"(scenarios/<script>alert("x&y")</script>'s.json)";

nlohmann::json hostile_document() {
    using nlohmann::json;
    json document = {
        {"name", hostile_payload + " it's"},
        {"description", "description " + hostile_payload + " & 'more' \"quoted\""},
        {"lesson", "lesson " + hostile_payload + " it's"},
        {"section", "3-4"},
        {"seed", 1},
        {"horizon", "5m"},
        {"servers", {"server-1", "server-2"}},
        {"network", {{"delay", "1ms"}}},
        {"lock",
         {{"store", "redis"},
          {"key", "lock " + hostile_payload + " 'k' end; END #1"},
          {"ttl", "30s"},
          {"retry", {{"min", "1s"}, {"max", "2s"}}}}},
        {"job",
         {{"name", "job " + hostile_payload + " 'j' end"},
          {"at", "00:00"},
          {"customers", {41, 42}},
          {"period", hostile_payload + " 'p' #2; end"},
          {"work_per_customer", "4s"}}},
        {"faults", {{{"pause", "server-1"}, {"at", "6s"}, {"for", "40s"}, {"kind", "gc"}}}},
        {"designs",
         {{"unfenced " + hostile_payload + " 'a'", json::object()},
          {"fenced " + hostile_payload, {{"lock", {{"store", "lease-row"}}}, {"fencing", true}}},
          {"idempotent " + hostile_payload, {{"idempotency_key", hostile_payload + " 'i' end;{customer}#{period}"}}}}},
    };
    return document;
}

ScenarioOutcome hostile_outcome() {
    const Scenario scenario = parse_scenario(hostile_document().dump(), hostile_file, metric_names());
    return run_scenario(scenario, scenario.seed);
}

ReportPage hostile_page() {
    return ReportPage{"3-4", "locksim run '" + hostile_payload + "' --seed 1", hostile_payload + "'.html"};
}

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return text;
}

// Every '<' opens (or closes) an element the reports write themselves, and every '&'
// starts one of the entities escaped() writes: nothing from the scenario became markup.
void check_only_own_markup(const std::string& markup) {
    static const std::set<std::string> own{
        "a",    "article", "body", "br",     "caption", "circle",  "code", "defs",    "details", "div",
        "em",   "footer",  "g",    "h1",     "h2",      "h3",      "head", "header",  "html",    "li",
        "line", "marker",  "meta", "nav",    "ol",      "p",       "path", "pattern", "polygon", "polyline",
        "rect", "section", "span", "strong", "style",   "summary", "svg",  "table",   "td",      "text",
        "th",   "title",   "tr",   "tspan",  "ul",      "!doctype"};
    std::set<std::string> strangers;
    for (std::size_t at = markup.find('<'); at != std::string::npos; at = markup.find('<', at + 1)) {
        std::size_t from = at + 1;
        if (from < markup.size() && markup[from] == '/') ++from;
        std::size_t to = from;
        while (to < markup.size() && (std::isalnum(static_cast<unsigned char>(markup[to])) || markup[to] == '!')) ++to;
        const std::string name = markup.substr(from, to - from);
        const bool ends_name =
            to < markup.size() && (markup[to] == ' ' || markup[to] == '>' || markup[to] == '/' || markup[to] == '\n');
        if (!own.contains(name) || !ends_name) strangers.insert(markup.substr(at, 20));
    }
    CHECK(strangers.empty());
    std::set<std::string> loose_ampersands;
    // escaped()'s entities, and the two the pages write themselves (a line break in an SVG
    // title, a space that does not break).
    const std::regex entity("^&(amp|lt|gt|quot|#39|#10|nbsp);");
    for (std::size_t at = markup.find('&'); at != std::string::npos; at = markup.find('&', at + 1)) {
        const std::string rest = markup.substr(at, 8);
        if (!std::regex_search(rest, entity)) loose_ampersands.insert(rest);
    }
    CHECK(loose_ampersands.empty());
}

void check_no_raw_payload(const std::string& markup) {
    CHECK(lowercase(markup).find("<script") == std::string::npos);
    CHECK(markup.find("</script") == std::string::npos);
    CHECK(markup.find("\"x&y\"") == std::string::npos);
    CHECK(markup.find("x&y") == std::string::npos);
    CHECK(markup.find("alert(\"") == std::string::npos);
}

void check_fragments_are_slugs(const std::string& markup) {
    const std::regex clean("[a-z0-9-]+");
    const auto ids = all_matches(markup, std::regex(" id=\"([^\"]*)\""));
    CHECK_FALSE(ids.empty());
    for (const auto& id : ids) {
        INFO(id);
        CHECK(std::regex_match(id, clean));
    }
    for (const auto& fragment : all_matches(markup, std::regex("href=\"#([^\"]*)\""))) {
        INFO(fragment);
        CHECK(std::regex_match(fragment, clean));
    }
    for (const auto& fragment : all_matches(markup, std::regex("url\\(#([^)]*)\\)"))) {
        INFO(fragment);
        CHECK(std::regex_match(fragment, clean));
    }
}

}  // namespace

TEST_CASE("escaped, slug and shortened make text safe for markup and anchors") {
    CHECK(escaped(hostile_payload + " it's") == hostile_payload_escaped + " it&#39;s");
    CHECK(escaped("a & b < c > d \" e ' f") == "a &amp; b &lt; c &gt; d &quot; e &#39; f");
    CHECK(escaped("&amp;") == "&amp;amp;");
    CHECK(slug("unfenced " + hostile_payload + " 'a'") == "unfenced-script-alert-x-y-script-a");
    CHECK(slug("redis/failover") == "redis-failover");
    CHECK(slug("Fenced Design") == "fenced-design");
    CHECK(slug("<>&\"'") == "design");
    CHECK(slug("--a--b--") == "a-b");
    CHECK(shortened("abcdef", 3) == "abc…");
    CHECK(shortened("abc", 3) == "abc");
    CHECK(shortened("ééééé", 2) == "éé…");  // cut between characters, not inside one
}

TEST_CASE("a hostile scenario's free text reaches the HTML page only escaped") {
    const ScenarioOutcome outcome = hostile_outcome();
    REQUIRE(outcome.designs.size() == 3);
    const HtmlReport report = render_html_report(outcome, hostile_page());
    const std::string& page = report.page;
    std::string every_file = page;
    for (const auto& file : report.step_pages) every_file += file.html;
    for (const auto& file : report.step_pages) {
        INFO(file.path);
        CHECK(file.path.find('<') == std::string::npos);
        check_no_raw_payload(file.html);
        check_only_own_markup(file.html);
        check_fragments_are_slugs(file.html);
    }
    check_no_raw_payload(page);
    check_only_own_markup(page);
    check_fragments_are_slugs(page);

    // Each field is there, escaped.
    CHECK(page.find("<h1>" + hostile_payload_escaped + " it&#39;s</h1>") != std::string::npos);
    CHECK(page.find("<title>" + hostile_payload_escaped + " it&#39;s · locksim</title>") != std::string::npos);
    CHECK(page.find("<p class=\"lesson\">lesson " + hostile_payload_escaped + " it&#39;s</p>") != std::string::npos);
    CHECK(page.find("description " + hostile_payload_escaped + " &amp; &#39;more&#39; &quot;quoted&quot;") !=
          std::string::npos);
    CHECK(page.find("<h2>unfenced " + hostile_payload_escaped + " &#39;a&#39;</h2>") != std::string::npos);
    CHECK(page.find("<h2>fenced " + hostile_payload_escaped + "</h2>") != std::string::npos);
    CHECK(page.find("<h2>idempotent " + hostile_payload_escaped + "</h2>") != std::string::npos);
    CHECK(every_file.find("lock " + hostile_payload_escaped + " &#39;k&#39; end; END #1") !=
          std::string::npos);                                                                            // the lock key
    CHECK(every_file.find("job " + hostile_payload_escaped + " &#39;j&#39; end") != std::string::npos);  // the job name
    CHECK(every_file.find(hostile_payload_escaped + " &#39;p&#39; #2; end") != std::string::npos);       // the period
    CHECK(every_file.find(hostile_payload_escaped + " &#39;i&#39; end;42#") !=
          std::string::npos);  // the idempotency key
    CHECK(page.find("<code>locksim run &#39;" + hostile_payload_escaped + "&#39; --seed 1</code>") !=
          std::string::npos);
    CHECK(page.find("<a href=\"" + hostile_payload_escaped + "&#39;.html\">") != std::string::npos);  // the index link
    CHECK(page.find("<code>scenarios/" + hostile_payload_escaped + "&#39;s.json</code>") !=
          std::string::npos);  // the file
    // The anchors are the designs' numbers and slugs (this document's keys are sorted: fenced, idempotent, unfenced).
    CHECK(page.find("<article class=\"design\" id=\"d3-unfenced-script-alert-x-y-script-a\"") != std::string::npos);
    CHECK(page.find("<a href=\"#d1-fenced-script-alert-x-y-script\">fenced " + hostile_payload_escaped + "</a>") !=
          std::string::npos);
    CHECK(every_file.find("id=\"d2-idempotent-script-alert-x-y-script-e1\"") != std::string::npos);
    // The story still reads: the unfenced design charged customer 42 twice.
    CHECK(page.find("customer 42 charged a second time for " + hostile_payload_escaped) != std::string::npos);
}

TEST_CASE("a hostile scenario's SVG figures hold its text only escaped") {
    const ScenarioOutcome outcome = hostile_outcome();
    for (const auto& design : outcome.designs) {
        INFO(slug(design.name));
        const SequenceFigure figure = build_sequence_figure(design);
        const std::string svg = render_svg_figure(figure, slug(design.name));
        check_no_raw_payload(svg);
        check_only_own_markup(svg);
        check_fragments_are_slugs(svg);
        // The lock key is in the arrows' labels, whole in their titles.
        CHECK(svg.find("lock " + hostile_payload_escaped + " &#39;k&#39; end; END #1") != std::string::npos);
        // A step's text cut short for its label is escaped after the cut, so no entity is split.
        CHECK(svg.find("&l…") == std::string::npos);
        CHECK(svg.find("&a…") == std::string::npos);
        CHECK(svg.find("&q…") == std::string::npos);
    }
    // An anchor that is not a slug is escaped too.
    const std::string svg = render_svg_figure(build_sequence_figure(outcome.designs[0]), hostile_payload);
    check_no_raw_payload(svg);
    check_only_own_markup(svg);
}

TEST_CASE("a hostile course index holds its entries' text only escaped") {
    const std::vector<CourseEntry> entries{
        {"3-4", hostile_payload + " it's", "lesson " + hostile_payload + " it's", hostile_payload + "'.html", false},
        {"", "plain", "a lesson & more", "plain.html", true},
    };
    const std::string index = render_course_index(entries);
    check_no_raw_payload(index);
    check_only_own_markup(index);
    CHECK(count_of(index, "<strong>" + hostile_payload_escaped + " it&#39;s</strong>") == 1);  // under chapter 3
    CHECK(count_of(index, "href=\"" + hostile_payload_escaped + "&#39;.html\"") == 1);
    CHECK(index.find("lesson " + hostile_payload_escaped + " it&#39;s") != std::string::npos);
    CHECK(index.find("a lesson &amp; more") != std::string::npos);
    CHECK(index.find("<span class=\"chapter\">chapters 3-4</span>") != std::string::npos);
}

TEST_CASE("every id on a page is unique, even when design names slug alike") {
    nlohmann::json document = hostile_document();
    document["designs"] = {{"by hash", {{"job", {{"assign", "hash"}}}}},
                           {"by/hash", {{"job", {{"assign", "hash"}}}}},
                           {"<by-hash>", nlohmann::json::object()}};
    document["lock"] = {{"store", "none"}};
    const Scenario scenario = parse_scenario(document.dump(), "alike.json", metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    const HtmlReport report = render_html_report(outcome, ReportPage{"6", "locksim run alike.json", ""});
    const std::string& page = report.page;
    check_only_own_markup(page);
    std::map<std::string, int> ids;
    for (const auto& id : all_matches(page, std::regex(" id=\"([^\"]*)\""))) ++ids[id];
    std::vector<std::string> repeated;
    for (const auto& [id, n] : ids)
        if (n > 1) repeated.push_back(id);
    INFO(repeated.size() << " ids appear more than once, the first: " << (repeated.empty() ? "" : repeated.front()));
    CHECK(repeated.empty());
    // Each design's heading links to its own article.
    std::set<std::string> targets;
    for (const auto& target : all_matches(page, std::regex("<th><a href=\"#([^\"]*)\">"))) targets.insert(target);
    CHECK(targets.size() == 3);
}

TEST_CASE("mermaid_text turns separators and angle brackets into entity codes and defuses a bare end") {
    CHECK(mermaid_text("a;b#c <d> end the END, endless") == "a#59;b#35;c #lt;d#gt; #101;nd the #69;ND, endless");
    CHECK(mermaid_text("End") == "#69;nd");
    CHECK(mermaid_text("end") == "#101;nd");
    CHECK(mermaid_text("ends weekend end_ end-") == "ends weekend end_ #101;nd-");
    CHECK(mermaid_text("plain text, (42)") == "plain text, (42)");
    CHECK(mermaid_text("#59;") == "#35;59#59;");  // an entity in the input stays text
}

TEST_CASE("a hostile scenario's Mermaid diagrams carry its text only as entity codes") {
    const ScenarioOutcome outcome = hostile_outcome();
    const std::string markdown = render_mermaid(outcome);
    const auto lines = lines_of(markdown);
    const std::regex entity("#([0-9]+|lt|gt);");
    const std::regex bare_end("(^|[^A-Za-z0-9_])(end|End|END)($|[^A-Za-z0-9_])");
    bool inside = false;
    std::size_t blocks = 0, text_lines = 0, open_bands = 0;
    for (const auto& line : lines) {
        if (line == "```mermaid") {
            inside = true;
            ++blocks;
            continue;
        }
        if (line == "```") {
            inside = false;
            continue;
        }
        if (!inside) continue;
        INFO(line);
        // Nothing inside a diagram is a bare "end", which would close a block, except the
        // end of a pause's rect band that the diagram opened itself.
        std::string trimmed = line;
        trimmed.erase(0, trimmed.find_first_not_of(' '));
        if (trimmed.starts_with("rect ")) ++open_bands;
        if (lowercase(trimmed) == "end") {
            CHECK(trimmed == "end");
            CHECK(open_bands > 0);
            --open_bands;
            continue;
        }
        const auto colon = line.find(": ");
        if (line.starts_with("%%") || colon == std::string::npos) continue;
        ++text_lines;
        // A note's own line breaks are the one markup a diagram writes.
        const std::string text =
            std::regex_replace(std::regex_replace(line.substr(colon + 2), entity, ""), std::regex("<br/>"), "");
        CHECK(text.find(';') == std::string::npos);
        CHECK(text.find('#') == std::string::npos);
        CHECK(text.find('<') == std::string::npos);
        CHECK(text.find('>') == std::string::npos);
        CHECK_FALSE(std::regex_search(text, bare_end));
    }
    CHECK(blocks == 3);
    CHECK(text_lines > 50);
    // The payload is there, coded.
    CHECK(markdown.find("#lt;script#gt;alert(\"x&y\")#lt;/script#gt;") != std::string::npos);
    CHECK(markdown.find("#lt;script#gt;alert(\"x&y\")#lt;/script#gt; 'k' #101;nd#59; #69;ND #35;1") !=
          std::string::npos);
}

TEST_CASE("a hostile scenario's Perfetto trace is valid JSON holding its text verbatim") {
    const ScenarioOutcome outcome = hostile_outcome();
    const auto document = nlohmann::json::parse(render_perfetto(outcome));
    CHECK(document["otherData"]["scenario"] == hostile_payload + " it's");
    std::set<std::string> designs;
    for (const auto& event : document["traceEvents"])
        if (event.contains("args") && event["args"].contains("design"))
            designs.insert(event["args"]["design"].get<std::string>());
    CHECK(designs == std::set<std::string>{"unfenced " + hostile_payload + " 'a'", "fenced " + hostile_payload,
                                           "idempotent " + hostile_payload});
}

TEST_CASE("the loader refuses a server name that could carry markup") {
    nlohmann::json document = hostile_document();
    document["servers"] = {"server-1", "<script>"};
    try {
        parse_scenario(document.dump(2), "hostile.json", metric_names());
        FAIL("the loader accepted a server named <script>");
    } catch (const ScenarioError& error) {
        const std::string message = error.what();
        CHECK(message.starts_with("hostile.json:"));
        CHECK(message.find("/servers/1") != std::string::npos);
        CHECK(message.find("expected a node name of lowercase letters, digits, '-' or '_', got \"<script>\"") !=
              std::string::npos);
        CHECK(message.find('\n') == std::string::npos);
    }
    document["servers"] = {"Server-1"};
    CHECK_THROWS_AS(parse_scenario(document.dump(), "hostile.json", metric_names()), ScenarioError);
    document["servers"] = {"server 1"};
    CHECK_THROWS_AS(parse_scenario(document.dump(), "hostile.json", metric_names()), ScenarioError);
    document["servers"] = {"server-1", "server-2"};
    CHECK_NOTHROW(parse_scenario(document.dump(), "hostile.json", metric_names()));
}

TEST_CASE("escaped writes what no page or XML file may hold as U+FFFD, and keeps tabs and line breaks") {
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(escaped("a\xEF\xBF\xBE"
                  "b\xEF\xBF\xBF"
                  "c") == "a" + fffd + "b" + fffd + "c");  // U+FFFE, U+FFFF
    CHECK(escaped("\x1b[31m\xC2\x9B"
                  "0m") == fffd + "[31m" + fffd + "0m");                       // ESC, U+009B
    CHECK(escaped("\xFF<\xC0\xAF>") == fffd + "&lt;" + fffd + fffd + "&gt;");  // not UTF-8
    CHECK(escaped("\xE2\x80\xAE"
                  "01-6202") == fffd + "01-6202");  // U+202E
    CHECK(escaped("tab\tline\nreturn\r") == "tab\tline\nreturn\r");
    CHECK(escaped("café · 🔒 « » ✗") == "café · 🔒 « » ✗");
}

TEST_CASE("markdown_text shows each character of a line of Markdown as itself") {
    CHECK(markdown_text("<b>x</b> & [a](javascript:b) ![i](u) *e* _f_ `c` ~s~ |t| $m$ # \\") ==
          "\\<b\\>x\\</b\\> \\& \\[a\\]\\(javascript:b\\) \\!\\[i\\]\\(u\\) \\*e\\* \\_f\\_ \\`c\\` \\~s\\~ \\|t\\| "
          "\\$m\\$ \\# \\\\");
    CHECK(markdown_text("gc-pause-40s · fenced, 2.0 {x} %'\"") == "gc-pause-40s · fenced, 2.0 {x} %'\"");
    CHECK(markdown_text("a\nb") == "a b");
}

TEST_CASE("mermaid_text writes '%' as an entity code, so no text configures a diagram") {
    CHECK(mermaid_text(R"(%%{init: {"theme": "dark"}}%%)") == R"(#37;#37;{init: {"theme": "dark"}}#37;#37;)");
    CHECK(mermaid_text("50% off") == "50#37; off");
}

namespace {

const std::string hostile_words_file = "tests/hostile/hostile-words.json";

// What each text field of tests/hostile/hostile-words.json holds: no page may hold one as markup.
const std::vector<std::string> hostile_markup{
    "<script", "<img", "<b id", "<iframe", "<base", "<svg onload", "<style>*", "<link", "<a href=javascript", "]]><"};

void check_no_hostile_markup(const std::string& markup) {
    for (const auto& raw : hostile_markup) {
        INFO(raw);
        CHECK(markup.find(raw) == std::string::npos);
    }
}

// The lines inside the Markdown's ```mermaid blocks.
std::vector<std::string> diagram_lines(const std::string& markdown) {
    std::vector<std::string> lines;
    bool inside = false;
    for (const auto& line : lines_of(markdown)) {
        if (line == "```mermaid" || line == "```")
            inside = line != "```";
        else if (inside)
            lines.push_back(line);
    }
    return lines;
}

}  // namespace

TEST_CASE("a name cannot configure a Mermaid diagram, nor be markup in its Markdown heading") {
    const Scenario scenario =
        load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/" + hostile_words_file, metric_names());
    const std::string markdown = render_mermaid(run_scenario(scenario, scenario.seed));
    const auto diagrams = diagram_lines(markdown);
    CHECK(diagrams.size() > 100);
    for (const auto& line : diagrams) {
        INFO(line);
        CHECK(line.find("%%{") == std::string::npos);  // Mermaid reads it as a directive anywhere
    }
    CHECK(markdown.find("#37;#37;{init: {\"theme\": \"forest\"}}#37;#37;") != std::string::npos);
    std::size_t headings = 0;
    for (const auto& line : lines_of(markdown)) {
        if (!line.starts_with("### ")) continue;
        ++headings;
        INFO(line);
        // Every character Markdown gives a meaning is behind a backslash.
        for (std::size_t at = 4; at < line.size(); ++at) {
            if (line[at] == '\\') {
                ++at;
                continue;
            }
            CHECK(std::string_view("<>[]()`*_&!~|$#").find(line[at]) == std::string_view::npos);
        }
    }
    CHECK(headings == 3);
    CHECK(
        markdown.starts_with("### hostile \\<script\\>document.title=7\\</script\\> %%{init: {\"theme\": "
                             "\"forest\"}}%% \\[x\\]\\(javascript:alert\\(1\\)\\) \\`c\\` \\*e\\* \\~s\\~ \\| \\# "
                             "end · unfenced \\<script\\>document.title=7\\</script\\>\n"));
}

TEST_CASE("every text of a hostile scenario reaches every output of the program only as that output allows") {
    const auto folder = testing::fresh_directory("hostile-outputs");
    const std::string hostile = hostile_words_file;
    const std::string name = nlohmann::json::parse(testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/" + hostile))
                                 .at("name")
                                 .get<std::string>();

    // The terminal: the text as it is, and no control character but line breaks.
    const auto text = run_locksim("run " + hostile);
    CHECK(text.exit_code == 0);
    CHECK(text.out.starts_with(name + " · seed 1 · 3 designs\n"));
    CHECK(std::none_of(text.out.begin(), text.out.end(),
                       [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f; }));
    // JSON, the trace and Perfetto's: valid JSON, the text verbatim.
    for (const std::string format : {"json", "trace", "perfetto"}) {
        INFO(format);
        const auto json = run_locksim("run " + hostile + " --format " + format);
        CHECK(json.exit_code == 0);
        CHECK(json.out.find(nlohmann::json(name).dump()) != std::string::npos);
        CHECK_NOTHROW(nlohmann::json::parse(json.out));
    }
    // Mermaid: no directive, no markup (its headings are the test above).
    const auto mermaid = run_locksim("run " + hostile + " --format mermaid");
    CHECK(mermaid.exit_code == 0);
    for (const auto& line : diagram_lines(mermaid.out)) {
        INFO(line);
        CHECK(line.find("%%{") == std::string::npos);
        // Its own markup: line breaks, and "e<n>" in the comment that heads a diagram.
        CHECK(std::regex_replace(line, std::regex("<br/>|e<n>"), "").find('<') == std::string::npos);
    }
    // JUnit: only its own elements, every text escaped.
    const auto junit_path = folder / "junit.xml";
    CHECK(run_locksim("check " + hostile + " --junit '" + junit_path.string() + "'").exit_code == 0);
    const std::string junit = testing::slurp(junit_path);
    check_no_hostile_markup(junit);
    CHECK(junit.find("name=\"" + escaped(name) + "\"") != std::string::npos);
    for (const auto& tag : all_matches(junit, std::regex("<([^ >/]+)"))) {
        INFO(tag);
        CHECK(std::set<std::string>{"?xml", "testsuites", "testsuite", "testcase", "failure", "error", "system-out"}
                  .contains(tag));
    }
    // Every HTML page: the scenario's, its pages of every step, the course's index, the
    // vulnerability map (by explore, and in the course), the study charts.
    REQUIRE(run_locksim("run " + hostile + " --report '" + (folder / "run").string() + "'").exit_code == 0);
    REQUIRE(run_locksim("report tests/hostile --out '" + (folder / "course").string() + "'").exit_code == 0);
    REQUIRE(
        run_locksim("explore " + hostile + " --jobs 2 --report '" + (folder / "explore").string() + "'").exit_code ==
        0);
    REQUIRE(run_locksim("sweep " + hostile + " --seeds 20 --vary lock.ttl=10s,50s --report '" +
                        (folder / "study").string() + "'")
                .exit_code == 0);
    std::size_t pages = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
        if (entry.path().extension() != ".html") continue;
        ++pages;
        INFO(entry.path().string());
        const std::string page = testing::slurp(entry.path());
        check_no_hostile_markup(page);
        check_only_own_markup(page);
        CHECK(page.find(escaped(name)) != std::string::npos);  // the title, or the index's entry
        CHECK(page.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                        "'unsafe-inline'; base-uri 'none'; form-action 'none'\">") != std::string::npos);
    }
    CHECK(pages == 12);  // the scenario's page and three of every step, twice; the index, two maps, the charts
    // The list: the text as it is, as text and as JSON.
    const auto list = run_locksim("list tests/hostile --format json");
    CHECK(list.exit_code == 0);
    CHECK(list.out.find(nlohmann::json(name).dump()) != std::string::npos);
}
