// A violation explained in one sentence that names its cause: not only "customer 42
// charged a second time" but which write broke the rule, when its sender's lease had
// ended, and the fault or store event that ended it: a pause, a clock jump, a failover, a
// restart that loaded nothing, a partition, a second Redlock majority. The cause always
// follows " because ".
//
// The offending write is the one whose sender no longer held the lock when it landed. That
// is usually the flagged one (the paused holder's late charge), but not always:
//  1. server-1 is cut off from the store and keeps working past its lease;
//  2. the store grants the lock to server-2;
//  3. server-1 charges customer 48, the first charge, so nothing is flagged yet;
//  4. server-2, the legitimate holder, charges customer 48: the second charge is flagged.
// Blaming server-2 would be wrong; the sentence names server-1's charge.
#include "reports/figure/violation_story.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "reports/figure/fault_causes.hpp"
#include "reports/figure/loss_causes.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// One write at a resource: who sent it, and when it left.
struct Landed {
    const TraceEvent* event = nullptr;
    std::size_t writer = 0;    // its sender's lane
    std::size_t resource = 0;  // the lane it landed on
    Instant sent;
    bool copy = false;  // the network delivered this request a second time
};

// What follows the checker's sentence, and the earlier write it blames when that write,
// not the flagged one, broke the rule: the report draws the mark there.
struct Told {
    Told(std::string words, std::optional<std::uint64_t> earlier = std::nullopt)  // NOLINT: implicit on purpose
        : text(std::move(words)), blamed(earlier) {}
    std::string text;
    std::optional<std::uint64_t> blamed;  // the blamed write's trace event
    CitedMessages cited = {};             // the messages `text` names, by their message.sent
};

class ViolationTeller {
public:
    ViolationTeller(const SequenceFigure& figure, const Trace& trace)
        : figure_(figure), trace_(trace), history_(figure), words_(vocabulary_of(trace)) {
        for (const auto& event : trace.events())
            if (event.kind == trace_kind::message_sent) sent_[event.integer("id")] = &event;
    }

    // What follows the checker's sentence: ": server-1 sent it at …, because …", or
    // " because server-1 had charged it first …" when an earlier write was the offence.
    std::optional<Told> explain(const TraceEvent& flagged, std::optional<Metric> metric) const {
        if (metric)
            if (auto lost = cause_of_loss(*metric, flagged, trace_)) return Told(std::move(*lost));
        CitedMessages cited;
        auto told = told_of(flagged, cited);
        if (told) told->cited = std::move(cited);
        return told;
    }

private:
    std::optional<Told> told_of(const TraceEvent& flagged, CitedMessages& cited) const {
        // A replay is flagged when its key returned another customer's or period's charge:
        // the key's doing, whoever held the lock. Who sent it, and where the key was first used.
        if (flagged.kind == trace_kind::provider_replayed) {
            const auto write = landed(flagged);
            const std::string sender =
                write ? fmt::format("{} sent it at {}; ", figure_.lanes[write->writer], format_seconds(write->sent))
                      : std::string();
            return fmt::format(": {}{}", sender, key_seen_before(trace_, words_, flagged));
        }
        const auto write = landed(flagged);
        if (!write) return std::nullopt;
        const std::string& writer = figure_.lanes[write->writer];
        const LeaseStanding standing = history_.standing(write->writer, flagged.at);
        const std::string sent = format_seconds(write->sent);
        if (write->copy)
            return fmt::format(": {} sent it once, at {}, because the network delivered a second copy of it to {}",
                               writer, sent, figure_.lanes[write->resource]);
        if (const auto retried = retried_charge(flagged, *write))
            return fmt::format(
                ": {} sent it at {}, because its {} request got no reply in {} at {} and it sent the same {} again "
                "(no idempotency key tells the {} it is a retry)",
                writer, sent, words_.effect, format_duration_rounded(retried->duration("timeout")),
                format_seconds(retried->at), words_.effect, words_.provider);
        switch (standing.kind) {
            case LeaseStanding::Kind::no_lock:
                return fmt::format(": {} sent it at {}, because this design has no lock: {} all ran the job", writer,
                                   sent, joined_names(servers()));
            case LeaseStanding::Kind::own_memory:
                return fmt::format(
                    ": {} sent it at {}, because the lock lives in each server's own memory: {} each held it at once",
                    writer, sent, joined_names(self_granted()));
            case LeaseStanding::Kind::lost: {
                std::string story = ": " + offence(*write, standing, cited);
                if (flagged.kind == trace_kind::lock_released && flagged.flag("plain"))
                    story += "; a plain delete does not check whose lock it removes";
                return story;
            }
            case LeaseStanding::Kind::held:
            case LeaseStanding::Kind::never_held: break;
        }
        if (const TraceEvent* shared = shared_session_grant(flagged))
            return fmt::format(
                ": {} sent it at {}, because the database granted the lock to {} at {} on session {}, which "
                "already held it: a transaction pooler lends one server session to many clients, and the "
                "session's lock answers them all",
                writer, sent, trace_.node_name(shared->node_ref("holder")), format_seconds(shared->at),
                shared->integer("session"));
        if (auto earlier = earlier_offence(flagged, standing, cited)) return earlier;
        if (standing.kind == LeaseStanding::Kind::never_held)
            return fmt::format(": {} sent it at {}, because the store had never granted it the lock", writer, sent);
        return fmt::format(": {} sent it at {}", writer, sent);
    }

