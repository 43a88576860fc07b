/* pq.c - the streaming Parquet writer (pq.h).  Rows are buffered per
 * column for one row group (values coded in a byte array, decoded one
 * column at a time when the row group is written; strings in a per-column
 * arena, a definition level per row for OPTIONAL columns); a full row
 * group is written as one column chunk per column: an optional dictionary
 * page and data pages (v1) of at most PQ_PAGE_BYTES of PLAIN-sized values
 * each, every page compressed on its own.  The footer (FileMetaData) is
 * written at pq_close.  File layout, encodings and the spec facts relied
 * on: docs/parquet.md. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "grow.h"
#include "hmap.h"
#include "tracefold/io.h"
#include "pq.h"
#include "pq_int.h"
const size_t pq_type_width[] = { [PQ_INT64] = 8, [PQ_INT32] = 4, [PQ_DOUBLE] = 8, [PQ_STRING] = sizeof(sref), [PQ_BOOL] = 1 };
const int pq_phys_type[] = { [PQ_INT64] = T_INT64, [PQ_INT32] = T_INT32, [PQ_DOUBLE] = T_DOUBLE, [PQ_STRING] = T_BYTE_ARRAY, [PQ_BOOL] = T_BOOLEAN };

/* The file is an output: its errors say "cannot write 'PATH'", never
 * "cannot read" (a tf_error's path is an input's). */
int pq_fail(pq_file *f, int code, const char *fmt, const char *what)
{
	if (!f->rc) {
		char m[400];
		snprintf(m, sizeof(m), fmt, what);
		errno = 0; /* the text says why (a codec, a misuse) */
		f->rc = tf_error_set(&f->err, code, NULL, -1, -1, "cannot write '%s' (row %llu): %s", f->path,
				     (unsigned long long)f->total_rows, m);
	}
	return f->rc;
}

const tf_error *pq_error(const pq_file *f)
{
	return f->rc ? &f->err : NULL;
}

int pq_oom(pq_file *f)
{
	return pq_fail(f, TF_ENOMEM, "%s", "out of memory");
}

int pq_open(pq_file **out, const char *path, const pq_col *cols, int ncols, const pq_opts *o, tf_error *err)
{
	*out = NULL;
	if (ncols <= 0 || ncols > 32767)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "cannot write '%s': a Parquet table needs 1 to 32767 "
				    "columns", path);
	for (int i = 0; i < ncols; i++) {
		const pq_col *c = &cols[i];
		if (!c->name || !*c->name || c->type < PQ_INT64 || c->type > PQ_BOOL ||
		    (c->dict && c->type != PQ_STRING) || (c->json && c->type != PQ_STRING) ||
		    (c->delta && c->type != PQ_INT64 && c->type != PQ_INT32))
			return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "cannot write '%s': Parquet column %d ('%s'): "
					    "bad type or encoding", path, i, c->name ? c->name : "");
	}
	if (o && (o->codec < PQ_UNCOMPRESSED || o->codec > PQ_GZIP))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "cannot write '%s': unknown Parquet codec %d", path,
				    o->codec);
	pq_file *f = calloc(1, sizeof(*f));
	if (!f)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
	f->cols = cols;
	f->ncols = ncols;
	f->codec = o ? o->codec : PQ_UNCOMPRESSED;
	f->level = o ? o->level : 0;
	f->rg_rows = o && o->row_group_rows ? o->row_group_rows : PQ_DEFAULT_RG_ROWS;
	f->rg_max_bytes = o && o->row_group_bytes ? o->row_group_bytes : PQ_RG_BYTES;
	f->created_by = strdup(o && o->created_by ? o->created_by : "tracefold");
	f->cb = calloc((size_t)ncols, sizeof(*f->cb));
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!f->created_by || !f->cb) {
		pq_abort(f);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
	}
	/* the file itself is created when its first bytes are written (a
	 * full row group, or pq_close): a table partitioned into thousands of
	 * small files holds no file descriptor per file while rows come in.
	 * Offsets count the "PAR1" it will start with. */
	f->pos = 4;
	*out = f;
	return 0;
}

/* ---- appending values */

