/* pprof.c - writes a tf_agg as profile.proto, gzipped, as a stream.
 *
 * One sample per (call path, label set): values are the leaf's calls and
 * SELF time (plus selected counters), so pprof's flat = self and cum =
 * inclusive, and the profile total is the threads' busy time, counted once.
 * Locations are leaf-first, one per distinct frame, ids from 1; one function
 * per distinct frame, "path/file.py(123): fn" split into name fn, file and
 * line, the full text kept as the system name.
 *
 * One mapping (id 1), which every location points at: file name the agg's
 * main_file (the first input's base name), no addresses (memory_start and
 * limit 0), has_functions, has_filenames and has_line_numbers set, so pprof
 * knows the profile is symbolized: it neither looks for the binary nor says
 * "Main binary filename not available".
 *
 * Canonical: samples are written in the aggregate's canonical order
 * (tf_agg_sample_order: call paths in preorder with children by frame
 * bytes, then label sets by content) and comments in byte order, so the
 * bytes depend only on the aggregate's content, never on the order it was
 * built or merged in (docs/cli.md "tracefold profile").
 *
 * Streaming: the protobuf is written by hand, field by field, into the gzip
 * output (or a memory buffer for tf_pprof_encode).  A first pass numbers
 * strings, functions and locations in the order the encoder meets them
 * (walking the samples in that order); the second writes.  Memory is per node, per distinct frame and per string,
 * never per sample x depth (a sample's location ids are written by walking
 * its path; the byte size of that packed field is kept per node, its
 * parent's plus its own id's) nor per sample x type (one sample's values at
 * a time, from the agg's sparse counters).  The bytes are those protobuf-c packs for
 * profile.proto (proto3: fields in number order, zero scalars left out,
 * repeated scalars packed, negative int64s as 10-byte varints), so profiles
 * are byte-identical to the protobuf-c encoder this replaced; the unit tests
 * decode the output with protobuf-c's generated decoder. */
#include <stdlib.h>
#include <string.h>
#include "tracefold/pprof.h"
#include "tracefold/io.h"
#include "buf.h"
#include "hmap.h"
#include "msort.h"

/* ---- protobuf output: varints and length-delimited fields into a small
 * buffer, flushed to a tf_out or appended to a memory buffer */

typedef struct pbout {
	tf_out *out;            /* NULL: memory */
	unsigned char *mem;
	size_t mem_len, mem_cap;
	int rc;                 /* first failure */
	size_t len;
	unsigned char buf[64 * 1024];
} pbout;

static void pb_flush(pbout *w)
{
	if (w->rc == 0 && w->len) {
		if (w->out) {
			if (tf_out_write(w->out, w->buf, w->len) < 0)
				w->rc = TF_EIO;
		} else {
			if (tf_grow_n((void **)&w->mem, &w->mem_cap, w->mem_len + w->len, 1, false) < 0) {
				w->rc = TF_ENOMEM;
				w->len = 0;
				return;
			}
			memcpy(w->mem + w->mem_len, w->buf, w->len);
			w->mem_len += w->len;
		}
	}
	w->len = 0;
}

static inline void pb_varint(pbout *w, uint64_t v)
{
	if (w->len + TF_VARINT_MAX > sizeof(w->buf))
		pb_flush(w);
	w->len += tf_varint_encode(w->buf + w->len, v);
}

static void pb_raw(pbout *w, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n) {
		if (w->len == sizeof(w->buf))
			pb_flush(w);
		size_t k = sizeof(w->buf) - w->len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->len, b, k);
		w->len += k;
		b += k;
		n -= k;
	}
}

/* A varint field (int64, uint64, bool): left out when 0, as proto3 does. */
static inline size_t int_size(unsigned field, int64_t v)
{
	return v ? tf_varint_size((uint64_t)field << 3) + tf_varint_size((uint64_t)v) : 0;
}
static inline void pb_int(pbout *w, unsigned field, int64_t v)
{
	if (!v)
		return;
	pb_varint(w, (uint64_t)field << 3);
	pb_varint(w, (uint64_t)v);
}
/* The key and length of a length-delimited field (message, string, packed). */
static inline size_t len_size(unsigned field, size_t len)
{
	return tf_varint_size((uint64_t)field << 3 | 2) + tf_varint_size(len) + len;
}
static inline void pb_len(pbout *w, unsigned field, size_t len)
{
	pb_varint(w, (uint64_t)field << 3 | 2);
	pb_varint(w, len);
}

/* ---- numbering: strings, functions, locations */

typedef struct fn_rec {
	int64_t name, system_name, filename, start_line;
} fn_rec;