    // The last grant before `flagged` of a lock on a database session that an earlier
    // grant had given another client (a pooler lent the session to both).
    const TraceEvent* shared_session_grant(const TraceEvent& flagged) const {
        for (std::size_t i = flagged.sequence; i-- > 0;) {
            const TraceEvent& later = trace_.events()[i];
            if (later.kind != trace_kind::lock_granted || !later.has("session")) continue;
            for (std::size_t j = i; j-- > 0;) {
                const TraceEvent& earlier = trace_.events()[j];
                if (earlier.kind == trace_kind::lock_granted && earlier.has("session") &&
                    earlier.integer("session") == later.integer("session") &&
                    earlier.node_ref("holder") != later.node_ref("holder"))
                    return &later;
            }
        }
        return nullptr;
    }

    // A charge the writer's client had given up waiting for, of the same customer, before
    // this one landed: a retry (or the request it retried) charged twice.
    const TraceEvent* retried_charge(const TraceEvent& flagged, const Landed& write) const {
        if (flagged.kind != trace_kind::provider_charged) return nullptr;
        for (std::size_t i = flagged.sequence; i-- > 0;) {
            const TraceEvent& event = trace_.events()[i];
            if (event.kind == trace_kind::job_charge_timed_out &&
                event.integer("customer") == flagged.integer("customer") &&
                lane_named(figure_, trace_.node_name(event.node)) == write.writer)
                return &event;
        }
        return nullptr;
    }

    // The request behind `event`: the last message its node handled from the writer.
    std::optional<Landed> landed(const TraceEvent& event) const {
        std::string writer;
        for (const auto field : {"by", "client"})
            if (event.has(field) && std::holds_alternative<NodeId>(*event.find(field)))
                writer = trace_.node_name(event.node_ref(field));
        const auto resource = event.node.valid() ? lane_named(figure_, trace_.node_name(event.node)) : std::nullopt;
        if (!resource) return std::nullopt;
        Instant sent = event.at;
        bool copy = false;
        for (std::size_t i = event.sequence; i-- > 0;) {
            const TraceEvent& delivered = trace_.events()[i];
            if (delivered.kind != trace_kind::message_delivered || delivered.node != event.node) continue;
            const std::string& from = trace_.node_name(delivered.node_ref("from"));
            if (!writer.empty() && from != writer) continue;
            writer = from;
            if (const auto found = sent_.find(delivered.integer("id")); found != sent_.end()) sent = found->second->at;
            copy = delivered.flag("duplicate");
            break;
        }
        const auto lane = lane_named(figure_, writer);
        if (!lane) return std::nullopt;
        return Landed{&event, *lane, *resource, sent, copy};
    }

    // "server-1 sent it at 46.000s, 15.999s after its lease had ended at the store
    // (30.001s), because a gc pause froze it …"
    std::string offence(const Landed& write, const LeaseStanding& lost, CitedMessages& cited) const {
        const std::string& writer = figure_.lanes[write.writer];
        const std::string ended = fmt::format("{} ({})", loss_phrase(trace_, lost), format_seconds(lost.since));
        if (history_.standing(write.writer, write.sent).kind == LeaseStanding::Kind::held) {
            // It left in time and arrived late.
            const std::string why = delay_cause(figure_, trace_, write.writer, write.resource, write.sent, cited)
                                        .value_or(fmt::format("the network took {} to deliver it",
                                                              format_duration_rounded(write.event->at - write.sent)));
            return fmt::format("{} sent it at {} while it held the lock, but it landed at {}, {} after {}, because {}",
                               writer, format_seconds(write.sent), format_seconds(write.event->at),
                               format_duration_rounded(write.event->at - lost.since), ended, why);
        }
        return fmt::format("{} sent it at {}, {} after {}, because {}", writer, format_seconds(write.sent),
                           format_duration_rounded(write.sent - lost.since), ended,
                           loss_cause(figure_, trace_, write.writer, lost, write.sent, cited));
    }

