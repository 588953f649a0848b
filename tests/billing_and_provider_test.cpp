// models/billing_database.hpp and models/payment_provider.hpp: the resources the lock
// protects. The database compares fencing tokens; the provider only honours idempotency keys.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/billing_database.hpp"
#include "models/payment_provider.hpp"
#include "models/trace_kinds.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

const std::string billing_period = "2026-10";

// The billing database with customers 41, 42 and 43 due this period, the payment
// provider, and two job servers. Statements run as events on the resource's node.
struct BillingWorld {
    BillingWorld()
        : engine(1),
          database_node(engine.add_node("billing-db")),
          provider_node(engine.add_node("payments")),
          server_1(engine.add_node("server-1")),
          server_2(engine.add_node("server-2")),
          database(Host(engine, database_node), {41, 42, 43}, {billing_period}),
          provider(Host(engine, provider_node), ProviderSpec{}) {}

    // Runs each statement in its own event, one second apart, on `node`.
    void in_turn(NodeId node, std::vector<std::function<void()>> statements) {
        Duration when = 1_s;
        for (auto& statement : statements) {
            engine.schedule_at(at(when), node, std::move(statement));
            when += 1_s;
        }
        engine.run(at(60_min));
    }

    Engine engine;
    NodeId database_node;
    NodeId provider_node;
    NodeId server_1;
    NodeId server_2;
    BillingDatabase database;
    PaymentProvider provider;
};

}  // namespace

// --- the billing database ---------------------------------------------------------

TEST_CASE("a due renewal reads as due with fence 0") {
    BillingWorld world;
    std::vector<RenewalRow> rows;
    world.in_turn(world.database_node, {[&] { rows.push_back(world.database.read(42, billing_period)); }});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::due);
    CHECK(rows[0].fence == 0);

    const auto reads = events_of(world.engine, trace_kind::db_read);
    REQUIRE(reads.size() == 1);
    CHECK(reads[0]->node == world.database_node);
    CHECK(reads[0]->integer("customer") == 42);
    CHECK(reads[0]->text("period") == billing_period);
    CHECK(reads[0]->text("status") == "due");
    CHECK(reads[0]->integer("fence") == 0);
}

TEST_CASE("a claim with a newer token is accepted and one with an older token is rejected") {
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(world.database_node,
                  {
                      [&] { rows_changed.push_back(world.database.claim(42, billing_period, 33, world.server_1)); },
                      [&] { rows_changed.push_back(world.database.claim(42, billing_period, 34, world.server_1)); },
                      [&] { rows_changed.push_back(world.database.claim(42, billing_period, 33, world.server_1)); },
                      [&] { rows.push_back(world.database.read(42, billing_period)); },
                  });
    CHECK(rows_changed == std::vector<int>{1, 1, 0});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::claimed);
    CHECK(rows[0].fence == 34);

    const auto writes = events_of(world.engine, trace_kind::db_write);
    REQUIRE(writes.size() == 3);
    CHECK(writes[2]->integer("customer") == 42);
    CHECK(writes[2]->text("period") == billing_period);
    CHECK(writes[2]->text("status") == "claimed");
    CHECK(writes[2]->integer("token") == 33);
    CHECK(writes[2]->integer("rows") == 0);
    CHECK(writes[1]->integer("token") == 34);
    CHECK(writes[1]->integer("rows") == 1);
}

TEST_CASE("a claim with the token that already wrote the row is rejected") {
    // fence < token, strictly: the same token claiming twice changes nothing.
    BillingWorld world;
    std::vector<int> rows_changed;
    world.in_turn(world.database_node,
                  {
                      [&] { rows_changed.push_back(world.database.claim(42, billing_period, 33, world.server_1)); },
                      [&] { rows_changed.push_back(world.database.claim(42, billing_period, 33, world.server_1)); },
                  });
    CHECK(rows_changed == std::vector<int>{1, 0});
}

