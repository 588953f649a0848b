#!/usr/bin/env bash
# Runs every malformed scenario in tests/bad_scenarios/ (and the big ones that
# tests/bad_scenarios/generate_big.py writes at test time) through `locksim run` and
# `locksim check`, and checks that each is refused properly:
#
#   - `run FILE` exits 2 within 20 s, prints nothing on stdout and exactly one line on
#     stderr (at most 4096 bytes of UTF-8, no C0 or C1 control characters) that starts with FILE and names
#     the place listed for FILE in tests/bad_scenarios/README.md: a JSON pointer
#     (FILE[:LINE:COL]: /pointer: ...) or, for a JSON syntax error, FILE:LINE:COL: ...;
#     and whose text after FILE is the one tests/bad_scenarios/messages.txt records;
#   - `check FILE` exits 2 and prints "ERROR " followed by that same line.
#
# Then the inputs that are not files of the corpus, made at test time (the README's
# "Inputs that are no scenario file"): /dev/zero, /dev/urandom, a FIFO (given to run, list,
# check and merge, and named as a file of samples), a folder holding a FIFO, a NUL byte
# after a whole document, a shard padded past merge's limit, and usage errors. Each must
# exit 2 within 20 s with exactly the one line expected, word for word.
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
mkdir "$work/special"
python3 - "$locksim" "$corpus" "$work/generated" "$work/out" "$work/special" "$@" <<'PYTHON'
import concurrent.futures
import os
import re
import subprocess
import sys
import time

locksim, corpus, generated, out_dir, special, *only = sys.argv[1:]
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


MESSAGES = os.path.join(corpus, "messages.txt")


