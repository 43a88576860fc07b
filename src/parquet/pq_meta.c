/* pq_meta.c - the Parquet writer's statistics (min, max, null count per
 * page and column chunk) and its footer (FileMetaData in the Thrift compact
 * protocol).  The rest of the writer is pq.c; docs/parquet.md. */
#include <stdio.h>
#include <string.h>
#include "grow.h"
#include "pq.h"
#include "pq_int.h"

void pq_stats_thrift(pq_thrift *t, int16_t id, const pq_stats *s, int type)
{
	pq_t_begin(t, id);
	if (type != PQ_STRING) {
		/* the deprecated max/min: same order as min_value/max_value for
		 * signed integers, doubles and booleans */
		if (s->has_max)
			pq_t_bin(t, 1, s->max, s->maxn);
		if (s->has_min)
			pq_t_bin(t, 2, s->min, s->minn);
	}
	pq_t_i64(t, 3, s->nulls);
	if (s->has_max)
		pq_t_bin(t, 5, s->max, s->maxn);
	if (s->has_min)
		pq_t_bin(t, 6, s->min, s->minn);
	if (s->has_max)
		pq_t_bool(t, 7, s->max_exact);
	if (s->has_min)
		pq_t_bool(t, 8, s->min_exact);
	pq_t_end(t);
}

/* Writes one page: header (Thrift) then the compressed body.  type P_DICT
 * or P_DATA; st: the data page's statistics or NULL. */
/* ---- statistics */

sref pq_sref_at(const colbuf *cb, size_t i)
{
	sref r;
	memcpy(&r, cb->vals + i * sizeof(sref), sizeof(r));
	return r;
}

/* unsigned byte order, a prefix first */
int pq_str_cmp(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : an < bn ? -1 : an > bn;
}

void pq_live_add(live_stats *ls, int type, const colbuf *cb, size_t i)
{
	int64_t x = 0;
	switch (type) {
	case PQ_INT64:
		memcpy(&x, cb->vals + 8 * i, 8);
		break;
	case PQ_INT32: {
		int32_t y;
		memcpy(&y, cb->vals + 4 * i, 4);
		x = y;
		break;
	}
	case PQ_BOOL:
		x = cb->vals[i];
		break;
	case PQ_DOUBLE: {
		double d;
		memcpy(&d, cb->vals + 8 * i, 8);
		if (d != d)
			return; /* NaN: in no min/max */
		if (!ls->has || d < ls->dmin)
			ls->dmin = d;
		if (!ls->has || d > ls->dmax)
			ls->dmax = d;
		ls->has = true;
		return;
	}
	case PQ_STRING: {
		sref r = pq_sref_at(cb, i);
		const char *s = cb->arena + r.off;
		if (!ls->has || pq_str_cmp(s, r.len, ls->smin, ls->sminn) < 0) {
			ls->smin = s;
			ls->sminn = r.len;
		}
		if (!ls->has || pq_str_cmp(s, r.len, ls->smax, ls->smaxn) > 0) {
			ls->smax = s;
			ls->smaxn = r.len;
		}
		ls->has = true;
		return;
	}
	}
	if (!ls->has || x < ls->imin)
		ls->imin = x;
	if (!ls->has || x > ls->imax)
		ls->imax = x;
	ls->has = true;
}

void pq_live_merge(live_stats *a, const live_stats *b, int type)
{
	a->nulls += b->nulls;
	if (!b->has)
		return;
	if (!a->has) {
		int64_t n = a->nulls;
		*a = *b;
		a->nulls = n;
		return;
	}
	if (type == PQ_DOUBLE) {
		if (b->dmin < a->dmin)
			a->dmin = b->dmin;
		if (b->dmax > a->dmax)
			a->dmax = b->dmax;
	} else if (type == PQ_STRING) {
		if (pq_str_cmp(b->smin, b->sminn, a->smin, a->sminn) < 0) {
			a->smin = b->smin;
			a->sminn = b->sminn;
		}
		if (pq_str_cmp(b->smax, b->smaxn, a->smax, a->smaxn) > 0) {
			a->smax = b->smax;
			a->smaxn = b->smaxn;
		}
	} else {
		if (b->imin < a->imin)
			a->imin = b->imin;
		if (b->imax > a->imax)
			a->imax = b->imax;
	}
}

