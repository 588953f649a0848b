#!/usr/bin/env bash
# The JUnit XML of `locksim check --junit` and `locksim sweep --junit` is valid against the
# common JUnit schema (tests/junit.xsd), and two runs write the same bytes.
#   tests/junit_schema_test.sh build/locksim
# The check covers every kind of testcase: passed, failed, passed with an efficiency
# lock's cost, and a file that could not be loaded; and text XML may not hold. Needs xmllint (./setup.sh --tests
# installs Debian's libxml2-utils).
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 path/to/locksim" >&2
  exit 2
fi
locksim=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
schema=$repo/tests/junit.xsd
command -v xmllint >/dev/null \
  || { echo "junit_schema_test: xmllint is not installed: run ./setup.sh --tests (Debian package libxml2-utils)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "junit_schema_test: FAIL: $*" >&2; exit 1; }

# Passing designs (and a sweep block), an efficiency lock's cost, a design whose
# expectation fails (fencing switched off), and a file that is not JSON.
mkdir "$work/scenarios"
cp "$repo/scenarios/random-gc-pauses.json" "$repo/scenarios/efficiency-vs-correctness.json" "$work/scenarios/"
sed 's/"fencing": true/"fencing": false/' "$repo/scenarios/fenced-and-idempotent.json" > "$work/scenarios/failing.json"
cmp -s "$repo/scenarios/fenced-and-idempotent.json" "$work/scenarios/failing.json" \
  && fail "could not switch fencing off in fenced-and-idempotent.json"
printf '{ "name": ' > "$work/scenarios/broken.json"
# What XML may not hold: U+FFFE and U+FFFF in a scenario's name (the loader refuses the
# file: a testcase in error) and U+FFFF in a file's name (the writer writes U+FFFD).
sed '0,/"name": "/s//"name": "\\ufffe\\uffff /' "$repo/scenarios/random-gc-pauses.json" > "$work/scenarios/nonchar-name.json"
grep -q '"name": "\\ufffe\\uffff ' "$work/scenarios/nonchar-name.json" || fail "could not put U+FFFE in a name"
cp "$repo/scenarios/efficiency-vs-correctness.json" "$work/scenarios/nonchar-$(printf '\xef\xbf\xbf').json"

check() {
  set +e
  "$locksim" check "$work/scenarios" --junit "$1" > "$work/check.out"
  local status=$?
  set -e
  [[ $status == 2 ]] || fail "locksim check exited $status, expected 2 (a broken file): $(tail -n 3 "$work/check.out")"
}
check "$work/check-1.xml"
check "$work/check-2.xml"
grep -q '<failure ' "$work/check-1.xml" || fail "check's report has no failed testcase"
grep -q '<error ' "$work/check-1.xml" || fail "check's report has no testcase in error"
grep -q '<system-out>efficiency lock: ' "$work/check-1.xml" || fail "check's report has no efficiency lock's cost"
grep -q 'nonchar-name.json:[0-9:]* /name: expected text without control characters' "$work/check-1.xml" \
  || fail "check's report does not hold the refusal of a name with U+FFFE"
grep -q "file=\"$work/scenarios/nonchar-$(printf '\xef\xbf\xbd').json\"" "$work/check-1.xml" \
  || fail "check's report does not name the file with U+FFFF in its name with U+FFFD"

sweep() {
  set +e
  "$locksim" sweep "$repo/scenarios/random-gc-pauses.json" --seeds 200 --max-rate fenced=0 --max-rate idempotent=0 \
    --junit "$1" > /dev/null 2> "$work/sweep.err"
  local status=$?
  set -e
  [[ $status == 0 || $status == 1 ]] || fail "locksim sweep exited $status: $(cat "$work/sweep.err")"
}
sweep "$work/sweep-1.xml"
sweep "$work/sweep-2.xml"

for report in check sweep; do
  cmp "$work/$report-1.xml" "$work/$report-2.xml" || fail "two runs of $report wrote different JUnit files"
  xmllint --noout --schema "$schema" "$work/$report-1.xml" 2> "$work/xmllint.err" \
    || fail "$report's JUnit report is not valid against tests/junit.xsd: $(head -n 5 "$work/xmllint.err")"
done

# The schema has teeth: a testcase without its time is refused.
sed '0,/<testcase \(.*\) time="0"/s//<testcase \1/' "$work/check-1.xml" > "$work/no-time.xml"
cmp -s "$work/check-1.xml" "$work/no-time.xml" && fail "could not remove a testcase's time"
xmllint --noout --schema "$schema" "$work/no-time.xml" 2> /dev/null \
  && fail "tests/junit.xsd accepts a testcase without a time"

echo "junit_schema_test: ok: check and sweep JUnit reports are valid against tests/junit.xsd and the same on every run"
