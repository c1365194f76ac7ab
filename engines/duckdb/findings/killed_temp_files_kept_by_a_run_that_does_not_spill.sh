#!/bin/sh
# DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1): killed mid-spill (SIGKILL at the first unlink
# of a temp file, when the sort's blocks are written and are being read back), DuckDB
# leaves its duckdb_temp_storage_*.tmp in temp_directory. The next instance takes them back
# only if it spills itself (the names are the same in every process, and it removes its
# own at exit): one that does not spill leaves every byte. Prints the killed run's exit
# status and temp_directory after it, after an instance that does not spill, and after
# one that spills.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
export NODE_PATH="${DUCKDB_NODE_MODULES:-$root/build/engines/duckdb/node_modules}"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
left() {
  echo "$1: $(ls -A "$d" | wc -l) files, \
$(find "$d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }') bytes: $(ls -A "$d" | tr '\n' ' ')"
}
status=0
"$SPILLWAY" inject --under "$d" --fault 'remove kill nth=1' -- \
  node "$root/engines/duckdb/spill.js" "$d" plain >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status"
left "left"
node -e "const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const instance = await DuckDBInstance.create(':memory:',
    { temp_directory: process.argv[1], memory_limit: '64MB', threads: '1' });
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll('SELECT count(*) AS n FROM range(1000)');
  console.log('an instance that does not spill: ' + reader.getRowObjects()[0].n + ' rows');
  connection.closeSync();
  instance.closeSync();
})();" "$d"
left "left after it"
node "$root/engines/duckdb/spill.js" "$d" plain >/dev/null
echo "an instance that spills: exit status 0"
left "left after it"