def recorded_messages():
    """file name -> the message it must print after its path, from messages.txt."""
    messages = {}
    with open(MESSAGES, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            name, tab, message = line.rstrip("\n").partition("\t")
            if not tab or name in messages:
                sys.exit(f"{MESSAGES}:{number}: expected one line per file, FILE<tab>MESSAGE")
            messages[name] = message
    return messages


def placeholders(message):
    """The message with the folders of this run written as {corpus} and {generated}."""
    return message.replace(corpus, "{corpus}").replace(generated, "{generated}")


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


def check_file(path, accepted, message):
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
    elif err_size:
        said = placeholders(line[len(prefix):].decode("utf-8", "replace"))
        if message is None:
            problems.append(f"run: no message recorded in messages.txt; it says (after the path): {said}")
        elif said != message:
            problems.append(f"run: the message differs from messages.txt: expected {message!r}, got {said!r}")
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


SCENARIO = os.path.join(os.path.dirname(corpus), "..", "scenarios", "gc-pause-40s.json")
SHARD_LIMIT = 256 << 20  # merge's, cli/sweep_command.cpp
NOT_REGULAR = ", not a regular file; locksim reads only regular files (a device or a pipe may never end)"
NUL = "a NUL byte, which no text file holds; whatever follows it would go unread"
SPECIAL = ("input-", "usage-")  # the names of the cases below


def position_after(data):
    """LINE:COLUMN of the byte just after `data`."""
    line = data.count(b"\n") + 1
    column = len(data) - (data.rfind(b"\n") + 1) + 1
    return f"{line}:{column}"


def special_inputs():
    """The inputs made here, and their cases: (name, arguments, stream, the one line expected)."""
    d = special
    fifo = os.path.join(d, "f.json")
    os.mkfifo(fifo)
    folder = os.path.join(d, "folder")
    os.mkdir(folder)
    os.mkfifo(os.path.join(folder, "x.json"))
    with open(SCENARIO, "rb") as f:
        scenario = f.read()
    after_nul = os.path.join(d, "after-nul.json")
    with open(after_nul, "wb") as f:
        f.write(scenario + b"\0{\"seed\": -1}\n")
    # A whole shard, then the same with a NUL, and padded with spaces past the limit.
    shard = os.path.join(d, "shard.json")
    subprocess.run([locksim, "sweep", SCENARIO, "--seeds", "2", "--shard", "1/1", "--output", shard],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(shard, "rb") as f:
        shard_bytes = f.read()
    shard_nul = os.path.join(d, "shard-nul.json")
    with open(shard_nul, "wb") as f:
        f.write(shard_bytes + b"\0")
    padded = os.path.join(d, "padded.json")
    with open(padded, "wb") as f:
        f.write(shard_bytes)
        chunk = b" " * (1 << 20)
        for _ in range(SHARD_LIMIT >> 20):
            f.write(chunk)
    padded_size = os.path.getsize(padded)
    # A file of samples that is a FIFO.
    with open(os.path.join(corpus, "observed-device.json"), encoding="utf-8") as f:
        observed = f.read().replace('"/dev/zero"', '"pauses.fifo"')
    samples = os.path.join(d, "observed-fifo.json")
    with open(samples, "w", encoding="utf-8") as f:
        f.write(observed)
    os.mkfifo(os.path.join(d, "pauses.fifo"))
    samples_at = "1:" + str(observed.index('"pauses.fifo"') + 1)

    zero = "/dev/zero: is a character device" + NOT_REGULAR
    piped = fifo + ": is a FIFO (a named pipe)" + NOT_REGULAR
    in_folder = os.path.join(folder, "x.json") + ": is a FIFO (a named pipe)" + NOT_REGULAR
    return [
        ("input-dev-zero-run", ["run", "/dev/zero"], "stderr", zero),
        ("input-dev-urandom-run", ["run", "/dev/urandom"], "stderr", "/dev/urandom: is a character device" + NOT_REGULAR),
        ("input-dev-zero-check", ["check", "/dev/zero"], "stdout", "ERROR " + zero),
        ("input-dev-zero-merge", ["merge", "/dev/zero"], "stderr", zero),
        ("input-fifo-run", ["run", fifo], "stderr", piped),
        ("input-fifo-list", ["list", fifo], "stderr", piped),
        ("input-fifo-check", ["check", fifo], "stdout", "ERROR " + piped),
        ("input-fifo-merge", ["merge", fifo], "stderr", piped),
        ("input-fifo-in-a-folder-check", ["check", folder], "stdout", "ERROR " + in_folder),
        ("input-fifo-in-a-folder-list", ["list", folder], "stderr", in_folder),
        ("input-fifo-as-samples", ["run", samples], "stderr",
         f"{samples}:{samples_at}: /fault_generators/0/for/observed: {os.path.join(d, 'pauses.fifo')}: is a FIFO "
         "(a named pipe)" + NOT_REGULAR),
        ("input-nul-after-a-whole-scenario", ["run", after_nul], "stderr",
         f"{after_nul}:{position_after(scenario)}: {NUL}"),
        ("input-nul-after-a-whole-shard", ["merge", shard_nul], "stderr",
         f"{shard_nul}:{position_after(shard_bytes)}: {NUL}"),
        ("input-shard-padded-past-the-limit", ["merge", shard, padded], "stderr",
         f"{padded}: the file is {padded_size} bytes; a shard holds its tallies or its runs' outcomes, and locksim "
         f"reads at most {SHARD_LIMIT} (256 MiB)"),
        ("usage-option-missing", ["sweep", SCENARIO], "stderr",
         "--seeds is required; run locksim sweep --help for more information"),
        ("usage-option-unknown", ["run", SCENARIO, "--no-such-option"], "stderr",
         "The following argument was not expected: --no-such-option; run locksim run --help for more information"),
        ("usage-value-not-allowed", ["run", SCENARIO, "--format", "xml"], "stderr",
         "--format: xml not in {text,json,trace,mermaid,perfetto}; run locksim run --help for more information"),
    ]


def check_special(case):
    """The problems with how locksim refuses one of the inputs made here."""
    name, arguments, stream, expected = case
    code, (out, out_size), (err, err_size) = run(arguments, name)
    if code is None:
        return [f"no answer within {TIMEOUT}s"]
    problems = [] if code == 2 else [f"exit {code}, expected 2"]
    if stream == "stderr":
        if err != (expected + "\n").encode():
            problems.append(f"stderr is {show(err, 400)}, expected the one line {expected}")
    else:
        lines = [l for l in out.splitlines() if l.startswith(b"ERROR ")]
        if lines != [expected.encode()]:
            problems.append(f"its ERROR lines are {[show(l) for l in lines]}, expected the one line {expected}")
    return problems


def main():
    rows = table(os.path.join(corpus, "README.md"))
    messages = recorded_messages()
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".json"))
    files += sorted(os.path.join(generated, f) for f in os.listdir(generated) if f.endswith(".json"))
    if only:
        names = {os.path.basename(o) for o in only if not o.startswith(SPECIAL)}
        files = [f for f in files if os.path.basename(f) in names]
        missing = names - {os.path.basename(f) for f in files}
    else:
        missing = set(rows) - {os.path.basename(f) for f in files}
        missing |= set(messages) - {os.path.basename(f) for f in files}
    passed, failed = 0, []
    start = time.monotonic()

    def checked(path):
        name = os.path.basename(path)
        file_start = time.monotonic()
        if name not in rows:
            problems = ["not listed in tests/bad_scenarios/README.md (add a row: file, where it is reported, what is wrong)"]
        else:
            problems = check_file(path, rows[name], messages.get(name))
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
        print(f"FAIL {name}: listed in README.md or messages.txt but there is no such file", flush=True)
    specials = special_inputs() if not only or any(o.startswith(SPECIAL) for o in only) else []
    for case in specials:
        if only and case[0] not in only:
            continue
        problems = check_special(case)
        if problems:
            failed.append(case[0])
            print(f"FAIL {case[0]}: " + "; ".join(problems), flush=True)
        else:
            passed += 1
            print(f"PASS {case[0]}", flush=True)
    print(f"{passed} passed, {len(failed)} failed, of {passed + len(failed)} malformed inputs "
          f"({time.monotonic() - start:.1f}s)")
    return 1 if failed else 0


sys.exit(main())
PYTHON
