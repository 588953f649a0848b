#!/usr/bin/env bash
# Prints the table of shipped scenarios in docs/scenarios.md: file, the course's chapter
# it tells, the one-line lesson, and for every design the metrics its expectations name,
# as measured by running it now (each metric once; a time as locksim prints durations,
# 46.001s). A CTest test (tests/docs_scenarios_table.sh) checks the copy in
# docs/scenarios.md against this output.
#   scripts/scenarios-table.sh [path/to/locksim]
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "${1:-build/locksim}" <<'PY'
import json, subprocess, sys

locksim = sys.argv[1]

def run(*args):
    done = subprocess.run([locksim, *args], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"locksim {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)

def is_time(expectation):
    """An expectation of when (first_violation_at): its bounds are durations, "50s"."""
    expected = expectation["expected"]
    return isinstance(expected, dict) and any(isinstance(v, str) for v in expected.values())

def measured(expectation):
    # A time is what locksim found, as it prints durations ("46.001s", or "none" when no
    # violation came); `actual` would be the raw nanoseconds.
    if is_time(expectation):
        return expectation.get("found", "none")
    return expectation["actual"]

print("| file | chapter | lesson | measured, per design (the metrics its expectations name) |")
print("| --- | --- | --- | --- |")
for entry in run("list", "scenarios", "--format", "json"):
    designs = []
    for design in run("run", entry["file"], "--format", "json")["designs"]:
        # One entry per metric: an expectation with both bounds ({"at_least": "46s",
        # "at_most": "47s"}) is two expectations of the same metric and the same value.
        shown = {}
        for e in design["expectations"]:
            if not e["implied"] and e["metric"] not in shown:
                shown[e["metric"]] = measured(e)
        numbers = ", ".join(f"{metric} {value}" for metric, value in shown.items())
        designs.append(f"**{design['name']}** {numbers}".rstrip())
    section = entry["section"].replace("-", "–") or "—"
    name = entry["file"].removeprefix("scenarios/")
    print(f"| `{name}` | {section} | {entry['lesson']} | {' · '.join(designs)} |")
PY
