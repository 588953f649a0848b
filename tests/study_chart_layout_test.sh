#!/usr/bin/env bash
# The study charts laid out in headless Chromium by tests/layout/study_chart_test.mjs, at
# 1280 and 800 px: the page of a two-field study of random-gc-pauses (nine series a chart,
# the densest the shipped lessons draw), then the course's own study page of that lesson. A
# screenshot of the first chart at 800 px goes to SCREENSHOT (default
# build/layout-screenshots/random-gc-pauses-study.png) for a reader to look at.
#   tests/study_chart_layout_test.sh path/to/locksim [SCREENSHOT]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
screenshot="${2:-build/layout-screenshots/random-gc-pauses-study.png}"
source tests/layout/require_browser.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$locksim" sweep scenarios/random-gc-pauses.json --seeds 200 --jobs 2 --vary lock.ttl=5s,10s,30s \
  --vary fault_generators/0/mean_interval=30s,1m,2m --report "$work/sweep" >/dev/null 2>"$work/sweep.err"
"$locksim" report scenarios/random-gc-pauses.json --out "$work/course" >/dev/null
mkdir -p "$(dirname "$screenshot")"
CHROMIUM="$chromium" node tests/layout/study_chart_test.mjs "$work/sweep/random-gc-pauses-study.html" "$screenshot"
CHROMIUM="$chromium" node tests/layout/study_chart_test.mjs "$work/course/random-gc-pauses-study.html"
