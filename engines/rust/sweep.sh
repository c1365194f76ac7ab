#!/bin/sh
# Rust's tempfile crate spilling as DataFusion's DiskManager does (tests/inject/rust_spill:
# a TempDir "datafusion-XXXXXX" in {dir}, a NamedTempFile ".tmpXXXXXX" in it, write_all,
# read back, a copy, RAII removal), built offline by Debian's cargo with the test suite.
# Usage: engines/rust/sweep.sh [spillway sweep options]
. "$(dirname "$0")/../profile_lib.sh"
RUST_SPILL=${RUST_SPILL:-$ENGINES_DIR/../build/default/tests/inject/rust_spill/target/release/rust_spill}
skip_unless "$RUST_SPILL"
sweep_engine --jobs 2 --scratch --baselines 3 --neighbours "$neighbours" "$@" -- "$RUST_SPILL" {dir}
expect_verdict leak
# Killed mid-spill, the datafusion-XXXXXX directory and its files stay: nothing in the
# crate takes back another process's directory (orphan); two instances in one directory
# both succeed.
expect_verdict orphan write
expect_neighbour_verdict tolerated
# The client prints the sizes it wrote and read back, not the bytes: tempfile has no check,
# and a damaged spill goes by unseen (tolerated).
expect_verdict tolerated read corrupt
expect_verdict tolerated write lost
