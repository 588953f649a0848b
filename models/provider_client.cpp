#include "models/provider_client.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "models/trace_kinds.hpp"
#include "sim/rpc.hpp"

namespace locksim {

ProviderClient::ProviderClient(Host host, Network& network, NodeId provider_node, PaymentProvider* provider,
                               std::string period, ChargeRequestSpec request, const Vocabulary& words)
    : host_(host),
      network_(network),
      provider_node_(provider_node),
      provider_(provider),
      period_(std::move(period)),
      request_(request),
      jitter_(host.random_stream("charge-retry")),
      words_(words) {}

Task<ChargeReceipt> ProviderClient::charge(std::int64_t customer, std::optional<std::string> key,
                                           std::optional<std::int64_t> token, std::optional<ReadVersion> if_version,
                                           EffectStep step) {
    for (int retry = 0;; ++retry) {
        const Instant sent = host_.engine().now();
        auto sending = attempt(customer, key, token, if_version, step, retry);
        const ChargeAttempt outcome = co_await sending;
        if (outcome.receipt) co_return *outcome.receipt;
        const bool again = retry < request_.retries;
        FieldList fields{{"customer", customer},
                         {"period", period_},
                         {"attempt", std::int64_t{retry + 1}},
                         {"timeout", host_.engine().now() - sent},
                         {"retrying", again}};
        if (outcome.reset) fields.push_back({"reset", true});
        host_.record(trace_kind::job_charge_timed_out, fields);
        if (!again)
            throw ChargeTimedOut(fmt::format("the {} did not answer {} {} request{} for {} {}{}", words_.provider,
                                             retry + 1, words_.effect, retry == 0 ? "" : "s", words_.item, customer,
                                             outcome.reset ? " (the connection was reset)" : ""),
                                 customer);
        co_await host_.sleep(request_.backoff * (std::int64_t{1} << retry) +
                             jitter_.uniform(Duration{}, request_.jitter));
    }
}

Task<ProviderClient::ChargeAttempt> ProviderClient::attempt(std::int64_t customer,
                                                            const std::optional<std::string>& key,
                                                            std::optional<std::int64_t> token,
                                                            std::optional<ReadVersion> if_version,
                                                            const EffectStep& step, int retry) {
    auto label =
        MessageText::made_by([words = &words_, customer, key, token, if_version, step_name = step.name, retry] {
            std::string text = fmt::format("{} {} {}", words->effect, words->item, customer);
            if (!step_name.empty()) text += ": " + step_name;
            if (key) text += fmt::format(" (Idempotency-Key: {})", *key);
            if (token) text += fmt::format(" (Fencing-Token: {})", *token);
            if (if_version) text += fmt::format(" (If-Match: version {})", if_version->version);
            if (retry > 0) text += fmt::format(" (retry {})", retry);
            return text;
        });
    std::vector<OwnedField> about{{"customer", customer}};
    if (key) about.push_back({"key", *key});
    if (token) about.push_back({"token", *token});
    const std::int64_t sent = provider_->requests().sent();
    auto request = call(
        network_, host_, provider_node_, MessageText(std::move(label), std::move(about)),
        [provider = provider_, sent, customer, period = period_, key, token, if_version, client = host_.id(),
         words = &words_, step] {
            provider->requests().arrived(sent);
            const ChargeReceipt r = provider->charge(customer, period, key, token, if_version, client, step);
            if (r.refused) return Answer<ChargeReceipt>{r, "409 Conflict: a newer fencing token was seen"};
            if (r.changed_since_read)
                return Answer<ChargeReceipt>{r, MessageText::made_by([words, customer] {
                                                 return fmt::format("412 Precondition Failed: {} of {} {} changed",
                                                                    words->record, words->item, customer);
                                             })};
            return Answer<ChargeReceipt>{r, MessageText::made_by([words, replayed = r.replayed, id = r.charge_id] {
                                             return fmt::format("{}{} ({} {})", replayed ? "already " : "",
                                                                words->effected(), words->effect, id);
                                         })};
        },
        request_.timeout, retry == 0 ? Connection::shared : request_.retry_connection);
    std::optional<ChargeReceipt> receipt = co_await request;
    co_return ChargeAttempt{std::move(receipt), request.was_reset()};
}

Task<ReadVersion> ProviderClient::read_version(std::int64_t customer) {
    auto label = MessageText::made_by(
        [words = &words_, customer] { return fmt::format("GET {} of {} {}", words->record, words->item, customer); });
    auto request = call(
        network_, host_, provider_node_, MessageText(std::move(label), {{"customer", customer}}),
        [provider = provider_, customer, period = period_, client = host_.id()] {
            const ReadVersion read = provider->read_version(customer, period, client);
            return Answer<ReadVersion>{
                read, MessageText::made_by([version = read.version] { return fmt::format("version {}", version); })};
        },
        request_.timeout);
    std::optional<ReadVersion> read = co_await request;
    if (!read)
        throw ChargeTimedOut(
            fmt::format("the {} did not answer the read of {} {}'s {}{}", words_.provider, words_.item, customer,
                        words_.record, request.was_reset() ? " (the connection was reset)" : ""),
            customer);
    co_return *read;
}

}  // namespace locksim
