#pragma once
// What a crash takes with it: only the process, while the kernel lives on with what was
// written to it (a SIGKILL, an OOM kill: TCP peers see a reset), or the whole machine (a
// power loss: what the disk had not synced is gone, and TCP peers hear nothing).
#include <string_view>

namespace locksim {

enum class CrashKind { process, machine };

constexpr std::string_view to_string(CrashKind kind) {
    return kind == CrashKind::machine ? "machine" : "process";
}

}  // namespace locksim
