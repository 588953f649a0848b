#!/usr/bin/python3
"""Checks scenarios/scenario.schema.json against the shipped scenarios and the loader.

    /usr/bin/python3 tests/validate_scenarios.py build/locksim

1. The schema is a valid draft 2020-12 schema and every property in it has a description.
2. Every scenarios/*.json names the schema first, has no field twice in one object, and
   is valid against it.
3. Small files that the schema must reject are rejected by `locksim run FILE` too, with
   exit code 2; small files that it must accept load and run (exit 0).
4. Durations, signed durations and odds: the schema and the loader agree on each text.
5. What the schema leaves to the loader (it cannot know the nodes, a merged value or a
   bound across fields) is listed too: the schema accepts those files, the loader refuses.
6. Vocabularies: the fields of every object, the stores, metrics, event kinds and other
   enumerations in the schema are exactly those the loader lists when it refuses an
   unknown one, so a field or metric added to the C++ shows up here until the schema
   has it too.

Prints one line per check and "N passed, N failed"; exits 1 if any failed. Needs Debian's
python3-jsonschema.
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("validate_scenarios.py: FAILED: the Python module jsonschema is missing; "
             "install it with: apt-get install python3-jsonschema")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(ROOT, "scenarios")
SCHEMA_PATH = os.path.join(SCENARIOS, "scenario.schema.json")

# A small world every case below starts from: it loads and runs in milliseconds.
BASE = {
    "name": "probe",
    "description": "A small world for probing the schema.",
    "seed": 1,
    "horizon": "2m",
    "servers": ["server-1", "server-2"],
    "network": {"delay": "1ms"},
    "lock": {"store": "redis", "key": "lock:renewals", "ttl": "30s", "retry": {"min": "1s", "max": "2s"}},
    "job": {"name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "1s"},
    "designs": {"plain": {}},
}
REMOVE = object()


def edit(*changes, doc=None):
    """BASE (or doc) with changes applied: ("/lock/store", "memcached"), ("/lock/ttl", REMOVE)."""
    result = copy.deepcopy(BASE if doc is None else doc)
    for pointer, value in changes:
        keys = pointer.strip("/").split("/")
        target = result
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
        if value is REMOVE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value
    return result


PAUSE = {"pause": "server-1", "at": "6s", "for": "40s"}
ZK_LOCK = {"store": "zookeeper", "key": "/locks/renewals", "ttl": "10s"}
K8S_LOCK = {"store": "kubernetes-lease", "key": "renewals", "ttl": "15s"}
CONSUL_LOCK = {"store": "consul", "key": "locks/renewals", "ttl": "10s"}

# Files the schema must reject, and so must the loader (exit 2).
MUST_REJECT = [
    ("a range of clock steps with a third member",
     edit(("/explore", {"faults": [{"clock_step": "lock-store", "by": {"from": "-5s", "to": "5s", "step": "1s"}}]}))),
    ("a range of clock steps without a to", edit(("/explore", {"faults": [{"clock_step": "lock-store", "by": {"from": "-5s"}}]}))),
    ("an unknown top-level field", edit(("/colour", "blue"))),
    ("a duration \"40 parsecs\"", edit(("/faults", [dict(PAUSE, **{"for": "40 parsecs"})]))),
    ("a negative pause length", edit(("/faults", [dict(PAUSE, **{"for": "-40s"})]))),
    ("a pause of 0s", edit(("/faults", [dict(PAUSE, **{"for": "0s"})]))),
    ("store \"memcached\"", edit(("/lock/store", "memcached"))),
    ("an unknown metric in expect", edit(("/designs/plain/expect", {"double_charge": 0}))),
    ("\"at\" together with \"when\"", edit(("/faults", [dict(PAUSE, when={"event": "job.preparing"})]))),
    ("a fault with neither \"at\" nor \"when\"", edit(("/faults", [{"pause": "server-1", "for": "40s"}]))),
    ("customers with a duplicate", edit(("/job/customers", [41, 42, 41]))),
    ("no customers", edit(("/job/customers", []))),
    ("a customer that is not a whole number", edit(("/job/customers", [41, "42"]))),
    ("a missing name", edit(("/name", REMOVE))),
    ("a missing seed", edit(("/seed", REMOVE))),
    ("a negative seed", edit(("/seed", -1))),
    ("no designs", edit(("/designs", {}))),
    ("a design that is not an object", edit(("/designs/plain", []))),
    ("section \"4-3\"", edit(("/section", "4-3"))),
    ("section \"7\"", edit(("/section", "7"))),
    ("a name with a tab in it", edit(("/name", "probe\there"))),
    ("a reserved server name", edit(("/servers", ["server-1", "redis-1"]))),
    ("a server listed twice", edit(("/servers", ["server-1", "server-1"]))),
    ("a server name in capitals", edit(("/servers", ["Server-1"]))),
    ("no servers", edit(("/servers", []))),
    ("job.at \"24:00\"", edit(("/job/at", "24:00"))),
    ("job.at \"9:00\"", edit(("/job/at", "9:00"))),
    ("job.error without its customer", edit(("/job/error", {"server": "server-1"}))),
    ("job.error on a service node", edit(("/job/error", {"server": "billing-db", "customer": 42}))),
    ("odds \"1/0\"", edit(("/network/loss", "1/0"))),
    ("odds \"one in a hundred\"", edit(("/network/loss", "one in a hundred"))),
    ("a horizon of 0s", edit(("/horizon", "0s"))),
    ("ttl \"none\" on lease-row", edit(("/lock", {"store": "lease-row", "key": "renewals", "ttl": "none"}))),
    ("retry on zookeeper", edit(("/lock", dict(ZK_LOCK, retry={"min": "1s", "max": "2s"})))),
    ("retry on kubernetes-lease", edit(("/lock", dict(K8S_LOCK, retry={"min": "1s", "max": "2s"})))),
    ("renew_deadline on redis", edit(("/lock/renew_deadline", "10s"))),
    ("a retry_period of 0s", edit(("/lock", dict(K8S_LOCK, retry_period="0s")))),
    ("lock_delay on redis", edit(("/lock/lock_delay", "15s"))),
    ("first_token on consul", edit(("/lock", dict(CONSUL_LOCK, first_token=33)))),
    ("release on consul", edit(("/lock", dict(CONSUL_LOCK, release="plain-delete")))),
    ("a server named consul", edit(("/servers", ["server-1", "consul"]))),
    ("persistence on zookeeper in a design", edit(("/designs/zk", {"lock": dict(ZK_LOCK, retry=None, persistence="aof-always")}))),
    ("ttl on db-for-update in a design", edit(("/designs/db", {"lock": {"store": "db-for-update", "ttl": "30s", "retry": None}}))),
    ("a lock without a store where a design keeps the base lock", edit(("/lock/store", REMOVE))),
    ("a lock without a key in the base world and in every design",
     edit(("/lock/key", REMOVE), ("/designs", {"a": {"lock": {"store": "redis"}}, "b": {"lock": {"store": "lease-row"}}}))),
    ("no base lock and a design lock without a ttl",
     edit(("/lock", REMOVE), ("/designs/plain", {"lock": {"store": "redis", "key": "k"}}))),
    ("no base job and a design job without a period",
     edit(("/job", REMOVE), ("/designs/plain", {"job": {"name": "j", "at": "00:00", "customers": [1], "work_per_customer": "1s"}}))),
    ("a redis-replicated lock without replication_lag", edit(("/lock/store", "redis-replicated"))),
    ("a design that removes the lock", edit(("/designs/plain", {"lock": None}))),
    ("a design that removes the lock's key", edit(("/designs/plain", {"lock": {"key": None}}))),
    ("null in the base world", edit(("/fencing", None))),
    ("an unknown field in a design", edit(("/designs/plain", {"fenced": True}))),
    ("an idempotency key without {customer}", edit(("/idempotency_key", "renewal-{period}"))),
    ("an idempotency key with an unknown placeholder", edit(("/idempotency_key", "renewal-{customer}-{date}"))),
    ("a fault that is both a pause and a crash", edit(("/faults", [dict(PAUSE, crash="server-2")]))),
    ("a fault of an unknown kind", edit(("/faults", [{"freeze": "server-1", "at": "6s"}]))),
    ("an unknown pause kind", edit(("/faults", [dict(PAUSE, kind="oom")]))),
    ("a trigger without an event", edit(("/faults", [{"pause": "server-1", "for": "40s", "when": {"node": "server-1"}}]))),
    ("a trigger on an unknown event kind", edit(("/faults", [{"pause": "server-1", "for": "40s", "when": {"event": "job.begun"}}]))),
    ("a trigger with nth 0", edit(("/faults", [{"pause": "server-1", "for": "40s", "when": {"event": "job.preparing", "nth": 0}}]))),
    ("a trigger matching a list", edit(("/faults", [{"pause": "server-1", "for": "40s", "when": {"event": "db.write", "rows": [1]}}]))),
    ("a partition with an empty side", edit(("/faults", [{"partition": [[], ["lock-store"]], "at": "5s"}]))),
    ("a delay spike from a node to itself", edit(("/faults", [{"delay_spike": ["server-1", "server-1"], "at": "5s", "for": "1s", "extra": "1s"}]))),
    ("a clock step without \"by\"", edit(("/faults", [{"clock_step": "lock-store", "at": "5s"}]))),
    ("a link from a node to itself", edit(("/network/links", [{"between": ["server-1", "server-1"], "delay": "5ms"}]))),
    ("a link with three ends", edit(("/network/links", [{"between": ["server-1", "server-2", "lock-store"]}]))),
    ("two kinds of distribution at once", edit(("/network/delay", {"uniform": ["1ms", "3ms"], "exponential": "2ms"}))),
    ("a uniform range of three values", edit(("/network/delay", {"uniform": ["1ms", "2ms", "3ms"]}))),
    ("a pareto with alpha 0", edit(("/fault_generators", [{"pause": "servers", "mean_interval": "1m", "for": {"pareto": {"min": "1s", "alpha": 0, "max": "1m"}}}]))),
    ("a lognormal without its cap", edit(("/network/delay", {"lognormal": {"median": "2ms", "sigma": 1}}))),
    ("a histogram without buckets", edit(("/network/delay", {"histogram": []}))),
    ("a histogram bucket with a negative count", edit(("/network/delay", {"histogram": [{"up_to": "1ms", "count": -1}]}))),
    ("a histogram bucket without its bound", edit(("/network/delay", {"histogram": [{"count": 1}]}))),
    ("observed samples in the unit \"msec\"", edit(("/network/delay", {"observed": {"file": "delays.txt", "unit": "msec"}}))),
    ("observed samples without a file", edit(("/network/delay", {"observed": ""}))),
    ("an exponential clock step", edit(("/fault_generators", [{"clock_step": "servers", "mean_interval": "1m", "by": {"exponential": "2s"}}]))),
    ("a generator without a mean interval", edit(("/fault_generators", [{"crash": "servers"}]))),
    ("a drift of -1000000 ppm", edit(("/clocks", {"server-1": {"drift_ppm": -1000000}}))),
    ("a clock offset of \"--5ms\"", edit(("/clocks", {"server-1": {"offset": "--5ms"}}))),
    ("a clock for \"Server-1\"", edit(("/clocks", {"Server-1": {"offset": "5ms"}}))),
    ("an expectation of customers as a number", edit(("/designs/plain/expect", {"double_charges": {"customers": 42}}))),
    ("a customer listed twice", edit(("/designs/plain/expect", {"double_charges": {"customers": [42, 42]}}))),
    ("an overlap between a server and itself", edit(("/designs/plain/expect", {"overlapping_holders": {"between": ["server-1", "server-1"]}}))),
    ("customers on charges", edit(("/designs/plain/expect", {"charges": {"customers": [42]}}))),
    ("an overlap between one server", edit(("/designs/plain/expect", {"overlapping_holders": {"between": ["server-1"]}}))),
    ("a first violation as a count", edit(("/designs/plain/expect", {"first_violation_at": 50}))),
    ("a first violation without a unit", edit(("/designs/plain/expect", {"first_violation_at": {"at_most": "50"}}))),
    ("an expectation as text", edit(("/designs/plain/expect", {"charges": "2"}))),
    ("an empty lock key", edit(("/lock/key", ""))),
    ("a C1 control in the lesson", edit(("/lesson", "red \u009b31m"))),
    ("U+FFFE in the name", edit(("/name", "probe \ufffe"))),
    ("a right-to-left override in the job's period", edit(("/job/period", "\u202e01-6202"))),
    ("U+FFFF in a vocabulary word", edit(("/vocabulary", {"effect": "charge\uffff"}))),
    ("a C1 control in a design's name", edit(("/designs", {"plain\u0085": {}}))),
    ("9 replicas", edit(("/lock", {"store": "redis-replicated", "key": "k", "ttl": "30s", "replication_lag": "1ms", "replicas": 9}))),
    ("a WAIT without a timeout", edit(("/lock", {"store": "redis-replicated", "key": "k", "ttl": "30s", "replication_lag": "1ms", "wait": {"replicas": 1}}))),
    ("an rdb snapshot every 0s", edit(("/lock/persistence", {"rdb": "0s"}))),
    ("watch \"everyone\"", edit(("/lock", dict(ZK_LOCK, watch="everyone")))),
    ("durations \"cpu\"", edit(("/lock/durations", "cpu"))),
    ("release \"delete\"", edit(("/lock/release", "delete"))),
    ("fencing \"yes\"", edit(("/fencing", "yes"))),
    ("a role at the second end of a held message", edit(("/faults", [{"hold_message": ["lock-store", {"role": "holder"}], "at": "5s", "for": "1s"}]))),
    ("a role on side b of a partition", edit(("/faults", [{"partition": [["lock-store"], [{"role": "holder"}]], "at": "5s"}]))),
    ("a role beside a node on side a", edit(("/faults", [{"partition": [[{"role": "holder"}, "server-2"], ["lock-store"]], "at": "5s"}]))),
    ("\"servers\" at a loss burst's end", edit(("/faults", [{"loss_burst": [{"role": "servers"}, "lock-store"], "at": "5s", "for": "1s"}]))),
]

# Files the schema must accept, and the loader must load and run (exit 0): mostly the
# ways a design changes the base world that a stricter schema would get wrong.
MUST_ACCEPT = [
    ("a clock step explored over a signed range of sizes",
     edit(("/explore", {"faults": [{"clock_step": "lock-store", "by": {"from": "-40s", "to": "ttl+1ms"}}]}))),
    ("the probe world", edit()),
    ("every design names its own store and key",
     edit(("/lock", {"ttl": "30s"}), ("/designs", {"redis": {"lock": {"store": "redis", "key": "lock:r"}},
                                                    "lease-row": {"lock": {"store": "lease-row", "key": "r"}}}))),
    ("no base lock: each design has a whole one",
     edit(("/lock", REMOVE), ("/designs", {"redis": {"lock": {"store": "redis", "key": "k", "ttl": "30s"}},
                                           "db": {"lock": {"store": "db-advisory", "key": "k"}}}))),
    ("a design switches to zookeeper and removes retry",
     edit(("/designs/zk", {"lock": dict(ZK_LOCK, retry=None)}))),
    ("a design switches to kubernetes-lease with client-go's timings and removes retry",
     edit(("/designs/k8s", {"lock": dict(K8S_LOCK, retry=None, renew_deadline="10s", retry_period="2s", first_token=33)}))),
    ("a design that switches to zookeeper keeps a base ttl", edit(("/designs/zk", {"lock": {"store": "zookeeper", "retry": None}}))),
    ("a design changes only retry's max", edit(("/designs/slow", {"lock": {"retry": {"max": "3s"}}}))),
    ("a design switches the delay's distribution",
     edit(("/network/delay", {"exponential": "2ms"}), ("/designs/plain", {"network": {"delay": {"exponential": None, "uniform": ["1ms", "3ms"]}}}))),
    ("a histogram, and one from a minimum with an empty bucket",
     edit(("/network/delay", {"histogram": [{"up_to": "1ms", "count": 95}, {"up_to": "20ms", "count": 5}]}),
          ("/fault_generators", [{"pause": "servers", "mean_interval": "1m", "for": {"histogram": {
              "min": "5ms", "buckets": [{"up_to": "50ms", "count": 90}, {"up_to": "1s", "count": 0}, {"up_to": "8s", "count": 1}]}}}]))),
    ("pauses observed in a file, by its absolute path",
     edit(("/fault_generators", [{"pause": "servers", "mean_interval": "1m",
                                  "for": {"observed": os.path.join(SCENARIOS, "examples", "gc-pauses.txt")}}]))),
    ("a design switches the delay to a histogram",
     edit(("/designs/plain", {"network": {"delay": {"histogram": [{"up_to": "2ms", "count": 1}]}}}))),
    ("a design removes optional fields",
     edit(("/clocks", {"server-1": {"offset": "5ms"}}), ("/faults", [PAUSE]), ("/fencing", False),
          ("/designs/plain", {"horizon": None, "faults": None, "fencing": None, "clocks": {"server-1": None}}))),
    ("ttl \"none\" on redis", edit(("/lock/ttl", "none"))),
    ("every consul option, fenced", edit(("/lock", dict(CONSUL_LOCK, lock_delay="0s", renew="3s", retry={"min": "1s", "max": "2s"})),
                                         ("/fencing", True))),
    ("a design switches to consul and sets its lock-delay", edit(("/designs/consul", {"lock": dict(CONSUL_LOCK, lock_delay="60s")}))),
    ("a trigger on a field, the 2nd time", edit(("/faults", [{"pause": "server-1", "for": "10s", "kind": "sigstop",
                                                              "when": {"event": "job.preparing", "node": "server-1", "customer": 42, "nth": 2}}]))),
    ("every fault kind", edit(("/faults", [
        {"clock_step": "lock-store", "at": "1s", "by": "-2s"},
        {"clock_slew": "server-2", "at": "1s", "by": "-100ms"},
        {"crash": "lock-store", "at": "2s", "restart_after": "1s"},
        {"partition": [["server-1"], ["lock-store", "server-2"]], "at": "5s", "heal_after": "10s", "one_way": True},
        {"delay_spike": ["server-1", "payment-provider"], "at": "8s", "for": "5s", "extra": "3s", "one_way": True}]))),
    ("link faults aimed at the holder", edit(("/faults", [
        {"partition": {"role": "holder"}, "at": "5s", "heal_after": "10s"},
        {"partition": [[{"role": "holder"}], ["lock-store"]], "at": "5s", "heal_after": "10s", "one_way": True},
        {"loss_burst": [{"role": "holder"}, "lock-store"], "at": "5s", "for": "10s", "loss": "1/2"},
        {"hold_message": [{"role": "primary"}, "server-1"], "at": "5s", "for": "10s"},
        {"delay_spike": [{"role": "trigger"}, "lock-store"], "for": "1s", "extra": "1s", "when": {"event": "job.preparing"}}]))),
    ("an explored partition and a held message of the holder",
     edit(("/explore", {"faults": [
         {"partition": {"role": "holder"}, "apart_from": ["lock-store"], "heal_after": {"from": "100ms", "to": "10s"}},
         {"hold_message": {"role": "holder"}, "with": "lock-store", "for": {"from": "1s", "to": "2s"}}]}))),
    ("an expectation with both bounds", edit(("/designs/plain/expect", {"charges": {"at_least": 1, "at_most": 20}}))),
    ("expectations of who and when", edit(("/designs/plain/expect", {
        "double_charges": {"at_most": 5, "customers": []}, "overlapping_holders": {"at_least": 0}}))),
    ("every generator kind", edit(("/fault_generators", [
        {"pause": "servers", "mean_interval": "1m", "for": {"pareto": {"min": "500ms", "alpha": 1.0, "max": "2m"}}, "kind": "gc", "until": "1m"},
        {"clock_step": ["lock-store"], "mean_interval": "30s", "by": {"uniform": ["-40s", "40s"]}, "from": "10s"},
        {"crash": ["lock-store"], "mean_interval": "5m", "restart_after": {"lognormal": {"median": "2s", "sigma": 1, "max": "5m"}}}]))),
    ("links, loss, duplicates and reordering", edit(("/network", {
        "delay": {"exponential": {"min": "1ms", "mean": "2ms"}}, "loss": " 1 / 1000 ", "duplicate": "1/1000", "reorder": True,
        "links": [{"between": ["server-1", "lock-store"], "delay": "5ms", "loss": "0/1", "reorder": False}]}))),
    ("every redis-replicated option", edit(("/lock", {"store": "redis-replicated", "key": "k", "ttl": "30s", "replicas": 2,
                                                      "replication_lag": "100ms", "down_after": "5s", "wait": {"replicas": 2, "timeout": "500ms"},
                                                      "persistence": {"rdb": "60s"}, "release": "plain-delete", "durations": "wall"}))),
    ("a job with an error, released only on success", edit(("/job/error", {"server": "server-1", "customer": 42}),
                                                           ("/job/release_in_finally", False), ("/job/at", "00:00:30"),
                                                           ("/job/recheck_before_charge", True))),
    ("section, lesson, $schema and the largest seed", edit(("/section", "3-4"), ("/lesson", "One line."),
                                                          ("/$schema", "scenario.schema.json"), ("/seed", 18446744073709551615))),
    ("expectations of every form", edit(("/designs/plain/expect", {"charges": 2, "double_charges": {"at_most": 0},
                                                                   "finished_ms": {"at_least": 1}}))),
]

# Texts the schema and the loader must agree on: (pointer, text).
AGREE = (
    [("/job/work_per_customer", t) for t in (
        "40s", "250ms", "1.5s", "5m", "5min", "1h", "0s", "00.000ms", "168h", "1.5us", "1.5000000ms", "0.000000001s",
        "1.999999999m", "1.0ns", "40 parsecs", "1.5ns", "1.0005us", "0.0000015ms", "1.", ".5s", "1.1234567891s",
        "5mins", "+5s", "-5s", "5S", "5 s", "1e3ms", "", "s", "5d")]
    + [("/clocks/server-1/offset", t) for t in ("-5ms", "5ms", "-0s", "--5ms", "- 5ms", "-1.5ns")]
    + [("/network/loss", t) for t in (
        "1/100", "0/1", " 1 / 100 ", "+1/100", "-0/5", "-1/5", "1/1000000000", "1/1000000001", "1/0", "1/100x",
        "1//100", "1.5/100", "1")]
)

# What the schema cannot see and leaves to the loader: it accepts these, the loader refuses.
LEFT_TO_LOADER = [
    ("a range of clock steps whose from is not below its to",
     edit(("/explore", {"faults": [{"clock_step": "lock-store", "by": {"from": "5s", "to": "-5s"}}]}))),
    ("a duration above a week", edit(("/job/work_per_customer", "169h"))),
    ("a design's null for a field the world does not set (it would remove nothing)",
     edit(("/lock", REMOVE), ("/designs", {"db": {"lock": {"store": "db-advisory", "key": "k", "retry": None}}}))),
    ("histogram bounds that fall", edit(("/network/delay", {"histogram": [{"up_to": "2ms", "count": 1}, {"up_to": "1ms", "count": 1}]}))),
    ("a histogram whose counts are all 0", edit(("/network/delay", {"histogram": [{"up_to": "2ms", "count": 0}]}))),
    ("a histogram's min above its first bound", edit(("/network/delay", {"histogram": {"min": "3ms", "buckets": [{"up_to": "2ms", "count": 1}]}}))),
    ("observed samples in a file that does not exist", edit(("/network/delay", {"observed": "no-such-file.txt"}))),
    ("odds above 1/1", edit(("/network/loss", "2/1"))),
    ("a node that does not exist", edit(("/faults", [dict(PAUSE, pause="server-9")]))),
    ("fencing on redis (no tokens)", edit(("/fencing", True))),
    ("a ttl under 3ms", edit(("/lock/ttl", "2ms"))),
    ("a consul session TTL under 10s", edit(("/lock", dict(CONSUL_LOCK, ttl="9s")))),
    ("a consul lock-delay above 60s", edit(("/lock", dict(CONSUL_LOCK, lock_delay="61s")))),
    ("a retry under 1ms", edit(("/lock/retry", {"min": "0s", "max": "1s"}))),
    ("a clock slew of 200ms", edit(("/faults", [{"clock_slew": "lock-store", "at": "1s", "by": "200ms"}]))),
    ("WAIT for more replicas than there are", edit(("/lock", {"store": "redis-replicated", "key": "k", "ttl": "30s",
                                                              "replication_lag": "1ms", "wait": {"replicas": 2, "timeout": "1s"}}))),
    ("a design adds an option that the base world's store does not have",
     edit(("/designs/plain", {"lock": {"ensemble": 3}}))),
    ("generator targets \"clients\"", edit(("/fault_generators", [{"crash": "clients", "mean_interval": "1m"}]))),
    ("the error's customer is not one of the job's", edit(("/job/error", {"server": "server-1", "customer": 7}))),
    ("an expectation whose at_least is above its at_most", edit(("/designs/plain/expect", {"charges": {"at_least": 3, "at_most": 2}}))),
    ("a Lease of 15.5 s", edit(("/lock", dict(K8S_LOCK, ttl="15500ms")))),
    ("a link fault from the trigger without a \"when\"", edit(("/faults", [{"hold_message": [{"role": "trigger"}, "lock-store"], "at": "5s", "for": "1s"}]))),
    ("a role explored over a list of heal times", edit(("/explore", {"faults": [{"partition": {"role": "holder"}, "heal_after": ["1s"]}]}))),
    ("a Lease no longer than its renew deadline", edit(("/lock", dict(K8S_LOCK, renew_deadline="15s")))),
    ("a renew deadline within 1.2 retry periods", edit(("/lock", dict(K8S_LOCK, retry_period="9s")))),
]


REDIS_REPLICATED = {"store": "redis-replicated", "key": "k", "ttl": "30s", "replication_lag": "1ms"}
# (what, a file with one unknown name in it, where the schema lists the names). The
# loader's message for the unknown name lists the ones it knows.
VOCABULARIES = [
    ("top-level fields", edit(("/zz", 1)), "/properties"),
    ("design fields", edit(("/designs/plain/zz", 1)), "/$defs/design/properties"),
    ("lock fields", edit(("/lock/zz", 1)), "/$defs/lock/properties"),
    ("lock stores", edit(("/lock/store", "zz")), "/$defs/lock/properties/store/enum"),
    ("lock releases", edit(("/lock/release", "zz")), "/$defs/lock/properties/release/anyOf/0/enum"),
    ("lock duration clocks", edit(("/lock/durations", "zz")), "/$defs/lock/properties/durations/anyOf/0/enum"),
    ("watches", edit(("/lock", dict(ZK_LOCK, watch="zz"))), "/$defs/lock/properties/watch/anyOf/0/enum"),
    ("persistence modes", edit(("/lock/persistence", "zz")), "/$defs/persistence/anyOf/0/enum"),
    ("persistence fields", edit(("/lock/persistence", {"rdb": "60s", "zz": 1})), "/$defs/persistence/anyOf/1/properties"),
    ("retry fields", edit(("/lock/retry/zz", 1)), "/$defs/retry/properties"),
    ("wait fields", edit(("/lock", dict(REDIS_REPLICATED, wait={"replicas": 1, "timeout": "1s", "zz": 1}))), "/$defs/wait/properties"),
    # One schema object for both kinds of job; the loader lists each kind's own fields.
    ("job fields", [edit(("/job/zz", 1)),
                    edit(("/job", {"kind": "index-rebuild", "name": "index", "at": "00:00", "period": "h", "work": "1s", "zz": 1})),
                    edit(("/job", {"kind": "leader-loop", "name": "export", "at": "00:00", "every": "1m", "until": "1h",
                                   "queue": {"pending": [1]}, "work_per_item": "1s", "zz": 1}))],
     "/$defs/job/properties"),
    ("job kinds", edit(("/job/kind", "zz")), "/$defs/job/properties/kind/enum"),
    ("queue fields", edit(("/job", {"kind": "leader-loop", "name": "export", "at": "00:00", "every": "1m", "until": "1h",
                                    "queue": {"pending": [1], "zz": 1}, "work_per_item": "1s"})), "/$defs/queue/properties"),
    ("job assignments", edit(("/job/assign", "zz")), "/$defs/job/properties/assign/enum"),
    ("lock scopes", edit(("/job/lock_for", "zz")), "/$defs/job/properties/lock_for/enum"),
    ("purposes", edit(("/purpose", "zz")), "/$defs/purpose/enum"),
    ("job.error fields", edit(("/job/error", {"server": "server-1", "customer": 42, "zz": 1})), "/$defs/jobError/properties"),
    ("network fields", edit(("/network/zz", 1)), "/$defs/network/properties"),
    ("link fields", edit(("/network/links", [{"between": ["server-1", "lock-store"], "zz": 1}])), "/$defs/link/properties"),
    ("clock fields", edit(("/clocks", {"server-1": {"zz": 1}})), "/$defs/clock/properties"),
    ("distribution kinds", edit(("/network/delay", {"zz": "1ms"})), "/$defs/distribution/anyOf/1/properties"),
    ("exponential fields", edit(("/network/delay", {"exponential": {"mean": "1ms", "zz": 1}})), "/$defs/exponentialSpec/anyOf/1/properties"),
    ("pareto fields", edit(("/network/delay", {"pareto": {"min": "1ms", "alpha": 1, "max": "2ms", "zz": 1}})), "/$defs/paretoSpec/properties"),
    ("lognormal fields", edit(("/network/delay", {"lognormal": {"median": "1ms", "sigma": 1, "max": "2ms", "zz": 1}})), "/$defs/lognormalSpec/properties"),
    ("histogram fields", edit(("/network/delay", {"histogram": {"buckets": [{"up_to": "1ms", "count": 1}], "zz": 1}})), "/$defs/histogramSpec/anyOf/1/properties"),
    ("histogram bucket fields", edit(("/network/delay", {"histogram": [{"up_to": "1ms", "count": 1, "zz": 1}]})), "/$defs/histogramBucket/properties"),
    ("observed fields", edit(("/network/delay", {"observed": {"file": "delays.txt", "zz": 1}})), "/$defs/observedSpec/anyOf/1/properties"),
    ("observed units", edit(("/network/delay", {"observed": {"file": "delays.txt", "unit": "zz"}})), "/$defs/observedSpec/anyOf/1/properties/unit/enum"),
    ("pause fields", edit(("/faults", [dict(PAUSE, zz=1)])), "/$defs/pauseFault/properties"),
    ("pause kinds", edit(("/faults", [dict(PAUSE, kind="zz")])), "/$defs/pauseFault/properties/kind/enum"),
    ("clock_step fields", edit(("/faults", [{"clock_step": "server-1", "at": "1s", "by": "1s", "zz": 1}])), "/$defs/clockStepFault/properties"),
    ("clock_slew fields", edit(("/faults", [{"clock_slew": "server-1", "at": "1s", "by": "1ms", "zz": 1}])), "/$defs/clockSlewFault/properties"),
    ("crash fields", edit(("/faults", [{"crash": "server-1", "at": "1s", "zz": 1}])), "/$defs/crashFault/properties"),
    ("partition fields", edit(("/faults", [{"partition": [["server-1"], ["server-2"]], "at": "1s", "zz": 1}])), "/$defs/partitionFault/properties"),
    ("delay_spike fields", edit(("/faults", [{"delay_spike": ["server-1", "server-2"], "at": "1s", "for": "1s", "extra": "1s", "zz": 1}])), "/$defs/delaySpikeFault/properties"),
    ("event kinds", edit(("/faults", [{"pause": "server-1", "for": "1s", "when": {"event": "zz"}}])), "/$defs/trigger/properties/event/enum"),
    ("pause generator fields", edit(("/fault_generators", [{"pause": "servers", "mean_interval": "1m", "for": "1s", "zz": 1}])), "/$defs/pauseGenerator/properties"),
    ("pause generator kinds", edit(("/fault_generators", [{"pause": "servers", "mean_interval": "1m", "for": "1s", "kind": "zz"}])), "/$defs/pauseGenerator/properties/kind/enum"),
    ("clock_step generator fields", edit(("/fault_generators", [{"clock_step": "servers", "mean_interval": "1m", "by": "1s", "zz": 1}])), "/$defs/clockStepGenerator/properties"),
    ("crash generator fields", edit(("/fault_generators", [{"crash": "servers", "mean_interval": "1m", "zz": 1}])), "/$defs/crashGenerator/properties"),
    ("metrics", edit(("/designs/plain/expect", {"zz": 0})), "/$defs/expect/properties"),
    ("expectation bounds", edit(("/designs/plain/expect", {"charges": {"at_least": 1, "zz": 1}})), "/$defs/expectation/anyOf/1/properties"),
]


def names_the_loader_lists(message):
    """The names in "...; expected one of: a, b, c" or "... expected "a", "b" or "c", got ..."."""
    listed = re.search(r"expected one of: (.*?)(?: \(in design \"[^\"]*\"\))?$", message)
    if listed:
        return set(listed.group(1).split(", "))
    if "expected " not in message:
        return None
    text = message.split("expected ", 1)[1].split(", got")[0].split("{")[0]
    return set(re.findall(r'"([^"]*)"', text)) or None


def names_in_schema(schema, where):
    node = schema
    for key in where.strip("/").split("/"):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return set(node)


def reject_duplicate_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"field \"{key}\" appears twice in one object")
        seen.add(key)
    return dict(pairs)


def pointer(path):
    return "/" + "/".join(str(p) for p in path)


def clearest(error):
    """In a oneOf/anyOf, the branch that came closest: fewest errors, not a mere type mismatch."""
    while error.context:
        branches = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)

        def score(errors):
            return (all(e.validator == "type" for e in errors), len(errors), -max(len(e.absolute_path) for e in errors))

        error = max(min(branches.values(), key=score), key=lambda e: len(e.absolute_path))
    return error


def describe(error):
    """One line: where, what is wrong, and the failing schema's description if it has one."""
    error = clearest(error)
    if error.validator == "pattern":
        message = f"{json.dumps(error.instance, ensure_ascii=False)} does not have the expected form"
    else:
        message = error.message
    text = f"{pointer(error.absolute_path)}: {message}"
    # A keyword right on the root (a missing or unknown top-level field) needs no more.
    on_root = len(error.absolute_schema_path) <= 1
    hint = error.schema.get("description") if isinstance(error.schema, dict) and not on_root else None
    return f"{text} ({hint})" if hint else text


