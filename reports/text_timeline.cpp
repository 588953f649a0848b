#include "reports/text_timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "models/trace_kinds.hpp"
#include "reports/event_text.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// Lanes drawn side by side, at least 12 characters each: 12 fit a 160-column terminal
// beside the time.
constexpr std::size_t max_columns = 12;

bool in_columns(const DesignOutcome& design) {
    return design.lanes.size() <= max_columns;
}

struct Line {
    Instant at;
    std::size_t lane = 0;
    std::string text;
    EventTone tone = EventTone::normal;
    std::vector<bool> frozen;  // per lane, in columns only: paused while this happened (drawn ║ instead of │)
    bool of_world = false;     // no node's (a partition): named "world" where lines name their node
};

// Consecutive refusals at the store for the same reason become one line: who was refused,
// how often, until when.
struct RefusalRun {
    std::size_t line = 0;
    std::vector<std::string> clients;  // in the order first refused
    std::set<std::string> named;       // the same, to find one at once
    int attempts = 0;
    Instant last;
    std::string reason;  // "already held", or the store's own ("lock-delay")
};

// Who was refused: every client of a small world, the first few of a large one.
std::string refusal_text(const RefusalRun& run) {
    constexpr std::size_t named = 8;
    const auto& clients = run.clients;
    std::string who;
    if (clients.size() == 1)
        who = clients[0];
    else if (clients.size() <= named)
        who = fmt::format("{} and {}", fmt::join(clients.begin(), clients.end() - 1, ", "), clients.back());
    else
        who = fmt::format("{} clients ({}, … and {} more)", clients.size(),
                          fmt::join(clients.begin(), clients.begin() + named, ", "), clients.size() - named);
    if (run.attempts == 1) return fmt::format("refuses {}: {}", who, run.reason);
    return fmt::format("refuses {}: {} ({} attempts until {})", who, run.reason, run.attempts,
                       format_seconds(run.last));
}

std::string styled(const Line& line, const TextStyle& style) {
    switch (line.tone) {
        case EventTone::violation: return style.violation("✗ " + line.text);
        case EventTone::protection: return style.good("✓ " + line.text);
        case EventTone::fault: return style.fault(line.text);
        case EventTone::normal: break;
    }
    return line.text;
}

}  // namespace

std::string render_compact_timeline(const DesignOutcome& design, const TextStyle& style) {
    const Trace& trace = design.trace;
    std::vector<std::size_t> lane_of_node(trace.node_names().size(), 0);
    for (std::size_t lane = 0; lane < design.lanes.size(); ++lane)
        if (auto node = trace.find_node(design.lanes[lane])) lane_of_node[node->index] = lane;

    // The figure's sentences say why a violation happened and what protected the rest, and
    // its marks sit where those sentences point (violation_story.hpp); the terminal tells
    // the same story with the same marks.
    const SequenceFigure figure = build_sequence_figure(design);
    std::map<std::uint64_t, const FigureStep*> drawn;
    for (const auto& step : figure.steps) drawn[step.sequence] = &step;

    const bool columns = in_columns(design);
    std::vector<Line> lines;
    std::optional<RefusalRun> refusals;
    // A run's line is written once it has ended: rewriting it at each refusal would cost
    // its clients over again each time.
    const auto end_refusals = [&] {
        if (refusals) lines[refusals->line].text = refusal_text(*refusals);
        refusals.reset();
    };
    // A pause drawn as a span down its column.
    std::vector<bool> frozen(columns ? design.lanes.size() : 0, false);
    for (const auto& event : trace.events()) {
        // World events (a partition) are drawn from the first lane.
        const std::size_t lane = event.node.valid() ? lane_of_node[event.node.index] : 0;
        if (columns && (event.kind == trace_kind::node_resumed || event.kind == trace_kind::node_crashed))
            frozen[lane] = false;
        if (event.kind == trace_kind::lock_refused) {
            const std::string client = trace.node_name(event.node_ref("client"));
            const std::string reason(event.has("reason") ? event.text("reason") : "already held");
            if (!refusals || refusals->reason != reason) {
                end_refusals();
                refusals = RefusalRun{lines.size(), {}, {}, 0, event.at, reason};
                lines.push_back(Line{event.at, lane, "", EventTone::normal, frozen});
            }
            if (refusals->named.insert(client).second) refusals->clients.push_back(client);
            ++refusals->attempts;
            refusals->last = event.at;
            continue;
        }
        auto text = describe_event(event, trace);
        if (!text) continue;
        end_refusals();
        Line line{event.at, lane, std::move(text->text), text->tone, frozen, !event.node.valid()};
        const FlaggedEvent* flag = design.metrics.flag_for(event.sequence);
        if (const auto found = drawn.find(event.sequence); found != drawn.end()) {
            line.tone = found->second->tone;
            if (!found->second->explanation.empty()) line.text += ": " + found->second->explanation;
        } else if (flag) {  // past the figure's cap
            line.tone = tone_of(*flag);
            line.text += ": " + flag->explanation;
        }
        lines.push_back(std::move(line));
        if (columns && event.kind == trace_kind::node_paused) frozen[lane] = true;
    }
    end_refusals();

    constexpr std::size_t time_width = 9;
    if (!columns) {
        std::size_t node_width = 0;
        for (const auto& lane : design.lanes) node_width = std::max(node_width, lane.size() + 3);
        std::string out = style.heading(pad_right("time", time_width)) +
                          style.heading(pad_right("│ node", node_width)) + style.heading("│ what happened") + "\n";
        for (const auto& line : lines)
            out += fmt::format("{:>{}} ", format_seconds(line.at), time_width - 1) +
                   style.quiet(
                       pad_right("│ " + (line.of_world ? std::string("world") : design.lanes[line.lane]), node_width)) +
                   "│ " + styled(line, style) + "\n";
        return out;
    }

    std::vector<std::size_t> widths;
    for (const auto& lane : design.lanes) widths.push_back(std::max<std::size_t>(lane.size() + 3, 12));

    std::string out = style.heading(pad_right("time", time_width));
    for (std::size_t lane = 0; lane < design.lanes.size(); ++lane)
        out += lane + 1 == design.lanes.size() ? style.heading("│ " + design.lanes[lane])
                                               : style.heading(pad_right("│ " + design.lanes[lane], widths[lane]));
    out += "\n";
    for (const auto& line : lines) {
        std::string row = fmt::format("{:>{}} ", format_seconds(line.at), time_width - 1);
        for (std::size_t lane = 0; lane < line.lane; ++lane)
            row += line.frozen[lane] ? style.fault(pad_right("║ (paused)", widths[lane]))
                                     : style.quiet(pad_right("│", widths[lane]));
        row += "│ " + styled(line, style);
        out += row + "\n";
    }
    return out;
}

std::string_view compact_timeline_layout(const DesignOutcome& design) {
    return in_columns(design) ? "one column per node"
                              : "a line per event, naming its node: too many nodes for a column each";
}

}  // namespace locksim
