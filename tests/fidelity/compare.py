#!/usr/bin/python3
"""Compares fidelity results with the golden files, step by step.

  compare.py --cases tests/fidelity/cases GOLDEN_DIR RESULTS_DIR [NAME...]

Every field of every step must be equal, except "after" (expires), which may differ by
the store's granularity plus 0.1 s of measurement (polling every 20 ms on a busy
machine): Redis 0.1 s (the active expiry cycle runs 10 times a second), etcd 1.5 s
(the lessor's 500 ms check plus the 1 s election timeout by which a new leader
extends every lease), ZooKeeper one tick of the case (sessions expire in tick-sized
buckets), PostgreSQL 0.2 s. A different server version is printed, not counted.
Prints one line per difference and exits 1 if there is any.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
from real_runner import seconds  # noqa: E402

MEASUREMENT = 0.1


def granularity(case):
    store = case["store"]
    if store == "redis":
        return 0.1
    if store == "etcd":
        return 0.5 + 1.0
    if store == "zookeeper":
        return seconds(case.get("server", {}).get("tick", "2000ms"))
    return 0.2


def describe(entry):
    return " ".join(str(entry[k]) for k in ("do", "client") if k in entry)


def shown(entry):
    return json.dumps({k: v for k, v in entry.items() if k not in ("step", "do", "client")}, sort_keys=True)


def compare_case(case, golden, now):
    """Lines describing each difference between two result files of one case."""
    name = case["name"]
    if golden["store"] != now["store"]:
        return [f"{name}: store {golden['store']} in the golden file, {now['store']} now"]
    lines = []
    tolerance = granularity(case) + MEASUREMENT
    before, after = golden["results"], now["results"]
    for index in range(max(len(before), len(after))):
        if index >= len(before) or index >= len(after):
            missing = "golden file" if index >= len(before) else "results"
            lines.append(f"{name} step {index}: not in the {missing}")
            continue
        g, n = before[index], after[index]
        same = {k: v for k, v in g.items() if k != "after"} == {k: v for k, v in n.items() if k != "after"}
        if same and ("after" in g) == ("after" in n) and "after" in g:
            ga, na = g["after"], n["after"]
            same = (ga is None and na is None) or (
                ga is not None and na is not None and abs(ga - na) <= tolerance + 1e-9)
        if not same:
            note = f" (tolerance ±{tolerance:.3g} s)" if "after" in g or "after" in n else ""
            lines.append(f"{name} step {index} ({describe(g)}): golden {shown(g)}, now {shown(n)}{note}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", required=True)
    parser.add_argument("golden")
    parser.add_argument("results")
    parser.add_argument("names", nargs="*", help="only these cases (default: every case file)")
    args = parser.parse_args()
    names = args.names or sorted(f[:-5] for f in os.listdir(args.cases) if f.endswith(".json"))
    differences = []
    for name in names:
        with open(os.path.join(args.cases, name + ".json")) as f:
            case = json.load(f)
        golden_path = os.path.join(args.golden, name + ".json")
        now_path = os.path.join(args.results, name + ".json")
        if not os.path.exists(now_path):
            differences.append(f"{name}: did not run (see the runner's output above)")
            continue
        if not os.path.exists(golden_path):
            differences.append(f"{name}: no golden file (record it: scripts/fidelity.sh --record {name})")
            continue
        with open(golden_path) as f:
            golden = json.load(f)
        with open(now_path) as f:
            now = json.load(f)
        if golden.get("server") != now.get("server"):
            print(f"note: {name} was recorded with {golden.get('server')}, ran now with {now.get('server')}")
        differences += compare_case(case, golden, now)
    for line in differences:
        print(line)
    failed = len({d.split()[0].rstrip(":") for d in differences})
    print(f"fidelity: {len(names) - failed} passed, {failed} failed")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