/* The column's slot for the current row, or NULL (error kept). */
static colbuf *slot(pq_file *f, int col, int type)
{
	if (f->rc)
		return NULL;
	if (col < 0 || col >= f->ncols) {
		pq_fail(f, TF_EUSAGE, "no column %s", "of that index");
		return NULL;
	}
	colbuf *cb = &f->cb[col];
	if (cb->set) {
		pq_fail(f, TF_EUSAGE, "column '%s' given twice in a row", f->cols[col].name);
		return NULL;
	}
	if (type >= 0 && f->cols[col].type != type) {
		pq_fail(f, TF_EUSAGE, "column '%s' given a value of another type", f->cols[col].name);
		return NULL;
	}
	if (f->cols[col].nullable) {
		if (tf_grow_n((void **)&cb->def, &cb->def_cap, (size_t)f->nrows + 1, 1, false) < 0) {
			pq_oom(f);
			return NULL;
		}
		cb->def[f->nrows] = 1;
		f->rg_bytes++;
	}
	cb->set = true;
	return cb;
}

/* ---- the buffered values, coded: a row group of flows or instants holds
 * mostly ids, tracks and times that differ little from the row before
 * (8 bytes each as they are, 1 to 3 coded) */

static inline unsigned char *put_uleb(unsigned char *p, uint64_t v)
{
	return p + tf_varint_encode(p, v);
}

/* buf.h's tf_varint_get without its bounds and overlong checks: these
 * bytes are the column's own, coded by put_uleb above */
static inline const unsigned char *get_uleb(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	for (int sh = 0;; sh += 7) {
		uint64_t b = *p++;
		x |= (b & 0x7f) << sh;
		if (!(b & 0x80))
			break;
	}
	*v = x;
	return p;
}

/* An integer (or a string's offset) as its difference from the last one. */
static inline unsigned char *put_diff(colbuf *cb, unsigned char *p, uint64_t v)
{
	uint64_t d = v - cb->prev;
	cb->prev = v;
	return put_uleb(p, tf_zigzag((int64_t)d));
}

#define PQ_CODE_MAX 20 /* the most bytes one value takes coded (a string: two LEB128) */

/* Codes a value of the column's type at v (int64_t, int32_t, double, uint8_t). */
static inline void code_put(colbuf *cb, int type, const void *v)
{
	unsigned char *p = cb->code + cb->code_n;
	if (type == PQ_INT64) {
		int64_t x;
		memcpy(&x, v, 8);
		p = put_diff(cb, p, (uint64_t)x);
	} else if (type == PQ_INT32) {
		int32_t x;
		memcpy(&x, v, 4);
		p = put_diff(cb, p, (uint64_t)(int64_t)x);
	} else {
		size_t w = pq_type_width[type];
		memcpy(p, v, w);
		p += w;
	}
	cb->code_n = (size_t)(p - cb->code);
	cb->nvals++;
}

/* The column's values decoded into f->dec, as cb->vals; 0 or an error. */
static int decode_col(pq_file *f, colbuf *cb, int type)
{
	size_t w = pq_type_width[type], n = cb->nvals;
	if (tf_grow_n((void **)&f->dec, &f->dec_cap, n ? n * w : 1, 1, false) < 0)
		return pq_oom(f);
	const unsigned char *p = cb->code;
	unsigned char *o = f->dec;
	uint64_t prev = 0, z;
	if (type == PQ_DOUBLE || type == PQ_BOOL) {
		if (n)
			memcpy(o, p, n * w); /* as they are */
	} else if (type == PQ_INT64) {
		for (size_t i = 0; i < n; i++, o += 8) {
			if (*p < 0x80)
				z = *p++;
			else
				p = get_uleb(p, &z);
			prev += (uint64_t)tf_unzigzag(z);
			memcpy(o, &prev, 8);
		}
	} else if (type == PQ_INT32) {
		for (size_t i = 0; i < n; i++, o += 4) {
			p = get_uleb(p, &z);
			prev += (uint64_t)tf_unzigzag(z);
			int32_t x = (int32_t)(int64_t)prev;
			memcpy(o, &x, 4);
		}
	} else {
		for (size_t i = 0; i < n; i++, o += sizeof(sref)) {
			uint64_t len;
			p = get_uleb(p, &z);
			prev += (uint64_t)tf_unzigzag(z);
			p = get_uleb(p, &len);
			sref r = { prev, (uint32_t)len };
			memcpy(o, &r, sizeof(r));
		}
	}
	cb->vals = f->dec;
	return 0;
}

