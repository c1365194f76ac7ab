#!/bin/sh
# SQLite 3.40.1 opens each temp file (etilqs_*) with O_CREAT|O_EXCL and unlinks it at once.
# A process killed between the two (SIGKILL at that unlink here) leaves the empty file in
# SQLITE_TMPDIR, and the next run in the same directory leaves it too: its names are
# random, and nothing looks for another process's files. Prints the killed run's exit
# status and the directory after it and after the next run, which exits 0.
. "$(dirname "$0")/finding_lib.sh"
status=0
SQLITE_TMPDIR=$d "$SPILLWAY" inject --under "$d" --fault 'remove kill nth=1' -- \
  sqlite3 :memory: "$sql" >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status"
ls -l "$d"
status=0
SQLITE_TMPDIR=$d sqlite3 :memory: "$sql" >/dev/null || status=$?
echo "next run: exit status $status"
ls -l "$d"
