#include "models/provider_client.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "sim/rpc.hpp"

namespace locksim {

ProviderClient::ProviderClient(Host host, Network& network, NodeId provider_node, PaymentProvider* provider,
                               std::string period)
    : host_(host), network_(network), provider_node_(provider_node), provider_(provider), period_(std::move(period)) {}

Task<ChargeReceipt> ProviderClient::charge(std::int64_t customer, std::optional<std::string> key,
                                           std::optional<std::int64_t> token) {
    std::string label = fmt::format("charge customer {}", customer);
    if (key) label += fmt::format(" (Idempotency-Key: {})", *key);
    if (token) label += fmt::format(" (Fencing-Token: {})", *token);
    std::vector<Field> about{{"customer", customer}};
    if (key) about.push_back({"key", *key});
    if (token) about.push_back({"token", *token});
    auto request =
        call(network_, host_, provider_node_, MessageText(label, std::move(about)),
             [provider = provider_, customer, period = period_, key, token, client = host_.id()] {
                 const ChargeReceipt r = provider->charge(customer, period, key, token, client);
                 if (r.refused) return Answer<ChargeReceipt>{r, "409 Conflict: a newer fencing token was seen"};
                 return Answer<ChargeReceipt>{r, r.replayed ? fmt::format("already charged (charge {})", r.charge_id)
                                                            : fmt::format("charged (charge {})", r.charge_id)};
             });
    auto receipt = co_await request;
    co_return *receipt;  // no timeout, and the foundation's network loses nothing
}

}  // namespace locksim
