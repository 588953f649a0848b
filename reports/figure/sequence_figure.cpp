#include "reports/figure/sequence_figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "models/trace_kinds.hpp"
#include "reports/figure/violation_story.hpp"
#include "reports/partition_cut.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

namespace kind = trace_kind;

// Where a message ended: delivered, or lost.
struct MessageEnd {
    Instant at;
    bool lost = false;
    std::uint64_t sequence = 0;  // the trace event that delivered or lost it
};

// What the arrows and bars need to know ahead of the event they start at.
struct Lookahead {
    std::map<std::int64_t, MessageEnd> delivery;  // message id → first delivery or loss
    std::set<std::int64_t> refused_requests;      // lock requests the store refused
    std::set<std::int64_t> stalled;               // messages their stream retransmitted
    // Per node, the times it crashed and restarted, in order: a message that never arrived
    // ends where its receiver went down.
    std::map<std::uint32_t, std::vector<std::pair<Instant, std::optional<Instant>>>> downtime;

    // Where a message sent at `sent` to `node` and never delivered was swallowed: at once
    // if the node was down, at its crash if it crashed in flight; nullopt if the run ended
    // first, with the message still travelling.
    std::optional<Instant> swallowed_at(std::uint32_t node, Instant sent, Instant run_end) const {
        const auto found = downtime.find(node);
        if (found == downtime.end()) return std::nullopt;
        for (const auto& [crashed, restarted] : found->second) {
            if (crashed <= sent && (!restarted || sent < *restarted)) return sent;
            if (crashed > sent) return crashed <= run_end ? std::optional(crashed) : std::nullopt;
        }
        return std::nullopt;
    }
};

Lookahead look_ahead(const Trace& trace) {
    Lookahead ahead;
    std::map<std::uint32_t, std::int64_t> last_delivered;  // per node: the message its handler runs for
    for (const auto& event : trace.events()) {
        if (event.kind == kind::message_delivered) {
            ahead.delivery.try_emplace(event.integer("id"), MessageEnd{event.at, false, event.sequence});
            last_delivered[event.node.index] = event.integer("id");
        } else if (event.kind == kind::message_lost) {
            ahead.delivery.try_emplace(event.integer("id"), MessageEnd{event.at, true, event.sequence});
        } else if (event.kind == kind::message_stalled) {
            ahead.stalled.insert(event.integer("id"));
        } else if (event.kind == kind::lock_refused) {
            if (auto found = last_delivered.find(event.node.index); found != last_delivered.end())
                ahead.refused_requests.insert(found->second);
        } else if (event.kind == kind::node_crashed) {
            ahead.downtime[event.node.index].emplace_back(event.at, std::nullopt);
        } else if (event.kind == kind::node_restarted) {
            auto& periods = ahead.downtime[event.node.index];
            if (!periods.empty() && !periods.back().second) periods.back().second = event.at;
        }
    }
    return ahead;
}

// The customers whose money or rows a flagged violation is about.
std::set<std::int64_t> customers_in_violations(const DesignOutcome& design) {
    std::set<std::int64_t> customers;
    for (const auto& event : design.trace.events())
        if (const auto* flag = design.metrics.flag_for(event.sequence);
            flag && flag->violation() && event.has("customer"))
            customers.insert(event.integer("customer"));
    return customers;
}

// A message its sender said is about one of `customers`.
bool about_customer(const TraceEvent& message, const std::set<std::int64_t>& customers) {
    return message.has("customer") && customers.contains(message.integer("customer"));
}

// The lock's life: who held it, by whose account, until when, and what the store did.
bool is_milestone(const TraceEvent& event) {
    static const std::set<std::string_view> kinds{kind::lock_granted,    kind::lock_expired,     kind::lock_released,
                                                  kind::belief_acquired, kind::belief_ended,     kind::store_failover,
                                                  kind::session_expired, kind::consensus_leader, kind::job_rebuilding,
                                                  kind::index_built,     kind::db_session_ended, kind::store_loaded};
    return kinds.contains(event.kind);
}

// The lock's life and every fault belong to any violation's story; so does anything about
// the customers it hurt.
bool tells_the_story(const TraceEvent& event, EventTone tone, const std::set<std::int64_t>& customers) {
    if (tone != EventTone::normal || is_milestone(event)) return true;
    return event.has("customer") && customers.contains(event.integer("customer"));
}

