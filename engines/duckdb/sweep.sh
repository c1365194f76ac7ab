#!/bin/sh
# DuckDB (npm @duckdb/node-api, installed by `scripts/install-deps.sh engines` into
# build/engines/duckdb) under Debian's node: spill.js sorts 2 million rows with
# memory_limit=64MB, threads=1 and temp_directory={dir}.
# Usage: engines/duckdb/sweep.sh [plain|limit-set|limit-config] [spillway sweep options]
#   plain         no max_temp_directory_size (default)
#   limit-set     SET max_temp_directory_size='1MB': the expected outcome is DuckDB's error
#                 "failed to offload data block"
#   limit-config  max_temp_directory_size='1MB' in the instance's config
# 20 baseline runs: limit-set writes, and then cleans up, a second temp file in about one
# run of five (a timing of its buffer manager), so one baseline may miss those five sites.
. "$(dirname "$0")/../profile_lib.sh"
mode=plain
case "${1:-}" in plain|limit-set|limit-config) mode=$1; shift ;; esac
NODE_PATH=${DUCKDB_NODE_MODULES:-$ENGINES_DIR/../build/engines/duckdb/node_modules}
skip_unless node "$NODE_PATH/@duckdb/node-api/package.json"
export NODE_PATH
sweep_engine --jobs 2 --scratch --baselines 20 "$@" -- node "$ENGINES_DIR/duckdb/spill.js" {dir} "$mode" 1MB
# docs/engines.md: a failing stat leaves a temp file; a failed removal aborts.
expect_verdict leak stat
expect_verdict crash remove