typedef struct loc_rec {
	uint32_t fn;        /* function id */
	int64_t line;
} loc_rec;

typedef struct enc {
	const tf_agg *agg;
	tf_strtab *st;
	tf_hmap str_idx;     /* tf_str -> pprof string index */
	tf_str *strings;
	uint32_t nstrings, capstrings;
	tf_hmap fn_idx;      /* frame tf_str -> function index */
	fn_rec *fns;
	uint32_t nfns, capfns;
	tf_hmap loc_idx;     /* frame tf_str -> location index */
	loc_rec *locs;
	uint32_t nlocs, caplocs;
	uint32_t *node_loc;    /* node -> location id (0 = not yet) */
	uint64_t *node_bytes;  /* node -> bytes of its path's location ids as varints */
	uint32_t *walk;        /* nodes met going up a path */
	uint32_t capwalk;
	int ntypes;
	int64_t *vt_type, *vt_unit; /* sample types' string indices */
	int64_t *vals;         /* one sample's values */
	int64_t *comments;     /* string index of each comment, in com_order */
	uint32_t *com_order;   /* the comments sorted by their bytes */
	uint32_t *order;       /* the samples in canonical order (tf_agg_sample_order) */
	int64_t map_file;
	tf_agg_meta meta;
	int dt;                /* default sample type, -1 none */
} enc;

static int64_t str_index(enc *e, tf_str s)
{
	uint32_t i = tf_hmap_get(&e->str_idx, s);
	if (i != UINT32_MAX)
		return i;
	if (tf_grow((void **)&e->strings, &e->capstrings, e->nstrings + 1, sizeof(tf_str)) < 0)
		return -1;
	i = e->nstrings;
	if (tf_hmap_put(&e->str_idx, s, i) < 0)
		return -1;
	e->strings[e->nstrings++] = s;
	return i;
}

static int64_t cstr_index(enc *e, const char *s)
{
	tf_str id = tf_strtab_intern_cstr(e->st, s);
	return id == (tf_str)-1 ? -1 : str_index(e, id);
}

/* "path/file.py(123): fn" -> fn, path/file.py, 123.  Returns 0 if no match. */
static int split_frame(const char *s, size_t len, size_t *file_len, long *line, size_t *fn_off)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '(' || i == 0)
			continue;
		size_t j = i + 1;
		long v = 0;
		while (j < len && s[j] >= '0' && s[j] <= '9' && v < 100000000)
			v = v * 10 + (s[j++] - '0');
		if (j == i + 1 || j + 2 >= len || s[j] != ')' || s[j + 1] != ':' || s[j + 2] != ' ')
			continue;
		*file_len = i;
		*line = v;
		*fn_off = j + 3;
		return 1;
	}
	return 0;
}

static int64_t location_for(enc *e, tf_str frame)
{
	uint32_t li = tf_hmap_get(&e->loc_idx, frame);
	if (li != UINT32_MAX)
		return (int64_t)li + 1;
	const char *text = tf_strtab_get(e->st, frame);
	size_t len = tf_strtab_len(e->st, frame);
	size_t file_len = 0, fn_off = 0;
	long line = 0;
	tf_str file = 0;
	if (split_frame(text, len, &file_len, &line, &fn_off) && fn_off < len) {
		file = tf_strtab_intern(e->st, text, file_len);
		if (file == (tf_str)-1)
			return -1;
	}
	/* one function per distinct frame text, named by the whole text as
	 * `tracefold top` prints it (a Python frame "file.py(10): f" keeps its
	 * file and line in filename and start_line too); system_name "":
	 * pprof "demangles" a function whose system_name is its name and
	 * looks like C++ (<...>, ::, [...]), cutting every <...> and (...) out
	 * of it ("<built-in method ...>" became ""), and leaves one whose name
	 * differs from its system_name as it is */
	uint64_t fkey = frame;
	uint32_t fi = tf_hmap_get(&e->fn_idx, fkey);
	if (fi == UINT32_MAX) {
		if (tf_grow((void **)&e->fns, &e->capfns, e->nfns + 1, sizeof(fn_rec)) < 0)
			return -1;
		fi = e->nfns;
		if (tf_hmap_put(&e->fn_idx, fkey, fi) < 0)
			return -1;
		fn_rec f = { str_index(e, frame), 0, str_index(e, file), line };
		if (f.name < 0 || f.filename < 0)
			return -1;
		e->fns[e->nfns++] = f;
	}
	if (tf_grow((void **)&e->locs, &e->caplocs, e->nlocs + 1, sizeof(loc_rec)) < 0)
		return -1;
	li = e->nlocs++;
	if (tf_hmap_put(&e->loc_idx, frame, li) < 0)
		return -1;
	e->locs[li] = (loc_rec){ fi + 1, line };
	return (int64_t)li + 1;
}