def schema_errors(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))


def undescribed_properties(node, where="#"):
    """Pointers of property schemas without a description, anywhere in the schema."""
    missing = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    if not (isinstance(sub, dict) and isinstance(sub.get("description"), str) and sub["description"]):
                        missing.append(f"{where}/properties/{name}")
            missing += undescribed_properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            missing += undescribed_properties(value, f"{where}/{i}")
    return missing


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, name, why=""):
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}: {why}")


def run_locksim(binary, document, directory, name):
    path = os.path.join(directory, name + ".json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, ensure_ascii=False, indent=2)
    done = subprocess.run([binary, "run", path], capture_output=True, text=True, timeout=120)
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return done.returncode, lines[0] if lines else ""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: validate_scenarios.py path/to/locksim")
    binary = os.path.abspath(sys.argv[1])
    if not os.access(binary, os.X_OK):
        sys.exit(f"validate_scenarios.py: {binary}: not an executable locksim")
    tally = Tally()

    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema = json.load(f, object_pairs_hook=reject_duplicate_keys)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        tally.check(True, "scenario.schema.json is a valid draft 2020-12 schema")
    except jsonschema.SchemaError as error:
        tally.check(False, "scenario.schema.json is a valid draft 2020-12 schema", error.message)
        return 1
    missing = undescribed_properties(schema)
    tally.check(not missing, "every property in the schema has a description", ", ".join(missing))
    validator = jsonschema.Draft202012Validator(schema)

    files = sorted(f for f in os.listdir(SCENARIOS) if f.endswith(".json") and f != "scenario.schema.json")
    tally.check(bool(files), "there are shipped scenarios", "none found in " + SCENARIOS)
    for name in files:
        label = f"scenarios/{name}"
        try:
            with open(os.path.join(SCENARIOS, name), encoding="utf-8") as f:
                document = json.load(f, object_pairs_hook=reject_duplicate_keys)
        except ValueError as error:
            tally.check(False, label, str(error))
            continue
        first = next(iter(document), None) if isinstance(document, dict) else None
        if first != "$schema" or document["$schema"] != "scenario.schema.json":
            tally.check(False, label, "the first member must be \"$schema\": \"scenario.schema.json\"")
            continue
        errors = schema_errors(validator, document)
        tally.check(not errors, label, "; ".join(describe(e) for e in errors[:5]))

    with tempfile.TemporaryDirectory(prefix="locksim-schema-") as directory:
        for i, (name, document) in enumerate(MUST_REJECT):
            errors = schema_errors(validator, document)
            code, line = run_locksim(binary, document, directory, f"reject-{i}")
            why = []
            if not errors:
                why.append("the schema accepts it")
            if code != 2:
                why.append(f"locksim run exits {code}, not 2: {line}")
            detail = f" [{describe(errors[0])}]" if errors else ""
            tally.check(not why, f"rejects {name}{detail}", "; ".join(why))

        for i, (name, document) in enumerate(MUST_ACCEPT):
            errors = schema_errors(validator, document)
            code, line = run_locksim(binary, document, directory, f"accept-{i}")
            why = []
            if errors:
                why.append("the schema refuses it: " + "; ".join(describe(e) for e in errors[:3]))
            if code != 0:
                why.append(f"locksim run exits {code}, not 0: {line}")
            tally.check(not why, f"accepts {name}", "; ".join(why))

        for i, (where, text) in enumerate(AGREE):
            document = edit((where, text))
            schema_ok = not schema_errors(validator, document)
            code, line = run_locksim(binary, document, directory, f"agree-{i}")
            if code not in (0, 1, 2):
                tally.check(False, f"{where} {json.dumps(text)}", f"locksim run exits {code}: {line}")
                continue
            # 1: loaded and run, and the run failed: a probe's values may leave no work done
            # within the horizon ("work_per_customer": "1h"), which fails a run.
            loader_ok = code != 2
            verdict = "accept" if loader_ok else "refuse"
            tally.check(schema_ok == loader_ok, f"schema and loader both {verdict} {where} {json.dumps(text)}",
                        f"the schema {'accepts' if schema_ok else 'refuses'} it, the loader {'accepts' if loader_ok else 'refuses'} it {line}")

        for i, (name, document) in enumerate(LEFT_TO_LOADER):
            errors = schema_errors(validator, document)
            code, line = run_locksim(binary, document, directory, f"loader-{i}")
            why = []
            if errors:
                why.append("the schema refuses it now (move it to MUST_REJECT): " + describe(errors[0]))
            if code != 2:
                why.append(f"locksim run exits {code}, not 2: {line}")
            tally.check(not why, f"left to the loader: {name}", "; ".join(why))

        for i, (what, documents, where) in enumerate(VOCABULARIES):
            listed = set()
            for j, document in enumerate(documents if isinstance(documents, list) else [documents]):
                code, line = run_locksim(binary, document, directory, f"vocabulary-{i}-{j}")
                names = names_the_loader_lists(line) if code == 2 else None
                if names is None:
                    break
                listed |= names
            if names is None:
                tally.check(False, f"the schema's {what} are the loader's", f"no list of names from locksim (exit {code}): {line}")
                continue
            listed.discard("zz")
            in_schema = {name for name in names_in_schema(schema, where) if name is not None}
            why = []
            if listed - in_schema:
                why.append("the loader knows " + ", ".join(sorted(listed - in_schema)) + f" and the schema ({where}) does not")
            if in_schema - listed:
                why.append("the schema has " + ", ".join(sorted(in_schema - listed)) + " and the loader does not")
            tally.check(not why, f"the schema's {what} are the loader's", "; ".join(why))

    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
