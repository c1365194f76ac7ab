#!/bin/sh
# DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1): when stat-like calls in its temp_directory
# fail (every one, EIO here: a failing disk), the sort fails with "IO Error: Failed to get
# stats for file .../duckdb_temp_storage_DEFAULT-0.tmp", and closing the instance lists the
# directory (opendir, readdir) but never unlinks that file: it stays after the process
# exits. No remove call was failed, so the sweep calls it a leak. Prints the summary of
# `spillway inject` and what is left.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
export NODE_PATH=${DUCKDB_NODE_MODULES:-$root/build/engines/duckdb/node_modules}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
status=0
"$SPILLWAY" inject --under "$d" --fault 'stat EIO times=forever' -- \
  node "$root/engines/duckdb/spill.js" "$d" plain 2>&1 | grep -v '^  stat EIO' || status=$?
echo "left in $d:"
ls -A "$d"
