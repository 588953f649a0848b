#!/usr/bin/python3
"""Writes the JSON Schema's fault entries from the fault families' declarations.

    scripts/update-schema-faults.py build/tests/locksim_fault_schema           # rewrite them in place
    scripts/update-schema-faults.py build/tests/locksim_fault_schema --check   # exit 1 if they differ (a test runs this)

scenarios/scenario.schema.json describes each fault family three times: a placed fault
("pauseFault"), a generator ("pauseGenerator") and, if explore tries it, an explore
block's entry ("explorePause"); and it lists the families in "fault", "faultGenerator",
an explore block's "faults" and two descriptions. All of them are printed from the
families' own declarations (models/faults/: each family's FaultEntry members and
ExploreShape) by locksim_fault_schema, which the test build makes, by the JSON Pointer of
their place; this script puts them there (scripts/schema_fragments.py), leaving every
other byte of the file as it is.
"""
import json
import subprocess
import sys

import schema_fragments


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--check"):
        sys.exit(__doc__)
    printer, check = sys.argv[1], len(sys.argv) == 3
    output = subprocess.run([printer], check=True, capture_output=True, text=True)
    schema_fragments.update(json.loads(output.stdout), check, {}, "fault entries", "the fault families",
                            "scripts/update-schema-faults.py build/tests/locksim_fault_schema")


if __name__ == "__main__":
    main()
