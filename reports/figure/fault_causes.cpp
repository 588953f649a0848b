#include "reports/figure/fault_causes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "models/faults/clock_events.hpp"
#include "models/trace_kinds.hpp"
#include "reports/partition_cut.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

const TraceEvent* closing_event(const Trace& trace, const FigureSpan& span) {
    if (!span.closed_by || *span.closed_by >= trace.events().size()) return nullptr;
    return &trace.events()[*span.closed_by];
}

std::vector<std::string> lane_names(const SequenceFigure& figure, const std::vector<const FigureSpan*>& spans) {
    std::vector<std::string> names;
    for (const FigureSpan* span : spans)
        if (std::find(names.begin(), names.end(), figure.lanes[span->lane]) == names.end())
            names.push_back(figure.lanes[span->lane]);
    return names;
}

bool on_node(const Trace& trace, const TraceEvent& event, const std::string& name) {
    return event.node.valid() && trace.node_name(event.node) == name;
}

bool names_node(const Trace& trace, const TraceEvent& event, std::string_view field, const std::string& name) {
    return event.has(field) && event.node_ref(field).valid() && trace.node_name(event.node_ref(field)) == name;
}

// The store crashed with the lock in memory: what came after decides what was lost.
// " (its machine lost power)": a dead machine loses what the kernel had not yet synced, a
// dead process only what it held in memory.
std::string how_it_crashed(const TraceEvent& crash) {
    if (!crash.has("kind")) return "";
    return crash.text("kind") == "machine" ? " (its machine lost power)" : " (its process died)";
}

// Why a restarted store loaded no lock, by the persistence it restarted with.
std::string why_nothing_loaded(const TraceEvent& loaded) {
    const std::string_view persistence = loaded.has("persistence") ? loaded.text("persistence") : "none";
    if (persistence == "none") return "without persistence, loading nothing from disk";
    if (persistence == "aof-everysec")
        return "with persistence aof-everysec, whose last second of writes was never synced to disk: it loaded no "
               "lock";
    if (persistence.starts_with("rdb"))
        return fmt::format("with persistence {}, whose last snapshot came before the lock: it loaded no lock",
                           persistence);
    return fmt::format("with persistence {}, and loaded no lock", persistence);
}

std::string crash_story(const Trace& trace, const std::vector<std::string>& stores, const TraceEvent& crash) {
    const std::string& store = stores.front();
    for (std::size_t i = crash.sequence + 1; i < trace.events().size(); ++i) {
        const TraceEvent& next = trace.events()[i];
        if (next.kind == trace_kind::store_loaded && on_node(trace, next, store)) {
            if (next.integer("keys") > 0) break;
            return fmt::format("{} crashed at {}{} and restarted at {} {}", joined_names(stores),
                               format_seconds(crash.at), how_it_crashed(crash), format_seconds(next.at),
                               why_nothing_loaded(next));
        }
        if (next.kind == trace_kind::store_failover && names_node(trace, next, "from", store))
            return fmt::format(
                "{} crashed at {} before copying the lock to a replica, and {} promoted {} at {}, which had never "
                "received it",
                store, format_seconds(crash.at), trace.node_name(next.node), trace.node_name(next.node_ref("to")),
                format_seconds(next.at));
    }
    return fmt::format("{} crashed at {}", joined_names(stores), format_seconds(crash.at));
}

