#pragma once
// A partition as its trace events name it: who is cut off from whom. The model writes both
// sides in one text ("server-1 / lock-store, billing-db"); this is the one place that reads it.
#include <optional>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace locksim {

struct PartitionCut {
    std::vector<std::string> cut_off;  // the first side: the nodes the partition isolates
    std::vector<std::string> from;     // the second side
    bool one_way = false;              // only messages from the first side to the second are cut

    // Whether a message from `sender` to `receiver` is cut.
    bool cuts(const std::string& sender, const std::string& receiver) const;
    // "server-1 cut off from lock-store", or "messages from server-1 to lock-store cut".
    std::string words() const;
    // As the heal undoes it: "server-1 reaches lock-store again".
    std::string healed_words() const;
};

// The cut a network.partitioned or network.healed event records; nullopt for any other
// event, or one without both sides.
std::optional<PartitionCut> partition_cut(const TraceEvent& event);

}  // namespace locksim
