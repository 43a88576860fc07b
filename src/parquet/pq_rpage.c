/* pq_rpage.c - the Parquet reader's column chunks (pq_rint.h): a chunk's
 * bytes read at once, its pages walked (PageHeader, Thrift compact), each
 * page decompressed (UNCOMPRESSED, SNAPPY: pq_snappy.c, GZIP: zlib, ZSTD:
 * libzstd) and its values decoded in bulk into the column's arrays for the
 * row group: v (int64 bits, double bits, 0/1, a string's arena offset),
 * len (strings), null.  Pages: DICTIONARY_PAGE (PLAIN), DATA_PAGE (v1:
 * levels and values compressed together, definition levels behind a
 * 4-byte length), DATA_PAGE_V2 (levels first, uncompressed, of the header's
 * lengths; then the values, compressed when is_compressed).  Spec facts:
 * docs/parquet.md, "Reading". */
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "grow.h"
#include "pq.h"
#include "pq_int.h"
#include "pq_rint.h"

enum { PT_DATA = 0, PT_INDEX = 1, PT_DICT = 2, PT_DATA_V2 = 3 };
enum { EN_PLAIN = 0, EN_PLAIN_DICT = 2, EN_RLE = 3, EN_BIT_PACKED = 4, EN_DELTA = 5, EN_DLBA = 6, EN_DBA = 7,
       EN_RLE_DICT = 8, EN_BSS = 9 };

typedef struct page {
	int type;
	int64_t uncomp, comp;
	int64_t nv, nnulls, nrows;   /* values (nulls included), v2: nulls, rows */
	int enc, def_enc;
	int64_t def_len, rep_len;
	bool compressed;
} page;

/* the decoding of one chunk */
typedef struct cdec {
	pq_reader *r;
	pq_rcol *c;
	int col;
	const pq_rchunk *ch;
	tf_error *err;
	int64_t off;   /* the file offset of the page being decoded (messages) */
	size_t filled; /* rows decoded */
} cdec;

#define FAIL(d, ...) pq_rfail((d)->r, (d)->err, (d)->off, (d)->col, __VA_ARGS__)

static int oom(cdec *d)
{
	return tf_error_set(d->err, TF_ENOMEM, d->r->path, -1, -1, "out of memory");
}

static int page_header(cdec *d, pq_tin *t, page *pg)
{
	int16_t last = 0, id;
	int ty;
	memset(pg, 0, sizeof(*pg));
	pg->type = -1;
	pg->uncomp = pg->comp = -1;
	pg->compressed = true;
	pg->def_enc = EN_RLE;
	while (pq_tin_field(t, &last, &ty, &id)) {
		if (id == 1) {
			pg->type = (int)pq_tin_int(t, ty);
		} else if (id == 2) {
			pg->uncomp = pq_tin_int(t, ty);
		} else if (id == 3) {
			pg->comp = pq_tin_int(t, ty);
		} else if ((id == 5 || id == 7 || id == 8) && ty == PQ_T_STRUCT) {
			int16_t l2 = 0, i2;
			int t2;
			while (pq_tin_field(t, &l2, &t2, &i2)) {
				if (i2 == 1)
					pg->nv = pq_tin_int(t, t2);
				else if (id == 8 && i2 == 2)
					pg->nnulls = pq_tin_int(t, t2);
				else if (id == 8 && i2 == 3)
					pg->nrows = pq_tin_int(t, t2);
				else if ((id != 8 && i2 == 2) || (id == 8 && i2 == 4))
					pg->enc = (int)pq_tin_int(t, t2);
				else if (id == 5 && i2 == 3)
					pg->def_enc = (int)pq_tin_int(t, t2);
				else if (id == 8 && i2 == 5)
					pg->def_len = pq_tin_int(t, t2);
				else if (id == 8 && i2 == 6)
					pg->rep_len = pq_tin_int(t, t2);
				else if (id == 8 && i2 == 7)
					pg->compressed = pq_tin_bool(t, t2);
				else
					pq_tin_skip(t, t2);
			}
		} else {
			pq_tin_skip(t, ty);
		}
	}
	if (t->bad)
		return FAIL(d, "a damaged page header");
	if (pg->uncomp < 0 || pg->comp < 0 || pg->uncomp > INT32_MAX || pg->nv < 0 || pg->nv > INT32_MAX ||
	    pg->def_len < 0 || pg->rep_len < 0 || pg->nnulls < 0)
		return FAIL(d, "a page header with a negative or missing size");
	return 0;
}

