// pq_duck_write.mjs DIR [ROWS]: writes Parquet files with DuckDB
// (@duckdb/node-api) for tests/e2e/pq_read.sh: one table of BIGINT,
// INTEGER, DOUBLE, FLOAT, BOOLEAN and VARCHAR columns (nulls in most, a
// dictionary-friendly string column and one of unique, some long, strings,
// extreme integers, special doubles), written with COPY ... (FORMAT
// parquet) under every CODEC and both PARQUET_VERSIONs with a small
// ROW_GROUP_SIZE (several row groups): DIR/t_<codec>_<version>.parquet;
// plus DIR/empty_<version>.parquet (zero rows) and DIR/tiny_<codec>.parquet.
import { DuckDBInstance } from '@duckdb/node-api';
const [dir, rowsArg] = process.argv.slice(2);
const rows = Number(rowsArg || 5000);
const db = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
await db.run(`CREATE TABLE t AS SELECT
	CASE WHEN i % 7 = 3 THEN NULL WHEN i % 11 = 0 THEN -9223372036854775807 - 1 WHEN i % 13 = 0 THEN 9223372036854775807 ELSE i * 1000003 - 77 END AS big,
	i::BIGINT AS seq,
	CASE WHEN i % 5 = 1 THEN NULL ELSE ((i * 2654435761) % 4294967296 - 2147483648)::INTEGER END AS int,
	(i % 100)::INTEGER AS small,
	CASE WHEN i % 9 = 4 THEN NULL WHEN i % 17 = 0 THEN -0.0 WHEN i % 19 = 0 THEN 'inf'::DOUBLE WHEN i % 23 = 0 THEN 1e-310 ELSE i / 7.0 * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) END AS dbl,
	CASE WHEN i % 8 = 5 THEN NULL ELSE (i / 3.0)::FLOAT END AS flt,
	CASE WHEN i % 6 = 2 THEN NULL ELSE i % 3 = 0 END AS flag,
	i % 2 = 0 AS bit,
	CASE WHEN i % 10 = 7 THEN NULL ELSE 'name' || (i % 37)::VARCHAR END AS name,
	CASE WHEN i % 4 = 1 THEN NULL WHEN i % 97 = 0 THEN repeat('long' || i::VARCHAR, 400) WHEN i % 31 = 0 THEN '' ELSE 'unique-' || i::VARCHAR || '-' || md5(i::VARCHAR) END AS text,
	'const' AS konst,
	CASE WHEN i % 3 = 0 THEN 'ünï' || chr(10) || chr(9) || (i % 5)::VARCHAR ELSE 'prefix/shared/path/' || (i // 3)::VARCHAR END AS path
	FROM range(${rows}) r(i)`);
for (const v of ['V1', 'V2']) {
	for (const c of ['uncompressed', 'snappy', 'gzip', 'zstd'])
		await db.run(`COPY t TO '${dir}/t_${c}_${v}.parquet' (FORMAT parquet, CODEC '${c}', PARQUET_VERSION ${v}, ROW_GROUP_SIZE 1024)`);
	await db.run(`COPY (SELECT * FROM t LIMIT 0) TO '${dir}/empty_${v}.parquet' (FORMAT parquet, PARQUET_VERSION ${v})`);
}
for (const c of ['uncompressed', 'snappy', 'gzip', 'zstd'])
	await db.run(`COPY (SELECT * FROM t WHERE seq < 20) TO '${dir}/tiny_${c}.parquet' (FORMAT parquet, CODEC '${c}', PARQUET_VERSION ${c === 'zstd' || c === 'snappy' ? 'V2' : 'V1'})`);
