#!/usr/bin/env bash
# Runs the store-level fidelity cases (tests/fidelity/cases) against real Redis, etcd,
# ZooKeeper and PostgreSQL servers started on 127.0.0.1 (Debian's packages, installed
# here when missing), the four stores in parallel, and compares the results with
# tests/fidelity/golden. tests/fidelity/README.md describes the cases.
#   scripts/fidelity.sh                  # all cases; exit 1 on any difference
#   scripts/fidelity.sh CASE...          # only these (names or paths)
#   scripts/fidelity.sh --record [CASE...]  # rewrite the golden files instead
#   FIDELITY_KEEP=1 scripts/fidelity.sh  # keep the results and server logs, trace every step
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s%N)

record=0
if [ "${1:-}" = --record ]; then record=1; shift; fi
scripts/install-packages.sh redis-server etcd-server etcd-client zookeeper postgresql \
  python3-redis python3-etcd3 python3-kazoo python3-psycopg2 pgbouncer gcc

cases=()
if [ $# -eq 0 ]; then
  cases=(tests/fidelity/cases/*.json)
else
  for name in "$@"; do
    name=$(basename "$name" .json)
    [ -f "tests/fidelity/cases/$name.json" ] || { echo "fidelity: no case $name" >&2; exit 2; }
    cases+=("tests/fidelity/cases/$name.json")
  done
fi

out=$(mktemp -d /tmp/locksim-fidelity-run.XXXXXX)
keep=()
if [ -n "${FIDELITY_KEEP:-}" ]; then keep=(--keep --trace); else trap 'rm -rf "$out"' EXIT; fi
# Debian's modules are for Debian's python3, whatever python3 comes first on PATH.
python=/usr/bin/python3
pids=()
stores=(redis etcd zookeeper postgres)
for store in "${stores[@]}"; do
  "$python" tests/fidelity/real_runner.py --out "$out/results" --store "$store" "${keep[@]}" "${cases[@]}" \
    >"$out/$store.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!stores[@]}"; do
  if ! wait "${pids[$i]}"; then
    status=1
    echo "fidelity: the ${stores[$i]} runner failed:" >&2
  fi
  sed "s/^/  /" "$out/${stores[$i]}.log"
done

names=()
for path in "${cases[@]}"; do names+=("$(basename "$path" .json)"); done
if [ $record -eq 1 ]; then
  if [ $status -ne 0 ]; then echo "fidelity: not recording, a runner failed" >&2; exit 1; fi
  mkdir -p tests/fidelity/golden
  cp "$out"/results/*.json tests/fidelity/golden/
  if [ $# -eq 0 ]; then  # a full run: drop golden files whose case is gone
    for golden in tests/fidelity/golden/*.json; do
      [ -f "tests/fidelity/cases/$(basename "$golden")" ] || rm -v "$golden"
    done
  fi
  echo "fidelity: recorded ${#names[@]} golden files"
else
  mkdir -p "$out/results"
  "$python" tests/fidelity/compare.py --cases tests/fidelity/cases tests/fidelity/golden "$out/results" \
    "${names[@]}" || status=1
fi
if [ -n "${FIDELITY_KEEP:-}" ]; then echo "fidelity: results and logs kept in $out"; fi
tenths=$((($(date +%s%N) - started) / 100000000))
echo "fidelity: took $((tenths / 10)).$((tenths % 10)) s"
exit $status
