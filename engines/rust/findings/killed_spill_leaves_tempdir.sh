#!/bin/sh
# tempfile 3.3.0 (Debian's librust-tempfile-dev): a process killed mid-spill (SIGKILL at
# its first write to the NamedTempFile here) leaves its TempDir "datafusion-XXXXXX" and the
# spill file in it; the next run in the same directory makes a TempDir of its own and
# removes only that one. A DataFusion DiskManager's local dir accumulates one such
# directory per killed process. Prints the killed run's exit status and the directory after
# it and after the next run, which exits 0.
. "$(dirname "$0")/finding_lib.sh"
status=0
"$SPILLWAY" inject --under "$d" --fault 'write kill nth=1' -- "$RUST_SPILL" "$d" \
  >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status"
find "$d" -mindepth 1 | sed "s|^$d|{dir}|"
status=0
"$RUST_SPILL" "$d" >/dev/null || status=$?
echo "next run: exit status $status"
find "$d" -mindepth 1 | sed "s|^$d|{dir}|"
