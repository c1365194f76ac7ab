#!/usr/bin/env bash
# The main job: build the `spillway` tool and run a seeded simulation of plans spilling on
# the in-memory filesystem, with faults and a tmp cleaner, checking every invariant after
# every step: two seeds of 200,000 steps, in parallel. Arguments, when given, replace these
# defaults and go to `spillway simulate` (see `spillway simulate --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake --preset release >/dev/null
cmake --build --preset release --target spillway
[ $# -gt 0 ] || set -- --fs mem --seed 1 --steps 200000 --jobs 2
exec build/release/tools/spillway simulate "$@"
