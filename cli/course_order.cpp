#include "cli/course_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace locksim {

namespace {

// The circle through `start`, following the first unplaced scenario each assumes: "a assumes
// b, which assumes a".
std::string circle_from(std::size_t start, const std::vector<const Scenario*>& scenarios,
                        const std::vector<std::vector<std::size_t>>& waits_for) {
    std::vector<std::size_t> path{start};
    std::vector<bool> seen(scenarios.size());
    std::size_t at = start;
    while (!seen[at]) {
        seen[at] = true;
        at = waits_for[at].front();
        path.push_back(at);
    }
    // `at` is on the circle: say it from there.
    std::size_t from = 0;
    while (path[from] != at) ++from;
    std::string text = fmt::format("{}: /assumes: {} assumes {}", scenarios[at]->file, scenarios[at]->name,
                                   scenarios[path[from + 1]]->name);
    for (std::size_t k = from + 2; k < path.size(); ++k) text += ", which assumes " + scenarios[path[k]]->name;
    return text + ": a course cannot put each after the other; remove one of these from \"assumes\"";
}

}  // namespace

std::vector<std::size_t> course_order(const std::vector<const Scenario*>& scenarios) {
    std::multimap<std::string, std::size_t> by_name;
    for (std::size_t k = 0; k < scenarios.size(); ++k) by_name.emplace(scenarios[k]->name, k);
    // Who each waits for (the scenarios it assumes), and who waits for each.
    std::vector<std::vector<std::size_t>> waits_for(scenarios.size()), awaited_by(scenarios.size());
    for (std::size_t k = 0; k < scenarios.size(); ++k)
        for (const auto& name : scenarios[k]->assumes) {
            const auto [first, last] = by_name.equal_range(name);
            for (auto it = first; it != last; ++it) {
                waits_for[k].push_back(it->second);
                awaited_by[it->second].push_back(k);
            }
        }
    std::vector<std::size_t> unplaced_assumed(scenarios.size());
    for (std::size_t k = 0; k < scenarios.size(); ++k) unplaced_assumed[k] = waits_for[k].size();
    std::vector<bool> placed(scenarios.size());
    const auto earlier = [&](std::size_t a, std::size_t b) {
        return std::make_tuple(first_chapter(scenarios[a]->section), std::cref(scenarios[a]->name), a) <
               std::make_tuple(first_chapter(scenarios[b]->section), std::cref(scenarios[b]->name), b);
    };
    std::vector<std::size_t> order;
    while (order.size() < scenarios.size()) {
        std::optional<std::size_t> next;
        for (std::size_t k = 0; k < scenarios.size(); ++k)
            if (!placed[k] && unplaced_assumed[k] == 0 && (!next || earlier(k, *next))) next = k;
        if (!next) {
            // Every one left waits for another left: they wait in a circle.
            std::vector<std::vector<std::size_t>> still(scenarios.size());
            for (std::size_t k = 0; k < scenarios.size(); ++k)
                for (const std::size_t assumed : waits_for[k])
                    if (!placed[assumed]) still[k].push_back(assumed);
            const auto left = std::find(placed.begin(), placed.end(), false) - placed.begin();
            throw CourseOrderError(circle_from(static_cast<std::size_t>(left), scenarios, still));
        }
        placed[*next] = true;
        order.push_back(*next);
        for (const std::size_t waiting : awaited_by[*next]) --unplaced_assumed[waiting];
    }
    return order;
}

}  // namespace locksim
