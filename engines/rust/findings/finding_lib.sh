# Sourced by the Rust tempfile finding scripts: $root (the checkout), $SPILLWAY,
# $RUST_SPILL (tests/inject/rust_spill as the build tree has it) and a fresh $d, removed at
# exit.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
SPILLWAY=${SPILLWAY:-$root/build/default/tools/spillway}
RUST_SPILL=${RUST_SPILL:-$root/build/default/tests/inject/rust_spill/target/release/rust_spill}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
