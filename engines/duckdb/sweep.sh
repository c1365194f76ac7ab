#!/bin/sh
# DuckDB (npm @duckdb/node-api, installed by `scripts/install-deps.sh engines` into
# build/engines/duckdb) under Debian's node: spill.js sorts 2 million rows with
# memory_limit=64MB, threads=1 and temp_directory={dir}.
# Usage: engines/duckdb/sweep.sh [plain|limit-set|limit-config] [spillway sweep options]
#   plain         no max_temp_directory_size (default)
#   limit-set     SET max_temp_directory_size='1MB': the expected outcome is DuckDB's error
#                 "failed to offload data block"
#   limit-config  max_temp_directory_size='1MB' in the instance's config
# Baseline runs: 3, as every profile; limit-set 20, for it writes, and then cleans up, a
# second temp file in about one run of five (a timing of its buffer manager), so a few
# baselines may miss those five sites (plain and limit-config reached none in 20 runs).
. "$(dirname "$0")/../profile_lib.sh"
mode=plain
case "${1:-}" in plain|limit-set|limit-config) mode=$1; shift ;; esac
baselines=3
[ "$mode" = limit-set ] && baselines=20
NODE_PATH=${DUCKDB_NODE_MODULES:-$ENGINES_DIR/../build/engines/duckdb/node_modules}
skip_unless node "$NODE_PATH/@duckdb/node-api/package.json"
export NODE_PATH
sweep_engine --jobs 2 --scratch --baselines "$baselines" \
  --neighbours "$neighbours" "$@" -- node "$ENGINES_DIR/duckdb/spill.js" {dir} "$mode" 1MB
# docs/engines.md: a failing stat leaves a temp file; a failed removal aborts.
expect_verdict leak stat
expect_verdict crash remove
# Killed mid-spill, its temp files are taken back by the restart, which spills into files
# of the same names (reclaimed). Two instances spilling at once in one temp_directory die of
# SIGSEGV (crash); limit-set's stop at 1MB before they meet, and both succeed.
expect_verdict reclaimed write
# Damage: its temp blocks carry no checksum, so a bit flipped in one read back or written
# reaches the result (silent_wrong_output), as do a lost write's zeros, unless they land on
# a compressed block's header ("Corrupt temporary file": clean_error). limit-set's query
# fails at the limit whatever its one temp file holds (tolerated).
if [ "$mode" = limit-set ]; then
  expect_neighbour_verdict tolerated
  expect_verdict tolerated write lost
else
  expect_neighbour_verdict crash
  expect_verdict silent_wrong_output read corrupt
  expect_verdict silent_wrong_output write lost
fi