// A store whose wall clock was moved forward expires a lease early: by how much, and the
// clock change that did it. Only the changes since the grant or renewal that set the
// expiry count (a step back before a renewal is already in its expires_at).
std::optional<std::string> early_expiry(const Trace& trace, const std::string& store, const FigureSpan& grant,
                                        const TraceEvent& expired, bool one_of_many) {
    if (!expired.has("expires_at")) return std::nullopt;
    std::size_t set_at = grant.opened_by;
    for (std::size_t i = grant.opened_by; i < expired.sequence && i < trace.events().size(); ++i) {
        const TraceEvent& event = trace.events()[i];
        if (event.kind == trace_kind::lock_renewed && on_node(trace, event, store) && event.has("value") &&
            expired.has("value") && event.text("value") == expired.text("value"))
            set_at = i;
    }
    Duration moved{};
    const TraceEvent* change = nullptr;  // the largest forward change
    Duration largest{};
    for (std::size_t i = set_at; i <= expired.sequence && i < trace.events().size(); ++i) {
        const TraceEvent& event = trace.events()[i];
        if (!on_node(trace, event, store) || !changes_wall_clock(event)) continue;
        const Duration by = wall_clock_moved(event, expired.at);
        moved += by;
        if (by > largest) {
            largest = by;
            change = &event;
        }
    }
    const Duration early = expired.instant("expires_at") - expired.wall + moved;
    if (change == nullptr || moved <= Duration{} || early < Duration{1'000'000}) return std::nullopt;
    const std::string what = one_of_many ? "its key there" : "the lease";
    return wall_clock_change_cause(*change, store,
                                   fmt::format("expired {} {} early", what, format_duration_rounded(early)));
}

// What kept the holder from keeping its lease, on its side: frozen, cut off, held back.
struct HolderTrouble {
    std::string text;
    std::optional<Instant> pause_end;  // frozen until then: it could not notice
    CitedMessages cited = {};          // the messages `text` names
};

// The message.sent event of message `id`, sent before `before`.
std::optional<std::uint64_t> sending_of(const Trace& trace, std::int64_t id, std::uint64_t before) {
    for (std::uint64_t i = before; i-- > 0;) {
        const TraceEvent& event = trace.events()[i];
        if (event.kind == trace_kind::message_sent && event.integer("id") == id) return i;
    }
    return std::nullopt;
}

bool renewed_between(const Trace& trace, const std::string& holder, Instant from, Instant to) {
    return std::any_of(trace.events().begin(), trace.events().end(), [&](const TraceEvent& e) {
        return e.kind == trace_kind::belief_extended && e.at >= from && e.at < to && on_node(trace, e, holder);
    });
}

// A pause over the moment the store let the lease go; or one during the lease that left
// it too little time, when the holder woke and did not renew before the lease ran out.
std::optional<HolderTrouble> pause_over(const SequenceFigure& figure, const Trace& trace, std::size_t holder,
                                        const FigureSpan& grant, Instant ended) {
    const FigureSpan* before = nullptr;
    for (const auto& span : figure.spans) {
        if (span.kind != FigureSpan::Kind::paused || span.lane != holder || span.from > ended) continue;
        const TraceEvent& paused = trace.events()[span.opened_by];
        const std::string froze =
            fmt::format("a {} pause froze it for {} from {}", paused.text("cause"),
                        format_duration_rounded(paused.duration("for")), format_seconds(span.from));
        if (span.open || span.to >= ended) return HolderTrouble{froze, span.to};
        if (span.to > grant.from) before = &span;
    }
    if (before == nullptr || renewed_between(trace, figure.lanes[holder], before->to, ended)) return std::nullopt;
    const TraceEvent& paused = trace.events()[before->opened_by];
    return HolderTrouble{fmt::format("a {} pause froze it for {} from {}, and the lease ran out {} after it woke",
                                     paused.text("cause"), format_duration_rounded(paused.duration("for")),
                                     format_seconds(before->from), format_duration_rounded(ended - before->to)),
                         std::nullopt};
}

