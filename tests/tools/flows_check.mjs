// flows_check.mjs DIR EXPECTED_JSON: the (src_ts_ns, dst_ts_ns) pairs of the
// flows table that `tracefold events` wrote in DIR, ordered by source time,
// must be EXPECTED_JSON (e.g. [{"s":"10000","d":"20000"}]); DuckDB reads them.
import { DuckDBInstance } from '@duckdb/node-api';
const [dir, want] = process.argv.slice(2);
const c = await (await DuckDBInstance.create(':memory:')).connect();
const r = (await c.runAndReadAll(`SELECT src_ts_ns AS s, dst_ts_ns AS d FROM read_parquet('${dir}/flows/**/*.parquet') ORDER BY s NULLS LAST, d`)).getRowObjectsJson();
const got = JSON.stringify(r);
if (got !== JSON.stringify(JSON.parse(want))) {
	console.error(`flows: ${got}, want ${want}`);
	process.exit(1);
}
