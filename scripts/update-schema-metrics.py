#!/usr/bin/python3
"""Writes the JSON Schema's lists of metrics from the metric table.

    scripts/update-schema-metrics.py build/locksim           # rewrite them in place
    scripts/update-schema-metrics.py build/locksim --check   # exit 1 if they differ (a test runs this)

scenarios/scenario.schema.json lists what a design's, a sweep's and an exploration's
"expect" may name, each with a description. Those lists are copies of the metric table
(checks/metric_table.hpp) and of the sweep's and exploration's totals: `locksim metrics
--format schema` prints each by the JSON Pointer of its place in the schema, and this
script puts it there (scripts/schema_fragments.py), leaving every other byte of the file as
it is. Only a run's "first_violation_at", the one expectation that is not a metric, is the
schema's own: it stays after the metrics.
"""
import json
import subprocess
import sys

import schema_fragments

# By pointer: the keys the schema writes itself, kept after the generated ones.
HAND_WRITTEN = {"/$defs/expect/properties": ["first_violation_at"]}


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    locksim, check = sys.argv[1], len(sys.argv) == 3
    output = subprocess.run([locksim, "metrics", "--format", "schema"], check=True, capture_output=True, text=True)
    schema_fragments.update(json.loads(output.stdout), check, HAND_WRITTEN, "metric lists", "the metric table",
                            "scripts/update-schema-metrics.py build/locksim")


if __name__ == "__main__":
    main()
