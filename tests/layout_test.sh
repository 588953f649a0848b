#!/usr/bin/env bash
# A real browser lays out the whole course: every shipped scenario's page (scenarios/ and its
# subfolders, as locksim report finds them), index.html and a sample of the designs' pages of
# every step (all of them with LAYOUT_EVERY_STEP_PAGE=1 in the environment), checked at 1280
# and 800 px by tests/layout/layout_test.mjs in headless Chromium through puppeteer-core.
# Screenshots of four pages go to SCREENSHOT_DIR (default build/layout-screenshots) for a
# reader to look at.
#   tests/layout_test.sh path/to/locksim [SCREENSHOT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
screenshots="${2:-build/layout-screenshots}"
source tests/layout/require_browser.sh

site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
"$locksim" report scenarios/ --out "$site" >/dev/null
CHROMIUM="$chromium" node tests/layout/layout_test.mjs "$site" "$screenshots"
