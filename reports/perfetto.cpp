#include "reports/perfetto.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

// Thread ids within a node's process. Slices on one track must nest, so everything that
// can overlap gets a track of its own.
enum Track : int { steps = 1, believed = 2, paused = 3, sent = 4, received = 5, granted_base = 100 };

double in_us(Instant at) {
    return static_cast<double>(at.ns) / 1000.0;
}
double in_us(Duration d) {
    return static_cast<double>(d.ns) / 1000.0;
}

class PerfettoWriter {
public:
    explicit PerfettoWriter(Json& events) : events_(events) {}

    void design(const DesignOutcome& outcome, std::size_t design_index) {
        const SequenceFigure figure = build_sequence_figure(outcome);
        // Process ids: a block of 1000 per design keeps designs apart and their nodes in lane order.
        const int base = static_cast<int>(design_index) * 1000 + 1;
        for (std::size_t lane = 0; lane < figure.lanes.size(); ++lane) {
            const int pid = base + static_cast<int>(lane);
            metadata(pid, 0, "process_name", {{"name", fmt::format("{} · {}", outcome.name, figure.lanes[lane])}});
            metadata(pid, 0, "process_sort_index", {{"sort_index", pid}});
            metadata(pid, Track::steps, "thread_name", {{"name", "steps"}});
            metadata(pid, Track::believed, "thread_name", {{"name", "lease as it believed it"}});
            metadata(pid, Track::paused, "thread_name", {{"name", "paused or down"}});
            metadata(pid, Track::sent, "thread_name", {{"name", "messages sent"}});
            metadata(pid, Track::received, "thread_name", {{"name", "messages received"}});
        }
        std::set<std::pair<int, int>> named_grant_tracks;
        for (const auto& span : figure.spans) {
            const int pid = base + static_cast<int>(span.lane);
            int tid = Track::paused;
            if (span.kind == FigureSpan::Kind::believed) tid = Track::believed;
            if (span.kind == FigureSpan::Kind::granted) {
                tid = Track::granted_base + static_cast<int>(span.holder);
                if (named_grant_tracks.insert({pid, tid}).second)
                    metadata(pid, tid, "thread_name",
                             {{"name", fmt::format("lock of {} as this store saw it", figure.lanes[span.holder])}});
            }
            events_.push_back(Json{{"ph", "X"},
                                   {"pid", pid},
                                   {"tid", tid},
                                   {"ts", in_us(span.from)},
                                   {"dur", in_us(span.to - span.from)},
                                   {"name", span.label},
                                   {"args", {{"open_at_end", span.open}}}});
        }
        for (const auto& step : figure.steps) {
            const int pid = base + static_cast<int>(step.lane);
            Json args{{"event", fmt::format("e{}", step.number)}, {"design", outcome.name}};
            if (!step.explanation.empty()) args["explanation"] = step.explanation;
            if (step.is_message()) {
                // A flow binds the send slice to the receive slice; every id is used once.
                const std::uint64_t flow =
                    (static_cast<std::uint64_t>(design_index) << 32) | static_cast<std::uint64_t>(step.number);
                // One instant slice at each end; "flow_out" on the send, "flow_in" on the arrival.
                const auto end_of_flow = [&](int at_pid, int tid, Instant at, const char* direction) {
                    events_.push_back(Json{{"ph", "X"},
                                           {"pid", at_pid},
                                           {"tid", tid},
                                           {"ts", in_us(at)},
                                           {"dur", 0},
                                           {"name", step.text},
                                           {"args", args},
                                           {"bind_id", fmt::format("0x{:x}", flow)},
                                           {direction, true}});
                };
                end_of_flow(pid, Track::sent, step.at, "flow_out");
                if (!step.lost && !step.in_flight)
                    end_of_flow(base + static_cast<int>(*step.to_lane), Track::received, step.arrives, "flow_in");
                continue;
            }
            args["tone"] = step.tone == EventTone::violation    ? "violation"
                           : step.tone == EventTone::protection ? "protection"
                           : step.tone == EventTone::fault      ? "fault"
                                                                : "normal";
            events_.push_back(Json{{"ph", "i"},
                                   {"s", "t"},
                                   {"pid", pid},
                                   {"tid", Track::steps},
                                   {"ts", in_us(step.at)},
                                   {"name", step.text},
                                   {"args", args}});
        }
    }

private:
    void metadata(int pid, int tid, const char* name, Json args) {
        Json event{{"ph", "M"}, {"pid", pid}};
        if (tid != 0) event["tid"] = tid;
        event["name"] = name;
        event["args"] = std::move(args);
        events_.push_back(std::move(event));
    }

    Json& events_;
};

}  // namespace

std::string render_perfetto(const ScenarioOutcome& outcome) {
    Json events = Json::array();
    PerfettoWriter writer(events);
    for (std::size_t i = 0; i < outcome.designs.size(); ++i) writer.design(outcome.designs[i], i);
    Json document{{"traceEvents", std::move(events)},
                  {"displayTimeUnit", "ms"},
                  {"otherData", {{"scenario", outcome.name}, {"seed", outcome.seed}, {"generator", "locksim"}}}};
    return document.dump() + "\n";
}

}  // namespace locksim
