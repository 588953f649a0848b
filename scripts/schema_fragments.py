"""Puts generated fragments into scenarios/scenario.schema.json, leaving every other byte
of the file as it is: the splicing that scripts/update-schema-metrics.py and
scripts/update-schema-faults.py share.

A fragment is a value by the JSON Pointer of its place. An object is written one member
a line (each member's value indented by two spaces, as json.dumps does), anything else as
json.dumps writes it; a pointer whose last key the file lacks is added to its object.
"""
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(ROOT, "scenarios", "scenario.schema.json")

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


def indent_at(text, start):
    line_start = text.rfind("\n", 0, start) + 1
    return " " * (len(text[line_start:start]) - len(text[line_start:start].lstrip(" ")))


def dumped(value, indent):
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def written(text, keys, value, hand_written):
    """`value` as the file writes it at `keys`, with the members of `hand_written` kept after it."""
    start, _ = value_span(text, 0, keys)
    indent = indent_at(text, start)
    if not isinstance(value, dict):
        return dumped(value, indent)
    inner = indent + "  "
    members = [f"{inner}{json.dumps(key)}: {dumped(member, inner)}" for key, member in value.items()]
    for key in hand_written:  # as the file writes it
        value_start, value_end = value_span(text, 0, keys + [key])
        members.append(f"{inner}{json.dumps(key)}: {text[value_start:value_end]}")
    return "{\n" + ",\n".join(members) + "\n" + indent + "}"


def regenerate(text, fragments, hand_written=None):
    for pointer, value in fragments.items():
        keys = pointer_keys(pointer)
        try:
            start, end = value_span(text, 0, keys)
        except KeyError:
            # A new member: the last of its object.
            parent_start, parent_end = value_span(text, 0, keys[:-1])
            close = parent_end - 1
            before = text[:close].rstrip()
            inner = indent_at(text, skip_space(text, parent_start + 1))
            text = (before + ",\n" + inner + json.dumps(keys[-1]) + ": null\n" + indent_at(text, parent_start) +
                    text[close:])
            start, end = value_span(text, 0, keys)
        text = text[:start] + written(text, keys, value, (hand_written or {}).get(pointer, [])) + text[end:]
    return text


def update(fragments, check, hand_written, what, source, command):
    """Rewrites the schema with `fragments`, or with `check` exits 1 and shows the difference."""
    with open(SCHEMA_PATH, encoding="utf-8") as file:
        text = file.read()
    updated = regenerate(text, fragments, hand_written)
    if not check:
        if updated != text:
            with open(SCHEMA_PATH, "w", encoding="utf-8") as file:
                file.write(updated)
        print(f"{SCHEMA_PATH}: {what} written from {source}")
        return
    if updated != text:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), updated.splitlines(True),
                                                   "scenarios/scenario.schema.json", f"from {source}"))
        sys.exit(f"scenarios/scenario.schema.json's {what} differ from {source}; regenerate them: {command}")
    print(f"scenarios/scenario.schema.json's {what} are as {source} print them, {len(fragments)} fragments")
