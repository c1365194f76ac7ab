#!/bin/sh
# SQLite 3.40.1 opens each sorter temp file (etilqs_*) and unlinks it at once. When that
# unlink fails (EIO here), SQLite goes on, the query succeeds and the 4 MB file stays in
# SQLITE_TMPDIR after the process exits. The sweep counts this as left_by_fault (the
# removal itself failed), not as a leak; it is still what a disk that refuses an unlink
# accumulates. Prints the exit status and the leftover.
. "$(dirname "$0")/finding_lib.sh"
status=0
SQLITE_TMPDIR=$d "$SPILLWAY" inject --under "$d" --fault 'remove EIO' -- sqlite3 :memory: "$sql" || status=$?
echo "exit status: $status"
ls -l "$d"