// A partition that cut the holder's messages to the store and was in force when the
// store let the lease go.
std::optional<HolderTrouble> partition_over(const Trace& trace, const std::string& holder, const std::string& store,
                                            const TraceEvent& ended) {
    const TraceEvent* cut = nullptr;
    bool healed = false;
    for (std::size_t i = 0; i < ended.sequence; ++i) {
        const TraceEvent& event = trace.events()[i];
        // A heal mends only its own partition's links.
        if (event.kind == trace_kind::network_healed)
            if (const auto sides = partition_cut(event); !sides || sides->cuts(holder, store)) healed = true;
        if (event.kind != trace_kind::network_partitioned) continue;
        if (const auto sides = partition_cut(event); sides && sides->cuts(holder, store)) {
            cut = &event;
            healed = false;
        }
    }
    if (cut == nullptr) return std::nullopt;
    // The renewals the cut stopped: lost (a datagram, or a stream reset) or stalled on their
    // stream, retransmitted without getting through before the lease ended.
    CitedMessages stopped;
    bool any_lost = false;
    for (std::size_t i = cut->sequence; i < ended.sequence; ++i) {
        const TraceEvent& event = trace.events()[i];
        const bool lost = event.kind == trace_kind::message_lost;
        if ((lost || event.kind == trace_kind::message_stalled) && event.flag("cut") && on_node(trace, event, holder) &&
            names_node(trace, event, "to", store))
            if (const auto sent = sending_of(trace, event.integer("id"), i)) {
                stopped.push_back(*sent);
                any_lost = any_lost || lost;
            }
    }
    if (healed && stopped.empty()) return std::nullopt;
    const std::string renewals = stopped.empty() ? ""
                                 : any_lost      ? ", and the messages renewing its lock were lost"
                                                 : ", and the messages renewing its lock could not get through (their "
                                                   "stream kept retransmitting them)";
    return HolderTrouble{
        fmt::format("a partition had cut it off from {} since {}{}", store, format_seconds(cut->at), renewals),
        std::nullopt, std::move(stopped)};
}

// Whether `event` is a hold of the next message `sender` sends `receiver` that was still
// holding at `until`, in words.
std::optional<std::string> message_hold(const Trace& trace, const TraceEvent& event, const std::string& sender,
                                        const std::string& receiver, Instant until, CitedMessages& cited) {
    if (event.kind != trace_kind::link_holding || !on_node(trace, event, sender) ||
        !names_node(trace, event, "to", receiver) || until >= event.instant("until"))
        return std::nullopt;
    for (std::size_t i = event.sequence + 1; i < trace.events().size(); ++i) {
        const TraceEvent& next = trace.events()[i];
        if (next.kind == trace_kind::message_sent && on_node(trace, next, sender) &&
            names_node(trace, next, "to", receiver)) {
            cited.push_back(i);
            break;
        }
    }
    return fmt::format("its next message to {} after {} was held in flight until {}", receiver,
                       format_seconds(event.at), format_seconds(event.instant("until")));
}

std::optional<HolderTrouble> spike_over(const Trace& trace, const std::string& holder, const std::string& store,
                                        Instant ended) {
    for (const auto& event : trace.events()) {
        if (event.at > ended) break;
        if (event.kind == trace_kind::link_held && on_node(trace, event, holder) &&
            names_node(trace, event, "to", store) && ended < event.instant("until"))
            return HolderTrouble{
                fmt::format("a delay spike held back its messages to {} by {} from {}", store,
                            format_duration_rounded(event.duration("extra")), format_seconds(event.at)),
                std::nullopt};
        CitedMessages cited;
        if (const auto held = message_hold(trace, event, holder, store, ended, cited))
            return HolderTrouble{*held, std::nullopt, std::move(cited)};
    }
    return std::nullopt;
}

std::optional<HolderTrouble> holder_trouble(const SequenceFigure& figure, const Trace& trace, std::size_t holder,
                                            const FigureSpan& grant, const TraceEvent& ended) {
    const std::string& store = figure.lanes[grant.lane];
    if (auto paused = pause_over(figure, trace, holder, grant, ended.at)) return paused;
    if (auto cut = partition_over(trace, figure.lanes[holder], store, ended)) return cut;
    return spike_over(trace, figure.lanes[holder], store, ended.at);
}

// The lease simply ran out under a holder that kept working.
std::string ran_out(const Trace& trace, const std::string& holder, const FigureSpan& grant) {
    const TraceEvent& granted = trace.events()[grant.opened_by];
    const std::string lease = granted.has("ttl")
                                  ? fmt::format("its {} lease", format_duration_rounded(granted.duration("ttl")))
                                  : std::string("its lease");
    const bool renewed = renewed_between(trace, holder, grant.from, grant.to);
    return fmt::format("{} ran out while it was still working{}", lease, renewed ? "" : ", and it did not renew it");
}

