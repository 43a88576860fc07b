/* pq_read.c - the streaming Parquet reader (pq_read.h): the file's footer
 * (FileMetaData, Thrift compact) read and checked at open; then, per row
 * group, the asked-for column chunks decoded (pq_rpage.c) and handed out
 * row by row.  Spec facts relied on: docs/parquet.md, "Reading". */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "pq.h"
#include "pq_int.h"
#include "pq_rint.h"

int pq_rfail(const pq_reader *r, tf_error *err, int64_t off, int col, const char *fmt, ...)
{
	char m[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (col >= 0 && col < r->ncols)
		return tf_error_set(err, TF_EFORMAT, r->path, off, -1, "column '%s': %s", r->cols[col].name, m);
	return tf_error_set(err, TF_EFORMAT, r->path, off, -1, "%s", m);
}

/* ---- the footer */

typedef struct footer {
	pq_reader *r;
	pq_tin t;
	const uint8_t *base;   /* the footer's first byte */
	int64_t base_off;      /* its file offset */
	tf_error *err;
	int nleaf;             /* schema leaves seen */
	int root_children;
} footer;

static int64_t foff(const footer *fo)
{
	return fo->base_off + (fo->t.p - fo->base);
}

static int fbad(footer *fo, const char *what)
{
	return pq_rfail(fo->r, fo->err, foff(fo), -1, "%s", what);
}

static char *dupbin(pq_tin *t)
{
	size_t n;
	const uint8_t *p = pq_tin_bin(t, &n);
	char *s = malloc(n + 1);
	if (s) {
		if (n)
			memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

/* One SchemaElement: the root (elem 0) or a leaf. */
static int schema_elem(footer *fo, size_t elem)
{
	pq_tin *t = &fo->t;
	int16_t last = 0, id;
	int ty, phys = -1, rep = 0, nchild = 0, conv = -1;
	char *name = NULL;
	while (pq_tin_field(t, &last, &ty, &id)) {
		switch (id) {
		case 1: phys = (int)pq_tin_int(t, ty); break;
		case 3: rep = (int)pq_tin_int(t, ty); break;
		case 4: free(name); name = dupbin(t); if (!name) return tf_error_set(fo->err, TF_ENOMEM, fo->r->path, -1, -1, "out of memory"); break;
		case 5: nchild = (int)pq_tin_int(t, ty); break;
		case 6: conv = (int)pq_tin_int(t, ty); break;
		default: pq_tin_skip(t, ty);
		}
	}
	if (t->bad) {
		free(name);
		return fbad(fo, "the footer's schema is damaged");
	}
	if (elem == 0) {
		free(name);
		fo->root_children = nchild;
		return 0;
	}
	pq_rcol *c = &fo->r->cols[elem - 1];
	c->name = name ? name : strdup("");
	if (!c->name)
		return tf_error_set(fo->err, TF_ENOMEM, fo->r->path, -1, -1, "out of memory");
	c->schema_off = foff(fo);
	if (nchild > 0 || rep == 2)
		return pq_rfail(fo->r, fo->err, foff(fo), (int)elem - 1, "a nested or repeated column (a LIST, MAP or "
				"STRUCT): only flat tables are read");
	c->phys = phys;
	c->nullable = rep == 1;
	switch (phys) {
	case PQR_BOOL: c->type = PQ_BOOL; break;
	case PQR_INT32: case PQR_INT64: c->type = PQ_INT64; break;
	case PQR_FLOAT: case PQR_DOUBLE: c->type = PQ_DOUBLE; break;
	case PQR_BYTE_ARRAY: c->type = PQ_STRING; break;
	default: c->type = -1; /* INT96, FIXED_LEN_BYTE_ARRAY: refused when asked for */
	}
	(void)conv;
	fo->nleaf++;
	return 0;
}

static int read_schema(footer *fo)
{
	int et;
	size_t n = pq_tin_list(&fo->t, &et);
	if (fo->t.bad || et != PQ_T_STRUCT || n < 2)
		return fbad(fo, n < 2 && !fo->t.bad ? "a schema with no columns" : "the footer's schema is damaged");
	if (n - 1 > 32767)
		return fbad(fo, "a schema of over 32767 columns");
	fo->r->ncols = (int)(n - 1);
	fo->r->cols = calloc(n - 1, sizeof(pq_rcol));
	if (!fo->r->cols)
		return tf_error_set(fo->err, TF_ENOMEM, fo->r->path, -1, -1, "out of memory");
	for (size_t i = 0; i < n; i++)
		TF_TRY(schema_elem(fo, i));
	if (fo->root_children != fo->r->ncols)
		return fbad(fo, "the schema's root has another number of children than leaves (a nested schema?)");
	return 0;
}

static int col_meta(footer *fo, pq_rchunk *ch, int col)
{
	pq_tin *t = &fo->t;
	int16_t last = 0, id;
	int ty, et;
	int64_t data_off = -1, dict_off = -1;
	ch->len = -1;
	while (pq_tin_field(t, &last, &ty, &id)) {
		switch (id) {
		case 3: { /* path_in_schema: one name, the column's */
			size_t n = pq_tin_list(t, &et);
			if (n != 1 && !t->bad)
				return pq_rfail(fo->r, fo->err, foff(fo), col, "a nested column path");
			for (size_t i = 0; i < n; i++)
				pq_tin_skip(t, et);
			break;
		}
		case 4: ch->codec = (int)pq_tin_int(t, ty); break;
		case 5: ch->num_values = pq_tin_int(t, ty); break;
		case 7: ch->len = pq_tin_int(t, ty); break;
		case 9: data_off = pq_tin_int(t, ty); break;
		case 11: dict_off = pq_tin_int(t, ty); break;
		default: pq_tin_skip(t, ty);
		}
	}
	if (t->bad)
		return fbad(fo, "a column chunk's metadata is damaged");
	/* some writers set dictionary_page_offset 0 for "none" */
	ch->start = dict_off > 0 && dict_off < data_off ? dict_off : data_off;
	if (ch->start < 4 || ch->len < 0 || ch->start > fo->base_off || ch->len > fo->base_off - ch->start)
		return pq_rfail(fo->r, fo->err, foff(fo), col, "a column chunk at byte %lld of %lld bytes, outside "
				"the file's data", (long long)ch->start, (long long)ch->len);
	if (ch->num_values < 0)
		return pq_rfail(fo->r, fo->err, foff(fo), col, "a negative value count");
	static const char *codecs[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW" };
	if (ch->codec != Z_UNCOMPRESSED && ch->codec != 1 && ch->codec != Z_GZIP && ch->codec != Z_ZSTD)
		return pq_rfail(fo->r, fo->err, foff(fo), col, "compression codec %s is not read (UNCOMPRESSED, "
				"SNAPPY, GZIP and ZSTD are)", ch->codec >= 0 && ch->codec <= 7 ? codecs[ch->codec] : "(unknown)");
	return 0;
}

static int row_group(footer *fo, int g)
{
	pq_tin *t = &fo->t;
	pq_reader *r = fo->r;
	int16_t last = 0, id;
	int ty, et;
	bool cols = false;
	r->rg_rows[g] = -1;
	while (pq_tin_field(t, &last, &ty, &id)) {
		if (id == 1 && ty == PQ_T_LIST) {
			size_t n = pq_tin_list(t, &et);
			if (t->bad || et != PQ_T_STRUCT || n != (size_t)r->ncols)
				return fbad(fo, "a row group without one column chunk per column");
			for (size_t c = 0; c < n; c++) {
				int16_t l2 = 0, id2;
				int ty2;
				pq_rchunk *ch = &r->chunks[(size_t)g * n + c];
				bool meta = false;
				while (pq_tin_field(t, &l2, &ty2, &id2)) {
					if (id2 == 1)
						return pq_rfail(r, fo->err, foff(fo), (int)c, "a column chunk in another file");
					if (id2 == 3 && ty2 == PQ_T_STRUCT) {
						TF_TRY(col_meta(fo, ch, (int)c));
						meta = true;
					} else if (id2 == 8 || id2 == 9) {
						return pq_rfail(r, fo->err, foff(fo), (int)c, "an encrypted column");
					} else {
						pq_tin_skip(t, ty2);
					}
				}
				if (!meta && !t->bad)
					return pq_rfail(r, fo->err, foff(fo), (int)c, "a column chunk without metadata");
			}
			cols = true;
		} else if (id == 3) {
			r->rg_rows[g] = pq_tin_int(t, ty);
		} else {
			pq_tin_skip(t, ty);
		}
	}
	if (t->bad || !cols || r->rg_rows[g] < 0)
		return fbad(fo, "a row group's metadata is damaged");
	return 0;
}

static int kv_list(footer *fo)
{
	pq_tin *t = &fo->t;
	pq_reader *r = fo->r;
	int et;
	size_t n = pq_tin_list(t, &et);
	if (t->bad || et != PQ_T_STRUCT)
		return fbad(fo, "the footer's key-value metadata is damaged");
	r->kv = calloc(2 * n + 1, sizeof(char *));
	if (!r->kv)
		return tf_error_set(fo->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
	for (size_t i = 0; i < n && !t->bad; i++) {
		int16_t last = 0, id;
		int ty;
		char *k = NULL, *v = NULL;
		while (pq_tin_field(t, &last, &ty, &id)) {
			if (id == 1 && ty == PQ_T_BINARY && !k)
				k = dupbin(t);
			else if (id == 2 && ty == PQ_T_BINARY && !v)
				v = dupbin(t);
			else
				pq_tin_skip(t, ty);
		}
		r->kv[r->nkv++] = k ? k : strdup("");
		r->kv[r->nkv++] = v ? v : strdup("");
		if (!r->kv[r->nkv - 1] || !r->kv[r->nkv - 2])
			return tf_error_set(fo->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
	}
	return t->bad ? fbad(fo, "the footer's key-value metadata is damaged") : 0;
}

static int parse_footer(footer *fo)
{
	pq_tin *t = &fo->t;
	pq_reader *r = fo->r;
	int16_t last = 0, id;
	int ty, et;
	bool schema = false, rows = false, rgs = false;
	while (pq_tin_field(t, &last, &ty, &id)) {
		if (id == 2 && ty == PQ_T_LIST && !schema) {
			TF_TRY(read_schema(fo));
			schema = true;
		} else if (id == 3) {
			int64_t n = pq_tin_int(t, ty);
			if (n < 0)
				return fbad(fo, "a negative row count");
			r->rows = (uint64_t)n;
			rows = true;
		} else if (id == 4 && ty == PQ_T_LIST && schema && !rgs) {
			size_t n = pq_tin_list(t, &et);
			if (t->bad || et != PQ_T_STRUCT || n > INT32_MAX)
				return fbad(fo, "the footer's row groups are damaged");
			/* each column chunk takes bytes of the footer: more than it
			 * holds is damage, not a reason to allocate */
			if (r->ncols && n > (size_t)(t->end - t->p) / (size_t)r->ncols)
				return fbad(fo, "the footer's row groups are more than its bytes can hold");
			r->nrg = (int)n;
			r->rg_rows = calloc(n + 1, sizeof(*r->rg_rows));
			r->chunks = calloc(n * (size_t)r->ncols + 1, sizeof(*r->chunks));
			if (!r->rg_rows || !r->chunks)
				return tf_error_set(fo->err, TF_ENOMEM, r->path, -1, -1, "out of memory");
			for (int g = 0; g < r->nrg; g++)
				TF_TRY(row_group(fo, g));
			rgs = true;
		} else if (id == 5 && ty == PQ_T_LIST && !r->kv) {
			TF_TRY(kv_list(fo));
		} else if (id == 8 || id == 9) {
			return fbad(fo, "an encrypted file");
		} else {
			pq_tin_skip(t, ty);
		}
	}
	if (t->bad || !schema || !rows)
		return fbad(fo, "the footer (FileMetaData) is damaged");
	uint64_t sum = 0;
	for (int g = 0; g < r->nrg; g++)
		sum += (uint64_t)r->rg_rows[g];
	if (sum != r->rows)
		return fbad(fo, "the row groups' row counts do not add up to the file's");
	return 0;
}

static int read_at(pq_reader *r, int64_t off, void *buf, size_t n, tf_error *err)
{
	if (fseeko(r->f, off, SEEK_SET) != 0 || fread(buf, 1, n, r->f) != n) {
		if (ferror(r->f))
			return tf_error_set(err, TF_EIO, r->path, off, -1, "cannot read %zu bytes", n);
		return pq_rfail(r, err, off, -1, "the file ends early");
	}
	return 0;
}

int pq_rread(pq_reader *r, int64_t off, void *buf, size_t n, tf_error *err)
{
	return read_at(r, off, buf, n, err);
}

static int open_footer(pq_reader *r, tf_error *err)
{
	uint8_t tail[8], head[4];
	if (r->size < 12)
		return pq_rfail(r, err, 0, -1, "not a Parquet file: %lld bytes, under the 12 of an empty one",
				(long long)r->size);
	TF_TRY(read_at(r, 0, head, 4, err));
	if (memcmp(head, "PAR1", 4) != 0)
		return pq_rfail(r, err, 0, -1, memcmp(head, "PARE", 4) ? "not a Parquet file (no PAR1 magic)" :
				"an encrypted file (PARE magic)");
	TF_TRY(read_at(r, r->size - 8, tail, 8, err));
	if (memcmp(tail + 4, "PAR1", 4) != 0)
		return pq_rfail(r, err, r->size - 4, -1, "no PAR1 magic at the end (a truncated or encrypted file?)");
	uint64_t flen = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 | (uint64_t)tail[3] << 24;
	if (flen == 0 || flen > (uint64_t)r->size - 12)
		return pq_rfail(r, err, r->size - 8, -1, "a footer length of %llu bytes in a file of %lld",
				(unsigned long long)flen, (long long)r->size);
	uint8_t *buf = malloc((size_t)flen);
	if (!buf)
		return tf_error_set(err, TF_ENOMEM, r->path, -1, -1, "out of memory");
	footer fo = { .r = r, .base = buf, .base_off = r->size - 8 - (int64_t)flen, .err = err };
	int rc = read_at(r, fo.base_off, buf, (size_t)flen, err);
	if (!rc) {
		fo.t.p = buf;
		fo.t.end = buf + flen;
		rc = parse_footer(&fo);
	}
	free(buf);
	return rc;
}

int pq_ropen(pq_reader **out, const char *path, tf_error *err)
{
	*out = NULL;
	pq_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	}
	r->rg = -1;
	r->f = fopen(path, "rb");
	if (!r->f) {
		pq_rclose(r);
		return tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
	}
	if (fseeko(r->f, 0, SEEK_END) != 0 || (r->size = ftello(r->f)) < 0) {
		pq_rclose(r);
		return tf_error_set(err, TF_EIO, path, -1, -1, "cannot seek");
	}
	int rc = open_footer(r, err);
	if (rc) {
		pq_rclose(r);
		return rc;
	}
	*out = r;
	return 0;
}

int pq_rncols(const pq_reader *r)
{
	return r->ncols;
}

const char *pq_rcol_name(const pq_reader *r, int col)
{
	return col >= 0 && col < r->ncols ? r->cols[col].name : NULL;
}

int pq_rcol_type(const pq_reader *r, int col)
{
	return col >= 0 && col < r->ncols ? r->cols[col].type : -1;
}

bool pq_rcol_nullable(const pq_reader *r, int col)
{
	return col >= 0 && col < r->ncols && r->cols[col].nullable;
}

int pq_rcol_find(const pq_reader *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (strcmp(r->cols[i].name, name) == 0)
			return i;
	return -1;
}

uint64_t pq_rrows(const pq_reader *r)
{
	return r->rows;
}

const char *pq_rkv(const pq_reader *r, const char *key)
{
	for (size_t i = 0; i + 1 < r->nkv; i += 2)
		if (strcmp(r->kv[i], key) == 0)
			return r->kv[i + 1];
	return NULL;
}

int pq_ruse(pq_reader *r, int col, tf_error *err)
{
	if (col < 0 || col >= r->ncols)
		return tf_error_set(err, TF_EUSAGE, r->path, -1, -1, "Parquet: no column %d", col);
	if (r->started)
		return tf_error_set(err, TF_EUSAGE, r->path, -1, -1, "Parquet: column '%s' asked for after the "
				    "first row", r->cols[col].name);
	if (r->cols[col].type < 0)
		return pq_rfail(r, err, r->cols[col].schema_off, col, "physical type %s is not read",
				r->cols[col].phys == PQR_INT96 ? "INT96" :
				r->cols[col].phys == PQR_FLBA ? "FIXED_LEN_BYTE_ARRAY" : "(unknown)");
	r->cols[col].used = true;
	return 0;
}

int pq_rnext(pq_reader *r, tf_error *err)
{
	r->started = true;
	if (r->done)
		return 0;
	while (r->rg < 0 || r->rg_i >= r->rg_n) {
		if (r->rg >= 0)
			r->row0 += r->rg_n;
		if (r->rg + 1 >= r->nrg) {
			r->done = true;
			return 0;
		}
		r->rg++;
		r->rg_n = (uint64_t)r->rg_rows[r->rg];
		r->rg_i = 0;
		int rc = pq_rload(r, r->rg, err);
		if (rc) {
			r->done = true;
			return rc;
		}
	}
	r->rg_i++;
	return 1;
}

static inline const pq_rcol *cur(const pq_reader *r, int col)
{
	if (col < 0 || col >= r->ncols || !r->cols[col].used || r->rg_i == 0 || r->done)
		return NULL;
	return &r->cols[col];
}

bool pq_rnull(const pq_reader *r, int col)
{
	const pq_rcol *c = cur(r, col);
	return !c || c->null[r->rg_i - 1];
}

int64_t pq_ri64(const pq_reader *r, int col)
{
	const pq_rcol *c = cur(r, col);
	if (!c || c->null[r->rg_i - 1])
		return 0;
	if (c->type == PQ_DOUBLE) {
		double d;
		memcpy(&d, &c->v[r->rg_i - 1], 8);
		/* saturated (a cast out of range is undefined); NaN reads 0 */
		return d != d ? 0 : d >= 0x1p63 ? INT64_MAX : d < -0x1p63 ? INT64_MIN : (int64_t)d;
	}
	return c->type == PQ_STRING ? 0 : (int64_t)c->v[r->rg_i - 1];
}

double pq_rf64(const pq_reader *r, int col)
{
	const pq_rcol *c = cur(r, col);
	if (!c || c->null[r->rg_i - 1])
		return 0;
	if (c->type == PQ_DOUBLE) {
		double d;
		memcpy(&d, &c->v[r->rg_i - 1], 8);
		return d;
	}
	return c->type == PQ_STRING ? 0 : (double)(int64_t)c->v[r->rg_i - 1];
}

bool pq_rbool(const pq_reader *r, int col)
{
	const pq_rcol *c = cur(r, col);
	return c && !c->null[r->rg_i - 1] && c->type != PQ_STRING && c->v[r->rg_i - 1] != 0;
}

const char *pq_rstr(const pq_reader *r, int col, size_t *len)
{
	const pq_rcol *c = cur(r, col);
	*len = 0;
	if (!c || c->type != PQ_STRING || c->null[r->rg_i - 1])
		return "";
	*len = c->len[r->rg_i - 1];
	return c->arena + c->v[r->rg_i - 1];
}

uint64_t pq_rrow(const pq_reader *r)
{
	return r->row0 + (r->rg_i ? r->rg_i - 1 : 0);
}

const char *pq_rpath(const pq_reader *r)
{
	return r->path;
}

void pq_rclose(pq_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	for (int i = 0; i < r->ncols && r->cols; i++) {
		pq_rcol *c = &r->cols[i];
		free(c->name);
		free(c->v);
		free(c->len);
		free(c->null);
		free(c->arena);
		free(c->dv);
		free(c->dlen);
	}
	free(r->cols);
	for (size_t i = 0; i < r->nkv; i++)
		free(r->kv[i]);
	free(r->kv);
	free(r->rg_rows);
	free(r->chunks);
	free(r->raw);
	free(r->page);
	free(r->idx);
	free(r->ival);
	free(r->path);
	free(r);
}
