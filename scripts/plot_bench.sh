#!/usr/bin/env bash
# Plots what a plan's disk manager costs, eager against lazy: nanoseconds per plan (log
# scale) against the number of local dirs, one line per mode and thread count, from the
# JSON of `spillway bench --json`.
#
#   scripts/plot_bench.sh                       # measure now, then plot
#   scripts/plot_bench.sh --from FILE.json      # plot a measurement already made
#
# Options:
#   --from FILE      plot FILE instead of measuring
#   --spillway PATH  the spillway binary (default: $SPILLWAY, else build/release/tools/spillway,
#                    else `spillway` on PATH)
#   --json FILE      where a new measurement is saved (default docs/bench.json)
#   --out FILE       the plot (default docs/bench.svg; a name ending in .png makes a PNG)
#   -- ARGS...       passed to `spillway bench` (e.g. -- --root /mnt/nvme --repetitions 9)
# Needs gnuplot (Debian: gnuplot-nox; scripts/install-deps.sh plot).
set -euo pipefail
cd "$(dirname "$0")/.."

from=""
json="docs/bench.json"
out="docs/bench.svg"
spillway="${SPILLWAY:-}"
bench_args=()
usage() {
  echo "usage: $0 [--from FILE] [--spillway PATH] [--json FILE] [--out FILE] [-- ARGS...]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || usage; from="$2"; shift 2 ;;
    --spillway) [ $# -ge 2 ] || usage; spillway="$2"; shift 2 ;;
    --json) [ $# -ge 2 ] || usage; json="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) usage ;;
  esac
done

command -v gnuplot >/dev/null || { echo "$0: gnuplot not found (scripts/install-deps.sh plot)" >&2; exit 1; }

if [ -z "$from" ]; then
  if [ -z "$spillway" ]; then
    if [ -x build/release/tools/spillway ]; then
      spillway=build/release/tools/spillway
    elif command -v spillway >/dev/null; then
      spillway=spillway
    else
      echo "$0: no spillway binary: build the release preset" \
           "(cmake --preset release && cmake --build --preset release) or pass --spillway" >&2
      exit 1
    fi
  fi
  tmp_json="$(mktemp)"
  trap 'rm -f "$tmp_json"' EXIT
  "$spillway" bench --json "${bench_args[@]}" >"$tmp_json"
  mv "$tmp_json" "$json"
  trap - EXIT
  from="$json"
fi
[ -r "$from" ] || { echo "$0: cannot read $from" >&2; exit 1; }

# The JSON is reduced to lines of "mode threads dirs ns_per_plan" with awk: splitting on
# ",{}[]" leaves one "key": value per line whatever the layout, and every result carries
# the four keys once (no other object of the output uses them).
rows="$(tr ',{}[]' '\n\n\n\n\n' <"$from" | awk '
  function val(line) { sub(/^[^:]*:[ \t]*/, "", line); gsub(/[" \t\r]/, "", line); return line }
  /"mode"[ \t]*:/        { mode = val($0) }
  /"threads"[ \t]*:/     { threads = val($0) }
  /"dirs"[ \t]*:/        { dirs = val($0) }
  /"ns_per_plan"[ \t]*:/ { ns = val($0) }
  mode != "" && threads != "" && dirs != "" && ns != "" {
    print mode, threads, dirs, ns; mode = threads = dirs = ns = ""
  }' | sort -k1,1 -k2,2n -k3,3n)"
[ -n "$rows" ] || { echo "$0: no results in $from" >&2; exit 1; }
field() {  # The first string value of "key" in the JSON (reads it all: no SIGPIPE).
  tr ',{}' '\n\n\n' <"$from" | awk -v key="\"$1\"" '
    !found && index($0, key) { sub(/^[^:]*:[ \t]*"/, ""); sub(/"[ \t]*$/, ""); print; found = 1 }'
}
fs="$(field fs)"
fs_type="$(field type)"
cpu="$(field cpu)"
kernel="$(field kernel)"

# One gnuplot datablock per (mode, threads) series.
script="$(mktemp)"
trap 'rm -f "$script"' EXIT
{
  case "$out" in
    *.png) echo "set terminal pngcairo size 820,560 font 'sans,10' background rgb 'white'" ;;
    *) echo "set terminal svg size 820,560 dynamic font 'sans,12' background rgb 'white'" ;;
  esac
  echo "set output '$out'"
  echo "set title \"spillway bench: a plan's disk manager built and dropped, never spilling\\n{/*0.8 ${fs} (${fs_type}), ${cpu}, ${kernel}}\""
  echo "set xlabel 'local dirs'"
  echo "set ylabel 'time per plan (median of repetitions, log scale)'"
  echo "set logscale y"
  echo "set ytics ('10 ns' 1e1, '100 ns' 1e2, '1 µs' 1e3, '10 µs' 1e4, '100 µs' 1e5, '1 ms' 1e6, '10 ms' 1e7, '100 ms' 1e8, '1 s' 1e9)"
  echo "set grid ytics xtics"
  echo "set key outside bottom center horizontal maxrows 2 width 2"
  echo "set xtics ($(echo "$rows" | awk '{print $3}' | sort -nu | awk '{printf "%s%s", sep, $1; sep=", "}'))"
  echo "set xrange [0.5:*]"
  plots=()
  i=0
  while read -r mode threads; do
    i=$((i + 1))
    echo "\$S$i << EOD"
    echo "$rows" | awk -v m="$mode" -v t="$threads" '$1 == m && $2 == t { print $3, $4 }'
    echo "EOD"
    color=$([ "$mode" = eager ] && echo "#c0392b" || echo "#2471a3")
    case "$threads" in 1) dash=1 ;; 2) dash=2 ;; *) dash=3 ;; esac
    label="$mode, $threads thread$([ "$threads" = 1 ] || echo s)"
    plots+=("\$S$i using 1:2 with linespoints lw 2 pt 7 dt $dash lc rgb '$color' title '$label'")
  done < <(echo "$rows" | awk '{print $1, $2}' | sort -k1,1 -k2,2n -u)
  (IFS=','; echo "plot ${plots[*]}")
} >"$script"
gnuplot "$script"
echo "wrote $out (from $from)"