/* The fields of a label: string indices of key and str (or num_unit). */
typedef struct label_rec {
	int64_t key, str, num, num_unit;
} label_rec;

static int label_fields(enc *e, const tf_label *l, label_rec *out)
{
	*out = (label_rec){ str_index(e, l->key), 0, 0, 0 };
	if (l->str)
		out->str = str_index(e, l->str);
	else {
		out->num = l->num;
		out->num_unit = l->num_unit ? str_index(e, l->num_unit) : 0;
	}
	return out->key < 0 || out->str < 0 || out->num_unit < 0 ? TF_ENOMEM : 0;
}

static size_t label_size(const label_rec *l)
{
	return int_size(1, l->key) + int_size(2, l->str) + int_size(3, l->num) + int_size(4, l->num_unit);
}

/* pprof drops all-zero samples; the root has no frame */
static int sample_written(const enc *e, size_t i, const tf_agg_sample *s)
{
	return s->node != TF_AGG_ROOT && tf_agg_sample_nonzero(e->agg, i);
}

static void enc_free(enc *e)
{
	tf_hmap_free(&e->str_idx);
	tf_hmap_free(&e->fn_idx);
	tf_hmap_free(&e->loc_idx);
	free(e->strings);
	free(e->fns);
	free(e->locs);
	free(e->node_loc);
	free(e->node_bytes);
	free(e->walk);
	free(e->vt_type);
	free(e->vt_unit);
	free(e->vals);
	free(e->comments);
	free(e->com_order);
	free(e->order);
}

static int comment_cmp(const void *ctx, uint32_t x, uint32_t y)
{
	const tf_agg *agg = ctx;
	const char *a = tf_agg_comment_get(agg, x), *b = tf_agg_comment_get(agg, y);
	return tf_bytes_cmp(a, strlen(a), b, strlen(b));
}

/* Pass 1: every string, function and location gets its index in the order
 * the protobuf-c encoder assigned them (string 0 "", the sample types, then
 * per written sample its new locations leaf first and its labels, the
 * mapping's file, the comments).  Samples are walked in the agg's canonical
 * order (tf_agg_sample_order) and comments in byte order, so every number
 * depends only on the aggregate's content, not on the order it was built
 * in.  Allocates all the writer needs: pass 2 fails only on output errors. */
static int enc_prepare(enc *e, const tf_agg *agg)
{
	memset(e, 0, sizeof(*e));
	e->agg = agg;
	e->st = tf_agg_strtab(agg);
	e->ntypes = tf_agg_ntypes(agg);
	e->meta = *tf_agg_meta_get((tf_agg *)agg);
	e->dt = tf_agg_default_type(agg);
	size_t nsamp = tf_agg_nsamples(agg), ncom = tf_agg_ncomments(agg);
	uint32_t nnodes = tf_agg_nnodes(agg);
	e->vt_type = calloc((size_t)e->ntypes + 1, sizeof(int64_t));
	e->vt_unit = calloc((size_t)e->ntypes + 1, sizeof(int64_t));
	e->vals = calloc((size_t)e->ntypes + 1, sizeof(int64_t));
	e->comments = calloc(ncom + 1, sizeof(int64_t));
	e->com_order = calloc(2 * ncom + 1, sizeof(uint32_t)); /* and the sort's scratch */
	e->node_loc = calloc(nnodes, sizeof(uint32_t));
	e->node_bytes = calloc(nnodes, sizeof(uint64_t));
	if (!e->vt_type || !e->vt_unit || !e->vals || !e->comments || !e->com_order || !e->node_loc ||
	    !e->node_bytes || tf_agg_sample_order(agg, &e->order) < 0)
		return TF_ENOMEM;
	for (size_t i = 0; i < ncom; i++)
		e->com_order[i] = (uint32_t)i;
	tf_msort_u32(e->com_order, e->com_order + ncom, ncom, comment_cmp, agg);
	if (cstr_index(e, "") != 0)
		return TF_ENOMEM;
	for (int t = 0; t < e->ntypes; t++) {
		tf_sample_type st = tf_agg_type_get(agg, t);
		e->vt_type[t] = str_index(e, st.type);
		e->vt_unit[t] = str_index(e, st.unit);
		if (e->vt_type[t] < 0 || e->vt_unit[t] < 0)
			return TF_ENOMEM;
	}
	for (size_t o = 0; o < nsamp; o++) {
		size_t i = e->order[o];
		tf_agg_sample s = tf_agg_sample_get(agg, i);
		if (!sample_written(e, i, &s))
			continue;
		/* the nodes of a path that have a location form its top part
		 * (paths are numbered whole, leaf to root), so stop at the first */
		uint32_t nw = 0, n;
		for (n = s.node; n != TF_AGG_ROOT && !e->node_loc[n]; n = tf_agg_node_get(agg, n)->parent) {
			int64_t id = location_for(e, tf_agg_node_get(agg, n)->frame);
			if (id < 0 || tf_grow((void **)&e->walk, &e->capwalk, nw + 1, sizeof(uint32_t)) < 0)
				return TF_ENOMEM;
			e->node_loc[n] = (uint32_t)id;
			e->walk[nw++] = n;
		}
		while (nw--) {
			n = e->walk[nw];
			uint32_t p = tf_agg_node_get(agg, n)->parent;
			e->node_bytes[n] = tf_varint_size(e->node_loc[n]) + (p == TF_AGG_ROOT ? 0 : e->node_bytes[p]);
		}
		const tf_label *ls;
		int nls = tf_agg_labelset_get(agg, s.labelset, &ls);
		for (int k = 0; k < nls; k++) {
			label_rec l;
			TF_TRY(label_fields(e, &ls[k], &l));
		}
	}
	e->map_file = e->meta.main_file ? str_index(e, e->meta.main_file) : 0;
	if (e->map_file < 0)
		return TF_ENOMEM;
	for (size_t i = 0; i < ncom; i++) {
		e->comments[i] = cstr_index(e, tf_agg_comment_get(agg, e->com_order[i]));
		if (e->comments[i] < 0)
			return TF_ENOMEM;
	}
	return 0;
}

