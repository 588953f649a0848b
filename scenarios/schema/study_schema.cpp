#include "scenarios/schema/study_schema.hpp"

#include <fmt/format.h>

#include "scenarios/schema/varied_field.hpp"

namespace locksim {

StudySpec read_study_block(const JsonReader& block, const Json& document) {
    block.allow_only({"seeds", "start", "vary"});
    StudySpec spec;
    spec.seeds = SeedBlock{1, block["seeds"].unsigned_integer()};
    if (spec.seeds.count == 0 || spec.seeds.count > max_study_block_seeds)
        block["seeds"].fail(
            fmt::format("expected from 1 to {} seeds at each point of the grid", max_study_block_seeds));
    if (block.has("start")) spec.seeds.first = block["start"].unsigned_integer();
    if (spec.seeds.first > UINT64_MAX - (spec.seeds.count - 1))
        block["start"].fail("the seeds would pass 2^64-1; start lower");
    const auto fields = block["vary"].members();
    if (fields.empty()) block["vary"].fail(R"(expected a field to vary, such as "lock.ttl": ["5s", "30s"])");
    std::uint64_t points = 1;
    for (const auto& [path, values] : fields) {
        VariedField field;
        field.path = path;
        const auto pointer = varied_pointer(path);
        if (!pointer)
            values.fail(fmt::format(
                "expected the path of a field, such as lock.ttl or fault_generators/0/mean_interval, got \"{}\"",
                message_safe(path)));
        field.pointer = *pointer;
        if (const std::string why = unsettable_reason(document, field.pointer); !why.empty()) values.fail(why);
        for (const auto& earlier : spec.fields)
            if (const std::string why = overlap_reason(field, earlier, fmt::format("\"{}\"", earlier.path));
                !why.empty())
                values.fail(why);
        const auto items = values.elements();
        if (items.empty()) values.fail(R"(expected the values to try, at least one, such as ["5s", "30s"])");
        for (const auto& item : items) {
            field.values.push_back(item.json());
            field.written.push_back(varied_text(item.json()));
        }
        points *= items.size();
        if (points > max_study_points)
            values.fail(fmt::format("the grid has more than {} points; vary fewer values", max_study_points));
        spec.fields.push_back(std::move(field));
    }
    // `check` and `report` run the block whenever they meet the file: its runs in all are
    // bounded, not only each point's.
    if (points * spec.seeds.count > max_study_block_runs)
        block["seeds"].fail(fmt::format(
            "the study would make {} runs ({} points of the grid × {} seeds), more than the {} a study block may; "
            "give fewer seeds or vary fewer values (locksim sweep --vary runs bigger studies from the command line)",
            points * spec.seeds.count, points, spec.seeds.count, max_study_block_runs));
    return spec;
}

}  // namespace locksim
