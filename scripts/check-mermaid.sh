#!/usr/bin/env bash
# Renders every shipped scenario's --format mermaid output with the real Mermaid (from
# the npm registry, into a temporary directory) in headless Chromium, and prints one line
# per scenario: how many diagrams rendered, and any parse error. Not part of the test
# suite, which must not download anything; run it after changing reports/mermaid.cpp.
#   scripts/check-mermaid.sh [path/to/locksim]
set -euo pipefail
cd "$(dirname "$0")/.."
locksim="$(realpath "${1:-build/locksim}")"
browser=$(command -v chromium || command -v chromium-browser) || { echo "needs chromium (./setup.sh --tests)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm install --silent --no-audit --no-fund mermaid@11 >/dev/null)
failed=0
for file in scenarios/*.json; do
  case "$file" in *.schema.json) continue ;; esac
  name=$(basename "$file" .json)
  "$locksim" run "$file" --format mermaid > "$work/$name.md" || true
  python3 - "$work/$name.md" "$work/$name.html" <<'PY'
import json, re, sys
blocks = re.findall(r"```mermaid\n(.*?)```", open(sys.argv[1]).read(), re.S)
calls = "".join(
    f"try {{ await mermaid.render('d{i}', {json.dumps(b)}); out.push('ok'); }} catch (e) {{ out.push('error in diagram {i}: ' + e.message); }}"
    for i, b in enumerate(blocks))
open(sys.argv[2], "w").write(
    '<!doctype html><meta charset="utf-8"><script src="node_modules/mermaid/dist/mermaid.min.js"></script><body><script>'
    "mermaid.initialize({startOnLoad: false}); (async () => { const out = []; " + calls +
    " document.body.setAttribute('data-result', out.join(' | ')); })();</script>")
PY
  result=$(timeout 180 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=60000 --dump-dom \
             "file://$work/$name.html" 2>/dev/null | grep -o 'data-result="[^"]*"' | sed 's/data-result="//; s/"$//')
  if [ -z "$result" ] || [[ "$result" == *error* ]]; then
    echo "FAIL $name: ${result:-no result}"; failed=1
  else
    echo "ok   $name: $(echo "$result" | tr '|' '\n' | grep -c ok) diagrams rendered"
  fi
done
exit $failed
