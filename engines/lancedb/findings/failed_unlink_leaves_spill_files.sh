#!/bin/sh
# LanceDB 0.31.0 (DataFusion 53.1.0): when unlinking its spill files fails, the index build
# still succeeds (exit 0) and every spill file stays in TMPDIR: tempfile's NamedTempFile
# drop ignores the error, and nothing else removes them. Prints the exit status and how
# many files are left in the spill directory (20 here).
set -eu
. "$(dirname "$0")/finding_lib.sh"
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
status=0
"$SPILLWAY" inject --under "$d/tmp" --fault 'remove EIO after=0 times=forever' -- \
  env TMPDIR="$d/tmp" LANCE_MEM_POOL_SIZE=12000000 \
  node "$root/engines/lancedb/spill.js" "$d/db" 2>/dev/null || status=$?
echo "exit status: $status"
echo "files left in the spill directory: $(find "$d/tmp" -type f | wc -l)"
