#!/usr/bin/env bash
# Mutation testing by hand: for each mutant in a list (scripts/mutants.txt by default),
# apply it (a sed expression on one file), rebuild incrementally, run the fast test labels,
# revert, and print whether the tests killed it. For people, not CI: it takes a while.
#
#   scripts/mutate.sh [LIST] [BUILD_DIR]
#
# A mutant is killed when a test that passes on the unmutated tree fails (or the build
# fails); tests that already fail on the unmutated tree are left out of the judgement.
# The tree must be clean in the mutated files; each file is restored with `git checkout`.
set -euo pipefail
cd "$(dirname "$0")/.."
list=${1:-scripts/mutants.txt}
build=${2:-build/default}
labels=${SPILLWAY_MUTATE_LABELS:-unit|scenario}

run_tests() {  # Prints the names of failing tests.
  ctest --test-dir "$build" -L "$labels" -j2 -Q >/dev/null 2>&1 || true
  sed -n 's/^[0-9]*:\(.*\)$/\1/p' "$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null |
    sort || true
}

echo "baseline: building and running '$labels'"
cmake --build "$build" -j2 >/dev/null
: >"$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null || true
baseline=$(run_tests)
[ -n "$baseline" ] && echo "already failing (ignored): $(echo "$baseline" | tr '\n' ' ')"

killed=0 survived=0 n=0
while IFS=$'\t' read -r file expr; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  n=$((n + 1))
  before=$(md5sum "$file")
  sed -i -e "$expr" "$file"
  if [ "$(md5sum "$file")" = "$before" ]; then
    echo "mutant $n: NOT APPLIED ($file: $expr)"
    continue
  fi
  : >"$build/Testing/Temporary/LastTestsFailed.log" 2>/dev/null || true
  if ! cmake --build "$build" -j2 >/dev/null 2>&1; then
    verdict="killed (build)"
  else
    # sed, not head: head would close the pipe early and pipefail would end the script.
    new=$(comm -13 <(echo "$baseline") <(run_tests) | sed -n 1,3p | tr "\n" " ")
    if [ -n "$new" ]; then verdict="killed by $new"; else verdict="SURVIVED"; fi
  fi
  git checkout -q -- "$file"
  case $verdict in SURVIVED) survived=$((survived + 1)) ;; *) killed=$((killed + 1)) ;; esac
  echo "mutant $n: $verdict ($file: $expr)"
done <"$list"
cmake --build "$build" -j2 >/dev/null
echo "score: $killed killed, $survived survived"
