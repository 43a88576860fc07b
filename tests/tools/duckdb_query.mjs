// duckdb_query.mjs DIR SQL: runs SQL in DuckDB (@duckdb/node-api, pinned in
// tests/package.json) with every "$DIR" in it replaced by DIR, and prints the
// rows as one JSON array of arrays (BigInt values as numbers).
import { DuckDBInstance } from '@duckdb/node-api';
const [dir, sql] = process.argv.slice(2);
const db = await (await DuckDBInstance.create(':memory:')).connect();
const r = await db.runAndReadAll(sql.replaceAll('$DIR', dir));
console.log(JSON.stringify(r.getRows(), (k, v) => (typeof v === 'bigint' ? Number(v) : v)));
