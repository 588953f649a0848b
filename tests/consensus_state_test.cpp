// models/stores/consensus_state.hpp: the replicated state machine of ZooKeeper and etcd,
// one log entry at a time, with no time, network or leader in sight.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/stores/consensus_state.hpp"
#include "sim/node_id.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

const NodeId client_1{1};
const NodeId client_2{2};
const NodeId client_3{3};

ConsensusCommand open_session_for(NodeId client) {
    return ConsensusCommand{ConsensusCommand::Kind::open_session, "", 0, client, 10_s, 1};
}
ConsensusCommand create_under(const std::string& prefix, std::int64_t session, NodeId client) {
    return ConsensusCommand{ConsensusCommand::Kind::create, prefix, session, client, {}, 1};
}
ConsensusCommand delete_path(const std::string& path, NodeId by) {
    return ConsensusCommand{ConsensusCommand::Kind::remove, path, 0, by, {}, 1};
}
ConsensusCommand expire(std::int64_t session) {
    return ConsensusCommand{ConsensusCommand::Kind::expire_session, "", session, no_node, {}, 1};
}

// A key as one line, so that Catch shows every field when lists differ.
std::string key_line(const ConsensusKey& key) {
    return fmt::format("{} revision={} session={} client={}", key.path, key.create_revision, key.session,
                       key.client.index);
}
std::vector<std::string> key_lines(const std::vector<ConsensusKey>& keys) {
    std::vector<std::string> lines;
    for (const auto& key : keys) lines.push_back(key_line(key));
    return lines;
}

// Opens one session per client in order: their ids are 1, 2, ...
void open_sessions(ConsensusState& state, std::vector<NodeId> clients) {
    for (const NodeId client : clients) state.apply(open_session_for(client));
}

}  // namespace

TEST_CASE("open session entries hand out session ids 1, 2, 3 in log order and remember each client") {
    ConsensusState state(ConsensusFlavor::zookeeper);
    std::vector<std::int64_t> opened;
    for (const NodeId client : {client_2, client_1, client_2}) {
        const AppliedCommand applied = state.apply(open_session_for(client));
        REQUIRE(applied.opened_session);
        CHECK_FALSE(applied.created);
        CHECK(applied.deleted.empty());
        opened.push_back(*applied.opened_session);
    }
    CHECK(opened == std::vector<std::int64_t>{1, 2, 3});
    CHECK(state.sessions() == std::map<std::int64_t, NodeId>{{1, client_2}, {2, client_1}, {3, client_2}});
    CHECK(state.has_session(3));
    CHECK_FALSE(state.has_session(4));
}

TEST_CASE("a ZooKeeper create names sequential nodes lock-0000000000, lock-0000000001 with the entry's revision") {
    ConsensusState state(ConsensusFlavor::zookeeper);
    open_sessions(state, {client_1, client_2});  // revisions 1 and 2

    const AppliedCommand first = state.apply(create_under("/locks/renewals", 2, client_2));
    REQUIRE(first.created);
    CHECK(first.created->path == "/locks/renewals/lock-0000000000");
    CHECK(first.created->create_revision == 3);  // the entry's own revision: the third entry
    CHECK(first.created->create_revision == state.revision());
    CHECK(first.created->session == 2);
    CHECK(first.created->client == client_2);
    CHECK_FALSE(first.opened_session);
    CHECK(first.deleted.empty());

    const AppliedCommand second = state.apply(create_under("/locks/renewals", 1, client_1));
    REQUIRE(second.created);
    CHECK(second.created->path == "/locks/renewals/lock-0000000001");
    CHECK(second.created->create_revision == 4);
    CHECK(state.has_key("/locks/renewals/lock-0000000000"));
    CHECK(state.has_key("/locks/renewals/lock-0000000001"));
}

