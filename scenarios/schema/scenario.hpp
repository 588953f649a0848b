#pragma once
// A scenario as read from its file: one world in several designs, each with what it
// expects the run to show.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/expectations.hpp"
#include "models/world/world_spec.hpp"
#include "scenarios/schema/explore_spec.hpp"
#include "scenarios/schema/study_spec.hpp"

namespace locksim {

struct Design {
    std::string name;
    WorldSpec world;  // the base world with this design's overrides applied
    LockPurpose purpose = LockPurpose::correctness;
    std::vector<Expectation> expectations;
};

struct Scenario {
    std::string file;  // as given on the command line
    // Of the file's bytes, and of the data files it reads: what a sweep says it ran,
    // whatever the path.
    std::string content_sha256;
    // The files of samples it read ({"observed": …}), as paths: inputs no output may replace.
    std::vector<std::string> data_files;
    // The same by the name the file gives each, with the SHA-256 of its bytes: which one
    // changed, when content_sha256 did.
    std::map<std::string, std::string> data_file_sha256;
    std::string name;
    std::string description;
    std::string lesson;   // one line: what a learner should take away
    std::string section;  // the chapter of the course it tells, "3" or "3-4"; empty if none
    // The scenarios (by name) a learner should have read first: a course puts it after them.
    std::vector<std::string> assumes;
    std::uint64_t seed = 0;
    std::vector<Design> designs;  // in file order
    std::optional<ExploreSpec> explore;
    std::optional<SweepSpec> sweep;
    std::optional<StudySpec> study;  // the parameter study its lesson belongs with
};

// The chapter a scenario is listed under: the first of its section ('3' for "3-4"), '9' for none.
inline char first_chapter(std::string_view section) {
    return section.empty() ? '9' : section.front();
}

// Every node of a design's world: servers, the store's nodes, the billing database and
// the payment provider.
std::vector<std::string> node_names(const WorldSpec& world);

}  // namespace locksim
