#!/usr/bin/env bash
# Installs the Debian 12 packages spillway needs, when they are missing.
#   scripts/install-deps.sh build   # compiler, CMake, Ninja and the libraries
#   scripts/install-deps.sh test    # the above, plus clang for the parser fuzzer
#   scripts/install-deps.sh engines # the above, plus the engines of engines/ (docs/engines.md):
#                                   # Debian's packages, and DuckDB and LanceDB from npm into
#                                   # build/engines
# Runs apt-get only when something is missing, so it is quick on a prepared machine.
set -euo pipefail

want=(g++ cmake ninja-build pkg-config
      libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev
      # xxHash's XXH3 for spill frames; ISA-L's CRC-32C, which bench/ times beside it.
      libisal-dev libxxhash-dev)
case "${1:-build}" in
  build) ;;
  test) want+=(clang libclang-rt-14-dev clang-tidy python3
              # spillway inject: the Rust test program (built offline by Debian's cargo),
              # the programs of the transparency tests, and the benchmark's comparisons.
              cargo rustc librust-tempfile-dev sqlite3 nodejs fiu-utils strace) ;;
  engines) want+=(clang libclang-rt-14-dev clang-tidy python3
                 cargo rustc librust-tempfile-dev sqlite3 nodejs fiu-utils strace
                 postgresql-15 coreutils
                 # Apache Derby, embedded, and the JDK that compiles its JDBC program.
                 libderby-java openjdk-17-jdk-headless)
           # A nodejs package that bundles npm (NodeSource's) conflicts with Debian's npm.
           command -v npm >/dev/null || want+=(npm) ;;
  plot) want+=(gnuplot-nox) ;;
  *) echo "usage: $0 [build|test|engines|plot]" >&2; exit 2 ;;
esac

# The engines from npm, each at a pinned version into its own folder of the build tree,
# never the user's global modules: DuckDB's Node API, whose platform package ships
# libduckdb.so; LanceDB, whose platform package embeds DataFusion 53.1.0, with the
# apache-arrow its peer dependency asks for (>=15.0.0 <=18.1.0).
duckdb_version=1.5.6-r.1
lancedb_version=0.31.0
arrow_version=18.1.0
# install_npm NAME PACKAGE VERSION [MORE PACKAGE@VERSION...]: installs into
# build/engines/NAME unless PACKAGE is there at VERSION already.
install_npm() {
  local name=$1 package=$2 version=$3 dir
  shift 3
  dir="$(cd "$(dirname "$0")/.." && pwd)/build/engines/$name"
  # The first "version" key is the package's (LanceDB's has a second, napi's).
  if [ "$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
          "$dir/node_modules/$package/package.json" 2>/dev/null | head -n 1)" = "$version" ]; then
    return
  fi
  mkdir -p "$dir"
  echo "installing $package@$version${*:+ $*} into $dir"
  (cd "$dir" && npm install --no-audit --no-fund --no-save --prefix . \
     "$package@$version" "$@" >/dev/null)
}
install_engines() {
  install_npm duckdb @duckdb/node-api "$duckdb_version"
  install_npm lancedb @lancedb/lancedb "$lancedb_version" "apache-arrow@$arrow_version"
}

missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "${1:-build}" = engines ] && install_engines
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
[ "${1:-build}" = engines ] && install_engines
exit 0
