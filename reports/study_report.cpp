#include "reports/study_report.hpp"

#include <fmt/format.h>

#include "reports/sweep_text.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::vector<std::string> own_value_notes(const Study& study) {
    std::vector<std::string> notes;
    for (const auto& [design, kept] : study.kept_by_design) {
        std::vector<std::string> paths;
        for (std::size_t f : kept) paths.push_back(study.fields[f].path);
        notes.push_back(
            fmt::format("(its own): design {} sets {} itself, so the values varied never reached it; "
                        "its rows differ only by the other fields, or not at all",
                        design, fmt::join(paths, " and ")));
    }
    return notes;
}

std::string study_value_cell(const Study& study, const StudyPoint& point, const std::string& design, std::size_t f) {
    return study.keeps(design, f) ? std::string("(its own)") : study.fields[f].written[point.choice[f]];
}

std::string render_study_text(const Study& study, bool colour) {
    const TextStyle style(colour);
    std::string out =
        style.heading(study.scenario) + fmt::format(" · a study of {} point{} · seeds {}…{} at every point\n\n",
                                                    study.points.size(), study.points.size() == 1 ? "" : "s",
                                                    study.seeds.first, study.seeds.first + study.seeds.count - 1);
    std::vector<std::vector<std::string>> rows{{}};
    for (const auto& field : study.fields) rows.front().push_back(field.path);
    for (const char* heading :
         {"design", "runs", "with a violation", "a fault reached the lock", "violation rate (95% CI)"})
        rows.front().emplace_back(heading);
    for (const auto& point : study.points)
        for (const auto& tally : point.summary.designs) {
            std::vector<std::string> row;
            for (std::size_t f = 0; f < study.fields.size(); ++f)
                row.push_back(study_value_cell(study, point, tally.name, f));
            row.push_back(tally.name);
            row.push_back(grouped(tally.runs));
            row.push_back(grouped(tally.runs_with_violation));
            row.push_back(grouped(tally.runs_fault_reached));
            row.push_back(rate_with_interval(tally));
            rows.push_back(std::move(row));
        }
    out += text_table(rows, style);
    // A row per value that never reached the design would read as a finding that the
    // value does not matter.
    std::vector<std::string> notes = own_value_notes(study);
    // A point's rate over runs no fault reached says nothing about the faults.
    for (const auto& point : study.points)
        for (const auto& tally : point.summary.designs)
            if (tally.runs > 0 && tally.runs_fault_reached == 0) {
                std::vector<std::string> values;
                for (std::size_t f = 0; f < study.fields.size(); ++f)
                    values.push_back(study.fields[f].path + "=" + study_value_cell(study, point, tally.name, f));
                notes.push_back(
                    fmt::format("VACUOUS {} at {}: no fault reached the lock in its {} runs, so its rate "
                                "says nothing about the faults",
                                tally.name, fmt::join(values, ", "), tally.runs));
            }
    for (const auto& note : notes) out += "\n" + style.fault(note);
    if (!notes.empty()) out += "\n";
    out += "\n" + style.quiet(sampling_disclaimer()) + "\n";
    return out;
}

nlohmann::ordered_json study_json(const Study& study) {
    using Json = nlohmann::ordered_json;
    Json fields = Json::array();
    for (const auto& field : study.fields)
        fields.push_back({{"field", field.path}, {"pointer", field.pointer}, {"values", field.values}});
    Json points = Json::array();
    for (const auto& point : study.points) {
        Json values = Json::object();
        for (std::size_t f = 0; f < study.fields.size(); ++f)
            values[study.fields[f].path] = study.fields[f].values[point.choice[f]];
        Json designs = Json::array();
        for (const auto& tally : point.summary.designs) {
            const auto ci = wilson_interval(tally.runs_with_violation, std::max<std::uint64_t>(1, tally.runs));
            Json design{{"name", tally.name}};
            add_totals_json(tally, design);
            design["rate"] = static_cast<double>(tally.runs_with_violation) /
                             static_cast<double>(std::max<std::uint64_t>(1, tally.runs));
            design["rate_ci95"] = {ci.low, ci.high};
            design["failing_seeds"] = tally.failing_seeds;
            // The varied fields this design sets itself: their values here never reached it.
            Json own = Json::array();
            for (std::size_t f = 0; f < study.fields.size(); ++f)
                if (study.keeps(tally.name, f)) own.push_back(study.fields[f].path);
            if (!own.empty()) design["sets_itself"] = std::move(own);
            designs.push_back(std::move(design));
        }
        points.push_back({{"values", values}, {"designs", designs}});
    }
    return Json{{"scenario", study.scenario},
                {"file", study.file},
                {"seeds", {{"first", study.seeds.first}, {"count", study.seeds.count}}},
                {"varied", fields},
                {"points", points},
                {"interval_covers", "the sampling error of these seeds only, not the model's assumptions"}};
}

}  // namespace locksim
