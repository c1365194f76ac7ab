#!/bin/sh
# PostgreSQL 15: a throwaway cluster (initdb as user postgres in the work directory), then
# query.sql (a window ORDER BY over 200,000 md5 strings, 2.8 MB of temp file with
# work_mem=64kB) in a single-user backend per run (run_single.sh), its pgsql_tmp in {dir}.
# The backend runs as user postgres under the shim: --share-with postgres hands it the
# run's state and trace files. Runs are serial (one cluster). Kill runs kill the backend
# at a call; the restart is a postmaster started on the cluster and the query through it
# (run_server.sh). Neighbours: two single-user backends at once on the one cluster.
# Usage: engines/postgres/sweep.sh [plain|limit] [spillway sweep options]
#   plain  no temp_file_limit (default)
#   limit  temp_file_limit=1MB, below what the query needs: the expected outcome is the
#          error "temporary file size exceeds temp_file_limit"
. "$(dirname "$0")/../profile_lib.sh"
mode=plain
case "${1:-}" in plain|limit) mode=$1; shift ;; esac
skip_unless /usr/lib/postgresql/15/bin/postgres runuser
if [ "$(id -u)" -ne 0 ] || ! id postgres >/dev/null 2>&1; then
  echo "skipped: needs root and the user postgres"
  exit 77
fi
chmod 755 "$work"
mkdir -p "$work/pg"
chown postgres "$work/pg"
if [ ! -f "$work/pg/data/PG_VERSION" ]; then
  runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$work/pg/data" -A trust \
    --no-sync -U postgres >"$work/pg/initdb.log" 2>&1
fi
run="$ENGINES_DIR/postgres/run_single.sh"
# A kill run kills the single-user backend mid-query; its restart is a server (a postmaster
# on the same cluster) started again, then the query through it (run_server.sh).
restart="sh $ENGINES_DIR/postgres/run_server.sh $work/pg/data {dir}"
if [ "$mode" = limit ]; then
  EXPECT_ERROR="temporary file size exceeds temp_file_limit" \
    sweep_engine --jobs 1 --scratch --baselines 3 --share-with postgres --neighbours "$neighbours" --restart "$restart" "$@" -- sh "$run" "$work/pg/data" {dir} -c temp_file_limit=1MB
else
  sweep_engine --jobs 1 --scratch --baselines 3 --share-with postgres --neighbours "$neighbours" --restart "$restart" \
    --error-pattern '(ERROR|FATAL|PANIC):' "$@" \
    -- sh "$run" "$work/pg/data" {dir}
fi
expect_left_by_fault tolerated remove
# A killed backend's temp files are taken back by the postmaster's start (reclaimed). A
# second single-user backend on the cluster refuses to start (clean_error) while the first
# runs; limit's query fails within a second, so its instances seldom overlap: both succeed.
expect_verdict reclaimed write
# Damage: zeros where a lost write should be end the tuplestore's read early, and the query
# counts fewer rows (silent_wrong_output); a flipped bit in a tuple's length is caught as a
# short read ("could not read from tuplestore temporary file": clean_error). limit's query
# fails at the limit whatever its temp file holds (tolerated).
if [ "$mode" = plain ]; then
  expect_neighbour_verdict clean_error
  expect_verdict silent_wrong_output write lost
  expect_verdict clean_error read corrupt
else
  expect_neighbour_verdict tolerated
  expect_verdict tolerated write lost
fi
