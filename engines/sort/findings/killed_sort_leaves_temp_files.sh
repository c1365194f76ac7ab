#!/bin/sh
# GNU sort 9.1: killed mid-spill (SIGKILL at its first unlink of a temp file, when every
# run is written and the merge begins), sort leaves its temp files sortXXXXXX in the -T
# directory, and the next sort in the same directory does not take them back: it removes
# only the files it made itself. Prints the killed run's exit status, the files left, and
# the same after the next run, which exits 0.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/tmp"
seq 1 200000 | sort -R --random-source=/dev/zero >"$d/input.txt"
status=0
"$SPILLWAY" inject --under "$d/tmp" --fault 'remove kill nth=1' -- \
  sort -S 100K --parallel=1 -T "$d/tmp" "$d/input.txt" >/dev/null 2>"$d/inject.txt" || status=$?
echo "killed run: exit status $status"
echo "left: $(ls -A "$d/tmp" | wc -l) files, $(du -sk "$d/tmp" | cut -f1) KiB"
status=0
sort -S 100K --parallel=1 -T "$d/tmp" "$d/input.txt" >/dev/null || status=$?
echo "next run: exit status $status"
echo "left after it: $(ls -A "$d/tmp" | wc -l) files, $(du -sk "$d/tmp" | cut -f1) KiB"
