// reports/html/study_page.hpp, study_chart.hpp and their axes and series
// (reports/figure/study_axes.hpp, study_series.hpp): the page of `locksim sweep --vary …
// --report DIR`, drawn from studies built by hand so that every rate is known in advance,
// and written by the program from the shipped scenarios.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "checks/study.hpp"
#include "reports/figure/study_axes.hpp"
#include "reports/figure/study_series.hpp"
#include "reports/html/study_page.hpp"
#include "runners/study_runner.hpp"
#include "tests/program_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

VariedField varied(const std::string& text) {
    auto field = parse_varied_field(text);
    REQUIRE(field);
    return *field;
}

// A study of `fields` with `designs`, in which design d at grid point p had
// violating[p][d] of `runs` runs with a violation.
Study study_by_hand(const std::vector<std::string>& fields, const std::vector<std::string>& designs,
                    const std::vector<std::vector<std::uint64_t>>& violating, std::uint64_t runs = 20) {
    Study study;
    study.scenario = "hand-built";
    study.file = "scenarios/hand built.json";
    study.seeds = SeedBlock{1, runs};
    study.command = "locksim sweep 'scenarios/hand built.json' --seeds 20 --start 1 --vary lock.ttl=1s,10s,100s";
    for (const auto& text : fields) study.fields.push_back(varied(text));
    std::vector<std::vector<std::size_t>> choices{{}};
    for (const auto& field : study.fields) {
        std::vector<std::vector<std::size_t>> next;
        for (const auto& choice : choices)
            for (std::size_t v = 0; v < field.values.size(); ++v) {
                next.push_back(choice);
                next.back().push_back(v);
            }
        choices = next;
    }
    REQUIRE(choices.size() == violating.size());
    for (std::size_t p = 0; p < choices.size(); ++p) {
        StudyPoint point{choices[p], {}};
        for (std::size_t d = 0; d < designs.size(); ++d)
            point.summary.designs.push_back(DesignTally{designs[d], runs, violating[p][d]});
        study.points.push_back(point);
    }
    return study;
}

// Three TTLs a factor of 10 apart; the unfenced design breaks in 10, 2 and 0 of 20 runs,
// the other (whose name is hostile markup) in 1, 0 and 0.
Study three_ttls() {
    return study_by_hand({"lock.ttl=1s,10s,100s"}, {"unfenced", "fenced " + hostile_payload},
                         {{10, 1}, {2, 0}, {0, 0}});
}

std::size_t charts_in(const std::string& page) {
    return count_of(page, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"study");
}

}  // namespace

TEST_CASE("durations spanning a factor of 10 or more stand on a log scale across a study chart") {
    const ValueAxis axis(varied("lock.ttl=1s,10s,100s"));
    CHECK(axis.logarithmic());
    CHECK(axis.span() == Approx(100));
    CHECK(axis.fraction(0) == Approx(0));
    CHECK(axis.fraction(1) == Approx(0.5));
    CHECK(axis.fraction(2) == Approx(1));
    // Numbers too, in the order written: place follows the value.
    const ValueAxis numbers(varied("job.runs=1000,1,10"));
    CHECK(numbers.logarithmic());
    CHECK(numbers.fraction(0) == Approx(1));
    CHECK(numbers.fraction(1) == Approx(0));
    CHECK(numbers.fraction(2) == Approx(1.0 / 3));
}

TEST_CASE("values spanning less than a factor of 10, or not all positive magnitudes, stand evenly in the order given") {
    const ValueAxis ttls(varied("lock.ttl=5s,10s,30s"));
    CHECK_FALSE(ttls.logarithmic());
    CHECK(ttls.span() == Approx(6));
    CHECK(ttls.fraction(0) == Approx(0));
    CHECK(ttls.fraction(1) == Approx(0.5));
    CHECK(ttls.fraction(2) == Approx(1));
    CHECK_FALSE(ValueAxis(varied("lock.ttl=0s,10s,100s")).logarithmic());             // 0 has no log
    CHECK_FALSE(ValueAxis(varied("job.runs=1,100s")).logarithmic());                  // a number and a duration
    CHECK_FALSE(ValueAxis(varied("lock.store=redis,etcd,zookeeper")).logarithmic());  // words
    const ValueAxis one(varied("lock.ttl=10s"));
    CHECK_FALSE(one.logarithmic());
    CHECK(one.fraction(0) == Approx(0.5));  // a single value stands in the middle
}

