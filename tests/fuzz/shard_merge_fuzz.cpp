// libFuzzer target: the shard files `locksim merge` reads. An input is one or more files
// apart by a form feed (\f, which JSON text holds nowhere raw: not as white space, not in a
// string), each named shard-N.json; they go through add_shard_file as merge reads them, then
// missing_shards, require_every_shard and merge_shards, whole and partial, as `merge`,
// `merge --missing` and `merge --partial` call them. Whatever the bytes, these return or
// throw SweepError; any other exception, a crash, a leak or undefined behaviour is a
// finding. Beyond that, each promise below has an id (in brackets in the finding) for
// LOCKSIM_FUZZ_KNOWN, see fuzz_support.hpp:
//
//   merge-error    an error is one line, without control characters, that starts with one
//                  of the files or with "merge:";
//   merge-totals   a merge's every total is the sum of its shards', never wrapped past 2^64 - 1;
//   merge-reread   a whole merge, written as `merge --format json` writes it, reads back as a
//                  summary with the same totals (its JSON byte for byte).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "checks/sweep_merge.hpp"
#include "checks/sweep_summary.hpp"
#include "fuzz_support.hpp"
#include "scenarios/schema/shard_reader.hpp"

namespace {

using locksim_fuzz::promise_broken;

std::string printable(std::string_view text) {
    std::string out;
    for (const char c : text.substr(0, 300)) {
        const auto u = static_cast<unsigned char>(c);
        out += u < 0x20 || u == 0x7f ? "\\x" + std::to_string(u) : std::string(1, c);
    }
    return out;
}

void check_error(const locksim::SweepError& error, std::size_t files) {
    const std::string_view message = error.what();
    bool named = message.starts_with("merge:");
    for (std::size_t i = 0; i < files && !named; ++i) named = message.starts_with("shard-" + std::to_string(i));
    if (!named) promise_broken("merge-error", "merge", "an error that names no file: " + printable(message));
    if (locksim_fuzz::control_character(message) != std::string_view::npos)
        promise_broken("merge-error", "merge", "an error with a control character: " + printable(message));
}

// Every total of `merged` is the sum of those of the complete files, in 128 bits.
void check_totals(const locksim::ShardFiles& files, const locksim::SweepSummary& merged) {
    for (std::size_t d = 0; d < merged.designs.size(); ++d) {
        const auto got = merged.designs[d].counted();
        for (std::size_t t = 0; t < locksim::counted_totals; ++t) {
            unsigned __int128 sum = 0;
            for (const auto& shard : files.complete) sum += shard.designs[d].counted()[t];
            if (sum != got[t])
                promise_broken("merge-totals", "merge_shards",
                               "design " + merged.designs[d].name + ": a total is not the sum of the shards'");
        }
    }
}

void check_reread(const locksim::SweepSummary& merged) {
    const std::string text = locksim::sweep_json(merged).dump(2);
    locksim::ShardFiles again;
    try {
        locksim::add_shard_file(again, "shard-0.json", text);
    } catch (const locksim::SweepError& error) {
        promise_broken("merge-reread", "add_shard_file", std::string("a merge's JSON is refused: ") + error.what());
        return;
    }
    if (again.complete.size() != 1 || locksim::sweep_json(again.complete.front()).dump(2) != text)
        promise_broken("merge-reread", "add_shard_file", "a merge's JSON reads back as other totals");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> texts;
    for (std::size_t from = 0;;) {
        const std::size_t feed = input.find('\f', from);
        texts.push_back(input.substr(from, feed == std::string_view::npos ? std::string_view::npos : feed - from));
        if (feed == std::string_view::npos || texts.size() == 16) break;
        from = feed + 1;
    }
    try {
        locksim::ShardFiles files;
        for (std::size_t i = 0; i < texts.size(); ++i)
            locksim::add_shard_file(files, "shard-" + std::to_string(i) + ".json", texts[i]);
        (void)locksim::missing_shards(files);
        const bool explored = files.explorations.front().has_value();
        if (explored) {
            locksim::require_every_shard(files);
            return 0;
        }
        try {
            check_totals(files, locksim::merge_shards(files, locksim::MergeMode::partial));
        } catch (const locksim::SweepError& error) {
            check_error(error, texts.size());
        }
        const locksim::SweepSummary merged = locksim::merge_shards(files, locksim::MergeMode::whole);
        check_totals(files, merged);
        check_reread(merged);
    } catch (const locksim::SweepError& error) {
        check_error(error, texts.size());
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("merge", error);
    } catch (...) {
        locksim_fuzz::unexpected_non_std_exception("merge");
    }
    return 0;
}