void pq_le_bytes(unsigned char *d, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		d[i] = (unsigned char)(v >> (8 * i));
}

/* The statistics as written: PLAIN-encoded min and max (strings truncated
 * to PQ_STAT_BYTES: the min to a prefix, the max to a prefix with its last
 * byte incremented, both then marked inexact). */
void pq_stats_fix(pq_stats *s, const live_stats *ls, int type)
{
	memset(s, 0, sizeof(*s));
	s->nulls = ls->nulls;
	if (!ls->has)
		return;
	s->has_min = s->has_max = s->min_exact = s->max_exact = true;
	switch (type) {
	case PQ_INT64:
	case PQ_INT32:
	case PQ_BOOL: {
		int n = type == PQ_INT64 ? 8 : type == PQ_INT32 ? 4 : 1;
		pq_le_bytes(s->min, (uint64_t)ls->imin, n);
		pq_le_bytes(s->max, (uint64_t)ls->imax, n);
		s->minn = s->maxn = (uint8_t)n;
		break;
	}
	case PQ_DOUBLE: {
		/* a zero min is written -0.0, a zero max +0.0 (parquet.thrift) */
		double lo = ls->dmin == 0 ? -0.0 : ls->dmin, hi = ls->dmax == 0 ? 0.0 : ls->dmax;
		uint64_t u;
		memcpy(&u, &lo, 8);
		pq_le_bytes(s->min, u, 8);
		memcpy(&u, &hi, 8);
		pq_le_bytes(s->max, u, 8);
		s->minn = s->maxn = 8;
		break;
	}
	case PQ_STRING:
		s->minn = (uint8_t)(ls->sminn < PQ_STAT_BYTES ? ls->sminn : PQ_STAT_BYTES);
		memcpy(s->min, ls->smin, s->minn);
		s->min_exact = ls->sminn <= PQ_STAT_BYTES;
		if (ls->smaxn <= PQ_STAT_BYTES) {
			memcpy(s->max, ls->smax, ls->smaxn);
			s->maxn = (uint8_t)ls->smaxn;
			break;
		}
		s->max_exact = false;
		s->has_max = false;
		for (int k = PQ_STAT_BYTES - 1; k >= 0; k--)
			if ((unsigned char)ls->smax[k] != 0xff) {
				memcpy(s->max, ls->smax, (size_t)k + 1);
				s->max[k]++;
				s->maxn = (uint8_t)(k + 1);
				s->has_max = true;
				break;
			}
		break;
	}
}

/* ---- the footer */

void pq_column_meta(pq_thrift *t, const pq_col *c, const chunk_meta *cm, int codec)
{
	static const int codecs[] = { [PQ_UNCOMPRESSED] = Z_UNCOMPRESSED, [PQ_ZSTD] = Z_ZSTD, [PQ_GZIP] = Z_GZIP };
	pq_t_begin(t, 3);
	pq_t_i32(t, 1, pq_phys_type[c->type]);
	int enc[3], n = 0;
	if (cm->dict_off >= 0)
		enc[n++] = E_PLAIN; /* the dictionary page */
	enc[n++] = cm->data_enc;
	if (c->nullable)
		enc[n++] = E_RLE; /* definition levels */
	pq_t_list(t, 2, PQ_T_I32, (size_t)n);
	for (int i = 0; i < n; i++)
		pq_t_elem_i32(t, enc[i]);
	pq_t_list(t, 3, PQ_T_BINARY, 1);
	pq_t_elem_bin(t, c->name, strlen(c->name));
	pq_t_i32(t, 4, codecs[codec]);
	pq_t_i64(t, 5, cm->num_values);
	pq_t_i64(t, 6, cm->uncomp);
	pq_t_i64(t, 7, cm->comp);
	pq_t_i64(t, 9, cm->data_off);
	if (cm->dict_off >= 0)
		pq_t_i64(t, 11, cm->dict_off);
	pq_stats_thrift(t, 12, &cm->st, c->type);
	pq_t_list(t, 13, PQ_T_STRUCT, cm->dict_off >= 0 ? 2 : 1);
	if (cm->dict_off >= 0) {
		pq_t_elem_begin(t);
		pq_t_i32(t, 1, P_DICT);
		pq_t_i32(t, 2, E_PLAIN);
		pq_t_i32(t, 3, 1);
		pq_t_end(t);
	}
	pq_t_elem_begin(t);
	pq_t_i32(t, 1, P_DATA);
	pq_t_i32(t, 2, cm->data_enc);
	pq_t_i32(t, 3, cm->data_pages);
	pq_t_end(t);
	pq_t_end(t);
}

