// pq_check.mjs - checks Parquet files written by tracefold's writer
// (src/parquet/pq.c) with two independent readers, hyparquet and DuckDB,
// against the values the writer was given.
//
//   node tests/tools/pq_check.mjs DIR
//
// For each DIR/NAME.json (written by build/*/tests/test_pq with TF_PQ_DIR:
// the columns, codec, the rows of each row group, key-value metadata and every value,
// column-major; INT64 as decimal strings, doubles as numbers or
// "NaN"/"Infinity"/"-Infinity", nulls as null) it reads DIR/NAME.parquet and
// checks, printing TAP lines ("ok - ..." / "not ok - ..."):
//   hyparquet: every value, the schema (types, repetition, logical types),
//     num_rows, row groups, created_by, key-value metadata, and per column
//     chunk the codec, the encodings and the statistics (null_count and the
//     typed min_value/max_value);
//   DuckDB: every value (read_parquet), parquet_schema() types,
//     parquet_metadata() compression, encodings and statistics,
//     parquet_file_metadata() and parquet_kv_metadata().
// Expected encodings and statistics are computed here from the values and
// the rules of docs/parquet.md, not read from the writer.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const nm = path.join(here, '..', 'node_modules')
const hyparquet = await import(pathToFileURL(path.join(nm, 'hyparquet', 'src', 'node.js')).href)
const { compressors } = await import(pathToFileURL(path.join(nm, 'hyparquet-compressors', 'src', 'index.js')).href)
const { DuckDBInstance } = require(path.join(nm, '@duckdb', 'node-api'))

const dir = process.argv[2]
let failed = 0
const ok = msg => console.log(`ok - ${msg}`)
const bad = (msg, details) => {
	failed++
	console.log(`not ok - ${msg}`)
	for (const d of details.slice(0, 8)) console.log(`#   ${d}`)
}
const check = (msg, details) => (details.length ? bad(msg, details) : ok(msg))

const DICT_BYTES = 1 << 20
const DICT_ENTRIES = 65536
const STAT_BYTES = 64
const PHYS = { INT64: 'INT64', INT32: 'INT32', DOUBLE: 'DOUBLE', STRING: 'BYTE_ARRAY', BOOL: 'BOOLEAN' }

// the expected value as JS: BigInt, number (NaN, -0, Infinity), boolean, string
function expected(col, v) {
	if (v === null) return null
	switch (col.type) {
	case 'INT64': return BigInt(v)
	case 'DOUBLE': return v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v
	default: return v
	}
}

const show = v => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : typeof v === 'string' && v.length > 60 ? JSON.stringify(v.slice(0, 60)) + '...' : JSON.stringify(v) ?? String(v))
function same(a, b) {
	if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b)
	if (a !== null && typeof a === 'object') return JSON.stringify(a) === JSON.stringify(b)
	return a === b
}

// unsigned byte order (UTF-8 bytes), as Parquet orders BYTE_ARRAY
const bytesCmp = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))

// expected statistics of the values vals (non-null ones) of one chunk
function stats(col, vals) {
	const nn = vals.filter(v => v !== null)
	const st = { nulls: vals.length - nn.length, min: undefined, max: undefined, minExact: true, maxExact: true }
	let xs = nn
	if (col.type === 'DOUBLE') xs = nn.filter(v => !Number.isNaN(v))
	if (!xs.length) return st
	if (col.type === 'STRING') {
		let lo = xs[0], hi = xs[0]
		for (const x of xs) {
			if (bytesCmp(x, lo) < 0) lo = x
			if (bytesCmp(x, hi) > 0) hi = x
		}
		const lb = Buffer.from(lo, 'utf8'), hb = Buffer.from(hi, 'utf8')
		st.min = lb.length > STAT_BYTES ? lb.subarray(0, STAT_BYTES) : lb
		st.minExact = lb.length <= STAT_BYTES
		if (hb.length <= STAT_BYTES) st.max = hb
		else {
			st.maxExact = false
			let k = STAT_BYTES - 1
			while (k >= 0 && hb[k] === 0xff) k--
			if (k >= 0) {
				st.max = Buffer.from(hb.subarray(0, k + 1))
				st.max[k]++
			}
		}
		return st
	}
	let lo = xs[0], hi = xs[0]
	for (const x of xs) {
		if (x < lo) lo = x
		if (x > hi) hi = x
	}
	if (col.type === 'DOUBLE') {
		if (lo === 0) lo = -0 // parquet.thrift: a zero min is -0.0, a zero max +0.0
		if (hi === 0) hi = 0
	}
	st.min = lo
	st.max = hi
	return st
}