/* The page's (part of a) body decompressed into r->page: *out, or the
 * bytes themselves when the codec is UNCOMPRESSED. */
static int decompress(cdec *d, const uint8_t *src, size_t n, size_t size, const uint8_t **out)
{
	pq_reader *r = d->r;
	const char *why = NULL;
	if (d->ch->codec == Z_UNCOMPRESSED) {
		if (n != size)
			return FAIL(d, "an uncompressed page of %zu bytes says it holds %zu", n, size);
		*out = src;
		return 0;
	}
	/* a size no data of n bytes can decompress to is refused before any
	 * allocation: deflate expands at most 1032:1, a snappy element of 3
	 * bytes at most to 64; a zstd frame says its size */
	if ((d->ch->codec == Z_GZIP && size / 1032 > n + 64) || (d->ch->codec == 1 && size / 22 > n + 8))
		return FAIL(d, "a page of %zu compressed bytes says it holds %zu", n, size);
	if (d->ch->codec == Z_ZSTD) {
		unsigned long long fs = ZSTD_getFrameContentSize(src, n);
		if (fs == ZSTD_CONTENTSIZE_ERROR)
			return FAIL(d, "zstd: not a zstd frame");
		if (fs != ZSTD_CONTENTSIZE_UNKNOWN && fs != size)
			return FAIL(d, "zstd: the frame holds %llu bytes, the page header says %zu", fs, size);
	}
	if (tf_grow_n((void **)&r->page, &r->page_cap, size + 1, 1, false) < 0)
		return oom(d);
	*out = r->page;
	if (d->ch->codec == 1) { /* SNAPPY */
		if (pq_snappy_dec(src, n, r->page, size, &why) < 0)
			return FAIL(d, "snappy: %s", why);
		return 0;
	}
	if (d->ch->codec == Z_ZSTD) {
		size_t z = ZSTD_decompress(r->page, size, src, n);
		if (ZSTD_isError(z))
			return FAIL(d, "zstd: %s", ZSTD_getErrorName(z));
		if (z != size)
			return FAIL(d, "zstd: %zu bytes decompressed, the page header says %zu", z, size);
		return 0;
	}
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK)
		return oom(d);
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)n;
	zs.next_out = r->page;
	zs.avail_out = (uInt)size + 1;
	int zr = inflate(&zs, Z_FINISH);
	size_t got = zs.total_out;
	inflateEnd(&zs);
	if (zr != Z_STREAM_END)
		return FAIL(d, "gzip: %s", zr == Z_BUF_ERROR && got > size ? "more bytes than the page header says" :
			    "damaged or cut data");
	if (got != size)
		return FAIL(d, "gzip: %zu bytes decompressed, the page header says %zu", got, size);
	return 0;
}

/* ---- values */

static int put_str(cdec *d, size_t slot, const uint8_t *s, size_t n)
{
	pq_rcol *c = d->c;
	if (n > UINT32_MAX)
		return FAIL(d, "a string over 4 GiB");
	if (tf_grow_n((void **)&c->arena, &c->arena_cap, c->arena_n + n + 1, 1, false) < 0)
		return oom(d);
	if (n)
		memcpy(c->arena + c->arena_n, s, n);
	c->v[slot] = c->arena_n;
	c->len[slot] = (uint32_t)n;
	c->arena_n += n;
	return 0;
}

static inline uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A fixed-width value's bits as v holds them: INT32 sign-extended, FLOAT
 * widened to a double. */
static inline uint64_t fixed_bits(int phys, uint64_t raw)
{
	if (phys == PQR_INT32)
		return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
	if (phys == PQR_FLOAT) {
		float f;
		uint32_t u = (uint32_t)raw;
		memcpy(&f, &u, 4);
		double x = f;
		uint64_t b;
		memcpy(&b, &x, 8);
		return b;
	}
	return raw;
}

static int fixed_width(int phys)
{
	return phys == PQR_INT32 || phys == PQR_FLOAT ? 4 : phys == PQR_BOOL ? 0 : 8;
}

