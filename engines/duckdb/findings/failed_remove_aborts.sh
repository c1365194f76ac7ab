#!/bin/sh
# DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1): when removing a temp file fails (every unlink
# in its temp_directory fails with EIO here: a failing disk), DuckDB throws
# duckdb::IOException "Could not remove file ...: Input/output error" where nothing can
# catch it, and the process aborts ("terminate called after throwing an instance of
# 'duckdb::IOException'", SIGABRT) instead of reporting the error or leaving the file.
# The sweep calls it a crash. Prints the summary of `spillway inject` (with the signal)
# and what is left.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
export NODE_PATH=${DUCKDB_NODE_MODULES:-$root/build/engines/duckdb/node_modules}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$SPILLWAY" inject --under "$d" --fault 'remove EIO times=forever' -- \
  node "$root/engines/duckdb/spill.js" "$d" plain 2>&1 | grep -v '^  remove EIO' || true
echo "left in $d:"
ls -A "$d"
