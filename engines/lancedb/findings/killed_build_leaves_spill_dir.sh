#!/bin/sh
# LanceDB 0.31.0 (DataFusion 53.1.0): killed mid-spill (SIGKILL at the first unlink of a
# spill file, when the sort's spill files are written and its merge begins), the process
# leaves its spill directory .tmpXXXXXX in TMPDIR with the spill files in it, and the next
# build in the same TMPDIR does not take them back: it makes a directory of its own (and
# leaves that one too, empty: spill_dir_left_at_exit.sh). Prints the killed run's exit
# status and what TMPDIR holds after it and after the next run.
set -eu
. "$(dirname "$0")/finding_lib.sh"
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
left() {
  echo "$1: $(find "$d/tmp" -mindepth 1 -maxdepth 1 | wc -l) directories, \
$(find "$d/tmp" -mindepth 2 | wc -l) files, $(du -sk "$d/tmp" | cut -f1) KiB"
}
status=0
"$SPILLWAY" inject --under "$d/tmp" --fault 'remove kill nth=1' -- env TMPDIR="$d/tmp" \
  LANCE_MEM_POOL_SIZE=12000000 node "$root/engines/lancedb/spill.js" "$d/db" \
  >/dev/null 2>&1 || status=$?
echo "killed run: exit status $status"
left "left"
status=0
TMPDIR="$d/tmp" LANCE_MEM_POOL_SIZE=12000000 node "$root/engines/lancedb/spill.js" "$d/db" \
  >/dev/null || status=$?
echo "next run: exit status $status"
left "left after it"