/* PLAIN values into slots [s0, s0 + n) (v, len); returns the bytes read. */
static ptrdiff_t plain(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	pq_rcol *c = d->c;
	if (c->phys == PQR_BOOL) {
		if ((n + 7) / 8 > len)
			return FAIL(d, "the page's PLAIN booleans end early");
		for (size_t i = 0; i < n; i++)
			c->v[s0 + i] = (p[i >> 3] >> (i & 7)) & 1;
		return (ptrdiff_t)((n + 7) / 8);
	}
	if (c->phys == PQR_BYTE_ARRAY) {
		size_t at = 0;
		for (size_t i = 0; i < n; i++) {
			if (len - at < 4)
				return FAIL(d, "the page's PLAIN strings end early (value %zu of %zu)", i, n);
			size_t l = (size_t)le(p + at, 4);
			at += 4;
			if (l > len - at)
				return FAIL(d, "a PLAIN string of %zu bytes past the page's end", l);
			TF_TRY(put_str(d, s0 + i, p + at, l));
			at += l;
		}
		return (ptrdiff_t)at;
	}
	int w = fixed_width(c->phys);
	if ((size_t)w * n > len || n > len)
		return FAIL(d, "the page's PLAIN values end early (%zu values of %d bytes, %zu bytes)", n, w, len);
	for (size_t i = 0; i < n; i++)
		c->v[s0 + i] = fixed_bits(c->phys, le(p + (size_t)w * i, w));
	return (ptrdiff_t)((size_t)w * n);
}

static int dictionary(cdec *d, const uint8_t *p, size_t len, int64_t nv, int enc)
{
	pq_rcol *c = d->c;
	if (enc != EN_PLAIN && enc != EN_PLAIN_DICT)
		return FAIL(d, "a dictionary page of encoding %d (PLAIN is read)", enc);
	if ((size_t)nv > len * 8 + 8)
		return FAIL(d, "a dictionary of %lld entries in %zu bytes", (long long)nv, len);
	/* decode into the row slots first (they are free before the data
	 * pages), then move them to the dictionary */
	size_t n = (size_t)nv;
	size_t c1 = c->dcap, c2 = c->dcap;
	if (tf_grow_n((void **)&c->dv, &c1, n + 1, sizeof(*c->dv), false) < 0 ||
	    tf_grow_n((void **)&c->dlen, &c2, n + 1, sizeof(*c->dlen), true) < 0)
		return oom(d);
	c->dcap = c1 < c2 ? c1 : c2;
	uint64_t *sv = c->v;
	uint32_t *sl = c->len;
	size_t scap = c->cap;
	c->v = c->dv;
	c->len = c->dlen;
	c->cap = c->dcap;
	ptrdiff_t rc = plain(d, p, len, 0, n);
	c->v = sv;
	c->len = sl;
	c->cap = scap;
	if (rc < 0)
		return (int)rc;
	c->ndict = n;
	return 0;
}

static int grow_idx(cdec *d, size_t n)
{
	if (tf_grow_n((void **)&d->r->idx, &d->r->idx_cap, n + 1, sizeof(*d->r->idx), false) < 0 ||
	    tf_grow_n((void **)&d->r->ival, &d->r->ival_cap, 2 * n + 1, sizeof(*d->r->ival), false) < 0)
		return oom(d);
	return 0;
}

static int dict_values(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	pq_rcol *c = d->c;
	const char *why = NULL;
	if (!c->ndict && n)
		return FAIL(d, "dictionary-encoded values without a dictionary page");
	if (len < 1)
		return n ? FAIL(d, "a dictionary-encoded page without its bit width") : 0;
	int w = p[0];
	if (w > 32)
		return FAIL(d, "a dictionary index bit width of %d (over 32)", w);
	TF_TRY(grow_idx(d, n));
	uint32_t *idx = d->r->idx;
	if (pq_rle_dec(p + 1, len - 1, w, idx, n, &why) < 0)
		return FAIL(d, "dictionary indices: %s", why);
	for (size_t i = 0; i < n; i++) {
		if (idx[i] >= c->ndict)
			return FAIL(d, "dictionary index %u out of range (%zu entries), row %zu of the row group",
				    idx[i], c->ndict, d->filled + i);
		c->v[s0 + i] = c->dv[idx[i]];
		c->len[s0 + i] = c->dlen[idx[i]];
	}
	return 0;
}

static int delta_ints(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	pq_rcol *c = d->c;
	const char *why = NULL;
	size_t cnt;
	if (c->phys != PQR_INT32 && c->phys != PQR_INT64)
		return FAIL(d, "DELTA_BINARY_PACKED values of a column that is not INT32 or INT64");
	TF_TRY(grow_idx(d, n));
	if (pq_delta_dec(p, len, c->phys == PQR_INT32, d->r->ival, n, &cnt, &why) < 0)
		return FAIL(d, "%s", why);
	if (cnt != n)
		return FAIL(d, "DELTA_BINARY_PACKED holds %zu values, the page %zu", cnt, n);
	for (size_t i = 0; i < n; i++)
		c->v[s0 + i] = (uint64_t)d->r->ival[i];
	return 0;
}

