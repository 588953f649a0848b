#!/usr/bin/env bash
# Writes the seed corpus of the fuzz targets into DIR (emptied first): every shipped
# scenario (scenarios/*.json, not the JSON Schema), the extra seeds of tests/fuzz/seeds/
# (options no shipped scenario uses), and, when python3 is there, each multi-design
# scenario split into one file per design: smaller, cheaper inputs for the run target.
#   tests/fuzz/make_corpus.sh build-fuzz/seeds
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:?usage: tests/fuzz/make_corpus.sh DIR}"
mkdir -p "$dir"
find "$dir" -maxdepth 1 -type f -name '*.json' -delete

for file in scenarios/*.json tests/fuzz/seeds/*.json; do
  case "$file" in *.schema.json) continue ;; esac
  cp "$file" "$dir/$(basename "$file")"
done

if command -v python3 >/dev/null; then
  python3 - "$dir" scenarios/*.json tests/fuzz/seeds/*.json <<'PY'
import json, os, sys
out, files = sys.argv[1], [f for f in sys.argv[2:] if not f.endswith(".schema.json")]
for path in files:
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    designs = document.get("designs", {})
    if len(designs) < 2:
        continue
    base = os.path.splitext(os.path.basename(path))[0]
    for i, (name, design) in enumerate(designs.items()):
        single = dict(document)
        single.pop("$schema", None)
        single["designs"] = {name: design}
        with open(os.path.join(out, f"{base}.design-{i}.json"), "w", encoding="utf-8") as f:
            json.dump(single, f, indent=1, ensure_ascii=False)
PY
fi
echo "$(find "$dir" -maxdepth 1 -type f -name '*.json' | wc -l) seed inputs in $dir" >&2