/* Pass 2: the Profile message, fields in number order. */
static int enc_write(enc *e, pbout *w)
{
	const tf_agg *agg = e->agg;
	int ntypes = e->ntypes;
	/* 1: sample_type */
	for (int t = 0; t < ntypes; t++) {
		pb_len(w, 1, int_size(1, e->vt_type[t]) + int_size(2, e->vt_unit[t]));
		pb_int(w, 1, e->vt_type[t]);
		pb_int(w, 2, e->vt_unit[t]);
	}
	/* 2: sample; location ids leaf first, one value per type, labels */
	size_t nsamp = tf_agg_nsamples(agg);
	for (size_t o = 0; o < nsamp && w->rc == 0; o++) {
		size_t i = e->order[o];
		tf_agg_sample s = tf_agg_sample_get(agg, i);
		if (!sample_written(e, i, &s))
			continue;
		tf_agg_sample_values(agg, i, e->vals); /* zeros included, as pprof wants */
		size_t loc_bytes = e->node_bytes[s.node], val_bytes = 0, size;
		for (int t = 0; t < ntypes; t++)
			val_bytes += tf_varint_size((uint64_t)e->vals[t]);
		size = len_size(1, loc_bytes) + len_size(2, val_bytes);
		const tf_label *ls;
		int nls = tf_agg_labelset_get(agg, s.labelset, &ls);
		label_rec lr[TF_AGG_MAX_LABELS];
		for (int k = 0; k < nls; k++) {
			if ((w->rc = label_fields(e, &ls[k], &lr[k])) < 0) /* numbered in pass 1: cannot fail */
				return w->rc;
			size += len_size(3, label_size(&lr[k]));
		}
		pb_len(w, 2, size);
		pb_len(w, 1, loc_bytes);
		for (uint32_t n = s.node; n != TF_AGG_ROOT; n = tf_agg_node_get(agg, n)->parent)
			pb_varint(w, e->node_loc[n]);
		pb_len(w, 2, val_bytes);
		for (int t = 0; t < ntypes; t++)
			pb_varint(w, (uint64_t)e->vals[t]);
		for (int k = 0; k < nls; k++) {
			pb_len(w, 3, label_size(&lr[k]));
			pb_int(w, 1, lr[k].key);
			pb_int(w, 2, lr[k].str);
			pb_int(w, 3, lr[k].num);
			pb_int(w, 4, lr[k].num_unit);
		}
	}
	/* 3: mapping: id 1, filename, has_functions/filenames/line_numbers */
	pb_len(w, 3, int_size(1, 1) + int_size(5, e->map_file) + int_size(7, 1) + int_size(8, 1) + int_size(9, 1));
	pb_int(w, 1, 1);
	pb_int(w, 5, e->map_file);
	pb_int(w, 7, 1);
	pb_int(w, 8, 1);
	pb_int(w, 9, 1);
	/* 4: location: id, mapping 1, one line */
	for (uint32_t i = 0; i < e->nlocs; i++) {
		const loc_rec *l = &e->locs[i];
		size_t line = int_size(1, l->fn) + int_size(2, l->line);
		pb_len(w, 4, int_size(1, (int64_t)i + 1) + int_size(2, 1) + len_size(4, line));
		pb_int(w, 1, (int64_t)i + 1);
		pb_int(w, 2, 1);
		pb_len(w, 4, line);
		pb_int(w, 1, l->fn);
		pb_int(w, 2, l->line);
	}
	/* 5: function */
	for (uint32_t i = 0; i < e->nfns; i++) {
		const fn_rec *f = &e->fns[i];
		pb_len(w, 5, int_size(1, (int64_t)i + 1) + int_size(2, f->name) + int_size(3, f->system_name) +
				     int_size(4, f->filename) + int_size(5, f->start_line));
		pb_int(w, 1, (int64_t)i + 1);
		pb_int(w, 2, f->name);
		pb_int(w, 3, f->system_name);
		pb_int(w, 4, f->filename);
		pb_int(w, 5, f->start_line);
	}
	/* 6: string_table (C strings, as protobuf-c took them) */
	for (uint32_t i = 0; i < e->nstrings; i++) {
		const char *text = tf_strtab_get(e->st, e->strings[i]);
		size_t len = strlen(text);
		pb_len(w, 6, len);
		pb_raw(w, text, len);
	}
	/* 9, 10: time; 11, 12: period; 13: comments; 14: default type */
	pb_int(w, 9, e->meta.time_nanos);
	pb_int(w, 10, e->meta.duration_nanos);
	if (e->dt >= 0) {
		pb_len(w, 11, int_size(1, e->vt_type[e->dt]) + int_size(2, e->vt_unit[e->dt]));
		pb_int(w, 1, e->vt_type[e->dt]);
		pb_int(w, 2, e->vt_unit[e->dt]);
		pb_int(w, 12, e->meta.period ? e->meta.period : 1);
	}
	size_t ncom = tf_agg_ncomments(agg), com_bytes = 0;
	for (size_t i = 0; i < ncom; i++)
		com_bytes += tf_varint_size((uint64_t)e->comments[i]);
	if (ncom) {
		pb_len(w, 13, com_bytes);
		for (size_t i = 0; i < ncom; i++)
			pb_varint(w, (uint64_t)e->comments[i]);
	}
	if (e->dt >= 0)
		pb_int(w, 14, e->vt_type[e->dt]);
	pb_flush(w);
	return w->rc;
}