static void put_fixed_slow(pq_file *f, int col, int type, const void *v)
{
	colbuf *cb = slot(f, col, type);
	if (!cb)
		return;
	if (tf_grow_n((void **)&cb->code, &cb->code_cap, cb->code_n + PQ_CODE_MAX, 1, false) < 0) {
		pq_oom(f);
		return;
	}
	code_put(cb, type, v);
	f->rg_bytes += pq_type_width[type];
}

/* The usual case in one test: a REQUIRED column of that type, not set yet
 * in this row, with room; everything else (checks, growth, definition
 * levels, errors) goes the slow way. */
static inline void put_fixed(pq_file *f, int col, int type, const void *v)
{
	if (__builtin_expect(!f->rc && (unsigned)col < (unsigned)f->ncols, 1)) {
		colbuf *cb = &f->cb[col];
		if (__builtin_expect(!cb->set && f->cols[col].type == type && !f->cols[col].nullable &&
				     cb->code_n + PQ_CODE_MAX <= cb->code_cap, 1)) {
			code_put(cb, type, v);
			cb->set = true;
			f->rg_bytes += pq_type_width[type];
			return;
		}
	}
	put_fixed_slow(f, col, type, v);
}

void pq_i64(pq_file *f, int col, int64_t v)
{
	put_fixed(f, col, PQ_INT64, &v);
}

void pq_i32(pq_file *f, int col, int32_t v)
{
	put_fixed(f, col, PQ_INT32, &v);
}

void pq_f64(pq_file *f, int col, double v)
{
	put_fixed(f, col, PQ_DOUBLE, &v);
}

void pq_bool(pq_file *f, int col, bool v)
{
	uint8_t b = v;
	put_fixed(f, col, PQ_BOOL, &b);
}

void pq_str(pq_file *f, int col, const char *s, size_t n)
{
	if (n > INT32_MAX - (1u << 20)) {
		pq_fail(f, TF_EUSAGE, "a string of column '%s' is over 2 GiB", col >= 0 && col < f->ncols ? f->cols[col].name : "?");
		return;
	}
	colbuf *cb = slot(f, col, PQ_STRING);
	if (!cb)
		return;
	if (tf_grow_n((void **)&cb->code, &cb->code_cap, cb->code_n + PQ_CODE_MAX, 1, false) < 0) {
		pq_oom(f);
		return;
	}
	/* a dictionary column's values repeat (names): their bytes once */
	struct pq_seen *seen = NULL;
	if (n && f->cols[col].dict) {
		/* a cache: made larger (and empty) once the row group holds 4
		 * values a slot, which changes what is kept once, never a value */
		if (!cb->seen || (cb->seen_cap < PQ_SEEN && cb->nvals >= 4 * (size_t)cb->seen_cap)) {
			uint32_t cap = cb->seen ? cb->seen_cap * 2 : PQ_SEEN_MIN;
			struct pq_seen *ns = calloc(cap, sizeof(*ns));
			if (!ns) {
				pq_oom(f);
				return;
			}
			free(cb->seen);
			cb->seen = ns;
			cb->seen_cap = cap;
		}
		seen = &cb->seen[tf_mix64((uint64_t)(uintptr_t)s ^ (uint64_t)n << 48) & (cb->seen_cap - 1)];
	}
	sref r = { cb->arena_n, (uint32_t)n };
	if (seen && seen->p == s && seen->len == n && !memcmp(cb->arena + seen->off, s, n)) {
		r.off = seen->off;
	} else {
		if (tf_grow_n((void **)&cb->arena, &cb->arena_cap, cb->arena_n + n, 1, false) < 0) {
			pq_oom(f);
			return;
		}
		if (n)
			memcpy(cb->arena + cb->arena_n, s, n);
		cb->arena_n += n;
		if (seen)
			*seen = (struct pq_seen){ s, r.off, (uint32_t)n };
	}
	cb->code_n = (size_t)(put_uleb(put_diff(cb, cb->code + cb->code_n, r.off), r.len) - cb->code);
	cb->nvals++;
	f->rg_bytes += sizeof(sref) + n; /* the row group's bound counts every value's bytes */
}

