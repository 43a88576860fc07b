// events_check.mjs DIR EXPECT.json
// Reads the Parquet event tables that `tracefold events` wrote in DIR with
// two independent readers -- DuckDB (@duckdb/node-api) and hyparquet -- and
// checks them against EXPECT.json, made by the test from tracefold's other
// outputs:
//   {"functions": {name: {"self": ns, "calls": n}},  (top --format json -n 0)
//    "paths": {"a;b;c": self_ns},                     (diff --paths, NEW side)
//    "counters": n, "instants": n, "sent": n, "received": n, "tracks": n,
//    "hive": bool}
// Prints TAP lines ("ok - ..." / "not ok - ...").
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [dir, expectPath] = process.argv.slice(2);
const want = JSON.parse(readFileSync(expectPath, 'utf8'));
let failed = 0;
const ok = (cond, what, detail) => {
	console.log((cond ? 'ok - ' : 'not ok - ') + what);
	if (!cond) {
		failed++;
		if (detail !== undefined) console.log('#   ' + JSON.stringify(detail).slice(0, 600));
	}
};

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const hive = want.hive ? ', hive_partitioning = true' : '';
const t = (name) => `read_parquet('${dir}/${name}/**/*.parquet'${hive})`;
const q = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJson();

// every table is there and reads (zero rows included)
const tables = ['slices', 'counters', 'instants', 'messages', 'flows', 'tracks', 'call_paths', 'samples'];
const rows = {};
for (const name of tables) {
	const r = await q(`SELECT count(*) AS n FROM ${t(name)}`);
	rows[name] = Number(r[0].n);
}
ok(true, `duckdb reads all ${tables.length} tables (${tables.map((n) => n + '=' + rows[n]).join(' ')})`);
// collectives, collective_slices: tables only in runs that have some (docs/collectives.md)
for (const name of ['collectives', 'collective_slices'])
	if (existsSync(join(dir, name))) rows[name] = Number((await q(`SELECT count(*) AS n FROM ${t(name)}`))[0].n);

// slices: self time and calls per name = the profile's flat and calls
const f = await q(`SELECT name, sum(self_ns)::BIGINT AS self, count(*) FILTER (WHERE kind <> 'gpu_annotation') AS calls FROM ${t('slices')} GROUP BY name
	HAVING count(*) FILTER (WHERE kind <> 'gpu_annotation') > 0`);
const got = Object.fromEntries(f.map((r) => [r.name, { self: String(r.self), calls: String(r.calls) }]));
const bad = [];
for (const [name, v] of Object.entries(want.functions)) {
	const g = got[name];
	if (!g || g.self !== String(v.self) || g.calls !== String(v.calls))
		bad.push({ name, want: v, got: g });
}
for (const name of Object.keys(got)) if (!(name in want.functions)) bad.push({ name, extra: got[name] });
ok(bad.length === 0, `slices: sum(self_ns) and count(*) per name equal the profile's flat and calls (${f.length} names)`, bad.slice(0, 3));

// call_paths: a recursive query rebuilds every slice's stack; self per stack = the profile's per path
const p = await q(`
	WITH RECURSIVE cp(id, path) AS (
		SELECT call_path_id, name FROM ${t('call_paths')} WHERE parent_id IS NULL
		UNION ALL
		SELECT c.call_path_id, cp.path || ';' || c.name FROM ${t('call_paths')} c JOIN cp ON c.parent_id = cp.id)
	SELECT cp.path AS path, sum(s.self_ns)::BIGINT AS self FROM ${t('slices')} s JOIN cp ON s.call_path_id = cp.id
	GROUP BY cp.path`);
const gotp = Object.fromEntries(p.map((r) => [r.path, String(r.self)]));
const badp = [];
for (const [path, self] of Object.entries(want.paths)) if (gotp[path] !== String(self) && !(self === 0 && gotp[path] === undefined)) badp.push({ path, want: self, got: gotp[path] });
for (const [path, self] of Object.entries(gotp)) if (!(path in want.paths) && self !== '0') badp.push({ path, extra: self });
ok(badp.length === 0, `call_paths: the recursive query rebuilds the profile's ${Object.keys(want.paths).length} call paths`, badp.slice(0, 3));