/* DELTA_LENGTH_BYTE_ARRAY (dba: the suffixes of DELTA_BYTE_ARRAY, whose
 * prefix lengths are pre[]) */
static int delta_strs(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n, const int64_t *pre)
{
	pq_rcol *c = d->c;
	const char *why = NULL;
	size_t cnt;
	int64_t *lens = d->r->ival + n;
	ptrdiff_t at = pq_delta_dec(p, len, false, lens, n, &cnt, &why);
	if (at < 0)
		return FAIL(d, "string lengths: %s", why);
	if (cnt != n)
		return FAIL(d, "%zu string lengths for %zu values", cnt, n);
	size_t pos = (size_t)at;
	uint64_t prev = 0;
	size_t prevn = 0;
	for (size_t i = 0; i < n; i++) {
		if (lens[i] < 0 || (uint64_t)lens[i] > len - pos)
			return FAIL(d, "a string of %lld bytes past the page's end", (long long)lens[i]);
		size_t l = (size_t)lens[i], k = pre ? (size_t)pre[i] : 0;
		if (pre && (pre[i] < 0 || k > prevn))
			return FAIL(d, "a DELTA_BYTE_ARRAY prefix of %lld bytes, the previous value has %zu",
				    (long long)pre[i], prevn);
		if (k + l > UINT32_MAX)
			return FAIL(d, "a string over 4 GiB");
		if (tf_grow_n((void **)&c->arena, &c->arena_cap, c->arena_n + k + l + 1, 1, false) < 0)
			return oom(d);
		if (k)
			memmove(c->arena + c->arena_n, c->arena + prev, k);
		if (l)
			memcpy(c->arena + c->arena_n + k, p + pos, l);
		pos += l;
		prev = c->v[s0 + i] = c->arena_n;
		prevn = c->len[s0 + i] = (uint32_t)(k + l);
		c->arena_n += k + l;
	}
	return 0;
}

static int delta_byte_array(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	const char *why = NULL;
	size_t cnt;
	TF_TRY(grow_idx(d, 2 * n));
	/* prefixes in ival[2n..3n): delta_strs uses [n, 2n) */
	int64_t *pre = d->r->ival + 2 * n;
	ptrdiff_t at = pq_delta_dec(p, len, false, pre, n, &cnt, &why);
	if (at < 0)
		return FAIL(d, "prefix lengths: %s", why);
	if (cnt != n)
		return FAIL(d, "%zu prefix lengths for %zu values", cnt, n);
	return delta_strs(d, p + at, len - (size_t)at, s0, n, pre);
}

static int byte_stream_split(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	pq_rcol *c = d->c;
	int w = fixed_width(c->phys);
	if (c->phys == PQR_BOOL || c->phys == PQR_BYTE_ARRAY)
		return FAIL(d, "BYTE_STREAM_SPLIT values of a %s column", c->phys ? "BYTE_ARRAY" : "BOOLEAN");
	if (n > len / (size_t)w)
		return FAIL(d, "the page's BYTE_STREAM_SPLIT values end early");
	for (size_t i = 0; i < n; i++) {
		uint64_t raw = 0;
		for (int b = 0; b < w; b++)
			raw |= (uint64_t)p[(size_t)b * n + i] << (8 * b);
		c->v[s0 + i] = fixed_bits(c->phys, raw);
	}
	return 0;
}

static int rle_bools(cdec *d, const uint8_t *p, size_t len, size_t s0, size_t n, bool prefixed)
{
	const char *why = NULL;
	if (d->c->phys != PQR_BOOL)
		return FAIL(d, "RLE values of a column that is not BOOLEAN");
	if (prefixed) {
		if (len < 4 || le(p, 4) > len - 4)
			return FAIL(d, "RLE booleans: a bad length prefix");
		len = (size_t)le(p, 4);
		p += 4;
	}
	TF_TRY(grow_idx(d, n));
	if (pq_rle_dec(p, len, 1, d->r->idx, n, &why) < 0)
		return FAIL(d, "RLE booleans: %s", why);
	for (size_t i = 0; i < n; i++)
		d->c->v[s0 + i] = d->r->idx[i];
	return 0;
}

