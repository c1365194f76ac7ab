# Shared by the engine profiles (engines/NAME/sweep.sh): a work directory, a skip when the
# engine is not installed, and the sweep with its check. Sourced, not run.
#   SPILLWAY  the spillway executable (default: build/default/tools/spillway)
#   SPILLWAY_ENGINE_WORK  where the profile works (default: a fresh temp dir, removed)
# A profile passes its own arguments (e.g. --max-runs 40) on to `spillway sweep`.
set -eu

SPILLWAY=${SPILLWAY:-$(cd "$(dirname "$0")/../.." && pwd)/build/default/tools/spillway}
ENGINES_DIR=$(cd "$(dirname "$0")/.." && pwd)

if [ -n "${SPILLWAY_ENGINE_WORK:-}" ]; then
  work=$SPILLWAY_ENGINE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/spillway-engine-XXXXXX")
  trap 'chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
fi
mkdir -p "$work/scope"

# skip_unless COMMAND...: exit 77 (ctest's skip) when a command is missing.
skip_unless() {
  for c in "$@"; do
    if ! command -v "$c" >/dev/null 2>&1 && [ ! -e "$c" ]; then
      echo "skipped: $c is not installed (scripts/install-deps.sh engines)"
      exit 77
    fi
  done
}

# sweep_engine [SWEEP OPTIONS] -- CMD...: runs the sweep with {dir} under $work/scope,
# keeping violations in $work/out, and prints its summary. Fails when the sweep had bad
# input (exit 2) or when the baseline made no call in scope: the engine spilled elsewhere.
sweep_engine() {
  status=0
  "$SPILLWAY" sweep --under "$work/scope" --out "$work/out" "$@" >"$work/summary.txt" || status=$?
  cat "$work/summary.txt"
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "FAIL: spillway sweep exited $status" >&2
    exit 1
  fi
  calls=$(summary_count calls)
  if [ "${calls:-0}" -eq 0 ]; then
    echo "FAIL: no call of the engine reached the scope: it spilled somewhere else" >&2
    exit 1
  fi
  echo "sweep exit $status"
}

# summary_count calls|VERDICT: a count of the last sweep's summary, from its text or (with
# --json) its JSON: the baseline's in-scope calls, or the runs given VERDICT. Empty when the
# summary has none.
summary_count() {
  if [ "$(head -c 1 "$work/summary.txt")" = "{" ]; then
    python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["baseline"]["calls"] if sys.argv[2] == "calls" else s["summary"]["by_verdict"][sys.argv[2]])' \
      "$work/summary.txt" "$1" 2>/dev/null || true
  elif [ "$1" = calls ]; then
    sed -n 's/^baseline: exit 0, \([0-9]*\) in-scope calls.*/\1/p' "$work/summary.txt"
  else
    sed -n "s/^verdicts: .*\b$1 \([0-9]*\).*/\1/p" "$work/summary.txt"
  fi
}

# baseline_leaks: the paths the last sweep's baseline left in its scope under --scratch
# (each a leak, and the sweep exits 1), one a line, scope shown as {dir}.
baseline_leaks() {
  if [ "$(head -c 1 "$work/summary.txt")" = "{" ]; then
    python3 -c 'import json, sys
for leak in json.load(open(sys.argv[1]))["baseline"]["leaks"]: print(leak["path"])' \
      "$work/summary.txt" 2>/dev/null || true
  else
    sed -n 's/^baseline leak (--scratch): \(.*\) ([0-9]* bytes)$/\1/p' "$work/summary.txt"
  fi
}

# expect_verdict NAME: fails unless the last sweep gave at least one run that verdict (a
# finding the profile documents, so a sweep that stops seeing it is noticed).
expect_verdict() {
  count=$(summary_count "$1")
  if [ "${count:-0}" -eq 0 ]; then
    echo "FAIL: no run was $1; docs/engines.md says this engine shows it" >&2
    exit 1
  fi
}

# expect_baseline_leak REGEX: the same for the baseline's own leak under --scratch: fails
# unless the baseline left an entry whose path (scope as {dir}) matches REGEX (grep -E), or
# left anything else.
expect_baseline_leak() {
  leaks=$(baseline_leaks)
  if ! printf '%s\n' "$leaks" | grep -Eq "$1"; then
    echo "FAIL: the baseline left no $1; docs/engines.md says this engine leaves one" >&2
    exit 1
  fi
  if printf '%s\n' "$leaks" | grep -Ev "$1" | grep -q .; then
    echo "FAIL: the baseline left more than docs/engines.md says:" $leaks >&2
    exit 1
  fi
}