    // The flagged write's sender held the lock: was an earlier write of the same thing sent
    // by a holder that no longer did? Then that one is the offence.
    std::optional<Told> earlier_offence(const TraceEvent& flagged, const LeaseStanding& legitimate,
                                        CitedMessages& cited) const {
        for (std::size_t i = flagged.sequence; i-- > 0;) {
            const TraceEvent& event = trace_.events()[i];
            if (!same_thing(event, flagged)) continue;
            const auto write = landed(event);
            if (!write) continue;
            const LeaseStanding lost = history_.standing(write->writer, event.at);
            if (lost.kind != LeaseStanding::Kind::lost) continue;
            const std::string& writer = figure_.lanes[write->writer];
            std::string cause;
            if (history_.standing(write->writer, write->sent).kind == LeaseStanding::Kind::held)
                cause = fmt::format("it sent it at {} while it held the lock, but {}", format_seconds(write->sent),
                                    delay_cause(figure_, trace_, write->writer, write->resource, write->sent, cited)
                                        .value_or("the network delivered it late"));
            else
                cause = loss_cause(figure_, trace_, write->writer, lost, write->sent, cited);
            std::string story =
                fmt::format(" because {} had {} first, at {}{}, {} after {} ({}): {}", writer, what_it_did(event),
                            format_seconds(event.at), which_one(event), format_duration_rounded(event.at - lost.since),
                            loss_phrase(trace_, lost), format_seconds(lost.since), cause);
            const bool second_majority = lost.store_nodes > 1 && lost.nodes_held > 0;  // already told
            // "Later" only when it was: the legitimate holder was often granted the lock
            // before the stale charge landed, and its times must read in their order.
            if (legitimate.kind == LeaseStanding::Kind::held && !second_majority) {
                const std::string& holder = figure_.lanes[legitimate.grants.front()->holder];
                story +=
                    legitimate.since > event.at
                        ? fmt::format("; {} was legitimately granted the lock later, at {}{}", holder,
                                      format_seconds(legitimate.since), same_token(lost, legitimate))
                        : fmt::format("; {} had been legitimately granted the lock at {}, {} before that {}{}", holder,
                                      format_seconds(legitimate.since),
                                      format_duration_rounded(event.at - legitimate.since),
                                      event.kind == trace_kind::provider_charged ? words_.effect : std::string("build"),
                                      same_token(lost, legitimate));
            }
            return Told{story, event.sequence};
        }
        return unfinished_work(flagged, legitimate, cited);
    }

    // Both charges were sent under the lock, but the first holder lost it before it
    // recorded its charge, so the next holder found the customer still due.
    std::optional<std::string> unfinished_work(const TraceEvent& flagged, const LeaseStanding& legitimate,
                                               CitedMessages& cited) const {
        const auto second = landed(flagged);
        if (!second || legitimate.kind != LeaseStanding::Kind::held) return std::nullopt;
        for (std::size_t i = flagged.sequence; i-- > 0;) {
            const TraceEvent& event = trace_.events()[i];
            if (!same_thing(event, flagged)) continue;
            const auto first = landed(event);
            if (!first || first->writer == second->writer) continue;
            const LeaseStanding lost = history_.standing(first->writer, flagged.at);
            if (lost.kind != LeaseStanding::Kind::lost || lost.since <= event.at) continue;
            return fmt::format(
                " because {} had {} first, at {}{}, while it held the lock, but {} ({}){}: {}; {} was legitimately "
                "granted the lock later, at {}",
                figure_.lanes[first->writer], what_it_did(event), format_seconds(event.at), which_one(event),
                loss_phrase(trace_, lost), format_seconds(lost.since), recorded(event, first->writer, flagged.at),
                loss_cause(figure_, trace_, first->writer, lost, std::nullopt, cited),
                figure_.lanes[legitimate.grants.front()->holder], format_seconds(legitimate.since));
        }
        return std::nullopt;
    }

