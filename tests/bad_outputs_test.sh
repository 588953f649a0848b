#!/usr/bin/env bash
# The outputs half of the bad-input corpus (tests/bad_scenarios/README.md, "Outputs"):
# every way an output path could replace an input, escape its report folder, or be found
# unusable only after the work, run in a scratch folder. For each case it checks
#
#   - the exit code,
#   - stderr: exactly the one line expected, word for word,
#   - what is left on disk: every file, folder and link of the scratch folder (the inputs,
#     the files outside a report folder) byte for byte as before, nothing added, unless the
#     case says what it writes.
#
# Usage: tests/bad_outputs_test.sh path/to/locksim [CASE-NAME ...]
# Prints PASS or FAIL (with the reason) per case, then a count; exits 1 if any failed.
# Needs bash, coreutils (timeout) and python3 (standard library only).
set -euo pipefail

if [[ $# -lt 1 || ! -x $1 ]]; then
    echo "usage: $0 path/to/locksim [CASE-NAME ...]" >&2
    exit 2
fi
locksim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/bad-outputs.XXXXXX")
trap 'rm -rf "$work"' EXIT

export NO_COLOR=1
unset CI || true
python3 - "$locksim" "$here/.." "$work" "$@" <<'PYTHON'
import hashlib
import os
import shutil
import subprocess
import sys
import time

locksim, source, work, *only = sys.argv[1:]
TIMEOUT = 20  # seconds per command: every refusal comes before any long work


def snapshot(folder):
    """Every path below `folder` -> what it is: a file's SHA-256, a link's target, a folder."""
    seen = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                seen[key] = "link -> " + os.readlink(path)
                if name in dirs:
                    dirs.remove(name)  # never walk through a link
            elif os.path.isdir(path):
                seen[key] = "folder"
            else:
                with open(path, "rb") as f:
                    seen[key] = hashlib.sha256(f.read()).hexdigest()[:16]
    return seen


def shell(command, cwd):
    subprocess.run(command, shell=True, check=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def setup(scratch):
    """The inputs every case may use: a scenario, its copies and links, shards, samples."""
    shutil.copy(os.path.join(source, "scenarios", "gc-pause-40s.json"), os.path.join(scratch, "g.json"))
    shutil.copy(os.path.join(source, "scenarios", "random-gc-pauses.json"), os.path.join(scratch, "s.json"))
    os.symlink("s.json", os.path.join(scratch, "link.json"))
    os.link(os.path.join(scratch, "s.json"), os.path.join(scratch, "hard.json"))
    shell(f"'{locksim}' sweep s.json --seeds 4 --shard 1/2 --output m1.json", scratch)
    shell(f"'{locksim}' sweep s.json --seeds 4 --shard 2/2 --output m2.json", scratch)
    # A scenario that reads a file of samples (observed pause lengths).
    with open(os.path.join(source, "tests", "bad_scenarios", "observed-device.json"), encoding="utf-8") as f:
        observed = f.read().replace('"/dev/zero"', '"pauses.txt"')
    with open(os.path.join(scratch, "obs.json"), "w", encoding="utf-8") as f:
        f.write(observed)
    with open(os.path.join(scratch, "pauses.txt"), "w", encoding="utf-8") as f:
        f.write("# observed GC pauses\n12ms\n40ms\n2s\n")
    # Files outside the report folders, and links planted inside them that lead there.
    os.makedirs(os.path.join(scratch, "outside"))
    for name in ("d1-unfenced.html", "page.html"):
        with open(os.path.join(scratch, "outside", name), "w") as f:
            f.write("not locksim's to overwrite\n")
    os.makedirs(os.path.join(scratch, "site"))
    os.symlink("../outside", os.path.join(scratch, "site", "gc-pause-40s-steps"))
    os.makedirs(os.path.join(scratch, "course"))
    os.symlink("../outside", os.path.join(scratch, "course", "gc-pause-40s-steps"))
    os.makedirs(os.path.join(scratch, "blocked", "gc-pause-40s.html"))  # a folder in the way of the page
    # Scenarios whose files bear the names of the pages their reports write, and a folder
    # for a study's text beside its charts.
    for name in ("gc-pause-40s.html", "gc-pause-40s-explore.html"):
        shutil.copy(os.path.join(scratch, "g.json"), os.path.join(scratch, name))
    os.makedirs(os.path.join(scratch, "study"))
    os.makedirs(os.path.join(scratch, "linked"))
    os.symlink("../outside/page.html", os.path.join(scratch, "linked", "gc-pause-40s.html"))


NEVER = "; locksim never writes over what it reads: give another file"

# name, arguments, exit code, the one line on stderr (None: not checked), and for a case
# that writes, a function of (before, after) snapshots that returns its problems.
CASES = [
    ("sweep-output-is-its-scenario", "sweep s.json --seeds 2 --output s.json", 2,
     "--output s.json: is also an input of this command (s.json)" + NEVER),
    ("sweep-output-is-its-scenario-by-another-path", "sweep s.json --seeds 2 --output ./s.json", 2,
     "--output ./s.json: is also an input of this command (s.json)" + NEVER),
    ("sweep-output-is-a-link-to-its-scenario", "sweep s.json --seeds 2 --output link.json", 2,
     "--output link.json: is also an input of this command (s.json)" + NEVER),
    ("sweep-output-is-a-hard-link-to-its-scenario", "sweep s.json --seeds 2 --output hard.json", 2,
     "--output hard.json: is also an input of this command (s.json)" + NEVER),
    ("sweep-output-is-its-samples", "sweep obs.json --seeds 1 --output pauses.txt", 2,
     "--output pauses.txt: is also an input of this command (pauses.txt)" + NEVER),
    ("sweep-junit-is-its-scenario", "sweep s.json --seeds 2 --max-rate unfenced=1 --junit s.json", 2,
     "--junit s.json: is also an input of this command (s.json)" + NEVER),
    ("sweep-junit-is-its-output", "sweep s.json --seeds 2 --max-rate unfenced=1 --output out.json --junit out.json", 2,
     "--junit out.json: is also --output out.json; give each output its own file"),
    # A billion seeds would run for days: the folder is checked first.
    ("sweep-output-folder-missing", "sweep s.json --seeds 1000000000 --output missing/shard.json", 2,
     "--output missing/shard.json: the folder missing does not exist; create it first"),
    ("sweep-output-is-a-folder", "sweep s.json --seeds 2 --output outside", 2,
     "--output outside: is a directory; give the name of a file to write"),
    ("merge-output-is-a-shard", "merge m1.json m2.json --output m1.json", 2,
     "--output m1.json: is also an input of this command (m1.json)" + NEVER),
    ("check-junit-is-its-scenario", "check g.json --junit g.json", 2,
     "--junit g.json: is also an input of this command (g.json)" + NEVER),
    ("check-junit-is-a-file-of-its-folder", "check . --junit g.json", 2,
     "--junit g.json: is also an input of this command (./g.json)" + NEVER),
    ("check-junit-is-the-samples-a-scenario-reads", "check obs.json --junit pauses.txt", 2,
     "--junit pauses.txt: is also an input of this command (pauses.txt)" + NEVER),
    ("shrink-out-is-its-scenario", "shrink g.json --design unfenced --out g.json", 2,
     "--out g.json: is also an input of this command (g.json)" + NEVER),
    ("shrink-out-folder-missing", "shrink g.json --design unfenced --out missing/minimal.json", 2,
     "--out missing/minimal.json: the folder missing does not exist; create it first"),
    ("explore-output-is-its-scenario", "explore g.json --output g.json", 2,
     "--output g.json: is also an input of this command (g.json)" + NEVER),
    ("run-report-is-its-scenario", "run g.json --report g.json", 2,
     "--report g.json: is a file, not a folder; give a folder to write the pages into"),
    ("run-report-through-a-planted-folder-link", "run g.json --report site", 2,
     "--report site/gc-pause-40s-steps: is a symbolic link or not a folder; pages go only into real folders, "
     "never through a link"),
    ("report-out-through-a-planted-folder-link", "report g.json --out course", 2,
     "--out course/gc-pause-40s-steps: is a symbolic link or not a folder; pages go only into real folders, "
     "never through a link"),
    # A page of a report folder is an output like any file: never one of the inputs, never
    # another output.
    ("run-report-page-is-its-scenario", "run gc-pause-40s.html --report .", 2,
     "--report .: its page gc-pause-40s.html is also an input of this command (gc-pause-40s.html); locksim never "
     "writes over what it reads: give another folder"),
    ("explore-report-page-is-its-scenario", "explore gc-pause-40s-explore.html --report .", 2,
     "--report .: its page gc-pause-40s-explore.html is also an input of this command (gc-pause-40s-explore.html); "
     "locksim never writes over what it reads: give another folder"),
    ("sweep-report-page-is-its-output",
     "sweep g.json --seeds 2 --vary lock.ttl=5s,10s --output study/gc-pause-40s-study.html --report study", 2,
     "--report study: its page gc-pause-40s-study.html is also --output study/gc-pause-40s-study.html; give each "
     "output its own file"),
    # The steps pages come first: a page that cannot be written must take them along.
    ("run-report-fails-halfway", "run g.json --report blocked", 2,
     "--report blocked/gc-pause-40s.html: is a directory; it is in the way of the file"),
]


def link_replaced(before, after):
    """run --report into `linked`: the planted link at the page's name became the page."""
    problems = []
    if after.get("linked/gc-pause-40s.html", "").startswith("link"):
        problems.append("the link at linked/gc-pause-40s.html is still there")
    added = sorted(set(after) - set(before))
    expected = ["linked/gc-pause-40s-steps", "linked/gc-pause-40s-steps/d1-unfenced.html",
                "linked/gc-pause-40s-steps/d2-fenced.html", "linked/gc-pause-40s-steps/d3-idempotent.html"]
    if added != expected:
        problems.append(f"added {added}, expected {expected}")
    for path in before:
        if path != "linked/gc-pause-40s.html" and before[path] != after.get(path):
            problems.append(f"{path} changed")
    return problems


CASES.append(("run-report-replaces-a-planted-page-link", "run g.json --report linked", 0, None, link_replaced))


def check_case(case):
    name, arguments, expected_code, expected_line, *on_disk = case
    scratch = os.path.join(work, name)
    os.makedirs(scratch)
    setup(scratch)
    before = snapshot(scratch)
    start = time.monotonic()
    try:
        ran = subprocess.run([locksim, *arguments.split()], cwd=scratch, capture_output=True,
                             stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return [f"no answer within {TIMEOUT}s (refused only after the work?)"]
    took = time.monotonic() - start
    problems = []
    if ran.returncode != expected_code:
        problems.append(f"exit {ran.returncode}, expected {expected_code}")
    if expected_line is not None:
        err = ran.stderr.decode("utf-8", "backslashreplace")
        if err != expected_line + "\n":
            problems.append(f"stderr is {err!r}, expected the one line {expected_line!r}")
        if expected_code == 2 and took > TIMEOUT / 4:
            problems.append(f"took {took:.1f}s: a refusal comes before the work")
    after = snapshot(scratch)
    if on_disk:
        problems += on_disk[0](before, after)
    else:
        added = sorted(set(after) - set(before))
        removed = sorted(set(before) - set(after))
        changed = sorted(p for p in before if p in after and before[p] != after[p])
        if added:
            problems.append(f"left behind: {', '.join(added)}")
        if removed:
            problems.append(f"removed: {', '.join(removed)}")
        if changed:
            problems.append(f"changed: {', '.join(changed)}")
    return problems


def main():
    cases = [c for c in CASES if not only or c[0] in only]
    unknown = set(only) - {c[0] for c in CASES}
    failed = sorted(unknown)
    for name in failed:
        print(f"FAIL {name}: no such case", flush=True)
    passed = 0
    for case in cases:
        problems = check_case(case)
        if problems:
            failed.append(case[0])
            print(f"FAIL {case[0]}: " + "; ".join(problems), flush=True)
        else:
            passed += 1
            print(f"PASS {case[0]}", flush=True)
    print(f"{passed} passed, {len(failed)} failed, of {passed + len(failed)} output cases")
    return 1 if failed else 0


sys.exit(main())
PYTHON
