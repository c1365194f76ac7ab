#!/bin/sh
# LanceDB 0.31.0 (DataFusion 53.1.0): the spill directory of DataFusion's DiskManager,
# ".tmpXXXXXX" in TMPDIR, is made on the first spill and never removed. The manager lives
# as long as the process (one directory per process, reused by every later spill of it),
# and nothing drops it before the process exits, so TempDir's drop never runs: every
# process that spilled leaves one empty directory behind, and exits 0. Prints the exit
# status and what is left in TMPDIR.
set -eu
. "$(dirname "$0")/finding_lib.sh"
status=0
TMPDIR="$d/tmp" LANCE_MEM_POOL_SIZE=12000000 \
  node "$root/engines/lancedb/spill.js" "$d/db" || status=$?
echo "exit status: $status"
echo "left in TMPDIR:"
ls -lA "$d/tmp"