    // " before it recorded it", when the writer wrote no row of that charge before `by`.
    std::string recorded(const TraceEvent& charge, std::size_t writer, Instant by) const {
        if (charge.kind != trace_kind::provider_charged) return "";
        for (std::size_t i = charge.sequence; i < trace_.events().size() && trace_.events()[i].at <= by; ++i) {
            const TraceEvent& event = trace_.events()[i];
            if (event.kind == trace_kind::db_write && event.integer("rows") > 0 && event.text("status") == "charged" &&
                event.integer("customer") == charge.integer("customer") &&
                event.text("period") == charge.text("period") &&
                trace_.node_name(event.node_ref("client")) == figure_.lanes[writer])
                return "";
        }
        return " before it recorded it";
    }

    // Two writes of what may happen only once: a charge of one customer and period, a
    // build of one period's index.
    static bool same_thing(const TraceEvent& event, const TraceEvent& flagged) {
        if (event.kind != flagged.kind) return false;
        if (event.kind == trace_kind::provider_charged)
            return event.integer("customer") == flagged.integer("customer") &&
                   event.text("period") == flagged.text("period");
        if (event.kind == trace_kind::index_built) return event.text("period") == flagged.text("period");
        return false;
    }

    std::string what_it_did(const TraceEvent& event) const {
        return event.kind == trace_kind::provider_charged ? words_.effected() + " it" : std::string("built it");
    }

    // " (charge 8)"
    std::string which_one(const TraceEvent& event) const {
        if (event.kind != trace_kind::provider_charged) return "";
        return fmt::format(" ({} {})", words_.effect, event.integer("charge"));
    }

    // ", with the same token 1": a fence could not have told the two holders apart.
    std::string same_token(const LeaseStanding& lost, const LeaseStanding& legitimate) const {
        const TraceEvent& before = trace_.events()[lost.grants.front()->opened_by];
        const TraceEvent& after = trace_.events()[legitimate.grants.front()->opened_by];
        if (!before.has("token") || !after.has("token") || before.integer("token") != after.integer("token")) return "";
        return fmt::format(", with the same token {}", after.integer("token"));
    }

    std::vector<std::string> servers() const {
        std::vector<std::string> names;
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane)
            if (figure_.is_server[lane]) names.push_back(figure_.lanes[lane]);
        return names;
    }

    std::vector<std::string> self_granted() const {
        std::vector<std::string> names;
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane)
            for (const auto& span : figure_.spans)
                if (span.kind == FigureSpan::Kind::granted && span.lane == lane && span.holder == lane) {
                    names.push_back(figure_.lanes[lane]);
                    break;
                }
        return names;
    }

    const SequenceFigure& figure_;
    const Trace& trace_;
    LockHistory history_;
    Vocabulary words_;
    std::map<std::int64_t, const TraceEvent*> sent_;  // message id → its message.sent
};

}  // namespace

void explain_violations(SequenceFigure& figure, const Trace& trace) {
    const ViolationTeller teller(figure, trace);
    std::vector<std::pair<std::size_t, std::uint64_t>> blamed;  // (flagged step, the earlier write's event)
    for (std::size_t s = 0; s < figure.steps.size(); ++s) {
        FigureStep& step = figure.steps[s];
        if (step.tone != EventTone::violation || step.explanation.empty()) continue;
        if (step.sequence >= trace.events().size()) continue;
        if (auto told = teller.explain(trace.events()[step.sequence], step.flagged_as)) {
            step.explanation += told->text;
            step.cites = told->cited;
            if (told->blamed) blamed.emplace_back(s, *told->blamed);
        }
    }
    // The mark goes where the sentence points: on the stale holder's earlier write, while
    // the legitimate holder's write that the checker flagged is drawn as the plain step it was.
    for (const auto& [flagged, earlier] : blamed) {
        const auto found = std::find_if(figure.steps.begin(), figure.steps.end(),
                                        [earlier](const FigureStep& step) { return step.sequence == earlier; });
        if (found == figure.steps.end() || found->tone == EventTone::violation) continue;
        found->tone = EventTone::violation;
        found->explanation = std::move(figure.steps[flagged].explanation);
        found->cites = std::move(figure.steps[flagged].cites);
        figure.steps[flagged].tone = EventTone::normal;
        figure.steps[flagged].explanation.clear();
        figure.steps[flagged].cites.clear();
    }
}

}  // namespace locksim
