#!/usr/bin/env bash
# Builds spillway and runs its whole default test suite: unit, property and scenario tests
# on the default build (GCC), again under AddressSanitizer + UndefinedBehaviorSanitizer, the
# concurrency tests under ThreadSanitizer, the scenario-parser fuzzer (the last three built
# by clang), and clang-tidy over all sources, tests included (tests/.clang-tidy).
# Long soaks are left out; run them with `scripts/test.sh --soak`. `--engines` also runs the
# complete site sweeps of every engine profile (engines/, docs/engines.md; CI runs those of
# sort, SQLite, Rust, PostgreSQL and DuckDB limit-set, and samples of the rest).
set -euo pipefail
cd "$(dirname "$0")/.."

soak=0
engines=0
for arg in "$@"; do
  case "$arg" in
    --soak) soak=1 ;;
    --engines) engines=1 ;;
    *) echo "usage: $0 [--soak] [--engines]" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh engines  # test's packages plus the engines the sampled profiles sweep
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

# Each step's name, and when it ends, how long it took (docs/performance.md, "The test run").
step_name=""
step_start=$SECONDS
step_end() {
  [ -n "$step_name" ] || return 0
  local took=$((SECONDS - step_start))
  printf '<== %s: %d:%02d\n' "$step_name" $((took / 60)) $((took % 60))
}
step() { step_end; step_name="$*"; step_start=$SECONDS; echo; echo "==> $*"; }

step "default build"
cmake --preset default "${launcher[@]}" >/dev/null
cmake --build --preset default
ctest --preset default

step "clang-tidy"
scripts/clang-tidy.sh build/default

step "asan-ubsan build"
cmake --preset asan-ubsan "${launcher[@]}" >/dev/null
cmake --build --preset asan-ubsan
ctest --preset asan-ubsan

step "tsan build (concurrency tests)"
cmake --preset tsan "${launcher[@]}" >/dev/null
cmake --build --preset tsan --target spillway_concurrency_tests
ctest --preset tsan

step "scenario parser fuzzer (clang)"
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build --preset fuzz --target scenario_parser_fuzzer
ctest --test-dir build/fuzz --output-on-failure --no-tests=error

if [ "$soak" -eq 1 ]; then
  step "soak tests"
  cmake --preset default -DSPILLWAY_ENABLE_SOAK=ON >/dev/null
  cmake --build --preset default
  ctest --preset soak
fi
if [ "$engines" -eq 1 ]; then
  step "engine profiles, complete site sweeps"
  scripts/install-deps.sh engines
  engines/sweep_all.sh
fi
step_end
echo
printf 'all test runs passed in %d:%02d\n' $((SECONDS / 60)) $((SECONDS % 60))