TEST_CASE("a claim on one customer leaves the others alone") {
    BillingWorld world;
    std::vector<RenewalRow> rows;
    world.in_turn(world.database_node, {
                                           [&] { world.database.claim(42, billing_period, 34, world.server_1); },
                                           [&] { rows.push_back(world.database.read(41, billing_period)); },
                                           [&] { rows.push_back(world.database.read(43, billing_period)); },
                                       });
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].status == RenewalStatus::due);
    CHECK(rows[1].status == RenewalStatus::due);
    CHECK(rows[1].fence == 0);
}

TEST_CASE("a statement about a customer or period without a row changes nothing") {
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(
        world.database_node,
        {
            [&] { rows_changed.push_back(world.database.claim(99, billing_period, 33, world.server_1)); },
            [&] { rows_changed.push_back(world.database.claim(42, "2026-11", 33, world.server_1)); },
            [&] {
                rows_changed.push_back(world.database.record_charged(99, billing_period, std::nullopt, world.server_1));
            },
            [&] { rows.push_back(world.database.read(99, billing_period)); },
        });
    CHECK(rows_changed == std::vector<int>{0, 0, 0});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::due);
}

TEST_CASE("a database of a hundred million due rows holds only those written") {
    // 100,000 customers × 1,000 periods: stored up front, the rows would need gigabytes
    // before the first event; this test would end in bad_alloc.
    Engine engine(1);
    const NodeId node = engine.add_node("billing-db");
    const NodeId server = engine.add_node("server-1");
    std::vector<std::int64_t> customers;
    for (std::int64_t c = 1; c <= 100'000; ++c) customers.push_back(c);
    std::vector<std::string> periods;
    for (int p = 0; p < 1000; ++p) periods.push_back("period-" + std::to_string(p));
    BillingDatabase database(Host(engine, node), customers, periods);
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    engine.schedule_at(at(1_s), node, [&] {
        rows.push_back(database.read(77'777, "period-999"));
        rows_changed.push_back(database.claim(77'777, "period-999", 5, server));
        rows_changed.push_back(database.claim(77'777, "period-999", 4, server));   // an older token
        rows_changed.push_back(database.claim(100'001, "period-999", 9, server));  // no such customer
        rows_changed.push_back(database.claim(1, "period-1000", 9, server));       // no such period
        rows.push_back(database.read(77'777, "period-999"));
        rows.push_back(database.read(100'000, "period-0"));
    });
    engine.run(at(1_min));
    CHECK(rows_changed == std::vector<int>{1, 0, 0, 0});
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].status == RenewalStatus::due);
    CHECK(rows[1].status == RenewalStatus::claimed);
    CHECK(rows[1].fence == 5);
    CHECK(rows[2].status == RenewalStatus::due);
}

TEST_CASE("record_charged with a token writes when no newer token has written the row") {
    // fence <= token: the holder that claimed with 34 may record its own charge.
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(
        world.database_node,
        {
            [&] { world.database.claim(42, billing_period, 34, world.server_1); },
            [&] { rows_changed.push_back(world.database.record_charged(42, billing_period, 34, world.server_1)); },
            [&] { rows.push_back(world.database.read(42, billing_period)); },
        });
    CHECK(rows_changed == std::vector<int>{1});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::charged);
    CHECK(rows[0].fence == 34);

    const auto writes = events_of(world.engine, trace_kind::db_write);
    REQUIRE(writes.size() == 2);
    CHECK(writes[1]->text("status") == "charged");
    CHECK(writes[1]->integer("token") == 34);
    CHECK(writes[1]->integer("rows") == 1);
}

TEST_CASE("record_charged with a newer token raises the fence") {
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(
        world.database_node,
        {
            [&] { world.database.claim(42, billing_period, 33, world.server_1); },
            [&] { rows_changed.push_back(world.database.record_charged(42, billing_period, 35, world.server_1)); },
            [&] { rows_changed.push_back(world.database.claim(42, billing_period, 34, world.server_1)); },
            [&] { rows.push_back(world.database.read(42, billing_period)); },
        });
    CHECK(rows_changed == std::vector<int>{1, 0});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::charged);
    CHECK(rows[0].fence == 35);
}

TEST_CASE("record_charged with an older token is rejected") {
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(
        world.database_node,
        {
            [&] { world.database.claim(42, billing_period, 34, world.server_1); },
            [&] { rows_changed.push_back(world.database.record_charged(42, billing_period, 33, world.server_1)); },
            [&] { rows.push_back(world.database.read(42, billing_period)); },
        });
    CHECK(rows_changed == std::vector<int>{0});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::claimed);
    CHECK(rows[0].fence == 34);
}

TEST_CASE("record_charged without a token always writes and leaves the fence alone") {
    BillingWorld world;
    std::vector<int> rows_changed;
    std::vector<RenewalRow> rows;
    world.in_turn(
        world.database_node,
        {
            [&] { world.database.claim(42, billing_period, 34, world.server_1); },
            [&] {
                rows_changed.push_back(world.database.record_charged(42, billing_period, std::nullopt, world.server_1));
            },
            [&] {
                rows_changed.push_back(world.database.record_charged(42, billing_period, std::nullopt, world.server_1));
            },
            [&] { rows.push_back(world.database.read(42, billing_period)); },
        });
    CHECK(rows_changed == std::vector<int>{1, 1});
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].status == RenewalStatus::charged);
    CHECK(rows[0].fence == 34);

    const auto writes = events_of(world.engine, trace_kind::db_write);
    REQUIRE(writes.size() == 3);
    CHECK_FALSE(writes[1]->has("token"));
    CHECK(writes[1]->integer("rows") == 1);
}

TEST_CASE("renewal statuses have their SQL names") {
    CHECK(std::string(to_string(RenewalStatus::due)) == "due");
    CHECK(std::string(to_string(RenewalStatus::claimed)) == "claimed");
    CHECK(std::string(to_string(RenewalStatus::charged)) == "charged");
}

// --- the payment provider ---------------------------------------------------------

TEST_CASE("the provider charges twice when asked twice without a key") {
    BillingWorld world;
    std::vector<ChargeReceipt> receipts;
    world.in_turn(world.provider_node,
                  {
                      [&] {
                          receipts.push_back(world.provider.charge(42, billing_period, std::nullopt, std::nullopt,
                                                                   std::nullopt, world.server_1));
                      },
                      [&] {
                          receipts.push_back(world.provider.charge(42, billing_period, std::nullopt, std::nullopt,
                                                                   std::nullopt, world.server_2));
                      },
                  });
    REQUIRE(receipts.size() == 2);
    CHECK(receipts[0].charge_id != receipts[1].charge_id);
    CHECK_FALSE(receipts[0].replayed);
    CHECK_FALSE(receipts[1].replayed);

    const auto charged = events_of(world.engine, trace_kind::provider_charged);
    REQUIRE(charged.size() == 2);
    CHECK(charged[0]->node == world.provider_node);
    CHECK(charged[0]->integer("customer") == 42);
    CHECK(charged[0]->text("period") == billing_period);
    CHECK(charged[0]->node_ref("by") == world.server_1);
    CHECK(charged[0]->integer("charge") == receipts[0].charge_id);
    CHECK_FALSE(charged[0]->has("key"));
    CHECK(charged[1]->node_ref("by") == world.server_2);
    CHECK(events_of(world.engine, trace_kind::provider_replayed).empty());
}

TEST_CASE("the provider charges once when asked twice with the same key") {
    BillingWorld world;
    const std::optional<std::string> key = "renewal-42-2026-10";
    std::vector<ChargeReceipt> receipts;
    world.in_turn(world.provider_node,
                  {
                      [&] {
                          receipts.push_back(world.provider.charge(42, billing_period, key, std::nullopt, std::nullopt,
                                                                   world.server_1));
                      },
                      [&] {
                          receipts.push_back(world.provider.charge(42, billing_period, key, std::nullopt, std::nullopt,
                                                                   world.server_2));
                      },
                  });
    REQUIRE(receipts.size() == 2);
    CHECK(receipts[1].charge_id == receipts[0].charge_id);
    CHECK_FALSE(receipts[0].replayed);
    CHECK(receipts[1].replayed);

    const auto charged = events_of(world.engine, trace_kind::provider_charged);
    REQUIRE(charged.size() == 1);
    CHECK(charged[0]->text("key") == *key);
    CHECK(charged[0]->node_ref("by") == world.server_1);

    const auto replayed = events_of(world.engine, trace_kind::provider_replayed);
    REQUIRE(replayed.size() == 1);
    CHECK(replayed[0]->at == at(2_s));
    CHECK(replayed[0]->node == world.provider_node);
    CHECK(replayed[0]->integer("customer") == 42);
    CHECK(replayed[0]->text("period") == billing_period);
    CHECK(replayed[0]->text("key") == *key);
    CHECK(replayed[0]->integer("charge") == receipts[0].charge_id);
    CHECK(replayed[0]->node_ref("by") == world.server_2);
    CHECK(replayed[0]->integer("charge_customer") == 42);
    CHECK(replayed[0]->text("charge_period") == billing_period);
}

TEST_CASE("a replay names what the charge it returned was made for, when a key is reused for other work") {
    BillingWorld world;
    const std::optional<std::string> key = "batch-42";
    world.in_turn(world.provider_node,
                  {
                      [&] { world.provider.charge(42, "2026-10#1", key, std::nullopt, std::nullopt, world.server_1); },
                      [&] { world.provider.charge(42, "2026-10#2", key, std::nullopt, std::nullopt, world.server_1); },
                  });
    const auto replayed = events_of(world.engine, trace_kind::provider_replayed);
    REQUIRE(replayed.size() == 1);
    CHECK(replayed[0]->text("period") == "2026-10#2");
    CHECK(replayed[0]->integer("charge_customer") == 42);
    CHECK(replayed[0]->text("charge_period") == "2026-10#1");
}

TEST_CASE("the provider charges separately under different keys") {
    BillingWorld world;
    std::vector<ChargeReceipt> receipts;
    world.in_turn(
        world.provider_node,
        {
            [&] {
                receipts.push_back(world.provider.charge(42, billing_period, std::string("renewal-42-2026-10"),
                                                         std::nullopt, std::nullopt, world.server_1));
            },
            [&] {
                receipts.push_back(world.provider.charge(43, billing_period, std::string("renewal-43-2026-10"),
                                                         std::nullopt, std::nullopt, world.server_1));
            },
            [&] {
                receipts.push_back(world.provider.charge(42, billing_period, std::nullopt, std::nullopt, std::nullopt,
                                                         world.server_1));
            },
        });
    REQUIRE(receipts.size() == 3);
    CHECK(receipts[0].charge_id != receipts[1].charge_id);
    CHECK(receipts[1].charge_id != receipts[2].charge_id);
    CHECK(receipts[0].charge_id != receipts[2].charge_id);
    CHECK_FALSE(receipts[0].replayed);
    CHECK_FALSE(receipts[1].replayed);
    CHECK_FALSE(receipts[2].replayed);
    CHECK(events_of(world.engine, trace_kind::provider_charged).size() == 3);
}

TEST_CASE("a provider that checks tokens refuses a lower one and accepts the same one again") {
    BillingWorld world;
    std::vector<ChargeReceipt> receipts;
    const auto charge = [&](std::int64_t customer, std::int64_t token, NodeId by) {
        return [&, customer, token, by] {
            receipts.push_back(world.provider.charge(customer, billing_period, std::nullopt, token, std::nullopt, by));
        };
    };
    world.in_turn(world.provider_node, {charge(41, 34, world.server_2), charge(42, 34, world.server_2),
                                        charge(42, 33, world.server_1), charge(43, 35, world.server_1)});
    REQUIRE(receipts.size() == 4);
    CHECK_FALSE(receipts[0].refused);
    CHECK_FALSE(receipts[1].refused);  // one holder charges many customers with one token
    CHECK(receipts[2].refused);        // the stale holder's token is below 34
    CHECK(receipts[2].charge_id == 0);
    CHECK_FALSE(receipts[3].refused);

    const auto charged = events_of(world.engine, trace_kind::provider_charged);
    REQUIRE(charged.size() == 3);
    CHECK(charged[0]->integer("token") == 34);
    const auto refused = events_of(world.engine, trace_kind::provider_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->integer("customer") == 42);
    CHECK(refused[0]->integer("token") == 33);
    CHECK(refused[0]->integer("highest") == 34);
    CHECK(refused[0]->node_ref("by") == world.server_1);
}

TEST_CASE("a conditional charge is refused once its object changed since the writer read it") {
    BillingWorld world;
    std::vector<ReadVersion> reads;
    std::vector<ChargeReceipt> receipts;
    const auto read = [&](std::int64_t customer, NodeId by) {
        return [&, customer, by] { reads.push_back(world.provider.read_version(customer, billing_period, by)); };
    };
    const auto charge_on = [&](std::int64_t customer, std::size_t read_index, NodeId by) {
        return [&, customer, read_index, by] {
            receipts.push_back(
                world.provider.charge(customer, billing_period, std::nullopt, std::nullopt, reads[read_index], by));
        };
    };
    // Both read tenant 42 at version 0; server 1 writes first; server 2's write on version 0
    // is refused. Customer 43, another object, is not touched by 42's version.
    world.in_turn(world.provider_node,
                  {read(42, world.server_1), read(42, world.server_2), charge_on(42, 0, world.server_1),
                   charge_on(42, 1, world.server_2), read(42, world.server_2), charge_on(42, 2, world.server_2),
                   read(43, world.server_2), charge_on(43, 3, world.server_2)});
    REQUIRE(reads.size() == 4);
    CHECK(reads[0].version == 0);
    CHECK(reads[1].version == 0);
    CHECK(reads[2].version == 1);  // read again after server 1's charge
    CHECK(reads[3].version == 0);
    REQUIRE(receipts.size() == 4);
    CHECK_FALSE(receipts[0].changed_since_read);
    CHECK(receipts[1].changed_since_read);
    CHECK(receipts[1].charge_id == 0);
    CHECK(receipts[1].changed_by == world.server_1);
    CHECK_FALSE(receipts[2].changed_since_read);  // on the version it read now
    CHECK_FALSE(receipts[3].changed_since_read);

    const auto refused = events_of(world.engine, trace_kind::provider_precondition_failed);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->integer("customer") == 42);
    CHECK(refused[0]->integer("if_version") == 0);
    CHECK(refused[0]->integer("version") == 1);
    CHECK(refused[0]->node_ref("by") == world.server_2);
    CHECK(refused[0]->node_ref("changed_by") == world.server_1);
    const auto charged = events_of(world.engine, trace_kind::provider_charged);
    REQUIRE(charged.size() == 3);
    CHECK(charged[1]->integer("if_version") == 1);
    CHECK(events_of(world.engine, trace_kind::provider_read).size() == 4);
}

TEST_CASE("a retry of a conditional charge that went through is answered by its key, not refused") {
    BillingWorld world;
    std::vector<ChargeReceipt> receipts;
    const std::optional<std::string> key = "renewal-42";
    const auto charge = [&] {
        receipts.push_back(
            world.provider.charge(42, billing_period, key, std::nullopt, ReadVersion{0}, world.server_1));
    };
    world.in_turn(world.provider_node, {charge, charge});
    REQUIRE(receipts.size() == 2);
    CHECK_FALSE(receipts[1].changed_since_read);
    CHECK(receipts[1].replayed);
    CHECK(receipts[1].charge_id == receipts[0].charge_id);
}
