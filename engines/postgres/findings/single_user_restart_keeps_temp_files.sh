#!/bin/sh
# PostgreSQL 15: a backend killed mid-sort (SIGKILL at its first write to a temp file)
# leaves base/pgsql_tmp/pgsql_tmpPID.N. A single-user backend (postgres --single) started
# next recovers the cluster and runs the query but leaves that file: only the postmaster
# removes temp files (RemovePgTempFiles, at its start and after a backend's crash). A
# postmaster started next takes it back. Prints the killed run's exit status and the temp
# directory after it, after a single-user run and after a server's run. Run as root.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
here=$root/engines/postgres
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
mkdir "$d/pg" "$d/tmp"
chown postgres "$d/pg"
runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$d/pg/data" -A trust --no-sync \
  -U postgres >/dev/null 2>&1
left() { echo "$1: $(ls -A "$d/tmp" | tr '\n' ' ')"; }
status=0
"$SPILLWAY" inject --under "$d/tmp" --share-with postgres --fault 'write kill nth=1' -- \
  sh "$here/run_single.sh" "$d/pg/data" "$d/tmp" >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status"
left "left"
status=0
sh "$here/run_single.sh" "$d/pg/data" "$d/tmp" >/dev/null 2>&1 || status=$?
echo "single-user run: exit status $status"
left "left after it"
status=0
sh "$here/run_server.sh" "$d/pg/data" "$d/tmp" >/dev/null 2>&1 || status=$?
echo "server run: exit status $status"
left "left after it"
