#!/bin/sh
# Runs query.sql through a PostgreSQL 15 server: starts a postmaster on DATA (no TCP, its
# socket in a fresh directory), runs the query with psql, and stops the server. The same
# settings as run_single.sh (work_mem=64kB, no parallel workers), its temp files in SCOPE
# (base/pgsql_tmp a symlink to SCOPE). Run as root. The postmaster removes the temp files
# of earlier processes when it starts (RemovePgTempFiles) and recovers a cluster a killed
# backend left: the PostgreSQL profile's restart after a kill run (--restart).
# Usage: run_server.sh DATA SCOPE
set -eu
data=$1
scope=$2
bin=/usr/lib/postgresql/15/bin
here=$(cd "$(dirname "$0")" && pwd)
socket=$(mktemp -d "${TMPDIR:-/tmp}/spillway-pg-socket-XXXXXX")
log=$socket/server.log
chown postgres "$scope" "$socket"
trap 'runuser -u postgres -- "$bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true;
  rm -rf "$socket"' EXIT
rm -rf "$data/base/pgsql_tmp"
ln -s "$scope" "$data/base/pgsql_tmp"
runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w -l "$log" -o "-k $socket -c listen_addresses= \
  -c work_mem=64kB -c max_parallel_workers_per_gather=0 -c log_temp_files=0" start >/dev/null
status=0
runuser -u postgres -- "$bin/psql" -h "$socket" -X -q -A -t -v ON_ERROR_STOP=1 \
  -f "$here/query.sql" postgres || status=$?
runuser -u postgres -- "$bin/pg_ctl" -D "$data" -w -m fast stop >/dev/null
cat "$log" >&2
exit "$status"
