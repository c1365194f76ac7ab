#!/bin/sh
# The full sweeps of the engine profiles (scripts/test.sh --engines). Where an engine's plan
# has more runs than a run of CI can take (every buffered write of GNU sort is a call), the
# sweep is capped with --max-runs, which keeps the first call of each operation and spreads
# the rest evenly. Each profile's summary and kept violations go to build/engines/NAME.
# Exits 1 if a profile fails (bad input, or an engine that spilled outside its scope) or is
# skipped (scripts/test.sh --engines installs every engine first); the engines' own
# violations are findings (docs/engines.md), not failures.
set -eu
cd "$(dirname "$0")/.."
failed=0
profile() {
  name=$1
  shift
  echo "==> $name: $*"
  rm -rf "build/engines/sweeps/$name"
  SPILLWAY_ENGINE_WORK=$PWD/build/engines/sweeps/$name sh "$@" >"build/engines/sweeps/$name.log" 2>&1 ||
    failed=1
  grep -E "^(baseline|plan|sampled|verdicts|violations|skipped|FAIL)" "build/engines/sweeps/$name.log" || true
}
mkdir -p build/engines/sweeps
profile sort engines/sort/sweep.sh --max-runs 600
profile sqlite engines/sqlite/sweep.sh --max-runs 2000
profile rust engines/rust/sweep.sh
profile postgres engines/postgres/sweep.sh plain
profile postgres_limit engines/postgres/sweep.sh limit
profile duckdb engines/duckdb/sweep.sh plain --max-runs 120
profile duckdb_limit_set engines/duckdb/sweep.sh limit-set --max-runs 120
profile duckdb_limit_config engines/duckdb/sweep.sh limit-config --max-runs 120
profile lancedb engines/lancedb/sweep.sh --max-runs 120
exit "$failed"
