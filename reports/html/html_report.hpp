#pragma once
// The HTML report of one scenario: a single self-contained page (inline CSS and SVG, no
// script, nothing fetched) that tells the scenario's story from its run — what it shows,
// the designs side by side, and for each design a sequence figure and its event table.
#include <optional>
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "checks/sweep_summary.hpp"

namespace locksim {

// A question about the scenario's world and the command that answers it.
struct PageExercise {
    std::string question;
    std::string command;
};

// Another page of the course: its href and the scenario's name.
struct PageLink {
    std::string href;
    std::string title;
};

// A lesson's study page, written beside it by the course: its href, the fields it varies
// ("lock.ttl") and the seeds it runs at each of their values.
struct StudyLink {
    std::string href;
    std::vector<std::string> fields;
    std::uint64_t seeds = 0;
};

struct ReportPage {
    std::string section;         // the chapter the scenario tells ("3-4"), may be empty
    std::string replay_command;  // "locksim run scenarios/gc-pause-40s.json --seed 1"
    std::string index_link;      // href of the course index, or empty
    std::vector<PageExercise> what_ifs;
    // In a course (`locksim report`): the pages before and after in the course's order, and
    // the others of the same chapter.
    std::optional<PageLink> previous;
    std::optional<PageLink> next;
    std::vector<PageLink> see_also;
    // The page's own file name ("gc-pause-40s.html"); empty: the scenario's name as a slug.
    // Its designs' pages of every step go in the folder named after it ("gc-pause-40s-steps/").
    std::string file_name;
    // A scenario whose faults are drawn at random: the run drawn is one of many, and the page
    // leads with how often each design lost over a sweep (`rates`, when it was run). Without
    // rates such a page still names the run as one draw, and gives no design a green mark.
    bool one_draw_of_many = false;
    std::optional<LessonRates> rates;
    // The href of the scenario's vulnerability map (`explore`), where the course wrote one.
    std::string explore_map;
    // The scenario's study page ("study"), where the course wrote one.
    std::optional<StudyLink> study;
};

// A file of the report, its path relative to the scenario's page.
struct ReportFile {
    std::string path;
    std::string html;
};

// The scenario's page tells each design's story in a figure that fits the page; every step
// of each design, in the full figure and a table, is one click away on a page of its own.
struct HtmlReport {
    std::string page;
    std::vector<ReportFile> step_pages;  // one per design, in the designs' order
};

HtmlReport render_html_report(const ScenarioOutcome& outcome, const ReportPage& page);

// The anchor of design `index` on its page, "d2-fenced": numbered, so that designs whose
// names slug alike ("by hash", "by/hash") keep apart, and no id built from one anchor
// ("d2-fenced-e17") equals another's. Its figure steps are "<anchor>-fig-e<n>", its
// table rows "<anchor>-e<n>".
std::string design_anchor(const ScenarioOutcome& outcome, std::size_t index);

}  // namespace locksim