function usesDict(col, vals) {
	if (!col.dict) return false
	const distinct = new Set(vals.filter(v => v !== null))
	let bytes = 0
	for (const s of distinct) bytes += 4 + Buffer.byteLength(s, 'utf8')
	return distinct.size > 0 && distinct.size <= DICT_ENTRIES && bytes <= DICT_BYTES
}

function expectEncodings(col, vals) {
	const e = new Set()
	if (usesDict(col, vals)) e.add('PLAIN').add('RLE_DICTIONARY')
	else e.add(col.delta ? 'DELTA_BINARY_PACKED' : 'PLAIN')
	if (col.nullable) e.add('RLE')
	return [...e].sort()
}

// DuckDB renders statistics as text; parse them back per type
function parseStat(col, s) {
	if (s === null || s === undefined) return undefined
	switch (col.type) {
	case 'INT64': case 'INT32': return BigInt(s)
	case 'BOOL': return s === 'true' || s === '1'
	case 'DOUBLE': {
		const t = s.toLowerCase()
		if (t === 'inf' || t === 'infinity') return Infinity
		if (t === '-inf' || t === '-infinity') return -Infinity
		return parseFloat(s)
	}
	default: return s
	}
}

function statEqual(col, got, want) {
	if (want === undefined) return got === undefined || got === null
	if (got === undefined || got === null) return false
	if (col.type === 'STRING') return Buffer.compare(Buffer.isBuffer(got) ? got : Buffer.from(got, 'utf8'), want) === 0
	if (col.type === 'INT32' || col.type === 'INT64') return BigInt(got) === BigInt(want)
	return Object.is(got, want)
}

async function checkHyparquet(t, file, rowGroups) {
	const name = t.name
	const abuf = await hyparquet.asyncBufferFromFile(file)
	const md = await hyparquet.parquetMetadataAsync(abuf)
	const errs = []
	if (Number(md.num_rows) !== t.rows) errs.push(`num_rows ${md.num_rows}, want ${t.rows}`)
	if (md.row_groups.length !== rowGroups.length) errs.push(`${md.row_groups.length} row groups, want ${rowGroups.length}`)
	if (md.created_by !== t.created_by) errs.push(`created_by ${md.created_by}`)
	const kv = Object.fromEntries((md.key_value_metadata ?? []).map(x => [x.key, x.value]))
	if (JSON.stringify(kv) !== JSON.stringify(t.kv)) errs.push(`key_value_metadata ${JSON.stringify(kv)}`)
	const leaves = md.schema.slice(1)
	if (md.schema[0].num_children !== t.columns.length) errs.push(`root has ${md.schema[0].num_children} children`)
	t.columns.forEach((c, i) => {
		const s = leaves[i]
		const want = { name: c.name, type: PHYS[c.type], repetition_type: c.nullable ? 'OPTIONAL' : 'REQUIRED' }
		for (const k in want) if (s?.[k] !== want[k]) errs.push(`${c.name}: ${k} ${s?.[k]}, want ${want[k]}`)
		if (c.type === 'STRING') {
			const lt = c.json ? 'JSON' : 'STRING', ct = c.json ? 'JSON' : 'UTF8'
			if (s?.logical_type?.type !== lt || s?.converted_type !== ct)
				errs.push(`${c.name}: logical ${s?.logical_type?.type} converted ${s?.converted_type}, want ${lt} ${ct}`)
		}
	})
	check(`${name}: hyparquet reads the footer: ${t.rows} rows, ${rowGroups.length} row groups, schema, created_by, key-value metadata`, errs)

	const rows = await hyparquet.parquetReadObjects({ file: abuf, compressors })
	const verrs = []
	if (rows.length !== t.rows) verrs.push(`${rows.length} rows, want ${t.rows}`)
	for (const c of t.columns)
		for (let r = 0; r < Math.min(rows.length, t.rows) && verrs.length < 8; r++) {
			let want = c.exp[r]
			if (c.json && want !== null) want = JSON.parse(want)
			if (!same(rows[r][c.name], want)) verrs.push(`${c.name} row ${r}: ${show(rows[r][c.name])}, want ${show(want)}`)
		}
	check(`${name}: hyparquet reads every value back exactly (${t.columns.length} columns x ${t.rows} rows, codec ${t.codec})`, verrs)

	const merrs = []
	md.row_groups.forEach((rg, g) => {
		if (Number(rg.num_rows) !== rowGroups[g].length) merrs.push(`row group ${g}: ${rg.num_rows} rows`)
		t.columns.forEach((c, i) => {
			const m = rg.columns[i].meta_data
			const vals = rowGroups[g].map(r => c.exp[r])
			const where = `row group ${g} ${c.name}`
			if (m.codec !== t.codec) merrs.push(`${where}: codec ${m.codec}`)
			if (Number(m.num_values) !== vals.length) merrs.push(`${where}: num_values ${m.num_values}`)
			const enc = [...new Set(m.encodings)].sort()
			const wantEnc = expectEncodings(c, vals)
			if (JSON.stringify(enc) !== JSON.stringify(wantEnc)) merrs.push(`${where}: encodings ${enc}, want ${wantEnc}`)
			if ((m.dictionary_page_offset !== undefined) !== usesDict(c, vals)) merrs.push(`${where}: dictionary_page_offset ${m.dictionary_page_offset}`)
			const st = stats(c, vals), s = m.statistics ?? {}
			if (Number(s.null_count) !== st.nulls) merrs.push(`${where}: null_count ${s.null_count}, want ${st.nulls}`)
			const conv = v => (c.type === 'STRING' && v !== undefined ? Buffer.from(v, 'utf8') : v)
			if (!statEqual(c, conv(s.min_value), st.min)) merrs.push(`${where}: min_value ${show(s.min_value)}, want ${show(st.min)}`)
			if (!statEqual(c, conv(s.max_value), st.max)) merrs.push(`${where}: max_value ${show(s.max_value)}, want ${show(st.max)}`)
			if (c.type === 'STRING' && st.min !== undefined && (s.is_min_value_exact !== st.minExact || (st.max !== undefined && s.is_max_value_exact !== st.maxExact)))
				merrs.push(`${where}: exactness ${s.is_min_value_exact} ${s.is_max_value_exact}`)
		})
	})
	check(`${name}: hyparquet: per column chunk codec, encodings, null_count, min_value/max_value as expected`, merrs)
}

