#include "checks/unanswered_request.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "models/trace_kinds.hpp"

namespace locksim {

const TraceEvent* unanswered_request(const Trace& trace, NodeId server, Instant since) {
    std::map<std::int64_t, const TraceEvent*> open;   // request id → its message.sent
    std::map<std::int64_t, std::int64_t> request_of;  // reply id → the request it answers
    for (const TraceEvent& event : trace.events()) {
        // A reset of the connection ends the wait of every request on it, with an error.
        if ((event.kind == trace_kind::connection_refused || event.kind == trace_kind::connection_reset) &&
            event.node == server) {
            std::erase_if(
                open, [&event](const auto& request) { return request.second->node_ref("to") == event.node_ref("to"); });
            continue;
        }
        if (event.kind != trace_kind::message_sent && event.kind != trace_kind::message_delivered) continue;
        if (event.kind == trace_kind::message_sent) {
            if (event.has("reply_to")) {
                if (event.node_ref("to") == server) request_of[event.integer("id")] = event.integer("reply_to");
            } else if (event.node == server && event.at >= since) {
                open[event.integer("id")] = &event;
            }
        } else if (event.node == server) {
            if (const auto answered = request_of.find(event.integer("id")); answered != request_of.end())
                open.erase(answered->second);
        }
    }
    if (open.empty()) return nullptr;
    return std::max_element(open.begin(), open.end(),
                            [](const auto& a, const auto& b) { return a.second->sequence < b.second->sequence; })
        ->second;
}

}  // namespace locksim
