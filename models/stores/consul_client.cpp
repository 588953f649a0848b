#include "models/stores/consul_client.hpp"

#include <fmt/format.h>

#include "models/stores/client_profiles.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {

namespace {

// A session's UUID as a diagram has room for: its first group, as `consul members`
// abbreviates node IDs.
std::string abbreviated(const std::string& session_id) {
    return session_id.substr(0, 8) + "…";
}

}  // namespace
namespace {

// What the HTTP API answers an acquire with: a JSON true or false, or an error.
std::string acquire_reply_label(const ConsulAcquireReply& reply) {
    using Outcome = ConsulAcquireReply::Outcome;
    switch (reply.outcome) {
        case Outcome::acquired: return fmt::format("true (LockIndex {})", reply.lock_index);
        case Outcome::held: return "false";
        case Outcome::lock_delay: return "false (lock-delay)";
        case Outcome::invalid_session: return "500 invalid session";
    }
    return "";
}

}  // namespace

ConsulLockClient::ConsulLockClient(Host host, Network& network, NodeId store_node, ConsulServer& store,
                                   const LockSpec& spec)
    : PollingLockClient(host, spec.retry), network_(network), store_node_(store_node), store_(store), spec_(spec) {}

void ConsulLockClient::forget_session(const std::string& id) {
    if (session_ && session_->id == id) session_.reset();
}

Task<std::optional<bool>> ConsulLockClient::renew(std::string id) {
    const Instant sent = host_.monotonic_now();
    auto request = call(
        network_, host_, store_node_, fmt::format("PUT /v1/session/renew/{}", abbreviated(id)),
        [store = &store_, id] {
            const bool found = store->renew_session(id);
            return Answer<bool>{found, found ? "200" : "404 session not found"};
        },
        spec_.request_timeout);
    const auto found = co_await request;
    if (found && *found && session_ && session_->id == id) session_->renewal_sent = sent;
    if (found && !*found) forget_session(id);
    co_return found;
}

Task<bool> ConsulLockClient::keep_session() {
    // api.Lock renews its session from the moment it creates it, waiting or holding; this
    // client renews it as often as the holder renews its lease.
    const Duration renew_every = client_of(spec_).renew_interval(spec_);
    if (session_ && host_.monotonic_now() - session_->renewal_sent < renew_every) co_return true;
    if (session_) {
        const auto renewed = co_await renew(session_->id);
        if (!renewed) co_return false;
        if (*renewed) co_return true;
    }
    const Instant sent = host_.monotonic_now();
    auto request = call(
        network_, host_, store_node_,
        fmt::format(R"(PUT /v1/session/create {{"TTL": "{}", "LockDelay": "{}"}})", spec_.ttl, spec_.consul.lock_delay),
        [store = &store_, client = host_.id(), ttl = spec_.ttl, lock_delay = spec_.consul.lock_delay] {
            std::string id = store->create_session(client, ttl, lock_delay);
            std::string label = fmt::format(R"({{"ID": "{}"}})", abbreviated(id));
            return Answer<std::string>{std::move(id), std::move(label)};
        },
        spec_.request_timeout);
    const auto id = co_await request;
    if (!id) co_return false;  // a session created without our hearing of it runs out unrenewed
    session_ = OwnSession{*id, sent};
    co_return true;
}

