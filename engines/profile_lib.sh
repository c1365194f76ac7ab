# Shared by the engine profiles (engines/NAME/sweep.sh): a work directory, a skip when the
# engine is not installed, and the sweep with its check. Sourced, not run.
#   SPILLWAY  the spillway executable (default: build/default/tools/spillway)
#   SPILLWAY_ENGINE_WORK  where the profile works, kept, with each violation's files in
#                         its out/ (default: a fresh temp dir, removed, and no out/: a kept
#                         violation is one more run, traced, of a file nobody reads)
#   SPILLWAY_ENGINE_NEIGHBOURS  the profile's --neighbours (default 1: two instances at
#                         once; 0 leaves the rounds out, as ctest's sampled profiles do)
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
neighbours=${SPILLWAY_ENGINE_NEIGHBOURS:-1}
all_modes=transient,persistent,kill,corrupt,lost
modes=${SPILLWAY_ENGINE_MODES:-$all_modes}

# skip_unless COMMAND...: exit 77 (ctest's skip) when a command is missing.
skip_unless() {
  for c in "$@"; do
    if ! command -v "$c" >/dev/null 2>&1 && [ ! -e "$c" ]; then
      echo "skipped: $c is not installed (scripts/install-deps.sh engines)"
      exit 77
    fi
  done
}

# sweep_engine [SWEEP OPTIONS] -- CMD...: runs the sweep of $modes with {dir} under
# $work/scope, keeping violations in $work/out (when the work dir is kept) and its JSON
# report in $work/report.json, and prints its summary (text, from the report by `spillway
# sweep merge`; JSON when --json is given).
# Fails when the sweep had bad input (exit 2) or when the baseline made no call in scope:
# the engine spilled elsewhere.
sweep_engine() {
  status=0
  json=
  for arg in "$@"; do
    [ "$arg" = -- ] && break
    [ "$arg" = --json ] && json=yes
  done
  # --json once: the caller's, or this one.
  extra=--json
  [ -n "$json" ] && extra=
  "$SPILLWAY" sweep --under "$work/scope" ${SPILLWAY_ENGINE_WORK:+--out "$work/out"} \
    --mode "$modes" $extra "$@" \
    >"$work/report.json" ||
    status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    cat "$work/report.json"
    echo "FAIL: spillway sweep exited $status" >&2
    exit 1
  fi
  if [ -n "$json" ]; then
    cp "$work/report.json" "$work/summary.txt"
  else
    "$SPILLWAY" sweep merge "$work/report.json" >"$work/summary.txt" || true
  fi
  cat "$work/summary.txt"
  calls=$(summary_count calls)
  if [ "${calls:-0}" -eq 0 ]; then
    echo "FAIL: no call of the engine reached the scope: it spilled somewhere else" >&2
    exit 1
  fi
  echo "sweep exit $status"
}

# report_query PYTHON_EXPRESSION [ARG]: prints the expression evaluated over the last
# sweep's JSON report `r` (and `a`, the argument); nothing when the report has no answer.
report_query() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
a = sys.argv[3] if len(sys.argv) > 3 else ""
print(eval(sys.argv[2]))' "$work/report.json" "$@" 2>/dev/null || true
}

# summary_count calls|VERDICT: the baseline's in-scope calls, or the runs of the last sweep
# given VERDICT. Empty when the report has none.
summary_count() {
  if [ "$1" = calls ]; then
    report_query 'r["baseline"]["calls"]'
  else
    report_query 'r["summary"]["by_verdict"][a]' "$1"
  fi
}

# baseline_leaks: the paths the last sweep's baseline left in its scope under --scratch
# (each a leak, and the sweep exits 1), one a line, scope shown as {dir}.
baseline_leaks() {
  report_query '"\n".join(leak["path"] for leak in r["baseline"]["leaks"])'
}

# sweep_was_whole [MODE]: true when the last sweep made every run of its plan (no
# --max-runs sample, no shard) and its plan had MODE's runs (without MODE: the plan of every
# mode, not narrowed by SPILLWAY_ENGINE_MODES), so that a finding of the plan must be among
# its runs; otherwise says that the expectations are not checked.
sweep_was_whole() {
  case ",$modes," in
    *,"${1:-$all_modes}",*) ;;
    *)
      echo "not checked: the findings docs/engines.md expects ${1:+of mode $1 }(the sweep's" \
        "modes were $modes)"
      return 1
      ;;
  esac
  if [ "$(report_query 'r["summary"]["runs"] == r["summary"]["planned_runs"]')" = True ]; then
    return 0
  fi
  echo "not checked: the findings docs/engines.md expects (the sweep made part of its plan)"
  return 1
}

# expect_verdict VERDICT [OP [MODE]]: fails unless the last sweep gave at least one run that
# verdict (of a run faulting an OP call, when OP is given; in MODE, when given: e.g.
# `expect_verdict silent_wrong_output read corrupt`, a damaged read the engine did not
# notice): a finding the profile documents, so a sweep that stops seeing it is noticed. Not
# checked on a sampled or sharded sweep, nor when MODE (without MODE: any mode) was not swept.
expect_verdict() {
  sweep_was_whole ${3:-} || return 0
  count=$(report_query 'sum(1 for run in r["runs"] if a.split()[0] in run["verdicts"] and
                            (len(a.split()) < 2 or run["op"] == a.split()[1]) and
                            (len(a.split()) < 3 or run["mode"] == a.split()[2]))' "$*")
  if [ "${count:-0}" -eq 0 ]; then
    echo "FAIL: no ${3:+$3 }run ${2:+at a $2 call }was $1; docs/engines.md says this engine" \
      "shows it" >&2
    exit 1
  fi
}

# expect_left_by_fault VERDICT OP: the same for a run failing an OP call that got VERDICT
# and left an entry its fault kept from being removed (left_by_fault).
expect_left_by_fault() {
  sweep_was_whole || return 0
  count=$(report_query 'sum(1 for run in r["runs"] if a.split()[0] in run["verdicts"] and
                            run["op"] == a.split()[1] and
                            any(l["kind"] == "left_by_fault" for l in run["leftovers"]))' "$1 $2")
  if [ "${count:-0}" -eq 0 ]; then
    echo "FAIL: no run failing $2 was $1 leaving an entry left_by_fault; docs/engines.md" \
      "says this engine shows it" >&2
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

# expect_neighbour_verdict VERDICT: fails unless an instance of the last sweep's neighbour
# rounds (--neighbours) got VERDICT: what the profile documents for two instances sharing
# one scope. Not checked when the sweep ran no rounds (SPILLWAY_ENGINE_NEIGHBOURS=0, or a
# shard other than the first).
expect_neighbour_verdict() {
  if [ "$(report_query 'r["neighbours"]["instances"]')" = 0 ]; then
    echo "not checked: the neighbour verdict docs/engines.md expects (no neighbour rounds)"
    return 0
  fi
  count=$(report_query 'sum(1 for run in r["neighbours"]["runs"] if a in run["verdicts"])' "$1")
  if [ "${count:-0}" -eq 0 ]; then
    echo "FAIL: no neighbour instance was $1; docs/engines.md says this engine shows it" >&2
    exit 1
  fi
}
