// LanceDB spilling: a btree scalar index built over a string column. Lance sorts the
// column through DataFusion's external sort, which spills through DataFusion's DiskManager
// in its OS-temp mode (a .tmpXXXXXX directory in TMPDIR holding .tmpXXXXXX spill files)
// when LANCE_MEM_POOL_SIZE is small (the caller sets it, and TMPDIR).
// Usage: node spill.js DBROOT [ROWS]
//   DBROOT  an existing directory outside the swept scope; the run's database goes in a
//           fresh directory made in it, removed at exit
//   ROWS    how many rows the table has (default 300000)
// Prints the number of rows and indices, and the count a query through the index finds;
// or the error and exit 1; exit 2 on bad input (a missing module included).
const fs = require('node:fs');
const path = require('node:path');

// Loaded by main, so that a missing module is one line of error, not a stack trace.
let lancedb = null;
let arrow = null;

// Deterministic strings that sort differently from their insertion order.
function Key(i) {
  const h = (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0');
  return `${h}-${i.toString(36)}-${'k'.repeat(i % 17)}`;
}

async function main() {
  const [dbroot, rowsText = '300000'] = process.argv.slice(2);
  const rows = Number(rowsText);
  if (!dbroot || !Number.isInteger(rows) || rows <= 0) {
    console.error('usage: node spill.js DBROOT [ROWS]');
    process.exitCode = 2;
    return;
  }
  try {
    lancedb = require('@lancedb/lancedb');
    arrow = require('apache-arrow');
  } catch (e) {
    console.error(`spill.js: ${e.message.split('\n')[0]}` +
                  ' (NODE_PATH: build/engines/lancedb/node_modules)');
    process.exitCode = 2;
    return;
  }
  const dbdir = fs.mkdtempSync(path.join(dbroot, 'db-'));
  try {
    const ids = Int32Array.from({ length: rows }, (_, i) => i);
    const keys = Array.from({ length: rows }, (_, i) => Key(i));
    const table = new arrow.Table({
      id: arrow.vectorFromArray(ids, new arrow.Int32()),
      key: arrow.vectorFromArray(keys, new arrow.Utf8()),
    });
    const db = await lancedb.connect(dbdir);
    const t = await db.createTable('t', table);
    await t.createIndex('key', { config: lancedb.Index.btree() });
    const found = await t.countRows(`key = '${Key(rows >> 1)}'`);
    console.log(`rows ${await t.countRows()} indices ${(await t.listIndices()).length} ` +
                `found ${found}`);
    t.close();
    db.close();
  } finally {
    fs.rmSync(dbdir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.log(`error: ${e.message.split('\n')[0]}`);
  process.exitCode = 1;
});
