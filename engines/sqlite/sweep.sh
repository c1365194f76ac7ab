#!/bin/sh
# SQLite sorting through temp files: an ORDER BY over 40,000 rows of 100 bytes with a
# 20-page cache in an in-memory database, so that its sorter spills to SQLITE_TMPDIR={dir}
# (files etilqs_*, opened and unlinked at once). If SQLITE_TMPDIR names a missing
# directory SQLite silently uses /var/tmp: sweep_engine fails when no call reached {dir}.
# Usage: engines/sqlite/sweep.sh [spillway sweep options]
. "$(dirname "$0")/../profile_lib.sh"
skip_unless sqlite3
sql="PRAGMA cache_size=20; PRAGMA temp_store=FILE;
CREATE TEMP TABLE t AS WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<40000)
  SELECT (i*7919)%40000 AS k, printf('%096d', i) AS v FROM c;
SELECT k, substr(v, 90) FROM t ORDER BY v DESC;"
sweep_engine --jobs 2 --scratch --baselines 3 --neighbours "$neighbours" "$@" -- env SQLITE_TMPDIR={dir} sqlite3 :memory: "$sql"
expect_left_by_fault tolerated remove
# Killed between a temp file's open and its unlink, the empty etilqs_* file stays and the
# next run leaves it (orphan); two instances in one SQLITE_TMPDIR both succeed.
expect_verdict orphan remove
expect_neighbour_verdict tolerated
# Damage (docs/engines.md, "Does it notice?"): a bit flipped in a page read back from the
# temp file reaches the result (silent_wrong_output); a lost write's zeros mostly fail the
# query with "database disk image is malformed" (clean_error).
expect_verdict silent_wrong_output read corrupt
expect_verdict clean_error write lost