TEST_CASE("the rate axis runs over whole decades from the smallest bound drawn to the largest") {
    const DesignTally three{"as-deployed", 1000, 3};     // 0.30% (0.10%–0.88%)
    const DesignTally none{"idempotency-key", 1000, 0};  // 0.00% (0.00%–0.38%)
    const RateAxis axis({rate_interval(three), rate_interval(none)});
    CHECK(axis.bottom_decade() == -3);  // 0.1 %, under the lower bound 0.102 %
    CHECK(axis.top_decade() == -2);     // 1 %, over the upper bound 0.88 %
    CHECK(gridline_label(axis.bottom_decade()) == "0.1%");
    // Zeros alone still get a decade: 0 of 20 allows up to 16 %.
    const RateAxis zeros({rate_interval(DesignTally{"fenced", 20, 0})});
    CHECK(zeros.bottom_decade() == -1);
    CHECK(zeros.top_decade() == 0);
    CHECK(zeros.height_fraction(1) == Approx(1));
    CHECK(zeros.height_fraction(0.1) == Approx(0));
}

TEST_CASE("gridlines are labelled as percentages written out, never in scientific notation") {
    CHECK(gridline_label(0) == "100%");
    CHECK(gridline_label(-2) == "1%");
    CHECK(gridline_label(-4) == "0.01%");
    CHECK(gridline_label(-7) == "0.00001%");
    CHECK(gridline_label(-1, 5) == "50%");
    CHECK(gridline_label(-4, 2) == "0.02%");
}

TEST_CASE("a varied field goes by the shortest end of its path that no other varied field shares") {
    CHECK(short_field_names({varied("lock.ttl=5s"), varied("fault_generators/0/mean_interval=5s")}) ==
          std::vector<std::string>{"ttl", "mean_interval"});
    CHECK(short_field_names(
              {varied("fault_generators/0/mean_interval=5s"), varied("fault_generators/1/mean_interval=5s")}) ==
          std::vector<std::string>{"0/mean_interval", "1/mean_interval"});
}

TEST_CASE("a chart of one field of two has a series per design and value of the other field") {
    // lock.ttl varies slowest: points (5s,5s) (5s,30s) (10s,5s) (10s,30s) (30s,5s) (30s,30s).
    const Study study =
        study_by_hand({"lock.ttl=5s,10s,30s", "fault_generators/0/mean_interval=5s,30s"},
                      {"as-deployed", "idempotency-key"}, {{3, 0}, {0, 0}, {2, 0}, {0, 0}, {1, 0}, {4, 0}});
    const auto by_ttl = study_series(study, 0);
    REQUIRE(by_ttl.size() == 4);
    CHECK(by_ttl[0].label() == "as-deployed, mean_interval=5s");
    CHECK(by_ttl[1].label() == "as-deployed, mean_interval=30s");
    CHECK(by_ttl[2].label() == "idempotency-key, mean_interval=5s");
    REQUIRE(by_ttl[1].tallies.size() == 3);
    CHECK(by_ttl[0].tallies[1]->runs_with_violation == 2);  // ttl 10s, mean_interval 5s
    CHECK(by_ttl[1].tallies[2]->runs_with_violation == 4);  // ttl 30s, mean_interval 30s
    const auto by_interval = study_series(study, 1);
    REQUIRE(by_interval.size() == 6);
    CHECK(by_interval[2].label() == "as-deployed, ttl=30s");
    CHECK(by_interval[2].tallies[1]->runs_with_violation == 4);

    const std::string page = render_study_page(study);
    CHECK(charts_in(page) == 2);
    CHECK(page.find(">as-deployed, mean_interval=30s</text>") != std::string::npos);
    CHECK(page.find(">idempotency-key, ttl=10s</text>") != std::string::npos);
}