void pq_null(pq_file *f, int col)
{
	if (f->rc)
		return;
	if (col >= 0 && col < f->ncols && !f->cols[col].nullable) {
		pq_fail(f, TF_EUSAGE, "a null in the REQUIRED column '%s'", f->cols[col].name);
		return;
	}
	colbuf *cb = slot(f, col, -1);
	if (cb)
		cb->def[f->nrows] = 0;
}

uint64_t pq_rows(const pq_file *f)
{
	return f->total_rows;
}

int pq_kv(pq_file *f, const char *key, const char *value)
{
	if (f->rc)
		return f->rc;
	if (tf_grow_n((void **)&f->kv, &f->kv_cap, f->nkv + 2, sizeof(char *), false) < 0)
		return pq_oom(f);
	char *k = strdup(key), *v = strdup(value ? value : "");
	if (!k || !v) {
		free(k);
		free(v);
		return pq_oom(f);
	}
	f->kv[f->nkv++] = k;
	f->kv[f->nkv++] = v;
	return 0;
}

/* ---- writing pages */

void pq_emit(pq_file *f, const void *p, size_t n)
{
	if (f->rc)
		return;
	if (!f->out) { /* the first bytes: create the file, "PAR1" */
		static const char magic[4] = "PAR1";
		if (tf_out_open(&f->out, f->path, false, &f->err) < 0) {
			f->rc = f->err.code ? f->err.code : TF_EIO;
			return;
		}
		if (tf_out_write(f->out, magic, 4) < 0) { /* errno: why */
			f->rc = tf_error_set(&f->err, TF_EIO, NULL, -1, -1, "cannot write '%s'", f->path);
			return;
		}
	}
	if (tf_out_write(f->out, p, n) < 0) {
		f->rc = tf_error_set(&f->err, TF_EIO, NULL, -1, -1, "cannot write '%s'", f->path);
		return;
	}
	f->pos += (int64_t)n;
}

/* Compresses body into f->comp; returns the bytes to write (body itself
 * when uncompressed), or NULL (error kept). */
static const tf_buf *compress_page(pq_file *f, const tf_buf *body)
{
	tf_buf *c = &f->comp;
	c->n = 0;
	if (f->codec == PQ_UNCOMPRESSED)
		return body;
	if (f->codec == PQ_ZSTD) {
		size_t bound = ZSTD_compressBound(body->n);
		unsigned char *d = tf_buf_room(c, bound);
		if (!d) {
			pq_oom(f);
			return NULL;
		}
		size_t r = ZSTD_compress(d, bound, body->p, body->n, f->level ? f->level : ZSTD_CLEVEL_DEFAULT);
		if (ZSTD_isError(r)) {
			pq_fail(f, TF_EIO, "zstd: %s", ZSTD_getErrorName(r));
			return NULL;
		}
		c->n = r;
		return c;
	}
	/* GZIP: a deflate stream with a gzip header and trailer (RFC 1952) */
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, f->level ? f->level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		pq_oom(f);
		return NULL;
	}
	size_t bound = deflateBound(&z, (uLong)body->n);
	unsigned char *d = tf_buf_room(c, bound);
	if (!d) {
		deflateEnd(&z);
		pq_oom(f);
		return NULL;
	}
	z.next_in = body->p;
	z.avail_in = (uInt)body->n;
	z.next_out = d;
	z.avail_out = (uInt)bound;
	int zr = deflate(&z, Z_FINISH);
	c->n = bound - z.avail_out;
	deflateEnd(&z);
	if (zr != Z_STREAM_END) {
		pq_fail(f, TF_EIO, "%s", "gzip compression failed");
		return NULL;
	}
	return c;
}

