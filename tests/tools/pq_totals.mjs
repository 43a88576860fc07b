// pq_totals.mjs DIR: what the Parquet event tables in DIR add up to, read by
// DuckDB (@duckdb/node-api), as sorted text lines for comparing two folders
// (tests/e2e/mpi.sh: the parts of a distributed run against one process's
// tables).  Ids differ between the two (a distributed run's are unique per
// part): only counts and sums by name and rank are compared, and that every
// id a row names is in its table.
import { DuckDBInstance } from '@duckdb/node-api';

const dir = process.argv[2];
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const t = (name) => `read_parquet('${dir}/${name}/**/*.parquet', union_by_name = true)`;
const rows = async (sql) => (await c.runAndReadAll(sql)).getRowsJS();
const out = [];
const add = (prefix, rs) => { for (const r of rs) out.push(prefix + '\t' + r.map(String).join('\t')); };
add('slices', await rows(`SELECT name, rank, count(*), sum(self_ns), sum(dur_ns), sum(depth) FROM ${t('slices')} GROUP BY ALL`));
add('counters', await rows(`SELECT name, rank, count(*), sum(value) FROM ${t('counters')} GROUP BY ALL`));
add('instants', await rows(`SELECT name, rank, count(*) FROM ${t('instants')} GROUP BY ALL`));
add('messages', await rows(`SELECT count(send_ts_ns), count(recv_ts_ns), sum(bytes) FILTER (WHERE send_ts_ns IS NOT NULL) FROM ${t('messages')}`));
add('flows', await rows(`SELECT count(src_ts_ns), count(dst_ts_ns) FROM ${t('flows')}`));
add('tracks with rows', await rows(`SELECT count(*) FROM ${t('tracks')} WHERE track_id IN
    (SELECT track_id FROM ${t('slices')} UNION SELECT track_id FROM ${t('counters')} UNION SELECT track_id FROM ${t('instants')})`));
add('slices whose call path is missing', await rows(`SELECT count(*) FROM ${t('slices')} s ANTI JOIN ${t('call_paths')} p ON s.call_path_id = p.call_path_id`));
add('slices whose parent is missing', await rows(`SELECT count(*) FROM ${t('slices')} s WHERE parent_slice_id IS NOT NULL AND parent_slice_id NOT IN (SELECT slice_id FROM ${t('slices')})`));
add('slices whose track is missing', await rows(`SELECT count(*) FROM ${t('slices')} s ANTI JOIN ${t('tracks')} k ON s.track_id = k.track_id`));
add('duplicate slice ids', await rows(`SELECT count(*) - count(DISTINCT slice_id) FROM ${t('slices')}`));
out.sort();
console.log(out.join('\n'));
