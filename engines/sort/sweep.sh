#!/bin/sh
# GNU sort spilling: 200,000 shuffled lines with a 100K buffer, one thread, its temp
# files (sortXXXXXX) in {dir}. Usage: engines/sort/sweep.sh [spillway sweep options]
. "$(dirname "$0")/../profile_lib.sh"
skip_unless sort
seq 1 200000 | sort -R --random-source=/dev/zero > "$work/input.txt"
sweep_engine --jobs 2 --scratch --baselines 3 --neighbours "$neighbours" "$@" -- sort -S 100K --parallel=1 -T {dir} "$work/input.txt"
expect_left_by_fault tolerated remove
# Killed mid-spill, its temp files stay: the next sort removes only its own (orphan), and
# two sorts in one -T directory both succeed (docs/engines.md).
expect_verdict orphan remove
expect_neighbour_verdict tolerated
# Its temp files carry no check: a bit flipped in a temp file read back, or a temp file's
# write lost (zeros), reaches the output, and sort exits 0 (silent_wrong_output).
expect_verdict silent_wrong_output read corrupt
expect_verdict silent_wrong_output write lost