TEST_CASE("an etcd create names the key by the session's lease id in lowercase hex, 0x694d000 plus the session") {
    ConsensusState state(ConsensusFlavor::etcd);
    // Sessions 1 to 26: 26 is 0x1a, so its lease id 0x694d01a shows whether the digits are hex.
    // Lease grants take no revision: the first key's is 2, the first write after the
    // cluster's own revision 1.
    for (int i = 1; i <= 26; ++i) state.apply(open_session_for(client_1));

    const AppliedCommand first = state.apply(create_under("/locks/renewals", 1, client_1));
    REQUIRE(first.created);
    CHECK(first.created->path == "/locks/renewals/694d001");
    CHECK(first.created->create_revision == 2);

    const AppliedCommand last = state.apply(create_under("/locks/renewals", 26, client_2));
    REQUIRE(last.created);
    CHECK(last.created->path == "/locks/renewals/694d01a");
    CHECK(last.created->create_revision == 3);
    CHECK(last.created->client == client_2);
}

// The same log, entry by entry: ZooKeeper's zxid rises at every entry, etcd's revision
// only where the keys change (observed on etcd 3.4.23: fidelity case etcd-token-revision).
TEST_CASE("every entry takes a ZooKeeper zxid, and only a change to the keys takes an etcd revision") {
    const std::vector<ConsensusCommand> log{
        open_session_for(client_1),                            // a lease grant
        create_under("/locks/renewals", 1, client_1),          // puts a key
        create_under("/locks/renewals", 1, client_1),          // a retry: finds its key, writes nothing
        delete_path("/locks/renewals/no-such-key", client_1),  // deletes nothing
        expire(7),                                             // no such session
        open_session_for(client_2),
        expire(2),  // a lease without keys runs out
        expire(1),  // deletes session 1's key
        open_session_for(client_3),
    };
    const std::vector<std::int64_t> zookeeper{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<std::int64_t> etcd{1, 2, 2, 2, 2, 2, 2, 3, 3};
    for (const ConsensusFlavor flavor : {ConsensusFlavor::zookeeper, ConsensusFlavor::etcd}) {
        INFO((flavor == ConsensusFlavor::zookeeper ? "zookeeper" : "etcd"));
        ConsensusState state(flavor);
        CHECK(state.revision() == (flavor == ConsensusFlavor::zookeeper ? 0 : 1));
        std::vector<std::int64_t> after_each;
        for (const auto& command : log) {
            state.apply(command);
            after_each.push_back(state.revision());
        }
        CHECK(after_each == (flavor == ConsensusFlavor::zookeeper ? zookeeper : etcd));
    }
}

TEST_CASE("an etcd key created after other keys came and went takes the next revision, as etcdctl lock saw") {
    // Observed on etcd 3.4.23 with etcdctl lock: A's key at 4, B's at 5 while A holds.
    ConsensusState state(ConsensusFlavor::etcd);  // revision 1
    open_sessions(state, {client_1, client_2, client_3});
    state.apply(create_under("/locks/a", 1, client_1));  // 2
    state.apply(expire(1));                              // 3: its key deleted
    const auto a = state.apply(create_under("/locks/a", 2, client_2));
    const auto b = state.apply(create_under("/locks/a", 3, client_3));
    REQUIRE(a.created);
    REQUIRE(b.created);
    CHECK(a.created->create_revision == 4);
    CHECK(b.created->create_revision == 5);
}

TEST_CASE("children lists a prefix's keys lowest create revision first, not in path order") {
    ConsensusState state(ConsensusFlavor::etcd);
    for (int i = 1; i <= 16; ++i) state.apply(open_session_for(client_1));  // no revision
    // Session 16's key (694d010) is created before session 2's (694d002), so the lock's
    // queue is the reverse of the keys' path order.
    state.apply(create_under("/locks/renewals", 16, client_1));  // revision 2
    state.apply(create_under("/locks/renewals", 2, client_2));   // revision 3
    state.apply(create_under("/locks/renewals", 9, client_3));   // revision 4

    CHECK(key_lines(state.children("/locks/renewals")) ==
          std::vector<std::string>{"/locks/renewals/694d010 revision=2 session=16 client=1",
                                   "/locks/renewals/694d002 revision=3 session=2 client=2",
                                   "/locks/renewals/694d009 revision=4 session=9 client=3"});
}

TEST_CASE("children ignores other prefixes, one that merely starts with the same letters, and deeper paths") {
    ConsensusState state(ConsensusFlavor::zookeeper);
    open_sessions(state, {client_1, client_2, client_3});                      // revisions 1-3
    const auto ab = state.apply(create_under("/locks/ab", 2, client_2));       // revision 4
    const auto a = state.apply(create_under("/locks/a", 1, client_1));         // revision 5
    const auto deeper = state.apply(create_under("/locks/a/x", 3, client_3));  // revision 6
    const auto other = state.apply(create_under("/other", 3, client_3));       // revision 7
    REQUIRE(ab.created);
    REQUIRE(a.created);
    REQUIRE(deeper.created);
    REQUIRE(other.created);

    const auto under_a = state.children("/locks/a");
    REQUIRE(under_a.size() == 1);
    CHECK(key_line(under_a[0]) == key_line(*a.created));
    CHECK(under_a[0].create_revision == 5);
    const auto under_ab = state.children("/locks/ab");
    REQUIRE(under_ab.size() == 1);
    CHECK(under_ab[0].create_revision == 4);
    CHECK(state.children("/locks").empty());  // only grandchildren there
    CHECK(state.children("/locks/a/").empty());
    CHECK(state.children("/nothing").empty());
}

TEST_CASE("prefix_of drops the last path segment") {
    CHECK(prefix_of("/locks/a/lock-0000000001") == "/locks/a");
    CHECK(prefix_of("/locks/ab/694d001") == "/locks/ab");
    CHECK(prefix_of("/top") == "");
}

TEST_CASE("deleting an existing path returns that key, and deleting a missing one deletes nothing") {
    ConsensusState state(ConsensusFlavor::zookeeper);
    open_sessions(state, {client_1, client_2});
    const auto first = state.apply(create_under("/locks/renewals", 1, client_1));
    const auto second = state.apply(create_under("/locks/renewals", 2, client_2));
    REQUIRE(first.created);
    REQUIRE(second.created);

    const AppliedCommand missing = state.apply(delete_path("/locks/renewals/lock-0000000007", client_1));
    CHECK(missing.deleted.empty());
    CHECK_FALSE(missing.created);
    CHECK_FALSE(missing.opened_session);
    CHECK(state.children("/locks/renewals").size() == 2);

    const AppliedCommand deleted = state.apply(delete_path(first.created->path, client_1));
    CHECK(key_lines(deleted.deleted) == std::vector<std::string>{key_line(*first.created)});
    CHECK_FALSE(state.has_key(first.created->path));
    CHECK(key_lines(state.children("/locks/renewals")) == std::vector<std::string>{key_line(*second.created)});
    // A delete of a key leaves its session open: only expiry ends a session.
    CHECK(state.has_session(1));

    const AppliedCommand again = state.apply(delete_path(first.created->path, client_1));
    CHECK(again.deleted.empty());
}

TEST_CASE("expiring a session deletes exactly that session's keys, in path order, and drops the session") {
    ConsensusState state(ConsensusFlavor::zookeeper);
    open_sessions(state, {client_1, client_2});
    // Session 1 creates under /locks/b before /locks/a, so creation order and path order differ.
    const auto in_b = state.apply(create_under("/locks/b", 1, client_1));
    const auto theirs = state.apply(create_under("/locks/a", 2, client_2));
    const auto in_a = state.apply(create_under("/locks/a", 1, client_1));
    REQUIRE(in_b.created);
    REQUIRE(theirs.created);
    REQUIRE(in_a.created);

    const AppliedCommand expired = state.apply(expire(1));
    CHECK(key_lines(expired.deleted) == std::vector<std::string>{key_line(*in_a.created), key_line(*in_b.created)});
    CHECK_FALSE(state.has_session(1));
    CHECK(state.sessions() == std::map<std::int64_t, NodeId>{{2, client_2}});
    CHECK_FALSE(state.has_key(in_a.created->path));
    CHECK_FALSE(state.has_key(in_b.created->path));
    CHECK(key_lines(state.children("/locks/a")) == std::vector<std::string>{key_line(*theirs.created)});
    CHECK(state.children("/locks/b").empty());

    // Expiring it again, or a session that never was, changes nothing but the revision.
    CHECK(state.apply(expire(1)).deleted.empty());
    CHECK(state.apply(expire(99)).deleted.empty());
    CHECK(state.sessions().size() == 1);
}

TEST_CASE("two states that apply the same log hold the same keys, sessions and revision") {
    const ConsensusFlavor flavor = GENERATE(ConsensusFlavor::zookeeper, ConsensusFlavor::etcd);
    INFO((flavor == ConsensusFlavor::zookeeper ? "zookeeper" : "etcd"));
    const std::vector<ConsensusCommand> log{
        open_session_for(client_1),
        open_session_for(client_2),
        open_session_for(client_3),
        create_under("/locks/a", 2, client_2),
        create_under("/locks/a", 1, client_1),
        create_under("/locks/b", 3, client_3),
        create_under("/locks/a", 3, client_3),
        expire(2),
        open_session_for(client_2),
        create_under("/locks/a", 4, client_2),
        delete_path("/locks/b/none", client_1),
    };
    // What each entry did, one line per entry: the replies and watches a member would act on.
    const auto apply_all = [&log](ConsensusState& state) {
        std::vector<std::string> lines;
        for (const auto& command : log) {
            const AppliedCommand applied = state.apply(command);
            std::string line = applied.created ? key_line(*applied.created) : "";
            for (const auto& key : applied.deleted) line += " deleted " + key_line(key);
            lines.push_back(line);
        }
        return lines;
    };
    // Two members' copies, each built from the log alone.
    ConsensusState leader(flavor);
    ConsensusState follower(flavor);
    const std::vector<std::string> leader_applied = apply_all(leader);
    const std::vector<std::string> follower_applied = apply_all(follower);

    CHECK(follower_applied == leader_applied);
    CHECK(follower.revision() == leader.revision());
    // ZooKeeper: one zxid per entry; etcd: revision 1, then five keys created and one
    // expiry that deleted one.
    CHECK(leader.revision() == (flavor == ConsensusFlavor::zookeeper ? 11 : 7));
    CHECK(follower.sessions() == leader.sessions());
    CHECK(leader.sessions() == std::map<std::int64_t, NodeId>{{1, client_1}, {3, client_3}, {4, client_2}});
    for (const std::string prefix : {"/locks/a", "/locks/b"})
        CHECK(key_lines(follower.children(prefix)) == key_lines(leader.children(prefix)));
    // Session 2's key went with it; the queue under /locks/a is sessions 1, 3 and 4 in that order.
    std::vector<std::int64_t> queue;
    for (const auto& key : leader.children("/locks/a")) queue.push_back(key.session);
    CHECK(queue == std::vector<std::int64_t>{1, 3, 4});
    CHECK(leader.children("/locks/b").size() == 1);
}

TEST_CASE("a create in a session that expired before it was applied creates no key and takes no etcd revision") {
    const ConsensusFlavor flavor = GENERATE(ConsensusFlavor::zookeeper, ConsensusFlavor::etcd);
    INFO((flavor == ConsensusFlavor::zookeeper ? "zookeeper" : "etcd"));
    ConsensusState state(flavor);
    open_sessions(state, {client_1, client_2});
    // The leader saw session 1 open and appended the create, after an expiry already in its log.
    state.apply(expire(1));
    const std::int64_t revision = state.revision();
    const AppliedCommand late = state.apply(create_under("/locks/renewals", 1, client_1));
    CHECK_FALSE(late.created);
    CHECK(state.children("/locks/renewals").empty());
    CHECK(state.revision() == (flavor == ConsensusFlavor::zookeeper ? revision + 1 : revision));

    // The next create, in an open session, is the lock's first key.
    const AppliedCommand next = state.apply(create_under("/locks/renewals", 2, client_2));
    REQUIRE(next.created);
    CHECK(key_lines(state.children("/locks/renewals")) == std::vector<std::string>{key_line(*next.created)});
}
