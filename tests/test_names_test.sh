#!/bin/sh
# Every Catch test's name can be printed when it fails: Catch 2.13's console reporter
# indents a wrapped name to just after its first ": ", and aborts (an assertion in its
# TextFlow) when that indent reaches the column's width (79 of the default 80), so a
# failure would be reported as a crash without its message: printHeaderString in
# catch.hpp. A ": " starting at column 78 or later is refused here.
#   tests/test_names_test.sh build/tests/locksim_tests
set -u
tests=${1:?usage: tests/test_names_test.sh LOCKSIM_TESTS}
# --list-test-names-only exits with the number of names, not 0.
names=$("$tests" --list-test-names-only) || true
[ -n "$names" ] || { echo "test_names_test: $tests listed no test names" >&2; exit 1; }
printf '%s\n' "$names" | awk '{ at = index($0, ": ") } at >= 78 {
  printf "colon at column %d (put it earlier, or use a comma): %s\n", at, $0; bad = 1 } END { exit bad }'