Task<std::optional<Lease>> ConsulLockClient::try_acquire() {
    if (!co_await keep_session()) co_return std::nullopt;
    const OwnSession session = *session_;
    auto request = call(
        network_, host_, store_node_, fmt::format("PUT /v1/kv/{}?acquire={}", spec_.key, abbreviated(session.id)),
        [store = &store_, key = spec_.key, id = session.id, client = host_.id()] {
            const ConsulAcquireReply reply = store->acquire(key, id, client);
            return Answer<ConsulAcquireReply>{reply, acquire_reply_label(reply)};
        },
        spec_.request_timeout);
    const auto reply = co_await request;
    if (!reply) co_return std::nullopt;
    switch (reply->outcome) {
        case ConsulAcquireReply::Outcome::acquired: co_return Lease{spec_.key, session.id, reply->lock_index, never};
        case ConsulAcquireReply::Outcome::invalid_session:
            forget_session(session.id);  // the next attempt creates another
            co_return std::nullopt;
        case ConsulAcquireReply::Outcome::held:
        case ConsulAcquireReply::Outcome::lock_delay: co_return std::nullopt;
    }
    co_return std::nullopt;
}

Task<ExtendResult> ConsulLockClient::extend(const Lease& lease) {
    const auto renewed = co_await renew(lease.value);
    if (!renewed) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
    // 404: the server invalidated the session, and released the lock with it.
    if (!*renewed)
        co_return ExtendResult{
            ExtendResult::Outcome::refused, {}, "renewal answered 404: the server had invalidated the session"};
    co_return ExtendResult{ExtendResult::Outcome::extended, never};
}

namespace {

Task<Answer<ConsulKeyState>> answer_when_changed(ConsulServer* store, std::string key, std::int64_t index) {
    ConsulKeyState state = co_await store->read_when_changed(std::move(key), index);
    std::string label = state.session.empty()
                            ? fmt::format("no session (index {})", state.modify_index)
                            : fmt::format("session {} (index {})", abbreviated(state.session), state.modify_index);
    co_return Answer<ConsulKeyState>{std::move(state), std::move(label)};
}

}  // namespace

// api.Lock's monitorLock: read the key, and again each time it changes, for as long as it
// carries our session. Its first error ends the lock (no MonitorRetries): a query that gets
// no answer within its wait and the request timeout counts as one.
Task<std::string> ConsulLockClient::watch_for_loss(const Lease& lease) {
    std::int64_t index = 0;  // the first read answers at once
    for (;;) {
        auto request = call(
            network_, host_, store_node_, fmt::format("GET /v1/kv/{}?index={}&consistent", lease.key, index),
            [store = &store_, key = lease.key, index] { return answer_when_changed(store, key, index); },
            consul_blocking_query_wait + spec_.request_timeout);
        const auto state = co_await request;
        if (!state && request.was_reset())
            co_return "lock lost: its watch's connection was reset (the server's process had died)";
        if (!state)
            co_return fmt::format(
                "lock lost: its watch on the key got no answer within the query's {} wait and {} request timeout",
                consul_blocking_query_wait, spec_.request_timeout);
        if (state->session != lease.value) co_return "lock lost: its watch saw the key no longer carry its session";
        index = state->modify_index;
    }
}

Task<void> ConsulLockClient::release(const Lease& lease) {
    auto releasing = call(
        network_, host_, store_node_, fmt::format("PUT /v1/kv/{}?release={}", lease.key, abbreviated(lease.value)),
        [store = &store_, key = lease.key, id = lease.value, by = host_.id()] {
            const bool released = store->release(key, id, by);
            return Answer<bool>{released, released ? "true" : "false"};
        },
        spec_.request_timeout);
    const auto released = co_await releasing;
    forget_session(lease.value);
    // Destroying a session that still holds the key would start its lock-delay: without
    // word that the key was let go, leave the session to run out instead.
    if (!released) co_return;
    auto destroying = call(
        network_, host_, store_node_, fmt::format("PUT /v1/session/destroy/{}", abbreviated(lease.value)),
        [store = &store_, id = lease.value, by = host_.id()] {
            return Answer<bool>{store->destroy_session(id, by), "true"};
        },
        spec_.request_timeout);
    co_await destroying;
}

std::unique_ptr<StoreDeployment> deploy_consul(const StoreContext& context) {
    return std::make_unique<SingleNodeDeployment<ConsulServer, ConsulLockClient>>(context);
}

}  // namespace locksim
