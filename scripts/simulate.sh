#!/usr/bin/env bash
# The main job: build the `spillway` tool and run a seeded simulation of plans spilling on
# the in-memory filesystem, with faults and a tmp cleaner, checking every invariant after
# every step. Extra arguments go to `spillway simulate` (see `spillway simulate --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake --preset release >/dev/null
cmake --build --preset release --target spillway
exec build/release/tools/spillway simulate --fs mem --seed 1 "$@"
