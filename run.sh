#!/bin/bash
# usage: run.sh file [args]
f=$1; shift
timeout 20 /tmp/review/build/locksim run "$f" --color never "$@" > out.txt 2> err.txt; rc=$?
echo "== $f rc=$rc"; head -c 1500 err.txt; 