class FigureBuilder {
public:
    FigureBuilder(const DesignOutcome& design, std::size_t max_steps)
        : design_(design), trace_(design.trace), max_steps_(max_steps), ahead_(look_ahead(design.trace)) {
        figure_.lanes = design.lanes;
        figure_.end = design.summary.ended_at;
        lane_of_node_.assign(trace_.node_names().size(), 0);
        for (std::size_t lane = 0; lane < design.lanes.size(); ++lane)
            if (auto node = trace_.find_node(design.lanes[lane])) lane_of_node_[node->index] = lane;
        for (const auto& flag : design.metrics.flagged)
            figure_.has_violation = figure_.has_violation || flag.violation();
        figure_.is_server.assign(design.lanes.size(), false);
        for (const auto& event : trace_.events())
            if (event.kind == kind::job_started || event.kind == kind::job_campaigning ||
                event.kind == kind::job_finished)
                figure_.is_server[lane(event.node)] = true;
        customers_ = customers_in_violations(design);
    }

    SequenceFigure build() {
        for (const auto& event : trace_.events()) {
            if (event.kind == kind::message_sent) ++figure_.messages;
            // Past the cap nothing more is drawn: no step, and no bar that starts later.
            if (figure_.steps.size() >= max_steps_) {
                if (shown(event)) ++figure_.left_out;
                continue;
            }
            track_spans(event);
            if (shown(event)) add_step(event);
        }
        if (figure_.left_out > 0 && !figure_.steps.empty()) figure_.end = figure_.steps.back().at;
        close_open_spans();
        annotate_retry_runs();
        explain_violations(figure_, trace_);
        explain_protections(figure_, trace_);
        return std::move(figure_);
    }

private:
    std::size_t lane(NodeId node) const { return node.valid() ? lane_of_node_[node.index] : 0; }

    // Messages become arrows; the store's refusals and the database's reads are told by
    // the arrows' labels; the rest reads as a sentence.
    bool shown(const TraceEvent& event) const {
        if (event.kind == kind::message_sent) return true;
        // A run's due items are drawn where some were never done: the mark says which.
        if (event.kind == kind::job_due) return design_.metrics.flag_for(event.sequence) != nullptr;
        if (event.kind == kind::message_delivered || event.kind == kind::message_lost ||
            event.kind == kind::message_stalled)
            return false;
        if (event.kind == kind::lock_refused || event.kind == kind::db_read) return false;
        return describe_event(event, trace_).has_value();
    }

    void add_step(const TraceEvent& event) {
        FigureStep step;
        step.sequence = event.sequence;
        step.at = event.at;
        if (event.has("customer")) step.customer = event.integer("customer");
        step.lane = lane(event.node);
        if (event.node.valid()) {
            step.wall = event.wall;
            step.monotonic = event.monotonic;
        }
        if (event.kind == kind::message_sent) {
            const std::int64_t id = event.integer("id");
            step.text = event.text("label");
            step.to_lane = lane(event.node_ref("to"));
            step.stalled = ahead_.stalled.contains(id);
            const auto delivery = ahead_.delivery.find(id);
            if (delivery != ahead_.delivery.end()) {
                step.arrives = delivery->second.at;
                step.lost = delivery->second.lost;
                if (!step.lost) step.delivered_as = delivery->second.sequence;
            } else {
                // Never delivered: lost where a crash swallowed it, or still in flight when
                // the run stopped (a link delayed by an hour) and drawn short, not across
                // the whole figure.
                const auto swallowed = ahead_.swallowed_at(event.node_ref("to").index, event.at, figure_.end);
                step.lost = swallowed.has_value();
                step.in_flight = !step.lost;
                step.arrives = swallowed.value_or(event.at);
            }
            step.reply = event.has("reply_to");
            sent_as_[id] = event.sequence;
            if (step.reply)
                if (const auto request = sent_as_.find(event.integer("reply_to")); request != sent_as_.end())
                    step.request = request->second;
            const bool refused = ahead_.refused_requests.contains(id) ||
                                 (event.has("reply_to") && ahead_.refused_requests.contains(event.integer("reply_to")));
            if (refused) {
                const bool reply = event.has("reply_to");
                retry_candidates_.push_back(
                    RetryCandidate{figure_.steps.size(), reply ? *step.to_lane : step.lane, reply});
            }
            step.related = !figure_.has_violation || about_customer(event, customers_) ||
                           (event.has("reply_to") && related_requests_.contains(event.integer("reply_to")));
            if (step.related && !event.has("reply_to")) related_requests_.insert(id);
        } else {
            auto text = describe_event(event, trace_);  // shown() has checked there is one
            step.text = std::move(text->text);
            step.tone = text->tone;
            step.milestone = is_milestone(event);
            step.related = !figure_.has_violation || tells_the_story(event, step.tone, customers_);
        }
        if (const FlaggedEvent* flag = design_.metrics.flag_for(event.sequence)) {
            step.tone = tone_of(*flag);
            step.explanation = flag->explanation;
            step.flagged_as = flag->metric;
            step.related = true;
        }
        step.number = static_cast<int>(figure_.steps.size()) + 1;
        figure_.steps.push_back(std::move(step));
    }

