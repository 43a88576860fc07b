// samples_slices.mjs DIR: the samples of the Parquet samples table that
// `tracefold events` wrote in DIR, per name of the slice they are in
// (samples.slice_id joined with slices, through DuckDB; "null" for samples
// under no slice), as JSON {name: sum(count)}.
import { DuckDBInstance } from '@duckdb/node-api';
const dir = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const r = await c.runAndReadAll(`SELECT s.name, sum(x.count) FROM read_parquet('${dir}/samples/*.parquet') x
	LEFT JOIN read_parquet('${dir}/slices/*.parquet') s ON x.slice_id = s.slice_id GROUP BY s.name`);
const out = {};
for (const [name, n] of r.getRows()) out[name === null ? 'null' : name] = Number(n);
console.log(JSON.stringify(out));