/* n non-null values of encoding enc into slots [s0, s0 + n). */
static int values(cdec *d, int enc, const uint8_t *p, size_t len, size_t s0, size_t n)
{
	switch (enc) {
	case EN_PLAIN: {
		ptrdiff_t rc = plain(d, p, len, s0, n);
		return rc < 0 ? (int)rc : 0;
	}
	case EN_PLAIN_DICT:
	case EN_RLE_DICT:
		return dict_values(d, p, len, s0, n);
	case EN_RLE:
		return rle_bools(d, p, len, s0, n, true);
	case EN_DELTA:
		return delta_ints(d, p, len, s0, n);
	case EN_DLBA:
		if (d->c->phys != PQR_BYTE_ARRAY)
			return FAIL(d, "DELTA_LENGTH_BYTE_ARRAY values of a column that is not BYTE_ARRAY");
		TF_TRY(grow_idx(d, n));
		return delta_strs(d, p, len, s0, n, NULL);
	case EN_DBA:
		if (d->c->phys != PQR_BYTE_ARRAY)
			return FAIL(d, "DELTA_BYTE_ARRAY values of a column that is not BYTE_ARRAY");
		return delta_byte_array(d, p, len, s0, n);
	case EN_BSS:
		return byte_stream_split(d, p, len, s0, n);
	default:
		return FAIL(d, "encoding %d is not read", enc);
	}
}

/* Definition levels (max 1) of n rows into c->null (1 = null); returns the
 * number of non-null values via *nn. */
static int def_levels(cdec *d, const uint8_t *p, size_t len, size_t n, size_t *nn)
{
	const char *why = NULL;
	TF_TRY(grow_idx(d, n));
	uint32_t *lv = d->r->idx;
	if (pq_rle_dec(p, len, 1, lv, n, &why) < 0)
		return FAIL(d, "definition levels: %s", why);
	size_t k = 0;
	uint8_t *nul = d->c->null + d->filled;
	for (size_t i = 0; i < n; i++) {
		nul[i] = lv[i] == 0;
		k += lv[i] != 0;
	}
	*nn = k;
	return 0;
}

/* Moves the nn values decoded at the start of the page's slots to their
 * rows (nulls between them). */
static void spread(pq_rcol *c, size_t s0, size_t n, size_t nn)
{
	if (nn == n)
		return;
	size_t k = nn;
	for (size_t i = n; i-- > 0;) {
		if (c->null[s0 + i]) {
			c->v[s0 + i] = 0;
			c->len[s0 + i] = 0;
		} else {
			k--;
			c->v[s0 + i] = c->v[s0 + k];
			c->len[s0 + i] = c->len[s0 + k];
		}
	}
}

static int grow_rows(pq_rcol *c, size_t n)
{
	size_t a = c->cap, b = c->cap, e = c->cap;
	if (tf_grow_n((void **)&c->v, &a, n, sizeof(*c->v), false) < 0 ||
	    tf_grow_n((void **)&c->len, &b, n, sizeof(*c->len), false) < 0 ||
	    tf_grow_n((void **)&c->null, &e, n, 1, false) < 0)
		return -1;
	c->cap = a < b ? (a < e ? a : e) : (b < e ? b : e);
	return 0;
}