    // A refused attempt is worth a label the first time a client meets it; the retries
    // that follow (until it holds the lock) are drawn thin, and the first says how many.
    void annotate_retry_runs() {
        std::map<std::pair<std::size_t, bool>, std::size_t> run_head;  // (client, reply?) → first step
        std::map<std::size_t, int> more;
        for (const auto& candidate : retry_candidates_) {
            const auto key = std::make_pair(candidate.client, candidate.reply);
            auto head = run_head.find(key);
            FigureStep& step = figure_.steps[candidate.step];
            if (head == run_head.end() || acquired_between(candidate.client, figure_.steps[head->second].at, step.at)) {
                run_head[key] = candidate.step;
                continue;
            }
            step.retry = true;
            FigureStep& first = figure_.steps[head->second];
            first.note = fmt::format("{} more until {}", ++more[head->second], format_seconds(step.at));
        }
    }

    bool acquired_between(std::size_t client, Instant from, Instant to) const {
        auto found = acquired_at_.find(client);
        if (found == acquired_at_.end()) return false;
        return std::any_of(found->second.begin(), found->second.end(),
                           [&](Instant at) { return at > from && at <= to; });
    }

    // A finished bar. A believed lease ends where its holder's own clock said, if that
    // came before the holder noticed.
    void keep(FigureSpan span, std::optional<std::uint64_t> closed_by) {
        span.closed_by = closed_by;
        if (span.own_deadline && *span.own_deadline < span.to) {
            span.to = std::max(*span.own_deadline, span.from);
            span.open = false;
        }
        figure_.spans.push_back(std::move(span));
    }

    // When the holder's clock reaches the deadline it just recorded, in true time: its clock
    // runs at true speed between readings (drift is parts per million), so the deadline is
    // as far after this event as it is after the clock's reading here.
    static std::optional<Instant> own_deadline(const TraceEvent& event) {
        const Instant until = event.instant("believed_until");
        if (until == never) return std::nullopt;
        const Instant reading = event.has("clock") ? event.wall : event.monotonic;
        return event.at + (until - reading);
    }

    void track_spans(const TraceEvent& event) {
        const std::size_t here = lane(event.node);
        if (event.kind == kind::belief_acquired) {
            acquired_at_[here].push_back(event.at);
            const std::string who = trace_.node_name(event.node);
            std::string label = event.has("token")
                                    ? fmt::format("lease as {} believed it (token {})", who, event.integer("token"))
                                    : fmt::format("lease as {} believed it", who);
            open_beliefs_[{here, std::string(event.text("key"))}] =
                FigureSpan{FigureSpan::Kind::believed, here,          event.at, event.at, false, here, std::move(label),
                           own_deadline(event),        event.sequence};
        } else if (event.kind == kind::belief_extended) {
            if (auto found = open_beliefs_.find({here, std::string(event.text("key"))}); found != open_beliefs_.end())
                found->second.own_deadline = own_deadline(event);
        } else if (event.kind == kind::belief_ended) {
            close({here, std::string(event.text("key"))}, open_beliefs_, event);
        } else if (event.kind == kind::lock_granted) {
            const std::size_t holder = lane(event.node_ref("holder"));
            std::string label = fmt::format(
                "{}'s lock as {} saw it{}", trace_.node_name(event.node_ref("holder")), trace_.node_name(event.node),
                event.has("token") ? fmt::format(" (token {})", event.integer("token")) : "");
            open_grants_[{here, grant_identity(event)}] =
                FigureSpan{FigureSpan::Kind::granted, here,         event.at,      event.at, false, holder,
                           std::move(label),          std::nullopt, event.sequence};
        } else if (event.kind == kind::lock_expired || event.kind == kind::lock_released) {
            close({here, grant_identity(event)}, open_grants_, event);
        } else if (event.kind == kind::db_session_ended) {
            close_all_for_holder(here, lane(event.node_ref("client")), event);
        } else if (event.kind == kind::node_paused) {
            open_pauses_[here] = FigureSpan{FigureSpan::Kind::paused,
                                            here,
                                            event.at,
                                            event.at,
                                            false,
                                            here,
                                            fmt::format("{} pause", event.text("cause")),
                                            std::nullopt,
                                            event.sequence};
        } else if (event.kind == kind::node_resumed) {
            close(here, open_pauses_, event);
        } else if (event.kind == kind::node_crashed) {
            close_node(here, event);
            open_downs_[here] = FigureSpan{
                FigureSpan::Kind::down, here, event.at, event.at, false, here, "down", std::nullopt, event.sequence};
        } else if (event.kind == kind::node_restarted) {
            close(here, open_downs_, event);
        } else if (event.kind == kind::network_partitioned || event.kind == kind::network_healed) {
            track_cut(event);
        }
    }

