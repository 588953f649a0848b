#pragma once
// The course's index page: its scenarios chapter by chapter, each with its lesson and what
// it lost, and the names of the chapters the scenario pages share.
#include <cstdint>
#include <string>
#include <vector>

namespace locksim {

// One line of the course index: a scenario with its lesson and its page.
struct CourseEntry {
    std::string section;
    std::string name;
    std::string lesson;
    std::string href;                   // the report page, relative to the index
    bool held = true;                   // the file's contract: every expectation of every design held
    std::vector<std::string> violated;  // the world's outcome: designs in which a checker flagged a violation
    // On a page that teaches a rate, the outcome is the sweep's: `violated` names each design
    // that lost in any of its `runs` ("unfenced in 47 of 2000 runs"), and `uncounted` each
    // whose runs the horizon cut; otherwise `runs` is 1, the page's run.
    std::uint64_t runs = 1;
    std::vector<std::string> uncounted;
};

// index.html: the scenarios in the order given (the course's, cli/course_order.hpp), each
// once, under its first chapter.
std::string render_course_index(const std::vector<CourseEntry>& entries);

// The title of the course's chapter a section number names: '3' → "The catch".
std::string chapter_title(char section);

}  // namespace locksim
