#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the root; inject/.clang-tidy for the shim's C) over the
# sources of spillway's libraries, tools, shim, benchmarks and tests, using a build
# directory's compile commands (default: build/default). Exits non-zero on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json" >&2; exit 2; }

# The compile commands without the tests' precompiled header: it is GCC's (clang would
# find the .gch beside it and fail to read it), and every test includes its headers itself.
db="$build/clang-tidy"
mkdir -p "$db"
mapfile -t files < <(python3 - "$build/compile_commands.json" "$PWD" "$db" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    e["command"] = re.sub(r" -Winvalid-pch| -include \S*/cmake_pch\.hxx", "", e["command"])
json.dump(entries, open(sys.argv[3] + "/compile_commands.json", "w"), indent=1)
root = sys.argv[2] + "/"
for f in sorted({e["file"] for e in entries}):
    rel = f[len(root):] if f.startswith(root) else None
    if rel is None or rel.startswith("build"):
        continue
    print(f)
PY
)
echo "clang-tidy: ${#files[@]} files"
# The C files are compiled by GCC, whose warning options clang does not all know.
run-clang-tidy -p "$db" -j "$(nproc)" -quiet -extra-arg=-Wno-unknown-warning-option \
  "${files[@]}" > "$build/clang-tidy.log" 2>&1 || {
  grep -E '(warning|error): ' "$build/clang-tidy.log" | sort -u >&2
  echo "clang-tidy found problems (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "clang-tidy: no warnings"
