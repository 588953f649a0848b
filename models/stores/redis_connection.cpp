#include "models/stores/redis_connection.hpp"

#include <fmt/format.h>

#include "sim/rpc.hpp"

namespace locksim {
namespace {
std::int64_t whole_milliseconds(Duration d) {
    return d.ns / 1'000'000;
}
}  // namespace

Task<std::optional<bool>> RedisConnection::set_if_absent(std::string key, std::string value,
                                                         std::optional<Duration> ttl) const {
    MessageText label = ttl ? deferred_label("SET {} {} NX PX {}", key, value, whole_milliseconds(*ttl))
                            : deferred_label("SET {} {} NX", key, value);
    auto request = call(
        *network_, client_, node_, std::move(label),
        [server = server_, key, value, ttl, client = client_.id()] {
            const bool ok = server->set_if_absent(key, value, ttl, client);
            return Answer<bool>{ok, ok ? "OK" : "(nil)"};
        },
        timeout_);
    co_return co_await request;
}

Task<std::optional<RedisGrant>> RedisConnection::grant(std::string key, std::string value, std::optional<Duration> ttl,
                                                       std::optional<std::string> token_counter) const {
    if (!token_counter) {
        const auto granted = co_await set_if_absent(std::move(key), std::move(value), ttl);
        if (!granted || !*granted) co_return std::nullopt;
        co_return RedisGrant{};
    }
    const std::string set = ttl ? fmt::format("SET {} {} NX PX {}", key, value, whole_milliseconds(*ttl))
                                : fmt::format("SET {} {} NX", key, value);
    auto request = call(
        *network_, client_, node_, fmt::format("EVAL lock script: {}, then INCR {}", set, *token_counter),
        [server = server_, key, value, ttl, counter = *token_counter, client = client_.id()] {
            const auto token = server->set_if_absent_with_token(key, value, ttl, counter, client);
            return Answer<std::optional<std::int64_t>>{token, token ? deferred_label("{}", *token) : "(nil)"};
        },
        timeout_);
    const auto reply = co_await request;
    if (!reply || !*reply) co_return std::nullopt;
    co_return RedisGrant{*reply};
}

Task<std::optional<int>> RedisConnection::extend_if_equals(std::string key, std::string value, Duration ttl) const {
    auto request = call(
        *network_, client_, node_,
        deferred_label("SET {} {} IFEQ {} PX {}", key, value, value, whole_milliseconds(ttl)),
        [server = server_, key, value, ttl] {
            const int result = server->extend_if_equals(key, value, ttl);
            return Answer<int>{result, result == 1 ? "OK" : "(nil)"};
        },
        timeout_);
    co_return co_await request;
}

Task<std::optional<int>> RedisConnection::release(std::string key, std::string value, bool plain) const {
    auto request = call(
        *network_, client_, node_,
        plain ? deferred_label("DEL {}", key) : deferred_label("DELEX {} IFEQ {}", key, value),
        [server = server_, key, value, plain, client = client_.id()] {
            const int deleted = plain ? server->del(key, client) : server->delete_if_equals(key, value, client);
            return Answer<int>{deleted, deferred_label("{}", deleted)};
        },
        timeout_);
    co_return co_await request;
}

}  // namespace locksim
