# Sourced by the SQLite finding scripts: $root (the checkout), $SPILLWAY, a fresh $d (the
# SQLITE_TMPDIR, removed at exit) and $sql, the profile's ORDER BY that spills, counted.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sql="PRAGMA cache_size=20; PRAGMA temp_store=FILE;
CREATE TEMP TABLE t AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<40000)
  SELECT (i*7919)%40000 AS k, printf('%096d', i) AS v FROM c;
SELECT count(*) FROM (SELECT k FROM t ORDER BY v DESC);"