TEST_CASE("a study page has a chart per varied field whose legend names every design, escaped") {
    const std::string page = render_study_page(three_ttls());
    CHECK(page == render_study_page(three_ttls()));
    CHECK(charts_in(page) == 1);
    CHECK(count_of(page, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"study log-x\"") == 1);
    CHECK(page.find("lock.ttl → on a log scale: the values span a factor of 100") != std::string::npos);
    CHECK(page.find("class=\"legend-label\">unfenced</text>") != std::string::npos);
    CHECK(page.find("class=\"legend-label\">fenced " + hostile_payload_escaped + "</text>") != std::string::npos);
    CHECK(page.find(hostile_payload) == std::string::npos);
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("<h2>The violation rate against lock.ttl</h2>") != std::string::npos);
    // The decades drawn: from 0.1 % (under the lower bound of 1 of 20, 0.89 %) to 100 %.
    for (const char* label : {">0.1%</text>", ">1%</text>", ">10%</text>", ">100%</text>"})
        CHECK(page.find(label) != std::string::npos);
    CHECK(page.find(">0.01%</text>") == std::string::npos);
    // Under the charts: what the intervals cover, the seeds and the command.
    CHECK(page.find("cover the sampling error of these seeds only, not the model&#39;s assumptions") !=
          std::string::npos);
    CHECK(page.find("Seeds 1…20 at every point") != std::string::npos);
    CHECK(page.find("<code>locksim sweep &#39;scenarios/hand built.json&#39; --seeds 20 --start 1 --vary "
                    "lock.ttl=1s,10s,100s</code>") != std::string::npos);
    // Every rate in the table, as the text table prints it.
    CHECK(page.find("<td class=\"num\">50.00% (29.93%–70.07%)</td>") != std::string::npos);
}