static void write_page(pq_file *f, chunk_meta *cm, int type, const tf_buf *body, int32_t nvalues, int enc,
		       const pq_stats *st, int coltype)
{
	if (body->oom) {
		pq_oom(f);
		return;
	}
	if (body->n > INT32_MAX) {
		pq_fail(f, TF_EUSAGE, "%s", "a Parquet page over 2 GiB");
		return;
	}
	const tf_buf *data = compress_page(f, body);
	if (!data)
		return;
	if (data->n > INT32_MAX) {
		pq_fail(f, TF_EUSAGE, "%s", "a Parquet page over 2 GiB");
		return;
	}
	tf_buf *h = &f->hdr;
	h->n = 0;
	pq_thrift t;
	pq_t_init(&t, h);
	pq_t_i32(&t, 1, type);
	pq_t_i32(&t, 2, (int32_t)body->n);
	pq_t_i32(&t, 3, (int32_t)data->n);
	if (type == P_DICT) {
		pq_t_begin(&t, 7);
		pq_t_i32(&t, 1, nvalues);
		pq_t_i32(&t, 2, E_PLAIN);
		pq_t_end(&t);
	} else {
		pq_t_begin(&t, 5);
		pq_t_i32(&t, 1, nvalues);
		pq_t_i32(&t, 2, enc);
		pq_t_i32(&t, 3, E_RLE);
		pq_t_i32(&t, 4, E_RLE);
		if (st)
			pq_stats_thrift(&t, 5, st, coltype);
		pq_t_end(&t);
	}
	pq_t_stop(&t);
	if (h->oom) {
		pq_oom(f);
		return;
	}
	if (type == P_DICT)
		cm->dict_off = f->pos;
	else if (cm->data_pages++ == 0)
		cm->data_off = f->pos;
	cm->uncomp += (int64_t)(h->n + body->n);
	cm->comp += (int64_t)(h->n + data->n);
	pq_emit(f, h->p, h->n);
	pq_emit(f, data->p, data->n);
}

/* ---- column chunks and row groups */

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* Builds the chunk's dictionary: f->dent (entry -> its first value),
 * f->idx (value -> entry).  Returns the number of entries, or 0 for a
 * PLAIN chunk (no values, or the dictionary passed its bound). */
static uint32_t build_dict(pq_file *f, const colbuf *cb)
{
	if (!cb->nvals)
		return 0;
	if (tf_grow_n((void **)&f->idx, &f->idx_cap, cb->nvals, sizeof(*f->idx), false) < 0) {
		pq_oom(f);
		return 0;
	}
	tf_hmap_free(&f->dmap);
	uint32_t nd = 0;
	size_t bytes = 0;
	for (size_t i = 0; i < cb->nvals; i++) {
		sref r = pq_sref_at(cb, i);
		const char *s = cb->arena + r.off;
		uint64_t h = str_hash(s, r.len);
		uint32_t e = tf_hmap_get(&f->dmap, h), last = UINT32_MAX;
		while (e != UINT32_MAX) {
			sref q = pq_sref_at(cb, f->dent[e]);
			if (q.len == r.len && memcmp(cb->arena + q.off, s, r.len) == 0)
				break;
			last = e;
			e = f->dnext[e];
		}
		if (e == UINT32_MAX) {
			if (nd == PQ_DICT_ENTRIES || bytes + 4 + r.len > PQ_DICT_BYTES)
				return 0;
			if (tf_grow_n((void **)&f->dent, &f->dent_cap, (size_t)nd + 1, sizeof(*f->dent), false) < 0 ||
			    tf_grow_n((void **)&f->dnext, &f->dnext_cap, (size_t)nd + 1, sizeof(*f->dnext), false) < 0) {
				pq_oom(f);
				return 0;
			}
			e = nd++;
			f->dent[e] = (uint32_t)i;
			f->dnext[e] = UINT32_MAX;
			bytes += 4 + r.len;
			if (last != UINT32_MAX) {
				f->dnext[last] = e; /* a 64-bit hash collision */
			} else if (tf_hmap_put(&f->dmap, h, e) < 0) {
				pq_oom(f);
				return 0;
			}
		}
		f->idx[i] = e;
	}
	return nd;
}

