#!/usr/bin/env python3
"""Writes the big malformed scenario files into DIR (too big to commit).

    python3 generate_big.py DIR

Each file starts from the same small world as the committed corpus and breaks one
thing at scale. README.md lists them with the field each must be reported at.
"""
import os
import sys

MB = 1024 * 1024
HEAD = (
    '{\n'
    '  "name": "bad-scenario",\n'
    '  "description": "A small valid world; each corpus file breaks one thing.",\n'
)
WORLD = (
    '  "horizon": "5m",\n'
    '  "network": {"delay": "1ms"},\n'
    '  "lock": {"store": "redis", "key": "lock:renewals", "ttl": "30s"},\n'
)
JOB = '  "job": {"name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "1s"},\n'
TAIL = '  "designs": {"unfenced": {"expect": {"double_charges": {"at_most": 1}}}}\n}\n'
SERVERS = '  "servers": ["server-1", "server-2"],\n'


def write(directory, name, *parts):
    with open(os.path.join(directory, name), "w", encoding="ascii") as out:
        for part in parts:
            if isinstance(part, str):
                out.write(part)
            else:
                for chunk in part:
                    out.write(chunk)


def repeated(text, total, chunk=MB):
    """`text` repeated to `total` characters, in chunks."""
    block = text * (chunk // len(text))
    written = 0
    while written + len(block) <= total:
        yield block
        written += len(block)
    yield text * ((total - written) // len(text))


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    # A 100 MB server name: refused, and the message must not quote all of it.
    write(directory, "size-100mb-server-name.json", HEAD, '  "seed": 1,\n', WORLD,
          '  "servers": ["server-1", "', repeated("s", 100 * MB), '"],\n', JOB, TAIL)
    # A 100 MB description (valid text), then a negative seed: found quickly, named.
    write(directory, "size-100mb-description.json", '{\n  "name": "bad-scenario",\n  "description": "',
          repeated("lorem ipsum ", 100 * MB), '",\n  "seed": -1,\n', SERVERS, WORLD, JOB, TAIL)
    # 100000 '[': refused before any recursive walk.
    write(directory, "size-deep-nesting-100000.json", "[" * 100000, "\n")
    # 10^7 customers (about 90 MB), the last one listed twice.
    count = 10_000_000
    write(directory, "size-10m-customers.json", HEAD, '  "seed": 1,\n', SERVERS, WORLD,
          '  "job": {"name": "renewals", "at": "00:00", "period": "2026-10", "work_per_customer": "1s", "customers": [',
          (",".join(str(c) for c in range(start, min(start + 100_000, count + 1)))
           + ("," if start + 100_000 <= count else "") for start in range(1, count + 1, 100_000)),
          ',1]},\n', TAIL)
    # An object of 200000 keys: a clock for 200000 nodes that do not exist.
    keys = 200_000
    write(directory, "size-200k-clock-keys.json", HEAD, '  "seed": 1,\n', SERVERS, WORLD, JOB,
          '  "clocks": {', (",".join(f'"node-{i}": {{}}' for i in range(start, min(start + 10_000, keys)))
                           + ("," if start + 10_000 < keys else "") for start in range(0, keys, 10_000)),
          '},\n', TAIL)


if __name__ == "__main__":
    main()
