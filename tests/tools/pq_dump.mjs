// pq_dump.mjs FILE...: writes each Parquet FILE as text through DuckDB to
// FILE.duck (one DuckDB for them all: Node's start-up once)
// (@duckdb/node-api), in the format of `test_pq_read dump FILE`
// (tests/unit/test_pq_read.c) for tests/e2e/pq_read.sh to compare: one line
// per row in file order, values separated by tabs: NULL, integers,
// doubles (and floats widened to double) as %.17g, true/false, strings as
// upper-case hex of their bytes.  The text is made by DuckDB's own SQL
// (format, hex), not here.
import { DuckDBInstance } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
const db = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
for (const file of process.argv.slice(2)) {
const src = `read_parquet('${file.replaceAll("'", "''")}', file_row_number = true)`;
const cols = (await db.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows()
	.map(r => [r[0], r[1]]).filter(([n]) => n !== 'file_row_number');
const q = n => '"' + n.replaceAll('"', '""') + '"';
const text = ([n, t]) => {
	const c = q(n);
	let e;
	if (t === 'DOUBLE' || t === 'FLOAT') e = `format('{:.17g}', ${c}::DOUBLE)`;
	else if (t === 'VARCHAR' || t === 'BLOB') e = `hex(${c})`;
	else e = `CAST(${c} AS VARCHAR)`; // integers; booleans: true/false
	return `coalesce(${e}, 'NULL')`;
};
const sql = `SELECT ${cols.map(text).join(` || chr(9) || `)} FROM ${src} ORDER BY file_row_number`;
const r = await db.runAndReadAll(sql);
const out = [];
for (const row of r.getRows()) out.push(row[0]);
writeFileSync(file + '.duck', out.length ? out.join('\n') + '\n' : '');
}
