#include "scenarios/schema/shard_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <regex>
#include <vector>

#include "checks/explore_shard.hpp"
#include "checks/sweep_summary.hpp"
#include "scenarios/schema/json_text.hpp"
#include "sim/whole_number.hpp"

namespace locksim {
namespace {

// A shard nests six levels at most (an explore shard's ends); its size is its reader's to
// bound (the file's reader), and its arrays may be long (an explore shard's units).
constexpr JsonTextLimits shard_text{
    .kind = "shard", .numbers = "counts and seeds", .depth = 16, .object_members = 1'000, .array_items = 0};

// What a file cut short still says about itself: sweep_json writes the shard early.
IncompleteShard incomplete_shard(const std::string& file, std::string_view text) {
    IncompleteShard shard{file, text.size(), std::nullopt, std::nullopt};
    static const std::regex index_of(
        R"re("shard"\s*:\s*\{\s*"index"\s*:\s*([0-9]{1,9})\s*,\s*"of"\s*:\s*([0-9]{1,9}))re");
    std::match_results<std::string_view::const_iterator> match;
    if (std::regex_search(text.begin(), text.end(), match, index_of)) {
        shard.index = static_cast<std::uint32_t>(std::stoul(match[1]));
        shard.count = static_cast<std::uint32_t>(std::stoul(match[2]));
    }
    return shard;
}

std::uint64_t whole(const JsonReader& field, std::uint64_t most = UINT64_MAX) {
    const std::uint64_t value = field.unsigned_integer();
    if (value > most) field.fail(fmt::format("expected a whole number from 0 to {}, got {}", most, value));
    return value;
}

SeedBlock read_block(const JsonReader& field) {
    field.allow_only({"first", "count"});
    return SeedBlock{whole(field["first"]), whole(field["count"])};
}

std::optional<std::string> read_design_choice(const JsonReader& field) {
    if (field.json().is_null()) return std::nullopt;
    return field.string();
}

std::string read_sha256(const JsonReader& field) {
    std::string text = field.string();
    const bool hex = text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    if (!hex) field.fail("expected a SHA-256: 64 hexadecimal digits in lower case");
    return text;
}

SweepProvenance read_provenance(const JsonReader& field) {
    field.allow_only({"scenario_sha256", "data_files", "locksim_version", "commit", "command"});
    SweepProvenance provenance{read_sha256(field["scenario_sha256"]),
                               field["locksim_version"].string(),
                               field["commit"].string(),
                               field["command"].string(),
                               {}};
    for (const auto& [name, sha256] : field["data_files"].members()) provenance.data_files[name] = read_sha256(sha256);
    return provenance;
}

Vocabulary read_words(const JsonReader& field) {
    field.allow_only({"item", "effect", "provider", "record", "items", "effected", "table"});
    Vocabulary words{field["item"].string(), field["effect"].string(), field["provider"].string(),
                     field["record"].string()};
    // The forms the scenario wrote; the others follow the rules (checks/vocabulary_json.hpp).
    if (field.has("items")) words.items_written = field["items"].string();
    if (field.has("effected")) words.effected_written = field["effected"].string();
    if (field.has("table")) words.table_written = field["table"].string();
    return words;
}

// "3:1,0,1,0,2,0 17:0,0,0,0,1,0" (seed_counts_text): rows rising, each of a run that
// counted something, within 64 bits from the first seed covered.
std::vector<SeedCounts> read_seed_counts(const JsonReader& field, std::uint64_t first) {
    const std::string text = field.string();
    std::vector<SeedCounts> rows;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find(' ', at), text.size());
        const std::string_view row = std::string_view(text).substr(at, end - at);
        const auto fail = [&](std::string_view why) {
            field.fail(
                fmt::format("row {} (\"{}\"): {}; expected rows \"SEED-OFFSET:{}\" of whole numbers, rising, "
                            "apart by one space",
                            rows.size() + 1, message_safe(row, 60), why, fmt::join(counted_total_names(), ",")));
        };
        const std::size_t colon = row.find(':');
        const auto offset = colon == std::string_view::npos ? std::nullopt : parse_whole_number(row.substr(0, colon));
        if (!offset) fail("no offset from the first seed before a colon");
        if (*offset > UINT64_MAX - first) fail("the seed passes 2^64 - 1");
        SeedCounts run{first + *offset, {}};
        std::string_view counts = row.substr(colon + 1);
        for (std::size_t i = 0; i < counted_totals; ++i) {
            const std::size_t comma = std::min(counts.find(','), counts.size());
            const auto count = parse_whole_number(counts.substr(0, comma));
            if (!count) fail(fmt::format("count {} is not a whole number of 64 bits", i + 1));
            run.counts[i] = *count;
            if (i + 1 < counted_totals && comma == counts.size())
                fail(fmt::format("{} counts, not {}", i + 1, counted_totals));
            if (i + 1 == counted_totals && comma < counts.size())
                fail(fmt::format("more than {} counts", counted_totals));
            counts.remove_prefix(std::min(comma + 1, counts.size()));
        }
        if (!run.counted_anything()) fail("a run that counted nothing has no row");
        if (!rows.empty() && rows.back().seed >= run.seed) fail("its seed is not above the row before's");
        if (end + 1 == text.size()) fail("a space after the last row");
        rows.push_back(run);
        at = end + 1;
    }
    return rows;
}

SweepSummary read_sweep_shard(const JsonReader& root, const std::string& file) {
    if (root.has("partial"))
        throw SweepError(fmt::format("{}: the totals of a partial merge; merge the shard files themselves", file));
    root.allow_only({"scenario", "file", "seeds", "shard", "covered", "settings", "given_fault", "provenance",
                     "vocabulary", "designs"});
    SweepSummary summary;
    summary.scenario = root["scenario"].string();
    summary.file = root["file"].string();
    summary.seeds = read_block(root["seeds"]);
    const JsonReader shard = root["shard"];
    shard.allow_only({"index", "of"});
    summary.shard = static_cast<std::uint32_t>(whole(shard["index"], max_shards));
    summary.shards = static_cast<std::uint32_t>(whole(shard["of"], max_shards));
    summary.covered = read_block(root["covered"]);
    const JsonReader settings = root["settings"];
    settings.allow_only({"design", "max_events"});
    summary.settings.design = read_design_choice(settings["design"]);
    summary.settings.event_limit = whole(settings["max_events"]);
    if (summary.settings.event_limit == 0) settings["max_events"].fail("expected at least 1 event");
    if (root.has("given_fault")) {
        const JsonReader given = root["given_fault"];
        given.allow_only({"generator", "probability", "fault"});
        summary.given = GivenFault{whole(given["generator"]), given["probability"].number(), given["fault"].string()};
        if (!(summary.given->probability > 0 && summary.given->probability <= 1))
            given["probability"].fail("expected a probability above 0 and at most 1");
        summary.settings.given_fault = summary.given->generator;
    }
    summary.provenance = read_provenance(root["provenance"]);
    summary.words = read_words(root["vocabulary"]);

    const std::vector<TotalSpec> totals = sweep_totals();
    std::vector<std::string_view> fields{"name"};
    for (const auto& total : totals) fields.push_back(total.name);
    fields.insert(fields.end(), {"violation_rate", "wilson_95", "rate_with_given_fault", "rate_with_given_fault_95",
                                 "failing_seeds", "unfinished_seeds", "per_seed"});
    struct Rates {
        JsonReader rate, low, high;
    };
    std::vector<std::optional<Rates>> rates;
    for (const auto& d : root["designs"].elements()) {
        d.allow_only(fields);
        DesignTally tally{d["name"].string()};
        for (const auto& total : totals) {
            // A total that sweeps added later is missing from an older locksim's shard.
            if (!d.has(total.name))
                d.fail(fmt::format("missing required field \"{}\": written by an older locksim; rerun the shard",
                                   total.name));
            tally.total_named(total.name) = whole(d[total.name]);
        }
        for (const auto& seed : d["failing_seeds"].elements()) tally.failing_seeds.push_back(whole(seed));
        for (const auto& seed : d["unfinished_seeds"].elements()) tally.unfinished_seeds.push_back(whole(seed));
        // A shard of several keeps the counts of each of its runs; a whole sweep's summary
        // (a shard of one) may.
        if (summary.shards > 1 || d.has("per_seed")) {
            tally.keeps_seeds = true;
            tally.seeds_counted = read_seed_counts(d["per_seed"], summary.covered.first);
        }
        rates.push_back(std::nullopt);
        if (tally.runs > 0) {
            const JsonReader interval = d["wilson_95"];
            const auto bounds = interval.elements();
            if (bounds.size() != 2) interval.fail("expected [low, high]");
            rates.back() = Rates{d["violation_rate"], bounds[0], bounds[1]};
        } else {
            for (const char* rate : {"violation_rate", "wilson_95"})
                if (d.has(rate)) d[rate].fail("expected no rate for a design of no runs");
        }
        summary.designs.push_back(std::move(tally));
    }
    check_arithmetic(summary, file);
    // The rates follow from the counts: one that does not was edited.
    for (std::size_t d = 0; d < rates.size(); ++d) {
        const DesignTally& tally = summary.designs[d];
        if (!rates[d]) continue;
        const WilsonInterval interval = wilson_interval(tally.runs_with_violation, tally.runs);
        const double rate = static_cast<double>(tally.runs_with_violation) / static_cast<double>(tally.runs);
        for (const auto& [field, value] : {std::pair{rates[d]->rate, rate}, std::pair{rates[d]->low, interval.low},
                                           std::pair{rates[d]->high, interval.high}})
            if (field.number() != value)
                field.fail(fmt::format("expected {}, what its {} runs with a violation of {} give", value,
                                       tally.runs_with_violation, tally.runs));
    }
    return summary;
}

// [from, to, violations] in nanoseconds: a span of ends (instants) or of sizes.
template <class Segment, class Value>
std::vector<Segment> read_segments(const JsonReader& list, Value (*value_of)(std::int64_t)) {
    std::vector<Segment> segments;
    for (const auto& item : list.elements()) {
        const auto parts = item.elements();
        if (parts.size() != 3) item.fail("expected [from, to, violations]");
        const std::int64_t from = parts[0].integer(), to = parts[1].integer();
        if (from > to) item.fail(fmt::format("expected from at most to, got {} after {}", from, to));
        segments.push_back(
            Segment{value_of(from), value_of(to), static_cast<std::uint32_t>(whole(parts[2], UINT32_MAX))});
    }
    if (segments.empty()) list.fail("expected at least one segment");
    return segments;
}

ExploreShard read_explore_shard(const JsonReader& root, const std::string& file) {
    root.allow_only({"scenario", "file", "shard", "provenance", "explore", "designs", "units"});
    ExploreShard shard;
    shard.scenario = root["scenario"].string();
    shard.file = root["file"].string();
    const JsonReader index = root["shard"];
    index.allow_only({"index", "of"});
    shard.shard = static_cast<std::uint32_t>(whole(index["index"], max_shards));
    shard.shards = static_cast<std::uint32_t>(whole(index["of"], max_shards));
    if (shard.shards == 0 || shard.shard == 0 || shard.shard > shard.shards)
        index.fail(fmt::format("shard {}/{} is not a shard index from 1 to its count", shard.shard, shard.shards));
    shard.provenance = read_provenance(root["provenance"]);
    const JsonReader settings = root["explore"];
    settings.allow_only({"design", "seed", "max_events", "prune", "units"});
    shard.settings.design = read_design_choice(settings["design"]);
    shard.settings.seed = whole(settings["seed"]);
    shard.settings.event_limit = whole(settings["max_events"]);
    if (shard.settings.event_limit == 0) settings["max_events"].fail("expected at least 1 event");
    shard.settings.prune = settings["prune"].boolean();
    shard.total_units = whole(settings["units"]);
    for (const auto& name : root["designs"].elements()) shard.designs.push_back(name.string());
    const JsonReader units = root["units"];
    units.allow_only({"first", "outcomes"});
    shard.first_unit = whole(units["first"]);
    const auto instant = [](std::int64_t ns) { return Instant{ns}; };
    const auto duration = [](std::int64_t ns) { return Duration{ns}; };
    for (const auto& outcome : units["outcomes"].elements()) {
        UnitOutcome unit;
        if (!outcome.json().is_object()) {
            unit.violations = static_cast<std::uint32_t>(whole(outcome, UINT32_MAX));
        } else if (outcome.has("sizes")) {
            outcome.allow_only({"runs", "sizes"});
            unit.runs = whole(outcome["runs"]);
            unit.sizes = read_segments<SizeSegment, Duration>(outcome["sizes"], +duration);
        } else {
            outcome.allow_only({"runs", "ends"});
            unit.runs = whole(outcome["runs"]);
            unit.segments = read_segments<EndSegment, Instant>(outcome["ends"], +instant);
        }
        shard.outcomes.push_back(std::move(unit));
    }
    check_explore_block(shard, file);
    return shard;
}

}  // namespace

void add_shard_file(ShardFiles& files, const std::string& file, std::string_view text) {
    try {
        ParsedJson parsed;
        try {
            parsed = parse_json_text(text, file, shard_text);
        } catch (const JsonSyntaxError& error) {
            // Cut short (nothing wrong until the text ran out) is a killed task.
            if (!error.cut_short) throw;
            files.incomplete.push_back(incomplete_shard(file, text));
            return;
        }
        const JsonSource source{file, &parsed.positions, nullptr, "", ""};
        const JsonReader root(source, parsed.document, "");
        if (!root.has("shard") && !root.has("provenance"))
            root.fail(
                "not a locksim shard (written by sweep --shard i/n or explore --shard i/n): it has neither \"shard\" "
                "nor \"provenance\"");
        if (root.has("explore")) {
            ExploreShard shard = read_explore_shard(root, file);
            files.complete.push_back(shard_header(shard));
            files.explorations.push_back(std::move(shard));
        } else {
            files.complete.push_back(read_sweep_shard(root, file));
            files.explorations.push_back(std::nullopt);
        }
        files.complete_files.push_back(file);
    } catch (const ScenarioError& error) {  // the readers' one line, naming the file
        throw SweepError(error.what());
    }
}

}  // namespace locksim