static void plain_values(tf_buf *pg, const pq_col *c, const colbuf *cb, size_t v0, size_t v1)
{
	switch (c->type) {
	case PQ_INT64:
	case PQ_DOUBLE:
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		tf_buf_put(pg, cb->vals + 8 * v0, 8 * (v1 - v0)); /* the buffer is already PLAIN */
#else
		for (size_t i = v0; i < v1; i++) {
			uint64_t u;
			memcpy(&u, cb->vals + 8 * i, 8);
			tf_buf_le64(pg, u);
		}
#endif
		break;
	case PQ_INT32:
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		tf_buf_put(pg, cb->vals + 4 * v0, 4 * (v1 - v0));
#else
		for (size_t i = v0; i < v1; i++) {
			uint32_t u;
			memcpy(&u, cb->vals + 4 * i, 4);
			tf_buf_le32(pg, u);
		}
#endif
		break;
	case PQ_BOOL: {
		pq_bitw w = { pg, 0, 0 };
		for (size_t i = v0; i < v1; i++)
			pq_bits_put(&w, cb->vals[i], 1);
		pq_bits_flush(&w);
		break;
	}
	case PQ_STRING:
		for (size_t i = v0; i < v1; i++) {
			sref r = pq_sref_at(cb, i);
			tf_buf_le32(pg, r.len);
			tf_buf_put(pg, cb->arena + r.off, r.len);
		}
		break;
	}
}

/* A data page of rows [row0, row1), values [v0, v1); bw: the dictionary
 * indices' bit width, 0 when not dictionary-encoded. */
static void data_page(pq_file *f, chunk_meta *cm, int ci, size_t row0, size_t row1, size_t v0, size_t v1, int bw,
		      live_stats *chunk)
{
	const pq_col *c = &f->cols[ci];
	const colbuf *cb = &f->cb[ci];
	tf_buf *pg = &f->page;
	pg->n = 0;
	if (c->nullable) {
		/* definition levels (max level 1): 4-byte length, then the hybrid */
		size_t at = pg->n;
		tf_buf_le32(pg, 0);
		pq_rle_hybrid(pg, cb->def + row0, 1, row1 - row0, 1);
		if (!pg->oom)
			pq_le_bytes(pg->p + at, pg->n - at - 4, 4);
	}
	if (bw) {
		tf_buf_byte(pg, (unsigned)bw);
		pq_rle_hybrid(pg, f->idx + v0, 4, v1 - v0, bw);
	} else if (c->delta) {
		size_t w = pq_type_width[c->type];
		pq_delta(pg, cb->vals + v0 * w, (int)w, v1 - v0);
	} else {
		plain_values(pg, c, cb, v0, v1);
	}
	live_stats ls;
	memset(&ls, 0, sizeof(ls));
	ls.nulls = (int64_t)((row1 - row0) - (v1 - v0));
	for (size_t i = v0; i < v1; i++)
		pq_live_add(&ls, c->type, cb, i);
	pq_live_merge(chunk, &ls, c->type);
	pq_stats ps;
	pq_stats_fix(&ps, &ls, c->type);
	write_page(f, cm, P_DATA, pg, (int32_t)(row1 - row0), cm->data_enc, &ps, c->type);
}

static void write_chunk(pq_file *f, int ci, chunk_meta *cm)
{
	const pq_col *c = &f->cols[ci];
	const colbuf *cb = &f->cb[ci];
	memset(cm, 0, sizeof(*cm));
	cm->start = f->pos;
	cm->dict_off = -1;
	cm->num_values = f->nrows;
	uint32_t nd = c->dict ? build_dict(f, cb) : 0;
	if (f->rc)
		return;
	int bw = 0;
	if (nd) {
		tf_buf *pg = &f->page;
		pg->n = 0;
		for (uint32_t e = 0; e < nd; e++) {
			sref r = pq_sref_at(cb, f->dent[e]);
			tf_buf_le32(pg, r.len);
			tf_buf_put(pg, cb->arena + r.off, r.len);
		}
		write_page(f, cm, P_DICT, pg, (int32_t)nd, E_PLAIN, NULL, c->type);
		bw = pq_bits(nd - 1);
		if (bw == 0)
			bw = 1; /* a one-entry dictionary: width 1, not 0 */
	}
	cm->data_enc = nd ? E_RLE_DICTIONARY : c->delta ? E_DELTA_BINARY_PACKED : E_PLAIN;
	live_stats chunk;
	memset(&chunk, 0, sizeof(chunk));
	size_t w = pq_type_width[c->type], row = 0, vi = 0;
	while (row < f->nrows && !f->rc) {
		size_t r = row, v = vi, est = 0;
		while (r < f->nrows && est < PQ_PAGE_BYTES && r - row < PQ_PAGE_ROWS) {
			if (!c->nullable || cb->def[r]) {
				est += c->type == PQ_STRING ? 4 + pq_sref_at(cb, v).len : w;
				v++;
			}
			r++;
		}
		data_page(f, cm, ci, row, r, vi, v, bw, &chunk);
		row = r;
		vi = v;
	}
	pq_stats_fix(&cm->st, &chunk, c->type);
}

