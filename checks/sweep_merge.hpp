#pragma once
// `locksim merge`: shard files of one sweep into the totals of the whole. A merge is only
// as good as its proof that the shards are one sweep: the same scenario bytes, the same
// locksim build and settings, every field that must agree the same, every shard's
// arithmetic sound, and together exactly the sweep's seeds. Totals are added up checked: a
// sum past 2^64 - 1 is refused, naming the shard that brought the most. What the files
// cannot prove, that their runs happened as written, `merge --verify` checks by running
// some of them again (runners/shard_verify.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/explore_shard.hpp"
#include "checks/sweep_summary.hpp"

namespace locksim {

// A shard file that ends before its JSON does: its task was killed while writing (or
// before), so the shard must be run again. The index is read from the text when the file
// got that far.
struct IncompleteShard {
    std::string file;
    std::size_t bytes = 0;
    std::optional<std::uint32_t> index;
    std::optional<std::uint32_t> count;
};

struct ShardFiles {
    std::vector<SweepSummary> complete;                     // an explore shard's header (shard_header)
    std::vector<std::string> complete_files;                // parallel to `complete`
    std::vector<std::optional<ExploreShard>> explorations;  // parallel to `complete`: an explore shard's own part
    std::vector<IncompleteShard> incomplete;
};

// Shard files are read into ShardFiles by add_shard_file (scenarios/schema/shard_reader.hpp).

// A field of a summary's header, as two summaries have it.
struct SweepField {
    std::string name;  // as the JSON names it: "given_fault", "provenance.commit"
    std::string mine, theirs;
    std::string why = "";  // what a difference means, after the two: " (another build of locksim)"
};

// The first field that a run of the sweep computes from the scenario besides the counts
// (the scenario's name and vocabulary, the designs run, and the given fault: its
// generator, the probability that weighs the rates, its text) in which `mine` differs
// from `theirs`. Shards of one sweep agree on them; `merge --verify` recomputes them.
std::optional<SweepField> recomputed_difference(const SweepSummary& mine, const SweepSummary& theirs);

// The shard indices (from 1) that no complete file holds, after checking the complete
// files are shards of one sweep. Throws SweepError when there is no complete file to
// learn the sweep from.
std::vector<std::uint32_t> missing_shards(const ShardFiles& files);

// Throws SweepError unless every shard is present and complete, naming what is missing
// or cut short and the command that reruns it.
void require_every_shard(const ShardFiles& files);

enum class MergeMode {
    whole,    // every shard must be present and complete
    partial,  // totals over the complete shards so far, marked partial
};
SweepSummary merge_shards(const ShardFiles& files, MergeMode mode);

}  // namespace locksim