int tf_pprof_encode(const tf_agg *agg, unsigned char **buf_out, size_t *len_out, tf_error *err)
{
	enc e;
	pbout *w = calloc(1, sizeof(*w));
	int rc = w ? enc_prepare(&e, agg) : TF_ENOMEM;
	if (rc == 0)
		rc = enc_write(&e, w);
	if (rc == 0 && !w->mem && !(w->mem = malloc(1)))
		rc = TF_ENOMEM;
	if (rc == 0) {
		*buf_out = w->mem;
		*len_out = w->mem_len;
	} else {
		tf_error_set(err, rc, NULL, -1, -1, "cannot encode profile: %s", tf_strerror(rc));
		if (w)
			free(w->mem);
	}
	if (w)
		enc_free(&e);
	free(w);
	return rc;
}

int tf_pprof_write(const tf_agg *agg, const char *path, tf_error *err)
{
	enc e;
	pbout *w = calloc(1, sizeof(*w));
	int rc = w ? enc_prepare(&e, agg) : TF_ENOMEM;
	if (rc < 0) {
		tf_error_set(err, rc, NULL, -1, -1, "cannot encode profile: %s", tf_strerror(rc));
		goto out;
	}
	/* numbering done and everything allocated: only output can fail now */
	rc = tf_out_open(&w->out, path, true, err);
	if (rc < 0)
		goto out;
	rc = enc_write(&e, w);
	if (rc < 0 && rc != TF_EIO) {
		tf_out_abort(w->out); /* path untouched */
		tf_error_set(err, rc, NULL, -1, -1, "cannot encode profile: %s", tf_strerror(rc));
	} else {
		rc = tf_out_close(w->out, err); /* a failed write fails the close, with the message */
	}
out:
	if (w)
		enc_free(&e);
	free(w);
	return rc;
}
