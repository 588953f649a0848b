#pragma once
// The replicated state machine of the consensus store: what every member's copy of the
// data holds, and what applying one committed log entry does to it. Nothing here knows
// about time, the network or who leads; the ensemble applies entries in log order on
// every member, and since apply is deterministic, equal logs give equal states.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"

namespace locksim {

enum class ConsensusFlavor { zookeeper, etcd };

struct ConsensusKey {
    std::string path;
    std::int64_t create_revision = 0;  // ZooKeeper's czxid, etcd's create revision: the fencing token
    std::int64_t session = 0;          // deleted when the session expires
    NodeId client;
};

// One log entry.
struct ConsensusCommand {
    enum class Kind { open_session, create, remove, expire_session };
    Kind kind = Kind::open_session;
    std::string path;  // create: the prefix; remove: the path
    std::int64_t session = 0;
    NodeId client;           // open_session, create: the client; remove: who asked
    Duration timeout{};      // open_session
    std::uint64_t term = 0;  // the leader's term when it appended the entry
};

// How a log line names the entry: "create", "delete", "open session", "expire session".
std::string_view to_string(ConsensusCommand::Kind kind);

// What applying one entry did: what the leader's reply and its watches need to know.
struct AppliedCommand {
    std::optional<std::int64_t> opened_session;
    std::optional<ConsensusKey> created;  // none: the session had expired
    std::vector<ConsensusKey> deleted;    // in path order
};

class ConsensusState {
public:
    // A new etcd cluster is at revision 1 before its first write; ZooKeeper's first zxid is 1.
    explicit ConsensusState(ConsensusFlavor flavor)
        : flavor_(flavor), revision_(flavor == ConsensusFlavor::etcd ? 1 : 0) {}

    AppliedCommand apply(const ConsensusCommand& command);

    bool has_session(std::int64_t session) const { return sessions_.contains(session); }
    bool has_key(const std::string& path) const { return keys_.contains(path); }
    const ConsensusKey* find_key(const std::string& path) const {
        const auto found = keys_.find(path);
        return found == keys_.end() ? nullptr : &found->second;
    }
    // Open sessions and their clients, by id.
    const std::map<std::int64_t, NodeId>& sessions() const { return sessions_; }
    // The keys under `prefix`, lowest create revision first: the first one holds the lock.
    std::vector<ConsensusKey> children(const std::string& prefix) const;
    // The last zxid (every entry takes one) / revision (every change to the keys takes one).
    std::int64_t revision() const { return revision_; }

private:
    void erase_key(const std::string& path, AppliedCommand& applied);

    ConsensusFlavor flavor_;
    std::int64_t revision_ = 0;
    std::int64_t next_session_ = 1;
    std::int64_t highest_created_ = 0;  // the highest create revision handed out
    // Per parent: the next sequence number. Real ZooKeeper uses the parent's cversion,
    // which deletions raise too; only the order of the numbers matters to the recipe.
    std::map<std::string, std::int64_t> next_sequence_;
    std::map<std::string, ConsensusKey> keys_;
    std::map<std::int64_t, NodeId> sessions_;
};

// "/locks/a/lock-0000000001" -> "/locks/a".
std::string prefix_of(const std::string& path);

}  // namespace locksim
