#!/usr/bin/env bash
# Runs every malformed scenario in tests/bad_scenarios/ (and the big ones that
# tests/bad_scenarios/generate_big.py writes at test time) through `locksim run` and
# `locksim check`, and checks that each is refused properly:
#
#   - `run FILE` exits 2 within 20 s, prints nothing on stdout and exactly one line on
#     stderr (at most 4096 bytes of UTF-8, no C0 or C1 control characters) that starts with FILE and names
#     the place listed for FILE in tests/bad_scenarios/README.md: a JSON pointer
#     (FILE[:LINE:COL]: /pointer: ...) or, for a JSON syntax error, FILE:LINE:COL: ...;
#   - `check FILE` exits 2 and prints "ERROR " followed by that same line.
#
# Usage: tests/bad_scenarios_test.sh path/to/locksim [FILE-OR-NAME ...]
# With names (e.g. json-bom.json), runs only those. Prints PASS or FAIL (with the
# reason) per file, then a count; exits 1 if any failed, 2 on a usage error.
# Needs bash, coreutils (timeout, mktemp) and python3 (standard library only).
set -euo pipefail

if [[ $# -lt 1 || ! -x $1 ]]; then
    echo "usage: $0 path/to/locksim [FILE-OR-NAME ...]" >&2
    exit 2
fi
locksim=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
corpus=$here/bad_scenarios

work=$(mktemp -d "${TMPDIR:-/tmp}/bad-scenarios.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/generated" "$work/out"

# The big files only when they are asked for (all by default).
want_big=1
if [[ $# -gt 0 ]]; then
    want_big=0
    for name in "$@"; do [[ $(basename "$name") == size-*.json && ! -e $corpus/$(basename "$name") ]] && want_big=1; done
fi
if [[ $want_big == 1 ]]; then
    python3 "$corpus/generate_big.py" "$work/generated"
fi

export NO_COLOR=1
unset CI || true
python3 - "$locksim" "$corpus" "$work/generated" "$work/out" "$@" <<'PYTHON'
import concurrent.futures
import os
import re
import subprocess
import sys
import time

locksim, corpus, generated, out_dir, *only = sys.argv[1:]
TIMEOUT = 20            # seconds, per command; a timeout is a failure
MAX_LINE = 4096         # bytes: one line a person can read
READ_LIMIT = 64 * 1024  # never load more than this of an output


def table(readme):
    """file name -> accepted locations, from the README's tables."""
    rows = {}
    with open(readme, encoding="utf-8") as f:
        for line in f:
            cells = line.split("|")
            if len(cells) < 4 or not cells[1].strip().startswith("`"):
                continue
            name = cells[1].strip().strip("`")
            if name.endswith(".json"):
                rows[name] = re.findall(r"`([^`]+)`", cells[2])
    return rows


def read(path):
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        return f.read(READ_LIMIT), size


def run(args, name):
    """Runs locksim with stdout and stderr in files: (exit code or None on timeout, out, err)."""
    out_path = os.path.join(out_dir, name + ".out")
    err_path = os.path.join(out_dir, name + ".err")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        code = subprocess.run(["timeout", "-k", "5", str(TIMEOUT), locksim, *args],
                              stdout=out, stderr=err, stdin=subprocess.DEVNULL).returncode
    result = (None if code in (124, 137) else code, read(out_path), read(err_path))
    os.remove(out_path)
    os.remove(err_path)
    return result


def location_ok(rest, accepted):
    """`rest` is the message after "FILE"; does it name one of the accepted places?"""
    m = re.match(r":(\d+):(\d+): ", rest)
    if m and f"{m.group(1)}:{m.group(2)}" in accepted:
        return True
    m = re.match(r"(?::\d+:\d+)?: (/\S*): ", rest)
    if not m:
        return False
    pointer = m.group(1)
    return any(pointer == a or (a.endswith("*") and pointer.startswith(a[:-1]))
               for a in accepted if a.startswith("/"))


def show(data, limit=160):
    text = data.decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


def check_file(path, accepted):
    """The list of problems with how locksim refuses `path` (empty: it passed)."""
    name = os.path.basename(path)
    problems = []
    start = time.monotonic()
    code, (out, out_size), (err, err_size) = run(["run", path], name)
    took = time.monotonic() - start
    if code is None:
        return [f"run: no answer within {TIMEOUT}s"]
    if code != 2:
        problems.append(f"run: exit {code}, expected 2" + (" (3: internal error)" if code == 3 else ""))
    if out_size:
        problems.append(f"run: {out_size} bytes on stdout, expected none ({show(out.splitlines()[0] if out else b'', 80)})")
    line = err[:-1] if err.endswith(b"\n") else err
    if err_size == 0:
        problems.append("run: nothing on stderr")
    elif err_size > len(err):
        problems.append(f"run: stderr is {err_size} bytes, expected one short line: {show(line)}")
    elif err.count(b"\n") != 1 or not err.endswith(b"\n"):
        lines = err.count(b"\n")
        problems.append(f"run: stderr is {lines} lines, expected one: {show(err)}")
    if err_size > MAX_LINE:
        problems.append(f"run: the message is {err_size} bytes, expected at most {MAX_LINE}")
    if any((b < 0x20 and b != 0x0A) or b == 0x7F for b in line):  # extra lines are reported above
        problems.append(f"run: the message holds control characters: {show(line)}")
    try:  # a C1 control or a byte that is not UTF-8 is quoted escaped, as \xNN, too
        if any(0x80 <= ord(c) <= 0x9F for c in line.decode("utf-8")):
            problems.append(f"run: the message holds C1 control characters: {show(line)}")
    except UnicodeDecodeError:
        problems.append(f"run: the message is not UTF-8: {show(line)}")
    prefix = path.encode()
    if err_size and not line.startswith(prefix):
        problems.append(f"run: the message does not start with the path as given: {show(line)}")
    elif err_size and not location_ok(line[len(prefix):].decode("utf-8", "replace"), accepted):
        problems.append(f"run: the message names none of {', '.join(accepted)}: {show(line)}")
    if problems and code != 2:
        return problems  # the file was not refused: `check` tells nothing more
    if took > TIMEOUT / 2:
        return problems + [f"run: took {took:.1f}s, expected a few seconds (check not run)"]

    code, (out, out_size), _ = run(["check", "--color", "never", path], name)
    if code is None:
        return problems + [f"check: no answer within {TIMEOUT}s"]
    if code != 2:
        problems.append(f"check: exit {code}, expected 2")
    expected = b"ERROR " + prefix
    errors = [l for l in out.splitlines() if l.startswith(b"ERROR ")]
    if not any(l.startswith(expected) for l in errors):
        problems.append(f"check: no line starting \"ERROR {path}\" ({show(errors[0] if errors else out[:160])})")
    elif err_size <= MAX_LINE and not any(l == b"ERROR " + line for l in errors):
        problems.append(f"check: its ERROR line differs from run's message: {show(errors[0])}")
    return problems


def main():
    rows = table(os.path.join(corpus, "README.md"))
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".json"))
    files += sorted(os.path.join(generated, f) for f in os.listdir(generated) if f.endswith(".json"))
    if only:
        names = {os.path.basename(o) for o in only}
        files = [f for f in files if os.path.basename(f) in names]
        missing = names - {os.path.basename(f) for f in files}
    else:
        missing = set(rows) - {os.path.basename(f) for f in files}
    passed, failed = 0, []
    start = time.monotonic()

    def checked(path):
        name = os.path.basename(path)
        file_start = time.monotonic()
        if name not in rows:
            problems = ["not listed in tests/bad_scenarios/README.md (add a row: file, where it is reported, what is wrong)"]
        else:
            problems = check_file(path, rows[name])
        return name, problems, time.monotonic() - file_start

    # The files are independent: as many at once as there are CPUs (a sanitizer build's
    # start-up dominates each run); the results print in file order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(checked, files))
    for name, problems, took in results:
        slow = f" ({took:.1f}s)" if took >= 1 else ""
        if problems:
            failed.append(name)
            print(f"FAIL {name}{slow}: " + "; ".join(problems), flush=True)
        else:
            passed += 1
            print(f"PASS {name}{slow}", flush=True)
    for name in sorted(missing):
        failed.append(name)
        print(f"FAIL {name}: listed in README.md but there is no such file", flush=True)
    print(f"{passed} passed, {len(failed)} failed, of {passed + len(failed)} malformed scenario files "
          f"({time.monotonic() - start:.1f}s)")
    return 1 if failed else 0


sys.exit(main())
PYTHON