void pq_write_footer(pq_file *f)
{
	tf_buf b = { 0 };
	pq_thrift t;
	pq_t_init(&t, &b);
	pq_t_i32(&t, 1, 2); /* version */
	pq_t_list(&t, 2, PQ_T_STRUCT, (size_t)f->ncols + 1);
	pq_t_elem_begin(&t);
	pq_t_str(&t, 4, "schema");
	pq_t_i32(&t, 5, f->ncols);
	pq_t_end(&t);
	for (int ci = 0; ci < f->ncols; ci++) {
		const pq_col *c = &f->cols[ci];
		pq_t_elem_begin(&t);
		pq_t_i32(&t, 1, pq_phys_type[c->type]);
		pq_t_i32(&t, 3, c->nullable ? 1 : 0); /* OPTIONAL : REQUIRED */
		pq_t_str(&t, 4, c->name);
		if (c->type == PQ_STRING) {
			pq_t_i32(&t, 6, c->json ? C_JSON : C_UTF8);
			pq_t_begin(&t, 10);                /* logicalType */
			pq_t_begin(&t, c->json ? 12 : 1);  /* JsonType : StringType */
			pq_t_end(&t);
			pq_t_end(&t);
		}
		pq_t_end(&t);
	}
	pq_t_i64(&t, 3, (int64_t)f->total_rows);
	pq_t_list(&t, 4, PQ_T_STRUCT, f->nrg);
	for (size_t g = 0; g < f->nrg; g++) {
		const rg_meta *rg = &f->rgs[g];
		pq_t_elem_begin(&t);
		pq_t_list(&t, 1, PQ_T_STRUCT, (size_t)f->ncols);
		for (int ci = 0; ci < f->ncols; ci++) {
			const chunk_meta *cm = &f->chunks[g * (size_t)f->ncols + (size_t)ci];
			pq_t_elem_begin(&t);
			pq_t_i64(&t, 2, cm->start);
			pq_column_meta(&t, &f->cols[ci], cm, f->codec);
			pq_t_end(&t);
		}
		pq_t_i64(&t, 2, rg->uncomp);
		pq_t_i64(&t, 3, rg->rows);
		pq_t_i64(&t, 5, rg->off);
		pq_t_i64(&t, 6, rg->comp);
		if (g <= INT16_MAX)
			pq_t_i16(&t, 7, (int16_t)g);
		pq_t_end(&t);
	}
	if (f->nkv) {
		pq_t_list(&t, 5, PQ_T_STRUCT, f->nkv / 2);
		for (size_t i = 0; i < f->nkv; i += 2) {
			pq_t_elem_begin(&t);
			pq_t_str(&t, 1, f->kv[i]);
			pq_t_str(&t, 2, f->kv[i + 1]);
			pq_t_end(&t);
		}
	}
	pq_t_str(&t, 6, f->created_by);
	pq_t_list(&t, 7, PQ_T_STRUCT, (size_t)f->ncols);
	for (int ci = 0; ci < f->ncols; ci++) {
		pq_t_elem_begin(&t);
		pq_t_begin(&t, 1); /* TYPE_ORDER */
		pq_t_end(&t);
		pq_t_end(&t);
	}
	pq_t_stop(&t);
	if (b.oom || b.n > UINT32_MAX) {
		tf_buf_free(&b);
		pq_oom(f);
		return;
	}
	unsigned char tail[8];
	pq_le_bytes(tail, b.n, 4);
	memcpy(tail + 4, "PAR1", 4);
	pq_emit(f, b.p, b.n);
	pq_emit(f, tail, 8);
	tf_buf_free(&b);
}

