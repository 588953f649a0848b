#pragma once
// What the checkers' tests share: traces written by hand, one event at a time, in a world
// of six nodes (three servers, the lock store, the payment provider, the billing
// database). The checkers read only the trace, so no engine runs.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/trace_kinds.hpp"
#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim::testing {

// The nodes of a hand-written trace, in the order of their names.
inline constexpr NodeId server_1{0}, server_2{1}, server_3{2}, store{3}, provider{4}, billing{5};

class TraceBuilder {
public:
    TraceBuilder() {
        trace_.set_node_names({"server-1", "server-2", "server-3", "lock-store", "payment-provider", "billing-db"});
    }

    TraceBuilder& at(Duration when, NodeId node, const KindSpec& kind, std::span<const Field> fields = {}) {
        TraceEvent event;
        event.at = Instant{} + when;
        event.node = node;
        event.kind = kind;
        trace_.append(event, fields);
        return *this;
    }
    TraceBuilder& at(Duration when, NodeId node, const KindSpec& kind, std::initializer_list<Field> fields) {
        return at(when, node, kind, std::span<const Field>(fields.begin(), fields.size()));
    }
    // The provider charges `customer` once for the period 2026-10 (charge 1), or for
    // `period`, with an idempotency `key` when given, at `by`'s request.
    TraceBuilder& charge(Duration when, std::int64_t customer, std::string period = "2026-10", std::string key = "",
                         NodeId by = server_1) {
        FieldList fields{{"customer", customer}, {"period", period}, {"by", by}, {"charge", std::int64_t{1}}};
        if (!key.empty()) fields.push_back({"key", key});
        return at(when, provider, trace_kind::provider_charged, fields);
    }
    TraceBuilder& charge(Duration when, std::int64_t customer, NodeId by) {
        return charge(when, customer, "2026-10", "", by);
    }
    // The provider answers `customer`'s charge for `period` with charge 1, which it made
    // for `charged_customer` in `charged_period`, because it had seen `key`.
    TraceBuilder& replayed(Duration when, std::int64_t customer, std::string period, std::string key,
                           std::int64_t charged_customer, std::string charged_period) {
        return at(when, provider, trace_kind::provider_replayed,
                  {{"customer", customer},
                   {"period", period},
                   {"by", server_1},
                   {"key", key},
                   {"charge", std::int64_t{1}},
                   {"charge_customer", charged_customer},
                   {"charge_period", charged_period}});
    }
    // `holder` believes it holds lock "k" from `from` until it releases it at `to`.
    TraceBuilder& belief(Duration from, Duration to, NodeId holder) {
        acquired(from, holder);
        return ended(to, holder);
    }
    TraceBuilder& acquired(Duration when, NodeId holder) {
        return at(when, holder, trace_kind::belief_acquired, {{"key", "k"}});
    }
    TraceBuilder& ended(Duration when, NodeId holder) {
        return at(when, holder, trace_kind::belief_ended, {{"key", "k"}, {"reason", "released"}});
    }
    // A write of customer 42's renewal row fenced by `token`, as the billing database
    // records it; `rows` is 0 when the fence refused it.
    TraceBuilder& fenced_write(Duration when, std::int64_t token, std::int64_t rows) {
        return at(when, billing, trace_kind::db_write,
                  {{"customer", std::int64_t{42}},
                   {"period", "2026-10"},
                   {"status", "claimed"},
                   {"rows", rows},
                   {"token", token}});
    }
    // UPDATE renewals SET status=… by `client`, as the billing database records it.
    TraceBuilder& write(Duration when, NodeId client, std::int64_t customer, std::string status, std::int64_t rows,
                        std::string period = "2026-10") {
        return at(when, billing, trace_kind::db_write,
                  {{"customer", customer}, {"period", period}, {"status", status}, {"rows", rows}, {"client", client}});
    }
    TraceBuilder& built(Duration when, NodeId client, std::string period, Duration cpu) {
        return at(when, billing, trace_kind::index_built, {{"period", period}, {"cpu", cpu}, {"client", client}});
    }
    TraceBuilder& crashed(Duration when, NodeId node) {
        return at(when, node, trace_kind::node_crashed, {{"cause", "crash"}});
    }
    TraceBuilder& job_started(Duration when, NodeId node) {
        return at(when, node, trace_kind::job_started, {{"job", "renewals"}});
    }
    TraceBuilder& refused(Duration when, NodeId client) {
        return at(when, store, trace_kind::lock_refused, {{"key", "k"}, {"client", client}});
    }
    const Trace& trace() const { return trace_; }

private:
    Trace trace_;
};

}  // namespace locksim::testing
