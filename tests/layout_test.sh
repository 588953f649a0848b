#!/usr/bin/env bash
# A real browser lays out the whole course: every shipped scenario's page (scenarios/ and its
# subfolders, as locksim report finds them) and index.html, checked at 1280 and 800 px by
# tests/layout/layout_test.mjs in headless Chromium through puppeteer-core. Screenshots of
# three pages go to SCREENSHOT_DIR (default build/layout-screenshots) for a reader to look at.
#   tests/layout_test.sh path/to/locksim [SCREENSHOT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
screenshots="${2:-build/layout-screenshots}"
if [ ! -d tests/layout/node_modules/puppeteer-core ]; then
  echo "tests/layout/node_modules/puppeteer-core is missing: run ./setup.sh --tests"
  exit 1
fi
command -v node >/dev/null || { echo "no node: run ./setup.sh --tests (Debian package nodejs)"; exit 1; }
chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || { echo "no $chromium: run ./setup.sh --tests (Debian package chromium)"; exit 1; }

site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
"$locksim" report scenarios/ --out "$site" >/dev/null
CHROMIUM="$chromium" node tests/layout/layout_test.mjs "$site" "$screenshots"
