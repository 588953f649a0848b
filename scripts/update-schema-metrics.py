#!/usr/bin/python3
"""Writes the JSON Schema's lists of metrics from the metric table.

    scripts/update-schema-metrics.py build/locksim           # rewrite them in place
    scripts/update-schema-metrics.py build/locksim --check   # exit 1 if they differ (a test runs this)

scenarios/scenario.schema.json lists what a design's, a sweep's and an exploration's
"expect" may name, each with a description. Those lists are copies of the metric table
(checks/metric_table.hpp) and of the sweep's and exploration's totals: `locksim metrics
--format schema` prints each by the JSON Pointer of its place in the schema, and this
script puts it there, leaving every other byte of the file as it is. Only a run's
"first_violation_at", the one expectation that is not a metric, is the schema's own: it
stays after the metrics.
"""
import difflib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(ROOT, "scenarios", "scenario.schema.json")
# By pointer: the keys the schema writes itself, kept after the generated ones.
HAND_WRITTEN = {"/$defs/expect/properties": ["first_violation_at"]}

DECODER = json.JSONDecoder()
SPACE = re.compile(r"[ \t\n\r]*")


def skip_space(text, at):
    return SPACE.match(text, at).end()


def value_span(text, at, keys):
    """(start, end) in `text` of the value at `keys` within the JSON value that starts at `at`."""
    at = skip_space(text, at)
    if not keys:
        return at, DECODER.raw_decode(text, at)[1]
    if text[at] != "{":
        raise KeyError(keys[0])
    at = skip_space(text, at + 1)
    while text[at] != "}":
        key, at = DECODER.raw_decode(text, at)
        at = skip_space(text, at)
        assert text[at] == ":", f"expected ':' at byte {at}"
        if key == keys[0]:
            return value_span(text, at + 1, keys[1:])
        at = DECODER.raw_decode(text, skip_space(text, at + 1))[1]
        at = skip_space(text, at)
        if text[at] == ",":
            at = skip_space(text, at + 1)
    raise KeyError(keys[0])


def pointer_keys(pointer):
    return [key.replace("~1", "/").replace("~0", "~") for key in pointer.split("/")[1:]]


def regenerate(text, lists):
    for pointer, generated in lists.items():
        keys = pointer_keys(pointer)
        start, end = value_span(text, 0, keys)
        line_start = text.rfind("\n", 0, start) + 1
        indent = " " * (len(text[line_start:start]) - len(text[line_start:start].lstrip(" ")))
        inner = indent + "  "
        members = [f"{inner}{json.dumps(key)}: " + json.dumps(value, indent=2, ensure_ascii=False).replace(
            "\n", "\n" + inner) for key, value in generated.items()]
        for key in HAND_WRITTEN.get(pointer, []):  # as the file writes it
            value_start, value_end = value_span(text, 0, keys + [key])
            members.append(f"{inner}{json.dumps(key)}: {text[value_start:value_end]}")
        text = text[:start] + "{\n" + ",\n".join(members) + "\n" + indent + "}" + text[end:]
    return text


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    locksim, check = sys.argv[1], len(sys.argv) == 3
    output = subprocess.run([locksim, "metrics", "--format", "schema"], check=True, capture_output=True, text=True)
    lists = json.loads(output.stdout)
    with open(SCHEMA_PATH, encoding="utf-8") as file:
        text = file.read()
    updated = regenerate(text, lists)
    if not check:
        if updated != text:
            with open(SCHEMA_PATH, "w", encoding="utf-8") as file:
                file.write(updated)
        print(f"{SCHEMA_PATH}: the metric lists are the table's")
        return
    if updated != text:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), updated.splitlines(True),
                                                   "scenarios/scenario.schema.json", "from the metric table"))
        sys.exit("scenarios/scenario.schema.json's metric lists differ from the metric table "
                 "(checks/metric_table.hpp); regenerate them: scripts/update-schema-metrics.py build/locksim")
    print(f"scenarios/scenario.schema.json lists the metrics of the table, {len(lists)} lists")


if __name__ == "__main__":
    main()
