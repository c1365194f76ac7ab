#!/bin/sh
# Derby 10.14.2 with derby.storage.tempDirectory=T keeps a boot's temp files in
# T/derbytmp_<id>, where <id> is new at every boot, and at boot deletes only that new
# directory (BaseStorageFactory.createTempDir). A process killed mid-sort (here by SIGKILL
# just before its first write of a merge run) leaves its derbytmp_ directory and merge
# run; the restart boots the same database with the same T, sorts, and at shutdown
# removes its own directory, never the killed one's. (Without derby.storage.tempDirectory
# the temp directory is DB/tmp, one name, which every boot empties.) Prints what T holds
# after the kill and after the restart.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
classes=${DERBY_SPILL_CLASSES:-$root/build/default/engines/derby}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
java="java -Xms16m -Xmx16m -XX:+UseSerialGC -cp ${DERBY_JAR:-/usr/share/java/derby.jar}:$classes"
$java Spill create "$d/template" 20000
mkdir "$d/dbs" "$d/tmp"
status=0
"$SPILLWAY" inject --under "$d/tmp" --fault 'write kill nth=1' -- \
  $java Spill sort "$d/template" "$d/dbs" "$d/tmp" 100 >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status; T holds:"
(cd "$d/tmp" && find . -mindepth 1 | sort)
$java Spill sort "$d/template" "$d/dbs" "$d/tmp" 100
echo "after the restart (exit 0), T holds:"
(cd "$d/tmp" && find . -mindepth 1 | sort)
