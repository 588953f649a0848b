#pragma once
// Which planned placements of an exploration are one and the same run, so that explore
// runs each such run once.
//
// Why two strike points can be the same (Engine::on_event, Engine::record):
//   1. A fault placed at a strike point is a trigger. When its event is recorded, the
//      trigger schedules the fault as a world event for that instant; nothing else
//      changes, so until that world event runs, the run is the run without faults.
//   2. That world event runs after the queue event being handled (the node's code up to
//      its next wait) is over, behind every event already queued for the instant.
//   3. Two events of one node with the same QueuePlace::gap were recorded in the same
//      handling with nothing queued for that instant between them. A fault after either
//      is queued between the same two events, and the same fault then finds the same
//      world: the runs that follow are the same event for event.
// With two faults, the one whose trigger comes first in the run without faults decides
// where the run leaves it. A second fault struck in the same handling has not yet been
// changed by the first and is placed by its gap too; a second struck later is kept at
// its exact strike point, since the first fault may have moved everything after it.
#include <cstddef>
#include <vector>

#include "checks/exploration.hpp"

namespace locksim {

// For each of the design's placements, the index of the first placement that is the same
// run: its own index for the placements to run.
std::vector<std::size_t> same_run_as(const DesignExploration& design);

}  // namespace locksim
