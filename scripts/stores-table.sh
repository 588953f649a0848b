#!/usr/bin/env bash
# Prints the table of lock stores (docs/scenarios.md, "The stores compared, measured") from one run of
# scenarios/stores-compared.json: every number comes from that run's JSON.
#   scripts/stores-table.sh [path/to/locksim]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="${1:-build/locksim}"
"$locksim" run scenarios/stores-compared.json --format json | python3 -c '
import json, sys
doc = json.load(sys.stdin)
metric = {d["name"]: d["metrics"] for d in doc["designs"]}
rows = [("redis", "redis", None), ("redis + replica", "redis-replicated", None), ("redlock (5)", "redlock", None),
        ("zookeeper", "zookeeper", "zxid"), ("etcd", "etcd", "revision"), ("database lease row", "lease-row", "counter")]
line = "{:<22}{:<20}{:<14}{:<30}{}"
print(line.format("store", "survives failover", "gives token", "double charges (40 s pause)", "with fencing"))
for label, store, token_name in rows:
    survives = metric[store + "/failover"]["overlapping_holders"] == 0
    majority = metric.get(store + "/majority-restart")
    if survives and majority and majority["overlapping_holders"] > 0:
        failover = "minority only"
    else:
        failover = "yes" if survives else "no"
    token = (token_name or "yes") if metric[store]["token_grants"] > 0 else "no"
    fenced = metric.get(store + "+fencing")
    print(line.format(label, failover, token, metric[store]["double_charges"], fenced["double_charges"] if fenced else "n/a"))
'
