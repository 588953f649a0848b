#!/usr/bin/env bash
# Drives the real client libraries against real servers and compares what they do with
# what locksim's client profiles predict (tests/live_clients/): redis-py's Lock against
# Redis, kazoo's Lock recipe and Curator's InterProcessMutex (compiled here against
# Debian's libcurator-recipes-java) against ZooKeeper, and etcd's Go clientv3 Mutex (built
# here from Debian's golang-etcd-server-dev) against etcd, each holder stopped with SIGSTOP
# past its lease; and Linux's own TCP through a cut (a netfilter rule, so as root) against the
# stream model. All on 127.0.0.1, every process stopped by PID at the end. Exit 1 on a
# prediction outside its tolerance.
#   scripts/live-clients.sh [LOCKSIM]   # default build/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
locksim=${1:-build/locksim}
scripts/install-packages.sh redis-server zookeeper python3-redis python3-kazoo nftables etcd-server \
  golang-go golang-etcd-server-dev default-jdk-headless libcurator-recipes-java
# Debian's modules are for Debian's python3, whatever python3 comes first on PATH.
status=0
for harness in tests/live_clients/redis_py_lock.py tests/live_clients/kazoo_lock.py \
  tests/live_clients/curator_mutex.py tests/live_clients/etcd_mutex.py tests/live_clients/tcp_stream.py; do
  /usr/bin/python3 "$harness" "$locksim" || status=1
done
exit $status