async function checkDuckDB(conn, t, file, rowGroups) {
	const name = t.name
	const q = async sql => (await conn.runAndReadAll(sql)).getRowObjectsJS()
	const f = `'${file.replace(/'/g, "''")}'`
	// values, in file order
	const rows = await q(`SELECT * FROM read_parquet(${f}, file_row_number = true) ORDER BY file_row_number`)
	const verrs = []
	if (rows.length !== t.rows) verrs.push(`${rows.length} rows, want ${t.rows}`)
	for (const c of t.columns)
		for (let r = 0; r < Math.min(rows.length, t.rows) && verrs.length < 8; r++) {
			let got = rows[r][c.name]
			const want = c.exp[r]
			if (c.type === 'INT32' && typeof got === 'number') got = got | 0
			if (!same(got, want)) verrs.push(`${c.name} row ${r}: ${show(got)}, want ${show(want)}`)
		}
	check(`${name}: DuckDB reads every value back exactly`, verrs)

	// the schema
	const sch = await q(`SELECT name, type, repetition_type, converted_type, logical_type FROM parquet_schema(${f})`)
	const serrs = []
	if (sch.length !== t.columns.length + 1) serrs.push(`${sch.length} schema elements`)
	t.columns.forEach((c, i) => {
		const s = sch[i + 1] ?? {}
		if (s.name !== c.name || s.type !== PHYS[c.type] || s.repetition_type !== (c.nullable ? 'OPTIONAL' : 'REQUIRED'))
			serrs.push(`${c.name}: ${s.name} ${s.type} ${s.repetition_type}`)
		const ct = c.type === 'STRING' ? (c.json ? 'JSON' : 'UTF8') : null
		if ((s.converted_type ?? null) !== ct) serrs.push(`${c.name}: converted_type ${s.converted_type}, want ${ct}`)
		if (c.type === 'STRING' && !String(s.logical_type).includes(c.json ? 'Json' : 'String')) serrs.push(`${c.name}: logical_type ${s.logical_type}`)
	})
	check(`${name}: DuckDB parquet_schema() has the types, repetitions and logical types`, serrs)

	// file metadata
	const fm = (await q(`SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata(${f})`))[0]
	const kvs = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${f}) ORDER BY k`)
	const ferrs = []
	if (fm.created_by !== t.created_by || Number(fm.num_rows) !== t.rows || Number(fm.num_row_groups) !== rowGroups.length)
		ferrs.push(`created_by ${fm.created_by}, ${fm.num_rows} rows, ${fm.num_row_groups} row groups`)
	const kv = Object.fromEntries(kvs.map(x => [x.k, x.v]))
	if (JSON.stringify(kv) !== JSON.stringify(t.kv)) ferrs.push(`kv ${JSON.stringify(kv)}`)
	check(`${name}: DuckDB parquet_file_metadata()/parquet_kv_metadata(): created_by, rows, row groups, key-value pairs`, ferrs)

	// per chunk metadata
	const md = await q(`SELECT row_group_id, column_id, compression, encodings, num_values, stats_null_count,
		stats_min_value, stats_max_value, stats_min, stats_max, dictionary_page_offset, data_page_offset,
		total_compressed_size FROM parquet_metadata(${f}) ORDER BY row_group_id, column_id`)
	const merrs = []
	if (md.length !== rowGroups.length * t.columns.length) merrs.push(`${md.length} column chunks`)
	let prevEnd = 4
	for (const m of md) {
		const g = Number(m.row_group_id), c = t.columns[Number(m.column_id)]
		const vals = rowGroups[g].map(r => c.exp[r])
		const where = `row group ${g} ${c.name}`
		if (m.compression !== t.codec) merrs.push(`${where}: compression ${m.compression}`)
		const enc = m.encodings.split(',').map(x => x.trim()).sort()
		const wantEnc = expectEncodings(c, vals)
		if (JSON.stringify(enc) !== JSON.stringify(wantEnc)) merrs.push(`${where}: encodings ${enc}, want ${wantEnc}`)
		const st = stats(c, vals)
		if (Number(m.stats_null_count) !== st.nulls) merrs.push(`${where}: stats_null_count ${m.stats_null_count}, want ${st.nulls}`)
		// DuckDB shows an infinite double statistic as null (it does so
		// for the files it writes itself too): hyparquet checks those
		const inf = v => c.type === 'DOUBLE' && Math.abs(v) === Infinity
		const lo = inf(st.min) ? undefined : parseStat(c, m.stats_min_value)
		const hi = inf(st.max) ? undefined : parseStat(c, m.stats_max_value)
		if (inf(st.min)) st.min = undefined
		if (inf(st.max)) st.max = undefined
		if (!statEqual(c, lo, st.min)) merrs.push(`${where}: stats_min_value ${m.stats_min_value}, want ${show(st.min)}`)
		if (!statEqual(c, hi, st.max)) merrs.push(`${where}: stats_max_value ${m.stats_max_value}, want ${show(st.max)}`)
		// the deprecated min/max: written for the numeric types only
		if (c.type !== 'STRING' && !statEqual(c, parseStat(c, m.stats_min), st.min)) merrs.push(`${where}: stats_min ${m.stats_min}`)
		if (c.type === 'STRING' && m.stats_min !== null) merrs.push(`${where}: stats_min ${m.stats_min} on a string`)
		// the chunks follow each other from byte 4, the dictionary page first
		const start = m.dictionary_page_offset ?? m.data_page_offset
		if (Number(start) !== prevEnd) merrs.push(`${where}: starts at ${start}, the previous chunk ends at ${prevEnd}`)
		if (m.dictionary_page_offset !== null && !(Number(m.dictionary_page_offset) < Number(m.data_page_offset)))
			merrs.push(`${where}: dictionary page at ${m.dictionary_page_offset}, data at ${m.data_page_offset}`)
		prevEnd = Number(start) + Number(m.total_compressed_size)
	}
	check(`${name}: DuckDB parquet_metadata(): compression, encodings, null counts, min/max statistics and offsets as expected`, merrs)
}

const instance = await DuckDBInstance.create(':memory:')
const conn = await instance.connect()
const names = fs.readdirSync(dir).filter(n => n.endsWith('.json')).sort()
if (!names.length) bad(`no NAME.json in ${dir}`, [])
for (const n of names) {
	const t = JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8'))
	const file = path.join(dir, n.replace(/\.json$/, '.parquet'))
	for (const c of t.columns) c.exp = c.values.map(v => expected(c, v))
	const rowGroups = [] // the rows of each, as test_pq.c's oracle of the row group rule gives them
	for (let g = 0, r = 0; g < t.row_groups.length; r += t.row_groups[g++])
		rowGroups.push(Array.from({ length: t.row_groups[g] }, (_, k) => r + k))
	try {
		await checkHyparquet(t, file, rowGroups)
	} catch (e) {
		bad(`${t.name}: hyparquet reads the file`, [String(e.stack ?? e)])
	}
	try {
		await checkDuckDB(conn, t, file, rowGroups)
	} catch (e) {
		bad(`${t.name}: DuckDB reads the file`, [String(e.stack ?? e)])
	}
}
process.exit(failed ? 1 : 0)
