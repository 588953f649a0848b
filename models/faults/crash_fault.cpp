#include "models/faults/crash_fault.hpp"

#include <fmt/format.h>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// "kind": "process" (the default: the kernel keeps what was written) or "machine" (power lost).
CrashKind read_crash_kind(const FaultReader& reader) {
    if (!reader.has("kind")) return CrashKind::process;
    const std::string text = reader.text("kind");
    if (text == "process") return CrashKind::process;
    if (text == "machine") return CrashKind::machine;
    reader.fail("kind", fmt::format("unknown crash kind \"{}\"; expected \"process\" (the process dies, the kernel "
                                    "keeps what was written to it) or \"machine\" (power lost: unsynced writes are "
                                    "gone)",
                                    text));
}

}  // namespace

CrashFault CrashFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    CrashFault crash;
    crash.node = reader.target("crash");
    // Drawn, the shape says whether the node comes back; each draw says when.
    if (reader.has("restart_after")) crash.restart_after = reader.amount("restart_after");
    crash.kind = read_crash_kind(reader);
    return crash;
}

void CrashFault::write(FaultWriter& writer) const {
    writer.target("crash", node);
    writer.instant("at", at);
    if (restart_after) writer.duration("restart_after", *restart_after);
    if (kind == CrashKind::machine) writer.text("kind", "machine");
}

std::string CrashFault::words(std::string_view who) const {
    const std::string_view how = kind == CrashKind::machine ? "loses power" : "crashes";
    return restart_after ? fmt::format("{} {} and restarts {} later", who, how, format_duration(*restart_after))
                         : fmt::format("{} {} for good", who, how);
}

void CrashFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    if (restart_after) restart_after = amounts.draw("restart_after", random);
}

void CrashFault::strike(FaultWorld& world, NodeId trigger) const {
    const auto targets = world.struck(node, trigger);
    world.announce(targets);
    for (NodeId target : targets) {
        world.engine().crash(target, "crash", kind);
        if (restart_after)
            world.engine().schedule_at(world.engine().now() + *restart_after, no_node,
                                       [&world, target] { world.engine().restart(target); });
    }
}

CrashFault CrashFault::explored(std::string_view, std::string node, EventTrigger when, std::optional<Duration> size,
                                const ExploreDetails&) {
    return CrashFault{std::move(node), Instant{}, size, std::move(when)};
}

}  // namespace locksim
