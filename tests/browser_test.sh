#!/usr/bin/env bash
# A real browser opens the HTML report of gc-pause-40s.json from disk: headless Chromium
# must report no console errors and take a screenshot that is not blank. Two control
# pages prove the checks can fail: one logs a console error, one is empty.
#   tests/browser_test.sh path/to/locksim
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$1"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "no chromium: install it with ./setup.sh --tests (Debian package chromium)"
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Opens a page and takes a screenshot; prints the console messages Chromium logged.
open_page() {
  local page="$1" shot="$2"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --window-size=1280,1600 \
    --screenshot="$shot" "file://$page" 2>&1 >/dev/null | grep -E "CONSOLE|Failed to load|ERR_FILE" || true
}

"$locksim" run scenarios/gc-pause-40s.json --report "$work/report" >/dev/null 2>"$work/run.err" || true
page="$work/report/gc-pause-40s.html"
[ -f "$page" ] || { echo "locksim did not write $page:"; cat "$work/run.err"; exit 1; }

failed=0
console=$(open_page "$page" "$work/report.png")
if [ -n "$console" ]; then
  echo "FAIL: the report logged to the browser console:"; echo "$console"; failed=1
else
  echo "PASS: no console errors opening $page"
fi
if python3 tests/png_has_content.py "$work/report.png"; then
  echo "PASS: the screenshot has content"
else
  echo "FAIL: the screenshot of the report is blank"; failed=1
fi

# Controls: the same checks must catch a console error and a blank page.
printf '<!doctype html><title>x</title><script>console.error("control error")</script>' > "$work/noisy.html"
if [ -z "$(open_page "$work/noisy.html" "$work/noisy.png")" ]; then
  echo "FAIL: the console check missed a page that logs an error"; failed=1
else
  echo "PASS: the console check catches a page that logs an error"
fi
printf '<!doctype html><title>blank</title><body style="background:#fff"></body>' > "$work/blank.html"
open_page "$work/blank.html" "$work/blank.png" >/dev/null
if python3 tests/png_has_content.py "$work/blank.png" >/dev/null; then
  echo "FAIL: the screenshot check took a blank page for content"; failed=1
else
  echo "PASS: the screenshot check knows a blank page"
fi
exit $failed
