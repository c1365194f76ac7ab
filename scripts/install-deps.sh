#!/usr/bin/env bash
# Installs the Debian 12 packages spillway needs, when they are missing.
#   scripts/install-deps.sh build   # compiler, CMake, Ninja and the libraries
#   scripts/install-deps.sh test    # the above, plus clang for the parser fuzzer
#   scripts/install-deps.sh engines # the above, plus the engines of engines/ (docs/engines.md):
#                                   # Debian's packages, and DuckDB from npm into build/engines
# Runs apt-get only when something is missing, so it is quick on a prepared machine.
set -euo pipefail

want=(g++ cmake ninja-build pkg-config
      libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev)
case "${1:-build}" in
  build) ;;
  test) want+=(clang libclang-rt-14-dev clang-tidy python3
              # spillway inject: the Rust test program (built offline by Debian's cargo),
              # the programs of the transparency tests, and the benchmark's comparisons.
              cargo rustc librust-tempfile-dev sqlite3 nodejs fiu-utils strace) ;;
  engines) want+=(clang libclang-rt-14-dev clang-tidy python3
                 cargo rustc librust-tempfile-dev sqlite3 nodejs fiu-utils strace
                 postgresql-15 coreutils)
           # A nodejs package that bundles npm (NodeSource's) conflicts with Debian's npm.
           command -v npm >/dev/null || want+=(npm) ;;
  plot) want+=(gnuplot-nox) ;;
  *) echo "usage: $0 [build|test|engines|plot]" >&2; exit 2 ;;
esac

# DuckDB's Node API at a pinned version; its platform package ships libduckdb.so, so the
# install downloads nothing else. Into the build tree, never the user's global modules.
duckdb_version=1.5.6-r.1
install_duckdb() {
  local dir
  dir="$(cd "$(dirname "$0")/.." && pwd)/build/engines/duckdb"
  if [ "$(cat "$dir/node_modules/@duckdb/node-api/package.json" 2>/dev/null |
          sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')" = "$duckdb_version" ]; then
    return
  fi
  mkdir -p "$dir"
  echo "installing @duckdb/node-api@$duckdb_version into $dir"
  (cd "$dir" && npm install --no-audit --no-fund --no-save --prefix . \
     "@duckdb/node-api@$duckdb_version" >/dev/null)
}

missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "${1:-build}" = engines ] && install_duckdb
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "spillway needs these Debian packages: ${missing[*]}" >&2
  echo "run this script as root, or install them with apt-get" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ "${1:-build}" = engines ] && install_duckdb
exit 0
