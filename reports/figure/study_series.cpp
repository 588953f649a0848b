#include "reports/figure/study_series.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace locksim {
namespace {

// "fault_generators/0/mean_interval" and "lock.ttl" as their segments.
std::vector<std::string> path_segments(const std::string& path) {
    std::vector<std::string> segments{""};
    for (const char c : path) {
        if (c == '.' || c == '/') {
            if (!segments.back().empty()) segments.emplace_back();
        } else {
            segments.back() += c;
        }
    }
    if (segments.back().empty() && segments.size() > 1) segments.pop_back();
    return segments;
}

std::string last_segments(const std::vector<std::string>& segments, std::size_t count) {
    const std::size_t from = segments.size() - std::min(count, segments.size());
    return fmt::format("{}", fmt::join(segments.begin() + static_cast<std::ptrdiff_t>(from), segments.end(), "/"));
}

}  // namespace

std::vector<std::string> short_field_names(const std::vector<VariedField>& fields) {
    std::vector<std::vector<std::string>> segments;
    for (const auto& field : fields) segments.push_back(path_segments(field.path));
    std::vector<std::string> names;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        std::size_t count = 1;
        const auto clashes = [&](std::size_t n) {
            for (std::size_t g = 0; g < fields.size(); ++g)
                if (g != f && last_segments(segments[g], n) == last_segments(segments[f], n)) return true;
            return false;
        };
        while (count < segments[f].size() && clashes(count)) ++count;
        // The same path twice has no unique tail: the whole path as written says it.
        names.push_back(clashes(count) ? fields[f].path : last_segments(segments[f], count));
    }
    return names;
}

std::vector<StudySeries> study_series(const Study& study, std::size_t field) {
    if (study.points.empty()) return {};
    const std::vector<std::string> names = short_field_names(study.fields);
    std::vector<std::string> designs;
    for (const auto& tally : study.points.front().summary.designs) designs.push_back(tally.name);

    // The other fields' choices of each point, numbered in the order the grid meets them.
    std::map<std::vector<std::size_t>, std::size_t> combination_index;
    std::vector<std::string> combinations;
    for (const auto& point : study.points) {
        std::vector<std::size_t> others = point.choice;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(field));
        if (combination_index.contains(others)) continue;
        combination_index.emplace(others, combinations.size());
        std::vector<std::string> parts;
        for (std::size_t f = 0; f < study.fields.size(); ++f)
            if (f != field) parts.push_back(names[f] + "=" + study.fields[f].written[point.choice[f]]);
        combinations.push_back(fmt::format("{}", fmt::join(parts, ", ")));
    }

    const std::size_t values = study.fields[field].values.size();
    std::vector<StudySeries> series;
    for (const auto& design : designs)
        for (const auto& others : combinations)
            series.push_back(StudySeries{design, others, std::vector<const DesignTally*>(values, nullptr)});
    for (const auto& point : study.points) {
        std::vector<std::size_t> others = point.choice;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(field));
        const std::size_t combination = combination_index.at(others);
        for (const auto& tally : point.summary.designs) {
            const auto design = std::find(designs.begin(), designs.end(), tally.name);
            if (design == designs.end() || tally.runs == 0) continue;
            const auto index = static_cast<std::size_t>(design - designs.begin()) * combinations.size() + combination;
            series[index].tallies[point.choice[field]] = &tally;
        }
    }
    return series;
}

}  // namespace locksim
