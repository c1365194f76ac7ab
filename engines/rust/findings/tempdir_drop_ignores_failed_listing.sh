#!/bin/sh
# tempfile 3.3.0 (Debian's librust-tempfile-dev): TempDir's drop removes its tree with
# remove_dir_all and ignores the error. When any call of that removal fails (the statx of
# the directory, its openat, fdopendir or a readdir: sweep runs 19-24), the directory
# "datafusion-XXXXXX" stays behind and the program still exits 0 without a word: what a
# DataFusion DiskManager leaves in its local dir. Prints the exit status and the leftover.
. "$(dirname "$0")/finding_lib.sh"
# The first directory listing in scope is remove_dir_all's readdir of the TempDir.
status=0
"$SPILLWAY" inject --under "$d" --fault 'list EIO after=1' -- "$RUST_SPILL" "$d" || status=$?
echo "exit status: $status"
echo "left in $d:"
ls -A "$d"