/* A data page (v1 or v2) of the body's bytes. */
static int data_page(cdec *d, const page *pg, const uint8_t *body, size_t blen, size_t rg_n)
{
	pq_rcol *c = d->c;
	size_t n = (size_t)pg->nv, nn = n;
	if (pg->type == PT_DATA_V2 && pg->nrows != pg->nv)
		return FAIL(d, "a DATA_PAGE_V2 of %lld rows and %lld values (a repeated column?)",
			    (long long)pg->nrows, (long long)pg->nv);
	if (n > rg_n - d->filled)
		return FAIL(d, "pages of more rows than the row group's %zu", rg_n);
	if (grow_rows(c, d->filled + n + 1) < 0)
		return oom(d);
	const uint8_t *vals;
	size_t vlen;
	if (pg->type == PT_DATA) {
		const uint8_t *p;
		TF_TRY(decompress(d, body, blen, (size_t)pg->uncomp, &p));
		size_t len = (size_t)pg->uncomp, at = 0;
		if (c->nullable) {
			if (pg->def_enc != EN_RLE)
				return FAIL(d, "definition levels of encoding %d (RLE is read)", pg->def_enc);
			if (len < 4 || le(p, 4) > len - 4)
				return FAIL(d, "definition levels longer than the page");
			at = 4 + (size_t)le(p, 4);
			TF_TRY(def_levels(d, p + 4, at - 4, n, &nn));
		}
		vals = p + at;
		vlen = len - at;
	} else {
		if ((uint64_t)pg->def_len + (uint64_t)pg->rep_len > blen ||
		    (uint64_t)pg->def_len + (uint64_t)pg->rep_len > (uint64_t)pg->uncomp)
			return FAIL(d, "DATA_PAGE_V2 levels longer than the page");
		if (pg->rep_len)
			return FAIL(d, "repetition levels in a flat column");
		size_t dl = (size_t)pg->def_len;
		if (c->nullable) {
			TF_TRY(def_levels(d, body, dl, n, &nn));
			if ((int64_t)(n - nn) != pg->nnulls)
				return FAIL(d, "%zu nulls in the definition levels, the page header says %lld", n - nn,
					    (long long)pg->nnulls);
		} else if (pg->nnulls) {
			return FAIL(d, "nulls in a REQUIRED column");
		}
		size_t usize = (size_t)pg->uncomp - dl;
		if (pg->compressed) {
			TF_TRY(decompress(d, body + dl, blen - dl, usize, &vals));
		} else {
			if (blen - dl != usize)
				return FAIL(d, "an uncompressed page of %zu bytes says it holds %zu", blen - dl, usize);
			vals = body + dl;
		}
		vlen = usize;
	}
	if (!c->nullable)
		memset(c->null + d->filled, 0, n);
	TF_TRY(values(d, pg->enc, vals, vlen, d->filled, nn));
	spread(c, d->filled, n, nn);
	d->filled += n;
	return 0;
}

static int load_chunk(pq_reader *r, int g, int col, tf_error *err)
{
	pq_rcol *c = &r->cols[col];
	const pq_rchunk *ch = &r->chunks[(size_t)g * (size_t)r->ncols + (size_t)col];
	size_t rg_n = (size_t)r->rg_rows[g];
	cdec d = { .r = r, .c = c, .col = col, .ch = ch, .err = err, .off = ch->start };
	c->arena_n = 0;
	c->ndict = 0;
	if (rg_n > PQ_RMAX_RG_ROWS)
		return FAIL(&d, "a row group of %zu rows, over the reader's bound of %u", rg_n, PQ_RMAX_RG_ROWS);
	if (grow_rows(c, 1) < 0 || tf_grow_n((void **)&r->raw, &r->raw_cap, (size_t)ch->len + 1, 1, false) < 0)
		return oom(&d);
	if (ch->num_values != (int64_t)rg_n)
		return FAIL(&d, "a column chunk of %lld values in a row group of %zu rows", (long long)ch->num_values,
			    rg_n);
	TF_TRY(pq_rread(r, ch->start, r->raw, (size_t)ch->len, err));
	const uint8_t *raw = r->raw;
	size_t len = (size_t)ch->len, at = 0;
	bool data_seen = false;
	while (d.filled < rg_n) {
		d.off = ch->start + (int64_t)at;
		if (at >= len)
			return FAIL(&d, "the column chunk ends after %zu of its %zu rows", d.filled, rg_n);
		pq_tin t = { .p = raw + at, .end = raw + len };
		page pg;
		TF_TRY(page_header(&d, &t, &pg));
		size_t body = (size_t)(t.p - raw);
		if ((uint64_t)pg.comp > len - body)
			return FAIL(&d, "a page of %lld bytes past the column chunk's end", (long long)pg.comp);
		at = body + (size_t)pg.comp;
		if (pg.type == PT_DICT) {
			if (data_seen || c->ndict)
				return FAIL(&d, "a dictionary page after the first page");
			const uint8_t *p;
			TF_TRY(decompress(&d, raw + body, (size_t)pg.comp, (size_t)pg.uncomp, &p));
			TF_TRY(dictionary(&d, p, (size_t)pg.uncomp, pg.nv, pg.enc));
		} else if (pg.type == PT_DATA || pg.type == PT_DATA_V2) {
			data_seen = true;
			TF_TRY(data_page(&d, &pg, raw + body, (size_t)pg.comp, rg_n));
		} else if (pg.type != PT_INDEX) {
			return FAIL(&d, "a page of type %d", pg.type);
		}
	}
	return 0;
}

int pq_rload(pq_reader *r, int g, tf_error *err)
{
	for (int col = 0; col < r->ncols; col++)
		if (r->cols[col].used)
			TF_TRY(load_chunk(r, g, col, err));
	return 0;
}
