#!/bin/sh
# Apache Derby (Debian's libderby-java) sorting through temp files, embedded, over JDBC:
# Spill.java (compiled by the build into build/default/engines/derby, or here by javac when
# the build has not) boots a copy of a database of 20,000 rows of 100 bytes made once
# before the sweep, out of the scope, with derby.storage.tempDirectory={dir} and
# derby.storage.sortBufferMax=100, and prints the CRC-32 of `SELECT k, v FROM t ORDER BY v
# DESC`: the sort spills its merge runs into {dir}/derbytmp_<id>/T*.tmp, <id> new at
# every boot. The
# JVM's heap is fixed (-Xms16m -Xmx16m) because Derby grows its sort buffer while free
# heap allows: with more heap it may not spill at all; -XX:+UseSerialGC keeps GC threads
# few. A kill run's restart is the same command in the same {dir}: the database copy (kept
# by {dir}'s name) is booted again, beside what the killed run left in {dir}. Neighbours
# (two instances at once in one {dir}) boot a copy each, and share {dir} alone.
# Usage: engines/derby/sweep.sh [sample] [spillway sweep options]
#   sample  one baseline run instead of 3 (ctest's --max-runs sample, to keep it short)
. "$(dirname "$0")/../profile_lib.sh"
baselines=3
[ "${1:-}" = sample ] && baselines=1 && shift
derby_jar=${DERBY_JAR:-/usr/share/java/derby.jar}
skip_unless java "$derby_jar"
classes=${DERBY_SPILL_CLASSES:-$ENGINES_DIR/../build/default/engines/derby}
if [ ! -e "$classes/Spill.class" ]; then
  skip_unless javac
  classes=$work/classes
  mkdir -p "$classes"
  javac -d "$classes" "$ENGINES_DIR/derby/Spill.java"
fi
java="java -Xms16m -Xmx16m -XX:+UseSerialGC -cp $derby_jar:$classes"
rm -rf "$work/template" "$work/dbs"
mkdir -p "$work/dbs"
$java Spill create "$work/template" 20000
sweep_engine --jobs 2 --scratch --baselines "$baselines" --neighbours "$neighbours" "$@" -- $java Spill sort "$work/template" "$work/dbs" {dir} 100
# docs/engines.md: a run killed mid-sort leaves its derbytmp_ directory, which the restart
# (a new one of its own) never takes back; a failing stat (File.exists) at shutdown or
# before a merge run's removal leaves the temp directory or the merge runs.
expect_verdict orphan
expect_verdict leak stat
# Two instances in one temp directory: each boots a derbytmp_ directory of its own, both
# succeed and remove it (tolerated). Damage: merge runs carry no checksum, so a bit flipped
# in one read back changes the sorted rows, and the CRC-32 printed (silent_wrong_output).
expect_neighbour_verdict tolerated
expect_verdict silent_wrong_output read corrupt
