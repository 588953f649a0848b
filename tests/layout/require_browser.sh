# Sourced by the layout tests: stops with what to install unless puppeteer-core, node and
# Chromium are there, and sets $chromium to the browser to drive.
if [ ! -d tests/layout/node_modules/puppeteer-core ]; then
  echo "tests/layout/node_modules/puppeteer-core is missing: run ./setup.sh --tests"
  exit 1
fi
command -v node >/dev/null || { echo "no node: run ./setup.sh --tests (Debian package nodejs)"; exit 1; }
chromium="${CHROMIUM:-/usr/bin/chromium}"
[ -x "$chromium" ] || { echo "no $chromium: run ./setup.sh --tests (Debian package chromium)"; exit 1; }
