#include "reports/figure/divergence.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

namespace kind = trace_kind;

// An effect on the world, as two designs can be compared by it: what happened, where, to
// whom. A write a row refused is an effect; a write it took is the protocol's own business.
std::optional<std::tuple<std::string_view, std::string, std::int64_t>> effect_of(const TraceEvent& event,
                                                                                 const Trace& trace) {
    const bool effect = event.kind == kind::provider_charged || event.kind == kind::provider_replayed ||
                        event.kind == kind::provider_refused || event.kind == kind::provider_precondition_failed ||
                        event.kind == kind::job_customer_skipped ||
                        (event.kind == kind::db_write && event.has("rows") && event.integer("rows") == 0);
    if (!effect) return std::nullopt;
    return std::tuple{event.kind, trace.node_name(event.node), event.has("customer") ? event.integer("customer") : -1};
}

std::vector<const TraceEvent*> effects(const Trace& trace) {
    std::vector<const TraceEvent*> found;
    for (const auto& event : trace.events())
        if (effect_of(event, trace)) found.push_back(&event);
    return found;
}

}  // namespace

std::optional<Divergence> first_divergence(const Trace& first, const Trace& second) {
    const auto a = effects(first);
    const auto b = effects(second);
    const std::size_t common = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < common; ++i)
        if (effect_of(*a[i], first) != effect_of(*b[i], second))
            return Divergence{std::min(a[i]->at, b[i]->at), a[i], b[i]};
    if (a.size() == b.size()) return std::nullopt;
    if (a.size() > common) return Divergence{a[common]->at, a[common], nullptr};
    return Divergence{b[common]->at, nullptr, b[common]};
}

}  // namespace locksim
