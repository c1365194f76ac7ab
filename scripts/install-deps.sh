#!/usr/bin/env bash
# Installs the Debian 12 packages spillway needs, when they are missing.
#   scripts/install-deps.sh build   # compiler, CMake, Ninja and the libraries
#   scripts/install-deps.sh test    # the above, plus clang for the parser fuzzer
# Runs apt-get only when something is missing, so it is quick on a prepared machine.
set -euo pipefail

want=(g++ cmake ninja-build pkg-config
      libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
      libcli11-dev libfmt-dev nlohmann-json3-dev)
case "${1:-build}" in
  build) ;;
  test) want+=(clang libclang-rt-14-dev
              # spillway inject: the Rust test program (built offline by Debian's cargo),
              # the programs of the transparency tests, and the benchmark's comparisons.
              cargo rustc librust-tempfile-dev sqlite3 nodejs fiu-utils strace) ;;
  plot) want+=(gnuplot-nox) ;;
  *) echo "usage: $0 [build|test|plot]" >&2; exit 2 ;;
esac

missing=()
for pkg in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "spillway needs these Debian packages: ${missing[*]}" >&2
  echo "run this script as root, or install them with apt-get" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