// "29.998s left by its clock", as the holder's own check read it; a holder whose client
// keeps no deadline (a Kubernetes Lease's, Consul's) had none to read.
std::string left_by_its_clock(const TraceEvent& check) {
    if (check.instant("believed_until") == never) return "no deadline of its own";
    const bool wall = check.has("clock");
    const Duration left = check.instant("believed_until") - (wall ? check.wall : check.monotonic);
    return fmt::format("{} left{}", format_duration_rounded(left), wall ? " by its wall clock" : "");
}

// Why the holder still acted at `sent`: it was frozen and could not notice, it had learned
// and went on, or what its own clock told it.
std::string why_it_went_on(const Trace& trace, const std::string& holder, Instant lost_at, Instant sent,
                           const std::optional<Instant>& pause_end) {
    const TraceEvent* acquired = nullptr;
    const TraceEvent* check = nullptr;
    const TraceEvent* learned = nullptr;
    const TraceEvent* clock_change = nullptr;
    for (const auto& event : trace.events()) {
        if (event.at >= sent) break;
        if (!on_node(trace, event, holder)) continue;
        if (event.kind == trace_kind::belief_acquired) {
            acquired = &event;
            check = nullptr;
            clock_change = nullptr;
        } else if (event.kind == trace_kind::belief_checked) {
            check = &event;
        } else if (event.kind == trace_kind::belief_ended && event.at >= lost_at && learned == nullptr) {
            learned = &event;
        } else if (changes_wall_clock(event) && acquired != nullptr && acquired->has("clock")) {
            clock_change = &event;
        }
    }
    if (learned != nullptr && (!pause_end || learned->at > *pause_end))
        return fmt::format("; it learned at {} that the lock was gone, and went on anyway",
                           format_seconds(learned->at));
    if (pause_end) return ", and it could not notice";
    std::string story;
    if (clock_change != nullptr)
        story = "; it timed the lease on its wall clock, which " + wall_clock_change_clause(*clock_change);
    if (check != nullptr)
        story += fmt::format("{} its last check, at {}, found {}", story.empty() ? ";" : ", and",
                             format_seconds(check->at), left_by_its_clock(*check));
    return story;
}

// With several store nodes: who won a majority after the holder lost its own.
std::string second_majority(const SequenceFigure& figure, std::size_t holder, const LeaseStanding& lost, Instant sent) {
    for (const auto& span : figure.spans) {
        if (!shared_grant(span) || span.holder == holder || span.from < lost.since || span.from > sent) continue;
        if (!holds_majority(figure, span.holder, span.from, lost.store_nodes)) continue;
        std::vector<std::string> nodes;
        for (std::size_t lane : nodes_granting(figure, span.holder, span.from)) nodes.push_back(figure.lanes[lane]);
        return fmt::format("; {} then won a second majority ({}) at {}", figure.lanes[span.holder],
                           fmt::join(nodes, ", "), format_seconds(span.from));
    }
    return "";
}

// A lease that no store timer ended: another client judged it over by its own clock and
// took it (a Kubernetes Lease; the API server expires nothing), so the store recorded its
// end at the takeover, after the time the lease ran to. Who took it, if so.
std::optional<std::string> taken_over_by(const Trace& trace, const TraceEvent& ended) {
    if (ended.kind != trace_kind::lock_expired || !ended.has("expires_at") || ended.instant("expires_at") >= ended.at)
        return std::nullopt;
    for (std::size_t k = ended.sequence + 1; k < trace.events().size() && trace.events()[k].at == ended.at; ++k) {
        const TraceEvent& event = trace.events()[k];
        if (event.kind == trace_kind::lock_granted && event.node == ended.node &&
            event.node_ref("holder") != ended.node_ref("holder"))
            return trace.node_name(event.node_ref("holder"));
    }
    return std::nullopt;
}

}  // namespace

