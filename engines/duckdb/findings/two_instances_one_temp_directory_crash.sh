#!/bin/sh
# DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1): two instances spilling at once into one
# temp_directory (two processes, each its own in-memory database) die of SIGSEGV: both, or
# the one that started first (the sweep's neighbour rounds: one per round, 3 of 3). Their
# temp files have the same names in every process (duckdb_temp_storage_DEFAULT-0.tmp,
# duckdb_temp_storage_S64K-0.tmp, ...), so the two use one set of files. Starts the two
# 0.5 s apart and prints each process with its exit status (139: SIGSEGV) and what is left
# in the directory.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
export NODE_PATH="${DUCKDB_NODE_MODULES:-$root/build/engines/duckdb/node_modules}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
node "$root/engines/duckdb/spill.js" "$d" plain >"$d.1.out" 2>&1 &
first=$!
sleep 0.5
node "$root/engines/duckdb/spill.js" "$d" plain >"$d.2.out" 2>&1 &
second=$!
status1=0
wait "$first" || status1=$?
status2=0
wait "$second" || status2=$?
echo "process 1 (pid $first): exit status $status1 $(tail -n 1 "$d.1.out")"
echo "process 2 (pid $second): exit status $status2 $(tail -n 1 "$d.2.out")"
rm -f "$d.1.out" "$d.2.out"
echo "left in $d:"
ls -A "$d"
