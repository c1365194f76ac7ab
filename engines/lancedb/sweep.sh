#!/bin/sh
# LanceDB (npm @lancedb/lancedb 0.31.0 with apache-arrow 18.1.0, installed by
# `scripts/install-deps.sh engines` into build/engines/lancedb), which embeds DataFusion
# 53.1.0, under Debian's node: spill.js builds a btree index over a 300,000-row string
# column with LANCE_MEM_POOL_SIZE=12000000, so that DataFusion's external sort spills
# through its DiskManager in OS-temp mode into TMPDIR={dir}. The database itself lives in
# $work/db, outside the scope. TMPDIR is temporary space (--scratch), and the spill
# directory every process leaves there (LanceDB never drops its DiskManager) is the
# baseline's leak the profile expects (docs/engines.md).
# Usage: engines/lancedb/sweep.sh [spillway sweep options]
. "$(dirname "$0")/../profile_lib.sh"
NODE_PATH=${LANCEDB_NODE_MODULES:-$ENGINES_DIR/../build/engines/lancedb/node_modules}
skip_unless node "$NODE_PATH/@lancedb/lancedb/package.json" "$NODE_PATH/apache-arrow/package.json"
export NODE_PATH
mkdir -p "$work/db"
sweep_engine --jobs 2 --scratch --baselines 5 --neighbours "$neighbours" "$@" -- env TMPDIR={dir} LANCE_MEM_POOL_SIZE=12000000 \
  node "$ENGINES_DIR/lancedb/spill.js" "$work/db"
expect_baseline_leak '^\{dir\}/\.tmp[A-Za-z0-9]{6}$'
expect_left_by_fault tolerated remove
# Killed mid-spill, its spill directory stays with its files: the restart makes its own
# (orphan). Two builds at once in one TMPDIR both succeed, each leaving its directory (leak).
expect_verdict orphan write
expect_neighbour_verdict leak
# Damage: DataFusion's spill files (Arrow IPC) carry no checksum. A flipped bit or zeros
# that break the IPC framing fail the build (exit 1, under the leak above); zeros in the
# data make the index miss the key the query asks for (silent_wrong_output).
expect_verdict silent_wrong_output write lost