std::string loss_phrase(const Trace& trace, const LeaseStanding& lost) {
    if (lost.store_nodes > 1 && lost.nodes_held > 0) return "it had lost its majority";
    const FigureSpan& grant = *lost.grants.front();
    if (const TraceEvent* ended = closing_event(trace, grant)) {
        if (ended->kind == trace_kind::node_crashed) return "the store had lost its lock";
        if (ended->kind == trace_kind::lock_released) {
            if (ended->node_ref("by") == ended->node_ref("holder")) return "it had released the lock";
            return fmt::format("{} had deleted its lock", trace.node_name(ended->node_ref("by")));
        }
        if (const auto taker = taken_over_by(trace, *ended)) return fmt::format("{} had taken its lease over", *taker);
    }
    return trace.events()[grant.opened_by].has("ttl") ? "its lease had ended at the store"
                                                      : "its lock had ended at the store";
}

std::string loss_cause(const SequenceFigure& figure, const Trace& trace, std::size_t holder, const LeaseStanding& lost,
                       std::optional<Instant> sent, CitedMessages& cited) {
    const FigureSpan& grant = *lost.grants.front();
    const std::string& store = figure.lanes[grant.lane];
    const TraceEvent* ended = closing_event(trace, grant);
    if (ended == nullptr) return "";
    // Redlock: it still held some nodes, but no longer a majority of them.
    const bool one_of_many = lost.store_nodes > 1 && lost.nodes_held > 0;
    std::string cause;
    std::optional<Instant> pause_end;
    const auto with_trouble = [&](std::string what) {
        auto trouble = holder_trouble(figure, trace, holder, grant, *ended);
        if (!trouble) return what.empty() ? ran_out(trace, figure.lanes[holder], grant) : what;
        pause_end = trouble->pause_end;
        cited.insert(cited.end(), trouble->cited.begin(), trouble->cited.end());
        return what.empty() ? trouble->text : what + " while " + trouble->text;
    };
    if (ended->kind == trace_kind::node_crashed) {
        cause = crash_story(trace, lane_names(figure, lost.grants), *ended);
    } else if (ended->kind == trace_kind::db_session_ended) {
        cause = with_trouble(
            fmt::format("{} ended its session at {} ({})", store, format_seconds(ended->at), ended->text("reason")));
    } else if (ended->kind == trace_kind::lock_released) {
        const NodeId by = ended->node_ref("by");
        cause = by == ended->node_ref("holder")
                    ? fmt::format("it had released the lock itself at {}", format_seconds(ended->at))
                    : fmt::format("{} deleted its lock at {}{}", trace.node_name(by), format_seconds(ended->at),
                                  ended->flag("plain") ? " with a plain delete" : "");
    } else if (auto early = early_expiry(trace, store, grant, *ended, one_of_many)) {
        cause = *early;
    } else {
        const TraceEvent* session = nullptr;
        for (std::size_t i = grant.opened_by; i <= ended->sequence; ++i)
            if (trace.events()[i].kind == trace_kind::session_expired) session = &trace.events()[i];
        cause = with_trouble(session != nullptr ? fmt::format("its session expired at {}", format_seconds(session->at))
                                                : std::string());
    }
    if (one_of_many) cause += fmt::format(", which left it {} of {} nodes", lost.nodes_held, lost.store_nodes);
    if (sent) cause += why_it_went_on(trace, figure.lanes[holder], lost.since, *sent, pause_end);
    if (one_of_many) cause += second_majority(figure, holder, lost, sent.value_or(figure.end));
    return cause;
}

std::optional<std::string> delay_cause(const SequenceFigure& figure, const Trace& trace, std::size_t sender,
                                       std::size_t receiver, Instant sent, CitedMessages& cited) {
    for (const auto& event : trace.events()) {
        if (event.at > sent) break;
        if (event.kind == trace_kind::link_held && on_node(trace, event, figure.lanes[sender]) &&
            names_node(trace, event, "to", figure.lanes[receiver]) && sent < event.instant("until"))
            return fmt::format("a delay spike held back its messages to {} by {} from {}", figure.lanes[receiver],
                               format_duration_rounded(event.duration("extra")), format_seconds(event.at));
        if (const auto held = message_hold(trace, event, figure.lanes[sender], figure.lanes[receiver], sent, cited))
            return held;
    }
    return std::nullopt;
}

}  // namespace locksim
