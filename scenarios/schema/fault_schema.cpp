#include <fmt/format.h>

#include "scenarios/schema/world_schema.hpp"

namespace locksim {

std::vector<Fault> read_faults(const JsonReader& list, const std::vector<std::string>& nodes) {
    std::vector<Fault> faults;
    for (const auto& item : list.elements()) {
        if (item.has("pause")) {
            item.allow_only({"pause", "at", "for", "kind"});
            std::string kind = item.has("kind") ? item["kind"].string() : "gc";
            if (kind != "gc" && kind != "sigstop" && kind != "swap")
                item["kind"].fail(fmt::format("unknown pause kind \"{}\"; expected \"gc\", \"sigstop\" or \"swap\"", kind));
            const Duration length = item["for"].duration();
            if (length.ns <= 0) item["for"].fail("expected a pause longer than 0s");
            faults.push_back(
                PauseFault{read_node_ref(item["pause"], nodes), Instant{} + item["at"].duration(), length, std::move(kind)});
        } else if (item.has("clock_step")) {
            item.allow_only({"clock_step", "at", "by"});
            faults.push_back(ClockStepFault{read_node_ref(item["clock_step"], nodes), Instant{} + item["at"].duration(),
                                            item["by"].signed_duration()});
        } else if (item.has("crash")) {
            item.allow_only({"crash", "at", "restart_after"});
            CrashFault crash{read_node_ref(item["crash"], nodes), Instant{} + item["at"].duration(), std::nullopt};
            if (item.has("restart_after")) crash.restart_after = item["restart_after"].duration();
            faults.push_back(std::move(crash));
        } else {
            item.fail("expected a fault with \"pause\", \"clock_step\" or \"crash\" naming its node");
        }
    }
    return faults;
}

}  // namespace locksim
