// samples_table_check.mjs DIR EXPECTED.json FILE-KEY
// Reads the samples table that `tracefold events --raw-names` wrote in DIR
// (docs/schema.md) with two independent Parquet readers -- DuckDB
// (@duckdb/node-api) and hyparquet -- and checks it against the fixture's
// expected.json entry FILE-KEY (tests/tools/samples_expected.py, independent
// of tracefold's C code):
//   rows and sum(count) = "samples"; sum(weight) per weight_type = its
//   "sample_types" total; per function (joined with call_paths: the leaf
//   frame, perf's inline frames skipped as perf report does) sum(count) and
//   sum(weight) = its "self"; per function over every
//   distinct frame of the call path (a recursive query) = its "total";
//   samples without a call path = "empty_stacks"; every call_path_id and
//   track_id names a row of call_paths / tracks; hyparquet's rows and sums
//   equal DuckDB's.
// Prints TAP lines ("ok - ..." / "not ok - ...") and exits 1 on a failure.
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [dir, expPath, key] = process.argv.slice(2);
const exp = JSON.parse(readFileSync(expPath, 'utf8')).files[key];
let failed = 0;
const ok = (cond, what, detail) => {
	console.log((cond ? 'ok - ' : 'not ok - ') + `${key}: ${what}`);
	if (!cond) {
		failed++;
		if (detail !== undefined) console.log('#   ' + JSON.stringify(detail).slice(0, 800));
	}
};
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const t = (name) => `read_parquet('${dir}/${name}/**/*.parquet')`;
const q = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson();
const num = (v) => (v === null || v === undefined ? 0 : Number(v));

// totals
const types = Object.keys(exp.sample_types).filter((k) => k !== 'samples');
const tot = await q(`SELECT count(*) AS n, sum(count)::BIGINT AS samples, count(call_path_id) AS with_path FROM ${t('samples')}`);
ok(num(tot[0].samples) === exp.sample_types.samples, `sum(count) = ${tot[0].samples}, expected ${exp.sample_types.samples}`);
const empty = num(tot[0].n) - num(tot[0].with_path);
ok(empty === (exp.empty_stacks || 0), `${empty} samples without a call path, expected ${exp.empty_stacks || 0} empty stacks`);
const byType = await q(`SELECT weight_type AS ty, any_value(weight_unit) AS unit, sum(weight) AS w FROM ${t('samples')} GROUP BY 1`);
const gotType = Object.fromEntries(byType.map((r) => [r.ty, num(r.w)]));
const badType = types.filter((ty) => gotType[ty] !== exp.sample_types[ty]).map((ty) => ({ ty, want: exp.sample_types[ty], got: gotType[ty] }));
for (const ty of Object.keys(gotType)) if (!types.includes(ty)) badType.push({ ty, extra: gotType[ty] });
ok(badType.length === 0, `sum(weight) per weight_type (${byType.map((r) => `${r.ty}=${r.w} ${r.unit}`).join(', ')}) = expected sample_types`, badType);

// joins: every sample's call path and track exist
const orphan = await q(`SELECT count(*) FILTER (WHERE s.call_path_id IS NOT NULL AND p.call_path_id IS NULL) AS np,
	count(*) FILTER (WHERE k.track_id IS NULL) AS nk
	FROM ${t('samples')} s LEFT JOIN ${t('call_paths')} p USING (call_path_id) LEFT JOIN ${t('tracks')} k USING (track_id)`);
ok(num(orphan[0].np) === 0 && num(orphan[0].nk) === 0, 'every samples.call_path_id is in call_paths and every track_id in tracks', orphan);

// per function: self (the leaf) and total (once per distinct frame of the path)
const cmp = (rows, which) => {
	const got = {};
	for (const r of rows) {
		const g = (got[r.name] ??= {});
		g.samples = (g.samples || 0) + num(r.n);
		if (r.ty !== null) g[r.ty] = (g[r.ty] || 0) + num(r.w);
	}
	const bad = [];
	for (const [name, f] of Object.entries(exp.functions)) {
		const w = f[which], g = got[name] || {};
		for (const k of new Set([...Object.keys(w), ...Object.keys(g)]))
			if ((w[k] || 0) !== (g[k] || 0)) bad.push({ name, k, want: w[k], got: g[k] });
	}
	for (const name of Object.keys(got)) if (!(name in exp.functions)) bad.push({ name, extra: got[name] });
	ok(bad.length === 0, `${which} of each of ${Object.keys(exp.functions).length} functions (samples and weight) via the call_paths join = expected`, bad.slice(0, 4));
};
// each sample's call path and its ancestors (a recursive query)
const up = `WITH RECURSIVE up(id, node) AS (
		SELECT DISTINCT call_path_id, call_path_id FROM ${t('samples')} WHERE call_path_id IS NOT NULL
		UNION ALL
		SELECT up.id, p.parent_id FROM up JOIN ${t('call_paths')} p ON p.call_path_id = up.node WHERE p.parent_id IS NOT NULL),
	per AS (SELECT call_path_id AS id, weight_type AS ty, sum(count) AS n, sum(weight) AS w FROM ${t('samples')} GROUP BY ALL)`;
// self: the leaf frame, skipping the inline frames perf adds below it
// (docs/format-samples-notes.md: perf report gives them no self)
cmp(await q(`${up}, leaf AS (SELECT up.id, arg_max(p.name, p.depth) AS name FROM up JOIN ${t('call_paths')} p ON p.call_path_id = up.node
		WHERE p.name NOT LIKE '% (inlined)' GROUP BY up.id)
	SELECT leaf.name AS name, per.ty AS ty, sum(per.n)::BIGINT AS n, sum(per.w) AS w FROM per JOIN leaf USING (id) GROUP BY ALL`), 'self');
// total: once per distinct frame name of the path
cmp(await q(`${up}, names AS (SELECT DISTINCT up.id, p.name FROM up JOIN ${t('call_paths')} p ON p.call_path_id = up.node)
	SELECT names.name AS name, per.ty AS ty, sum(per.n)::BIGINT AS n, sum(per.w) AS w FROM per JOIN names USING (id) GROUP BY ALL`), 'total');

// the second reader: hyparquet reads every file of the table
const files = [];
const walk = (d) => {
	for (const e of readdirSync(d)) {
		const p = join(d, e);
		if (statSync(p).isDirectory()) walk(p);
		else if (e.endsWith('.parquet')) files.push(p);
	}
};
walk(join(dir, 'samples'));
let hn = 0, hcount = 0;
const hw = {};
for (const p of files) {
	const b = readFileSync(p);
	const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
	for (const r of await parquetReadObjects({ file, compressors })) {
		hn++;
		hcount += Number(r.count);
		if (r.weight_type !== null) hw[r.weight_type] = (hw[r.weight_type] || 0) + r.weight;
	}
}
ok(hn === num(tot[0].n) && hcount === exp.sample_types.samples && types.every((ty) => hw[ty] === exp.sample_types[ty]),
	`hyparquet reads ${hn} rows of ${files.length} file(s): count ${hcount}, weights ${JSON.stringify(hw)}`, { hn, hcount, hw });
process.exit(failed ? 1 : 0);
