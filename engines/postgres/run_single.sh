#!/bin/sh
# Runs query.sql in a PostgreSQL 15 single-user backend (`postgres --single`, no socket, no
# TCP) as user postgres, with work_mem=64kB and no parallel workers, its temp files in
# SCOPE: base/pgsql_tmp of the cluster becomes a symlink to SCOPE. Run as root.
# Usage: run_single.sh DATA SCOPE [-c NAME=VALUE]...
# A single-user backend exits 0 after an ERROR; its log goes to stderr, where the sweep's
# --error-pattern finds it. With EXPECT_ERROR=TEXT, an error containing TEXT is the
# expected outcome instead: it prints "expected error: TEXT" and exits 0, and any other
# ERROR, FATAL or PANIC makes it exit 1 (the baseline's log matches any pattern there).
set -eu
data=$1
scope=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp "${TMPDIR:-/tmp}/spillway-pg-log-XXXXXX")
trap 'rm -f "$log"' EXIT
chown postgres "$scope"
rm -rf "$data/base/pgsql_tmp"
ln -s "$scope" "$data/base/pgsql_tmp"
status=0
runuser -u postgres -- /usr/lib/postgresql/15/bin/postgres --single -D "$data" \
  -c work_mem=64kB -c max_parallel_workers_per_gather=0 -c log_temp_files=0 "$@" \
  postgres <"$here/query.sql" 2>"$log" || status=$?
cat "$log" >&2
[ "$status" -eq 0 ] || exit "$status"
if [ -n "${EXPECT_ERROR:-}" ]; then
  if grep -q "ERROR: .*$EXPECT_ERROR" "$log"; then
    echo "expected error: $EXPECT_ERROR"
    exit 0
  fi
  if grep -q "ERROR:\|FATAL:\|PANIC:" "$log"; then exit 1; fi
fi
