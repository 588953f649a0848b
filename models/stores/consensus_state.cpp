#include "models/stores/consensus_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace locksim {

std::string_view to_string(ConsensusCommand::Kind kind) {
    switch (kind) {
        case ConsensusCommand::Kind::open_session: return "open session";
        case ConsensusCommand::Kind::create: return "create";
        case ConsensusCommand::Kind::remove: return "delete";
        case ConsensusCommand::Kind::expire_session: return "expire session";
    }
    return "?";
}

std::string prefix_of(const std::string& path) {
    return path.substr(0, path.rfind('/'));
}

AppliedCommand ConsensusState::apply(const ConsensusCommand& command) {
    AppliedCommand applied;
    // ZooKeeper gives every transaction a zxid; etcd's revision counts changes to the keys
    // only: a lease grant or the expiry of a lease without keys leaves it as it was
    // (observed on etcd 3.4.23; fidelity case etcd-token-revision).
    const std::int64_t next_revision = revision_ + 1;
    bool keys_changed = false;
    switch (command.kind) {
        case ConsensusCommand::Kind::open_session: {
            const std::int64_t id = next_session_++;
            sessions_[id] = command.client;
            applied.opened_session = id;
            break;
        }
        case ConsensusCommand::Kind::create: {
            // An ephemeral node / lease-bound key lives only in an open session, whose expiry
            // deletes it: ZooKeeper refuses a create in an expired session, etcd a Put on a
            // revoked lease. The leader checked the session before it appended the entry, but
            // an expiry appended earlier can commit in between.
            if (!sessions_.contains(command.session)) break;
            // ZooKeeper: a sequential node under the prefix; etcd: a key named by the lease.
            const std::string path = flavor_ == ConsensusFlavor::zookeeper
                                         ? fmt::format("{}/lock-{:010}", command.path, next_sequence_[command.path]++)
                                         : fmt::format("{}/{:x}", command.path, 0x694d000 + command.session);
            // etcd's "Txn if create_revision(key) == 0 then Put": a retried create finds its
            // key and keeps it, with its first revision and place in the queue.
            if (const auto existing = keys_.find(path); existing != keys_.end()) {
                applied.created = existing->second;
                break;
            }
            // The fencing token: above every one this state has handed out.
            assert(next_revision > highest_created_);
            highest_created_ = next_revision;
            ConsensusKey key{path, next_revision, command.session, command.client};
            keys_[path] = key;
            keys_changed = true;
            applied.created = std::move(key);
            break;
        }
        case ConsensusCommand::Kind::remove:
            // A client deletes only its own key (its lease's value).
            assert(!keys_.contains(command.path) || keys_.at(command.path).client == command.client);
            erase_key(command.path, applied);
            break;
        case ConsensusCommand::Kind::expire_session: {
            std::vector<std::string> owned;
            for (const auto& [path, key] : keys_)
                if (key.session == command.session) owned.push_back(path);
            for (const auto& path : owned) erase_key(path, applied);
            sessions_.erase(command.session);
            break;
        }
    }
    if (flavor_ == ConsensusFlavor::zookeeper || keys_changed || !applied.deleted.empty()) revision_ = next_revision;
    return applied;
}

void ConsensusState::erase_key(const std::string& path, AppliedCommand& applied) {
    auto found = keys_.find(path);
    if (found == keys_.end()) return;
    applied.deleted.push_back(std::move(found->second));
    keys_.erase(found);
}

std::vector<ConsensusKey> ConsensusState::children(const std::string& prefix) const {
    std::vector<ConsensusKey> found;
    for (const auto& [path, key] : keys_)
        if (prefix_of(path) == prefix) found.push_back(key);
    std::sort(found.begin(), found.end(),
              [](const ConsensusKey& a, const ConsensusKey& b) { return a.create_revision < b.create_revision; });
    return found;
}

}  // namespace locksim
