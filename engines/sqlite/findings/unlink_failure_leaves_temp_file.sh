#!/bin/sh
# SQLite 3.40.1 opens each sorter temp file (etilqs_*) and unlinks it at once. When that
# unlink fails (EIO here), SQLite goes on, the query succeeds and the 4 MB file stays in
# SQLITE_TMPDIR after the process exits. The sweep counts this as left_by_fault (the
# removal itself failed), not as a leak; it is still what a disk that refuses an unlink
# accumulates. Prints the exit status and the leftover.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sql="PRAGMA cache_size=20; PRAGMA temp_store=FILE;
CREATE TEMP TABLE t AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<40000)
  SELECT (i*7919)%40000 AS k, printf('%096d', i) AS v FROM c;
SELECT count(*) FROM (SELECT k FROM t ORDER BY v DESC);"
status=0
SQLITE_TMPDIR=$d "$SPILLWAY" inject --under "$d" --fault 'remove EIO' -- sqlite3 :memory: "$sql" || status=$?
echo "exit status: $status"
ls -l "$d"
