// DuckDB spilling: an ORDER BY over 2 million rows with memory_limit=64MB and one thread,
// so that its sort spills to temp_directory (duckdb_temp_storage*.tmp and friends).
// Usage: node spill.js DIR [plain|limit-set|limit-config] [LIMIT]
//   plain         (default) max_temp_directory_size is not set
//   limit-set     SET max_temp_directory_size=LIMIT (default '1MB') before the query
//   limit-config  the same limit given in the instance's config
// Prints the query's checksum, or the error and exit 1. With a limit, the error DuckDB gives
// when the temp directory is full is the expected outcome: it prints "expected error: ..."
// without its sizes and exits 0.
const { DuckDBInstance } = require('@duckdb/node-api');

// Closed on every exit, so that DuckDB removes its temp files itself even after an error.
let instance = null;

async function main() {
  const [dir, mode = 'plain', limit = '1MB'] = process.argv.slice(2);
  const config = { temp_directory: dir, memory_limit: '64MB', threads: '1' };
  if (mode === 'limit-config') config.max_temp_directory_size = limit;
  instance = await DuckDBInstance.create(':memory:', config);
  const connection = await instance.connect();
  if (mode === 'limit-set') await connection.run(`SET max_temp_directory_size='${limit}'`);
  const reader = await connection.runAndReadAll(`
    SELECT count(*) AS n, sum(hash(i, s) % 1000003) AS checksum FROM (
      SELECT i, s, row_number() OVER () AS r FROM (
        SELECT i, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS s FROM range(2000000) t(i)
        ORDER BY s))`);
  const [row] = reader.getRowObjects();
  console.log(`rows ${row.n} checksum ${row.checksum}`);
  connection.closeSync();
}

const kLimitError = 'failed to offload data block';

main().then(
  () => instance.closeSync(),
  (e) => {
    if (instance !== null) instance.closeSync();
    const message = e.message.split('\n')[0];
    if (process.argv[3]?.startsWith('limit') && message.includes(kLimitError)) {
      console.log(`expected error: ${kLimitError}`);
      return;
    }
    console.log(`error: ${message}`);
    process.exitCode = 1;
  });
