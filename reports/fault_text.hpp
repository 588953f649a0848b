#pragma once
// Sentences about faults that changed nothing (checks/fault_effects.hpp), one wording for
// the terminal, the JSON, the HTML report and `locksim check`.
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"

namespace locksim {

// "fault 1 (/faults/0) struck pod-1 at 1.000s, which was not holding the lock; the run
// without it tells the same story. To strike whoever holds the lock then, target {"role":
// "holder"}." One per inert fault of the design, in file order.
// `only_missed`: leave out faults the design absorbed (they reached the lock), as `check`
// does, which warns only about faults that proved nothing. A page for readers rather than
// the file's author names each fault by its number alone, without its JSON pointer.
enum class FaultNaming { with_pointer, number_only };
std::vector<std::string> describe_inert_faults(const DesignOutcome& design, bool only_missed = false,
                                               FaultNaming naming = FaultNaming::with_pointer);

// "every fault was inert: none reached the lock (…), and without any, design \"unfenced\"
// counts the same …, so its result says nothing about them"; empty when a fault mattered
// or reached the lock (FaultJudgement::all_missed).
std::string describe_all_inert(const DesignOutcome& design);

// Each fault of the design that missed the lock and what it struck instead, whatever its
// kind: "fault 1 (/faults/0) struck the network at 6.000s: no message crossed its links
// while it held; 3 strikes of faults drawn from the seed, none of which reached the lock".
// What `check --refuse-inert` says when it fails a design whose faults all missed.
std::string describe_missed_faults(const DesignOutcome& design);

}  // namespace locksim
