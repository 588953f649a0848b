#!/usr/bin/env bash
# Every kind of HTML page locksim writes (a scenario's page and its pages of every step, the
# course's index, the vulnerability map, the study charts), written from
# tests/hostile/hostile-words.json, whose every text field holds markup, script and the
# syntax of some output, opened in headless Chromium by tests/layout/hostile_pages_test.mjs:
# no script runs, the text makes no element, the page loads nothing but itself, and its
# Content-Security-Policy refuses a resource added later. Control pages, each breaking one
# of these, must fail the check they break.
#   tests/hostile_pages_browser_test.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
source tests/layout/require_browser.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hostile=tests/hostile/hostile-words.json
mkdir -p "$work/pages" "$work/controls"
# Runs locksim quietly; on failure, says what it printed.
quietly() {
  "$locksim" "$@" > "$work/out" 2>&1 || { echo "FAIL: locksim $* exited $?:"; tail -n 5 "$work/out"; exit 1; }
}
quietly run "$hostile" --report "$work/pages/run"
quietly report tests/hostile --out "$work/pages/course"
quietly explore "$hostile" --jobs 2 --report "$work/pages/explore"
quietly sweep "$hostile" --seeds 20 --vary lock.ttl=10s,50s --report "$work/pages/study"
for kind in run/*-steps course/index.html explore/*-explore.html study/*-study.html; do
  compgen -G "$work/pages/$kind" > /dev/null || { echo "FAIL: locksim wrote no $kind"; exit 1; }
done

# Controls: a script that ran, an element from text, a resource loaded, no policy.
head='<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src '"'none'"'; style-src '"'unsafe-inline'"'"><style></style>'
printf '<!doctype html><meta charset="utf-8"><style></style><title>x</title><p>x<script>document.title=7</script>' \
  > "$work/controls/a-script-ran.html"
printf '%s<title>x</title><p><b id="injected">x</b>' "$head" > "$work/controls/b-injected-element.html"
printf '<!doctype html><meta charset="utf-8"><style></style><title>x</title><p><img src="http://127.0.0.1:9/x.png">' \
  > "$work/controls/c-external-image.html"
printf '<!doctype html><meta charset="utf-8"><style></style><title>x</title><p>no policy' > "$work/controls/d-no-policy.html"

CHROMIUM="$chromium" node tests/layout/hostile_pages_test.mjs "$work/pages" "$work/controls"