// slices nest: every parent_slice_id is a slice of the same track that contains it
const orphans = await q(`SELECT count(*) AS n FROM ${t('slices')} s LEFT JOIN ${t('slices')} p ON s.parent_slice_id = p.slice_id
	WHERE s.parent_slice_id IS NOT NULL AND (p.slice_id IS NULL OR p.track_id <> s.track_id OR s.start_ns < p.start_ns OR s.end_ns > p.end_ns)`);
ok(orphans[0].n === '0', 'slices: every parent_slice_id is an enclosing slice of the same track', orphans);

// row counts of the other tables = what tracefold info counts
ok(rows.counters === want.counters, `counters: ${rows.counters} rows == info's ${want.counters}`);
ok(rows.instants === want.instants, `instants: ${rows.instants} rows == info's ${want.instants}`);
ok(rows.tracks === want.tracks, `tracks: ${rows.tracks} rows == info's ${want.tracks}`);
const m = await q(`SELECT count(send_ts_ns) AS s, count(recv_ts_ns) AS r, count(*) FILTER (WHERE send_ts_ns IS NOT NULL AND recv_ts_ns IS NOT NULL) AS both FROM ${t('messages')}`);
ok(Number(m[0].s) === want.sent && Number(m[0].r) === want.received,
	`messages: ${m[0].s} sends and ${m[0].r} receives == info's ${want.sent} and ${want.received} (${m[0].both} paired)`, m);
if (want.sent && want.sent === want.received)
	ok(Number(m[0].both) === want.sent, `messages: every send is paired with its receive (${m[0].both})`, m);

// the file metadata: statistics and encodings (DuckDB's view of what was written)
const md = await q(`SELECT path_in_schema AS col, encodings, stats_min_value AS mn, stats_max_value AS mx, stats_null_count AS nulls
	FROM parquet_metadata('${dir}/slices/**/*.parquet') WHERE path_in_schema IN ('start_ns', 'name', 'slice_id')`);
ok(md.length > 0 && md.every((r) => r.nulls !== null), 'parquet_metadata: the slices columns have statistics', md.slice(0, 3));
if (rows.slices)
	ok(md.some((r) => r.col === 'name' && /DICTIONARY/.test(r.encodings)) && md.some((r) => r.col === 'slice_id' && /DELTA_BINARY_PACKED/.test(r.encodings)),
		'parquet_metadata: name is dictionary-encoded, slice_id delta-encoded', md.slice(0, 6));
const kv = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${dir}/tracks/**/*.parquet')`);
ok(kv.some((r) => r.k === 'tracefold.diagnostics' && /events_read=/.test(r.v)), 'file metadata holds the diagnostics counters', kv);

// a second reader: hyparquet reads every file, with the same rows
const files = [];
const walk = (d) => { for (const e of readdirSync(d)) { const p2 = join(d, e); if (statSync(p2).isDirectory()) walk(p2); else if (p2.endsWith('.parquet')) files.push(p2); } };
walk(dir);
let hrows = 0, hslices = 0, hself = 0n;
for (const file of files) {
	const buf = readFileSync(file);
	const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	const meta = parquetMetadata(ab);
	const objs = await parquetReadObjects({ file: ab, compressors });
	if (Number(meta.num_rows) !== objs.length) { ok(false, `hyparquet: ${file} num_rows ${meta.num_rows} != ${objs.length} rows read`); continue; }
	hrows += objs.length;
	if (file.includes('/slices/')) { hslices += objs.length; for (const o of objs) hself += BigInt(o.self_ns); }
}
const total = Object.values(rows).reduce((a, b) => a + b, 0);
ok(hrows === total, `hyparquet reads the ${files.length} files: ${hrows} rows == duckdb's ${total}`);
const wself = Object.values(want.functions).reduce((a, v) => a + BigInt(v.self), 0n);
ok(hslices === rows.slices && hself === wself, `hyparquet: ${hslices} slices, sum(self_ns) ${hself} == the profile's total ${wself}`);
process.exit(failed ? 1 : 0);
