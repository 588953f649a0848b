#!/usr/bin/env bash
# Prints the README's table of shipped scenarios: file, seed section, the one-line
# lesson, and for every design the metrics its expectations name, as measured by
# running it now. A CTest test checks the README's copy against this output.
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

print("| file | seed § | lesson | measured, per design (the metrics its expectations name) |")
print("| --- | --- | --- | --- |")
for entry in run("list", "scenarios", "--format", "json"):
    designs = []
    for design in run("run", entry["file"], "--format", "json")["designs"]:
        numbers = ", ".join(f"{e['metric']} {e['actual']}" for e in design["expectations"] if not e["implied"])
        designs.append(f"**{design['name']}** {numbers}".rstrip())
    section = entry["section"].replace("-", "–") or "—"
    name = entry["file"].removeprefix("scenarios/")
    print(f"| `{name}` | {section} | {entry['lesson']} | {' · '.join(designs)} |")
PY
