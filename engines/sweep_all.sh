#!/bin/sh
# The complete site sweeps of the engine profiles (scripts/test.sh --engines): every call
# site of each engine's baseline, every errno its operation can return, the modes transient,
# persistent, kill (each kill run with its restart), corrupt and lost (profile_lib.sh's
# $modes), at the default depth (first), and three rounds of two instances at once in one
# scope (--neighbours 1). Each profile's summary and kept violations go to
# build/engines/sweeps/NAME. Exits 1 if a profile fails (bad input, an engine that spilled outside
# its scope, or a documented finding no longer seen) or is skipped (scripts/test.sh
# --engines installs every engine first); the engines' own violations are findings
# (docs/engines.md), not failures.
set -eu
cd "$(dirname "$0")/.."
failed=0
profile() {
  name=$1
  shift
  echo "==> $name: $*"
  rm -rf "build/engines/sweeps/$name"
  start=$(date +%s)
  SPILLWAY_ENGINE_WORK=$PWD/build/engines/sweeps/$name sh "$@" >"build/engines/sweeps/$name.log" 2>&1 ||
    failed=1
  grep -E "^(baseline|plan|sampled|verdicts|violations|skipped|FAIL)" "build/engines/sweeps/$name.log" || true
  # The load average too: the cores may be shared with other work.
  echo "time: $(($(date +%s) - start)) s; $(uptime | sed 's/.*load/load/')"
}
mkdir -p build/engines/sweeps
all_start=$(date +%s)
profile sort engines/sort/sweep.sh
profile sqlite engines/sqlite/sweep.sh
profile rust engines/rust/sweep.sh
profile postgres engines/postgres/sweep.sh plain
profile postgres_limit engines/postgres/sweep.sh limit
profile duckdb engines/duckdb/sweep.sh plain
profile duckdb_limit_set engines/duckdb/sweep.sh limit-set
profile duckdb_limit_config engines/duckdb/sweep.sh limit-config
profile lancedb engines/lancedb/sweep.sh
profile derby engines/derby/sweep.sh
echo "all profiles: $(($(date +%s) - all_start)) s"
exit "$failed"
