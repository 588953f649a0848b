#include "runners/study_runner.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "checks/metrics.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/input_file.hpp"
#include "scenarios/schema/varied_field.hpp"

namespace locksim {
namespace {

// The file was loaded as a scenario first, which holds it to a mebibyte.
constexpr InputLimit study_file_limit{1 << 20, "1 MiB", "a scenario is a few kilobytes"};

// The values after "=", split at commas outside brackets, braces and quotes.
std::vector<std::string> split_values(const std::string& text) {
    std::vector<std::string> values;
    std::string current;
    int depth = 0;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' && (i == 0 || text[i - 1] != '\\')) quoted = !quoted;
        if (!quoted && (c == '[' || c == '{')) ++depth;
        if (!quoted && (c == ']' || c == '}')) --depth;
        if (c == ',' && depth == 0 && !quoted) {
            values.push_back(std::move(current));
            current.clear();
            continue;
        }
        current += c;
    }
    values.push_back(std::move(current));
    return values;
}

// The grid's points in order, the first field varying slowest.
std::vector<std::vector<std::size_t>> grid(const std::vector<VariedField>& fields) {
    std::vector<std::vector<std::size_t>> points{{}};
    for (const auto& field : fields) {
        std::vector<std::vector<std::size_t>> next;
        for (const auto& point : points)
            for (std::size_t i = 0; i < field.values.size(); ++i) {
                next.push_back(point);
                next.back().push_back(i);
            }
        points = std::move(next);
    }
    return points;
}

// Whether a design's merge patch sets the field at `pointer`: it holds the path, or
// replaces a whole array or value on the way (objects merge, anything else replaces).
bool patch_sets(const Json& patch, const std::string& pointer) {
    const Json* at = &patch;
    for (std::size_t from = 1; from <= pointer.size();) {
        const std::size_t to = std::min(pointer.find('/', from), pointer.size());
        if (!at->is_object()) return true;
        const auto found = at->find(Json::json_pointer("/" + pointer.substr(from, to - from)).back());
        if (found == at->end()) return false;
        at = &*found;
        from = to + 1;
    }
    return true;
}

// The varied fields each design of `file` sets itself.
std::map<std::string, std::vector<std::size_t>> fields_kept(const std::string& file,
                                                            const std::vector<VariedField>& fields) {
    std::map<std::string, std::vector<std::size_t>> kept;
    const Json document = Json::parse(read_input_file(file, study_file_limit), nullptr, false);
    if (!document.is_object() || !document.contains("designs") || !document["designs"].is_object()) return kept;
    for (const auto& [design, patch] : document["designs"].items())
        for (std::size_t f = 0; f < fields.size(); ++f)
            if (patch_sets(patch, fields[f].pointer)) kept[design].push_back(f);
    return kept;
}

}  // namespace

std::optional<VariedField> parse_varied_field(const std::string& text) {
    const auto equals = text.find('=');
    const auto fail = [&text](const std::string& why) {
        fmt::print(stderr, "--vary {}: {}\n", text, why);
        return std::nullopt;
    };
    if (equals == std::string::npos || equals == 0)
        return fail("expected FIELD=VALUE,VALUE…, such as lock.ttl=5s,10s,30s");
    VariedField field;
    field.path = text.substr(0, equals);
    const auto pointer = varied_pointer(field.path);
    if (!pointer) return fail("expected a field such as lock.ttl or fault_generators/0/mean_interval");
    field.pointer = *pointer;
    for (auto& value : split_values(text.substr(equals + 1))) {
        if (value.empty()) return fail("expected values separated by commas, none of them empty");
        field.values.push_back(varied_value(value));
        field.written.push_back(std::move(value));
    }
    return field;
}

bool varies_apart(const VariedField& field, const std::vector<VariedField>& earlier) {
    const auto given = [](const VariedField& f) { return fmt::format("{}={}", f.path, fmt::join(f.written, ",")); };
    for (const auto& other : earlier) {
        const std::string why = overlap_reason(field, other, "--vary " + given(other));
        if (why.empty()) continue;
        fmt::print(stderr, "--vary {}: {}\n", given(field), why);
        return false;
    }
    return true;
}

Study run_study(const std::string& file, const std::vector<VariedField>& fields, SeedBlock seeds, unsigned threads,
                const std::function<void(std::uint64_t done)>& progress, std::uint64_t event_limit,
                const std::optional<std::string>& only_design) {
    Study study{"", file, seeds, fields, {}, "", fields_kept(file, fields)};
    std::uint64_t done_before = 0;
    for (const auto& choice : grid(fields)) {
        std::vector<ScenarioVariation> variations;
        for (std::size_t f = 0; f < fields.size(); ++f)
            variations.push_back(ScenarioVariation{fields[f].pointer, fields[f].values[choice[f]]});
        const Scenario scenario = load_scenario_file(file, metric_names(), variations);
        study.scenario = scenario.name;
        SweepSummary summary = run_sweep(
            scenario, seeds, threads, [&](std::uint64_t done) { progress(done_before + done); },
            SweepSettings{only_design, event_limit});
        done_before += seeds.count;
        study.points.push_back(StudyPoint{choice, std::move(summary)});
    }
    return study;
}

}  // namespace locksim