static void flush_rg(pq_file *f)
{
	if (f->rc || f->nrows == 0)
		return;
	size_t nc = (size_t)f->ncols;
	if (tf_grow_n((void **)&f->chunks, &f->chunks_cap, (f->nrg + 1) * nc, sizeof(*f->chunks), false) < 0 ||
	    tf_grow_n((void **)&f->rgs, &f->rgs_cap, f->nrg + 1, sizeof(*f->rgs), false) < 0) {
		pq_oom(f);
		return;
	}
	rg_meta *rg = &f->rgs[f->nrg];
	memset(rg, 0, sizeof(*rg));
	rg->off = f->pos;
	rg->rows = f->nrows;
	for (size_t ci = 0; ci < nc && !f->rc; ci++) {
		chunk_meta *cm = &f->chunks[f->nrg * nc + ci];
		if (decode_col(f, &f->cb[ci], f->cols[ci].type) < 0)
			break;
		write_chunk(f, (int)ci, cm);
		f->cb[ci].vals = NULL;
		rg->uncomp += cm->uncomp;
		rg->comp += cm->comp;
	}
	f->nrg++;
	for (size_t ci = 0; ci < nc; ci++) {
		f->cb[ci].nvals = f->cb[ci].arena_n = f->cb[ci].code_n = 0;
		f->cb[ci].prev = 0;
		if (f->cb[ci].seen)
			memset(f->cb[ci].seen, 0, f->cb[ci].seen_cap * sizeof(*f->cb[ci].seen));
	}
	f->nrows = 0;
	f->rg_bytes = 0;
}

int pq_end_row(pq_file *f)
{
	if (f->rc)
		return f->rc;
	for (int ci = 0; ci < f->ncols; ci++) {
		if (!f->cb[ci].set)
			return pq_fail(f, TF_EUSAGE, "column '%s' has no value in a row", f->cols[ci].name);
		f->cb[ci].set = false;
	}
	f->nrows++;
	f->total_rows++;
	if (f->nrows >= f->rg_rows || f->rg_bytes >= f->rg_max_bytes)
		flush_rg(f);
	return f->rc;
}

/* ---- closing */

static void pq_free(pq_file *f)
{
	for (int ci = 0; ci < f->ncols && f->cb; ci++) {
		free(f->cb[ci].code);
		free(f->cb[ci].def);
		free(f->cb[ci].arena);
		free(f->cb[ci].seen);
	}
	free(f->cb);
	for (size_t i = 0; i < f->nkv; i++)
		free(f->kv[i]);
	free(f->kv);
	free(f->chunks);
	free(f->rgs);
	free(f->created_by);
	tf_buf_free(&f->page);
	tf_buf_free(&f->comp);
	tf_buf_free(&f->hdr);
	free(f->dec);
	free(f->idx);
	free(f->dent);
	free(f->dnext);
	tf_hmap_free(&f->dmap);
	free(f);
}

int pq_close(pq_file *f, tf_error *err)
{
	for (int ci = 0; ci < f->ncols && !f->rc; ci++)
		if (f->cb[ci].set)
			pq_fail(f, TF_EUSAGE, "%s", "the last row was not ended (pq_end_row)");
	flush_rg(f);
	if (!f->rc)
		pq_write_footer(f);
	int rc = f->rc;
	if (rc) {
		if (err)
			*err = f->err;
		tf_out_abort(f->out);
	} else {
		rc = tf_out_close(f->out, err);
	}
	f->out = NULL;
	pq_free(f);
	return rc;
}

void pq_abort(pq_file *f)
{
	if (!f)
		return;
	tf_out_abort(f->out);
	pq_free(f);
}