TEST_CASE("a rate of 0 is drawn hollow in the band under the log axis, its bar up to its upper bound") {
    const std::string page = render_study_page(three_ttls());
    std::map<int, double> decade_y;
    const std::regex decade(R"re(<g class="decade" data-decade="(-?\d+)"><line x1="\d+" y1="([\d.]+)")re");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), decade); it != std::sregex_iterator(); ++it)
        decade_y[std::stoi((*it)[1].str())] = std::stod((*it)[2].str());
    REQUIRE(decade_y.size() == 4);  // -3 … 0
    std::smatch band;
    REQUIRE(std::regex_search(
        page, band, std::regex(R"re(<rect class="zero-band" x="\d+" y="([\d.]+)" width="\d+" height="(\d+)")re")));
    const double band_middle = std::stod(band[1].str()) + std::stod(band[2].str()) / 2;
    CHECK(page.find(">0 of 20 runs</text>") != std::string::npos);

    // The unfenced design (series 0, circles) at 100s: 0 of 20.
    std::smatch zero;
    REQUIRE(std::regex_search(
        page, zero,
        std::regex(R"re(<g class="point at-floor" data-series="0" data-value="100s"><title>([^<]*)</title>)re"
                   R"re(<line class="interval" x1="[\d.]+" y1="([\d.]+)" x2="[\d.]+" y2="([\d.]+)")re"
                   R"re([^\n]*<circle class="marker circle" cx="[\d.]+" cy="([\d.]+)" r="[\d.]+" fill="#fff")re")));
    CHECK(zero[1].str() == "unfenced, lock.ttl=100s: 0 of 20 runs, 0.00% (0.00%–16.11%)");
    CHECK(std::stod(zero[2].str()) == Approx(band_middle).margin(0.06));  // the bar starts in the band
    CHECK(std::stod(zero[4].str()) == Approx(band_middle).margin(0.06));  // and so does the marker
    // It rises to 16.11 % on the log axis, between the 10 % and 100 % gridlines.
    const double high = wilson_interval(0, 20).high;
    const double expected = decade_y[-1] - (std::log10(high) + 1) * (decade_y[-1] - decade_y[0]);
    CHECK(std::stod(zero[3].str()) == Approx(expected).margin(0.1));
    CHECK(std::stod(zero[3].str()) < decade_y[-1]);

    // A rate above 0 sits filled on the axis: 10 of 20 is 50 %.
    std::smatch half;
    REQUIRE(std::regex_search(page, half,
                              std::regex(R"re(<g class="point" data-series="0" data-value="1s">[^\n]*)re"
                                         R"re(<circle class="marker circle" cx="[\d.]+" cy="([\d.]+)" r="[\d.]+" )re"
                                         R"re(fill="#0072B2")re")));
    CHECK(std::stod(half[1].str()) ==
          Approx(decade_y[-1] - std::log10(5.0) * (decade_y[-1] - decade_y[0])).margin(0.1));
    CHECK(count_of(page, "<g class=\"point at-floor\"") == 3);
    CHECK(count_of(page, "<g class=\"point\"") == 3);
}

TEST_CASE("no line joins a rate of 0 in its band to a rate on the log scale, whose decades no run measured") {
    // Unfenced: 10, 2 and 0 of 20; the other design 1, 0 and 0.
    const std::string page = render_study_page(three_ttls());
    std::smatch band;
    REQUIRE(std::regex_search(
        page, band, std::regex(R"re(<rect class="zero-band" x="\d+" y="([\d.]+)" width="\d+" height="(\d+)")re")));
    const double band_top = std::stod(band[1].str());
    const double band_bottom = band_top + std::stod(band[2].str());
    std::vector<std::string> lines;
    const std::regex line(R"re(<path class="series-line[^"]*" d="([^"]*)")re");
    for (auto it = std::sregex_iterator(page.begin(), page.end(), line); it != std::sregex_iterator(); ++it)
        lines.push_back((*it)[1].str());
    // Only the unfenced design has two rates above 0 side by side: 1s to 10s, one segment.
    REQUIRE(lines.size() == 1);
    CHECK(count_of(lines.front(), "L") == 1);
    const std::regex corner(R"re([ML]([\d.]+),([\d.]+))re");
    for (auto it = std::sregex_iterator(lines.front().begin(), lines.front().end(), corner);
         it != std::sregex_iterator(); ++it) {
        const double y = std::stod((*it)[2].str());
        CHECK((y < band_top || y > band_bottom));
    }
    CHECK(page.find("stroke-dasharray=\"4 3\"") == std::string::npos);  // no dashed line into the band either
    CHECK_THAT(page, Catch::Contains("No line joins a 0"));
}

TEST_CASE("a chart is 720 px wide, to fit a page read at 800 px, and scales down in a narrower window") {
    const std::string page = render_study_page(three_ttls());
    CHECK(count_of(page, "class=\"study log-x\" width=\"720\"") == 1);
    CHECK_THAT(page, Catch::Contains("svg.study { display: block; max-width: 100%; height: auto;"));
}

TEST_CASE("series differ in colour and in marker shape, so that a chart reads in grey") {
    std::vector<std::string> designs;
    for (int d = 0; d < 6; ++d) designs.push_back("design-" + std::to_string(d));
    const Study study = study_by_hand({"lock.ttl=5s,10s"}, designs, {{1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}});
    const std::string page = render_study_page(study);
    const std::regex entry(
        R"re(<g class="legend-entry" data-series="\d+"><title>[^<]*</title><line [^>]*stroke="(#[0-9A-F]{6})"[^>]*/>)re"
        R"re(<[a-z]+ class="marker ([a-z-]+)")re");
    std::set<std::string> colours;
    std::set<std::string> shapes;
    std::size_t entries = 0;
    for (auto it = std::sregex_iterator(page.begin(), page.end(), entry); it != std::sregex_iterator(); ++it) {
        colours.insert((*it)[1].str());
        shapes.insert((*it)[2].str());
        ++entries;
    }
    CHECK(entries == 6);
    CHECK(colours.size() == 6);
    CHECK(shapes.size() == 6);
}

TEST_CASE("however many series stand side by side, every point stays inside the plot") {
    std::vector<std::string> designs;
    for (int d = 0; d < 3; ++d) designs.push_back("design-" + std::to_string(d));
    std::vector<std::vector<std::uint64_t>> violating(18, std::vector<std::uint64_t>{2, 1, 0});
    // A chart of the second field: 3 designs × 6 values of the first, 18 series.
    const Study study = study_by_hand(
        {"lock.ttl=1s,2s,3s,10s,100s,1000s", "fault_generators/0/mean_interval=10s,1m,5m"}, designs, violating);
    const std::string page = render_study_page(study);
    const std::regex band(R"re(<rect class="zero-band" x="(\d+)" y="[\d.]+" width="(\d+)")re");
    std::smatch plot;
    REQUIRE(std::regex_search(page, plot, band));
    const double left = std::stod(plot[1].str());
    const double right = left + std::stod(plot[2].str());
    const auto xs = all_matches(page, std::regex(R"re(<line class="interval" x1="([\d.]+)")re"));
    REQUIRE(xs.size() == 2 * 54);  // per chart: 18 points × 3 values, and 9 series × 6 values
    for (const auto& x : xs) {
        CHECK(std::stod(x) > left + 4);
        CHECK(std::stod(x) < right - 4);
    }
}

TEST_CASE("value labels that would overlap on a log scale are left out, and the axis says so") {
    const std::string page =
        render_study_page(study_by_hand({"lock.ttl=1s,1100ms,1200ms,100s"}, {"unfenced"}, {{1}, {1}, {1}, {0}}));
    CHECK(count_of(page, "<g class=\"value-tick\">") == 4);
    CHECK(count_of(page, "class=\"value-label\"") < 4);
    CHECK(page.find("labels that would overlap are left out") != std::string::npos);
    CHECK(page.find("<title>lock.ttl=1100ms</title>") != std::string::npos);  // still named on its tick
}

// ---- Through the program

namespace {

std::filesystem::path study_report_folder(const std::string& name) {
    return fresh_directory("study_report_" + name) / "new";
}

}  // namespace

TEST_CASE("locksim sweep --vary --report writes the study page, the same bytes on every run, and says where") {
    const auto folder = study_report_folder("ttls");
    const std::string command =
        "sweep scenarios/random-gc-pauses.json --seeds 20 --vary lock.ttl=1s,10s,100s --report " + folder.string();
    const auto first = run_locksim(command + " -j 1");
    REQUIRE(first.exit_code == 0);
    const auto page = folder / "random-gc-pauses-study.html";
    CHECK(first.err.find("Study charts: " + page.string() + " (open it in a browser)\n") != std::string::npos);
    CHECK_THAT(first.out, Catch::Contains("a study of 3 points"));  // stdout keeps the table
    REQUIRE(std::filesystem::is_regular_file(page));
    const std::string html = slurp(page);
    const auto second = run_locksim(command + " -j 2");
    REQUIRE(second.exit_code == 0);
    CHECK(slurp(page) == html);
    CHECK(charts_in(html) == 1);
    CHECK(count_of(html, "class=\"study log-x\"") == 1);
    for (const char* design : {"unfenced", "fenced", "idempotent"})
        CHECK(html.find(std::string("class=\"legend-label\">") + design + "</text>") != std::string::npos);
    CHECK(html.find("<code>locksim sweep scenarios/random-gc-pauses.json --seeds 20 --start 1 --vary "
                    "lock.ttl=1s,10s,100s</code>") != std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("http://www.w3.org/2000/svg") != std::string::npos);
    CHECK(html.find("src=") == std::string::npos);  // nothing fetched
    std::filesystem::remove_all(folder.parent_path());
}

TEST_CASE(
    "the course writes a lesson's study page beside it: sweep --vary --report's page of its grid, the same bytes "
    "twice") {
    const auto folder = study_report_folder("course");
    const auto course = [&](const std::string& name) {
        const auto ran = run_locksim("report scenarios/random-gc-pauses.json --out " + (folder / name).string());
        REQUIRE(ran.exit_code == 0);
        return slurp(folder / name / "random-gc-pauses-study.html");
    };
    const std::string first = course("first");
    CHECK(course("second") == first);
    const auto swept =
        run_locksim("sweep scenarios/random-gc-pauses.json --seeds 500 --vary lock.ttl=2s,10s,30s,2m -j 2 --report " +
                    (folder / "swept").string());
    REQUIRE(swept.exit_code == 0);
    CHECK(slurp(folder / "swept" / "random-gc-pauses-study.html") == first);
    const std::string lesson = slurp(folder / "first" / "random-gc-pauses.html");
    CHECK(count_of(lesson,
                   "<a href=\"random-gc-pauses-study.html\">The study of random-gc-pauses against lock.ttl "
                   "→</a>") == 1);
    CHECK_THAT(lesson, Catch::Contains("<h2>How it changes with lock.ttl: the study</h2>"));
    CHECK_THAT(lesson, Catch::Contains("runs the same 500 seeds again at each value of lock.ttl"));
    std::filesystem::remove_all(folder.parent_path());
}

TEST_CASE("a study of two fields gets a chart for each, its series named by the other field's values") {
    const auto folder = study_report_folder("grid");
    const auto ran = run_locksim(
        "sweep scenarios/examples/monthly-statements-rate.json --seeds 20 --vary lock.ttl=5s,10s,30s "
        "--vary fault_generators/0/mean_interval=5s,30s --report " +
        folder.string());
    REQUIRE(ran.exit_code == 0);
    const std::string html = slurp(folder / "monthly-statements-rate-study.html");
    CHECK(charts_in(html) == 2);
    CHECK(count_of(html, "class=\"study log-x\"") == 0);  // 5s…30s is only a factor of 6
    CHECK(html.find("(they span a factor of 6, under 10)") != std::string::npos);
    CHECK(html.find(">as-deployed, mean_interval=5s</text>") != std::string::npos);
    CHECK(html.find(">idempotency-key, mean_interval=30s</text>") != std::string::npos);
    CHECK(html.find(">as-deployed, ttl=30s</text>") != std::string::npos);
    CHECK(html.find("id=\"vary-2-fault-generators-0-mean-interval\"") != std::string::npos);
    std::filesystem::remove_all(folder.parent_path());
}

TEST_CASE("a study of one value and one seed still draws its chart") {
    const auto folder = study_report_folder("single");
    const auto ran = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 1 --start 4 --design fenced "
        "--vary lock.ttl=10s --report " +
        folder.string());
    REQUIRE(ran.exit_code == 0);
    const std::string html = slurp(folder / "random-gc-pauses-study.html");
    CHECK(charts_in(html) == 1);
    CHECK(count_of(html, "<g class=\"value-tick\">") == 1);
    CHECK(count_of(html, "<g class=\"point") == 1);
    CHECK(html.find("class=\"legend-label\">fenced</text>") != std::string::npos);
    CHECK(html.find("class=\"legend-label\">unfenced</text>") == std::string::npos);
    CHECK(html.find("Seeds 4…4 at every point") != std::string::npos);
    CHECK(html.find("--seeds 1 --start 4 --design fenced --vary lock.ttl=10s</code>") != std::string::npos);
    std::filesystem::remove_all(folder.parent_path());
}

TEST_CASE("sweep --report without --vary, or into a path it cannot make a directory, exits 2 in one line") {
    const auto plain = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --report /tmp/never-made");
    CHECK(plain.exit_code == 2);
    CHECK_THAT(plain.err, Catch::StartsWith("--report draws the charts of a parameter study: add --vary"));
    CHECK(count_of(plain.err, "\n") == 1);
    CHECK_FALSE(std::filesystem::exists("/tmp/never-made"));

    const auto directory = fresh_directory("study_report_in_the_way");
    const auto file = directory / "a-file";
    std::ofstream(file) << "not a directory\n";
    const auto blocked = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s --report '" +
                                     file.string() + "'");
    CHECK(blocked.exit_code == 2);
    CHECK(blocked.err ==
          "--report " + file.string() + ": is a file, not a folder; give a folder to write the pages into\n");
    CHECK(count_of(blocked.err, "\n") == 1);
    CHECK(blocked.out.empty());  // refused before any run
    CHECK(slurp(file) == "not a directory\n");
    std::filesystem::remove_all(directory);
}

TEST_CASE("sweep --help explains --report") {
    const auto help = run_locksim("sweep --help");
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("--report") && Catch::Contains("<scenario>-study.html"));
}

TEST_CASE("the study page marks a design that sets the varied field itself, in its table and above its charts") {
    const auto folder = study_report_folder("its_own");
    const auto ran = run_locksim(
        "sweep scenarios/clock-chaos.json --seeds 3 --vary fault_generators/0/mean_interval=10s,40s "
        "--report " +
        folder.string());
    REQUIRE(ran.exit_code == 0);
    const std::string html = slurp(folder / "clock-chaos-study.html");
    CHECK(locksim::testing::count_of(html, "<td>(its own)</td><td>zookeeper</td>") == 2);
    CHECK(locksim::testing::count_of(html, "<td>10s</td><td>redis") == 1);
    CHECK_THAT(html, Catch::Contains("<p class=\"own-value\">(its own): design zookeeper sets "
                                     "fault_generators/0/mean_interval itself, so the values varied never reached it"));
}
