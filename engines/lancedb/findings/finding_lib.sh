# Sourced by the LanceDB finding scripts: $root (the checkout), NODE_PATH (LanceDB's
# modules, LANCEDB_NODE_MODULES to override), and a fresh $d holding tmp/ (the TMPDIR)
# and db/ (the database), removed at exit.
root=$(cd "$(dirname "$0")/../../.." && pwd)
NODE_PATH=${LANCEDB_NODE_MODULES:-$root/build/engines/lancedb/node_modules}
export NODE_PATH
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir "$d/tmp" "$d/db"
