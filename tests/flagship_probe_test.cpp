#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <iostream>

#include "models/world/world.hpp"
#include "sim/duration_text.hpp"

using namespace locksim;
using namespace locksim::time_literals;

TEST_CASE("probe flagship") {
    WorldSpec spec;
    spec.servers = {"server-1", "server-2", "server-3"};
    spec.lock_store_node = "lock-store";
    spec.billing_node = "billing-db";
    spec.provider_node = "payment-provider";
    spec.link_delay = DelayModel::fixed(1_ms);
    spec.lock = LockSpec{StoreKind::lease_row, "renewals", 30_s, true, ReleaseMode::compare_and_delete, {1_s, 2_s}, 1_s, 33};
    spec.job = JobSpec{"renewals", Instant{}, {41, 42, 43}, "2026-10", 4_s};
    spec.protection.fencing = true;
    spec.faults.push_back(PauseFault{"server-1", Instant{} + 6_s, 40_s, "gc"});
    spec.horizon = 10_min;
    auto result = run_world(spec, 1);
    for (const auto& e : result.trace.events()) {
        std::string f;
        for (auto& field : e.fields) {
            f += " " + std::string(field.key) + "=";
            std::visit([&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, NodeId>) f += result.trace.node_name(v);
                else f += fmt::format("{}", v);
            }, field.value);
        }
        std::cout << fmt::format("{:>9} {:<16} {:<18}{}\n", format_seconds(e.at), result.trace.node_name(e.node), e.kind, f);
    }
}
