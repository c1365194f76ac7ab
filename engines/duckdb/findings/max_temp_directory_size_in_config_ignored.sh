#!/bin/sh
# DuckDB 1.5.6 (@duckdb/node-api 1.5.6-r.1): max_temp_directory_size='1MB' given with SET
# stops the spilling sort with "Out of Memory Error: failed to offload data block ...",
# but the same value given in the instance's config at creation is not enforced: the sort
# spills past it and succeeds. Prints both outcomes.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
export NODE_PATH=${DUCKDB_NODE_MODULES:-$root/build/engines/duckdb/node_modules}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
node -e "
const { DuckDBInstance } = require('@duckdb/node-api');
const query = \"SELECT count(*) AS n FROM (SELECT md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS s, row_number() OVER (ORDER BY s) FROM range(2000000) t(i))\";
async function run(viaConfig) {
  const config = { temp_directory: '$d', memory_limit: '64MB', threads: '1' };
  if (viaConfig) config.max_temp_directory_size = '1MB';
  const instance = await DuckDBInstance.create(':memory:', config);
  const c = await instance.connect();
  if (!viaConfig) await c.run(\"SET max_temp_directory_size='1MB'\");
  const setting = (await c.runAndReadAll(\"SELECT current_setting('max_temp_directory_size') AS v\")).getRowObjects()[0].v;
  try {
    const r = await c.runAndReadAll(query);
    console.log((viaConfig ? 'config' : 'SET') + ': setting ' + setting + ', query succeeded: ' + r.getRowObjects()[0].n + ' rows');
  } catch (e) {
    console.log((viaConfig ? 'config' : 'SET') + ': setting ' + setting + ', query failed: ' + e.message.split('\n')[0]);
  }
}
run(false).then(() => run(true));
"