    // A partition is a band on each lane it cuts off, from the cut to the heal that
    // names the same cut.
    void track_cut(const TraceEvent& event) {
        const auto cut = partition_cut(event);
        if (!cut) return;
        for (const auto& name : cut->cut_off) {
            const auto found = std::find(figure_.lanes.begin(), figure_.lanes.end(), name);
            if (found == figure_.lanes.end()) continue;
            const auto at = static_cast<std::size_t>(found - figure_.lanes.begin());
            std::pair<std::size_t, std::string> key{at, std::string(event.text("cut"))};
            if (event.kind == kind::network_healed) {
                close(key, open_cuts_, event);
                continue;
            }
            open_cuts_.try_emplace(std::move(key), FigureSpan{FigureSpan::Kind::cut_off, at, event.at, event.at, false,
                                                              at, cut->words(), std::nullopt, event.sequence});
        }
    }

    static std::string grant_identity(const TraceEvent& event) {
        const std::string holder = fmt::format("{}", event.node_ref("holder").index);
        if (event.has("value")) return holder + "/" + std::string(event.text("value"));
        if (event.has("token")) return holder + "#" + fmt::format("{}", event.integer("token"));
        return holder;
    }

    template <class Key>
    void close(const Key& key, std::map<Key, FigureSpan>& open, const TraceEvent& event) {
        auto found = open.find(key);
        if (found == open.end()) return;
        found->second.to = event.at;
        keep(std::move(found->second), event.sequence);
        open.erase(found);
    }

    // A crash ends what the node believed and what it granted; its pause is moot.
    void close_node(std::size_t node_lane, const TraceEvent& crash) {
        for (auto* open : {&open_beliefs_, &open_grants_}) {
            for (auto it = open->begin(); it != open->end();) {
                if (it->first.first != node_lane) {
                    ++it;
                    continue;
                }
                it->second.to = crash.at;
                keep(std::move(it->second), crash.sequence);
                it = open->erase(it);
            }
        }
        close(node_lane, open_pauses_, crash);
    }

    void close_all_for_holder(std::size_t store_lane, std::size_t holder, const TraceEvent& ended) {
        for (auto it = open_grants_.begin(); it != open_grants_.end();) {
            if (it->first.first != store_lane || it->second.holder != holder) {
                ++it;
                continue;
            }
            it->second.to = ended.at;
            keep(std::move(it->second), ended.sequence);
            it = open_grants_.erase(it);
        }
    }

    void close_open_spans() {
        auto finish = [this](auto& open) {
            for (auto& [_, span] : open) {
                span.to = std::max(figure_.end, span.from);
                span.open = true;
                keep(std::move(span), std::nullopt);
            }
            open.clear();
        };
        finish(open_beliefs_);
        finish(open_grants_);
        finish(open_pauses_);
        finish(open_downs_);
        finish(open_cuts_);
        std::stable_sort(figure_.spans.begin(), figure_.spans.end(),
                         [](const FigureSpan& a, const FigureSpan& b) { return a.from < b.from; });
    }

    const DesignOutcome& design_;
    const Trace& trace_;
    std::size_t max_steps_;
    Lookahead ahead_;
    SequenceFigure figure_;
    std::vector<std::size_t> lane_of_node_;
    std::set<std::int64_t> customers_;
    std::set<std::int64_t> related_requests_;
    std::map<std::int64_t, std::uint64_t> sent_as_;  // a drawn message's id → the trace event that sent it
    struct RetryCandidate {
        std::size_t step = 0;
        std::size_t client = 0;  // the lane of the client that was refused
        bool reply = false;      // the store's "no" rather than the client's request
    };
    std::vector<RetryCandidate> retry_candidates_;
    std::map<std::size_t, std::vector<Instant>> acquired_at_;
    std::map<std::pair<std::size_t, std::string>, FigureSpan> open_beliefs_;
    std::map<std::pair<std::size_t, std::string>, FigureSpan> open_grants_;
    std::map<std::size_t, FigureSpan> open_pauses_;
    std::map<std::size_t, FigureSpan> open_downs_;
    std::map<std::pair<std::size_t, std::string>, FigureSpan> open_cuts_;  // (lane, the cut's words)
};

}  // namespace

SequenceFigure build_sequence_figure(const DesignOutcome& design, std::size_t max_steps) {
    return FigureBuilder(design, max_steps).build();
}

}  // namespace locksim
