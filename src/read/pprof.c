/* pprof.c (src/read) - reads a profile.proto (gzipped or not) into a tf_agg.
 *
 * Whole-message exception: a protobuf message can only be unpacked from one
 * contiguous buffer, so this reader (alone in tracefold) holds its whole
 * decompressed input in memory.  That is acceptable because a profile is an
 * aggregate, not a trace: its size grows with distinct call paths x label
 * sets, never with run length.  Inputs are still read through tf_in (gzip is
 * detected by its magic bytes, never by the file name).
 *
 * Validation follows pprof's Profile.CheckValid: string_table[0] == "", every
 * string index in range, sample/location/function/mapping ids non-zero and
 * unique, every referenced id defined, each sample has one value per sample
 * type.  Anything else is TF_EFORMAT naming the file.
 *
 * Mapping into the aggregate:
 *  - a sample's location_ids are leaf first; a location with several lines
 *    holds inlined frames, line[0] innermost.  The agg path is the reverse:
 *    root first, outermost inline frame before the inner ones.
 *  - frame name: the function's system_name when it is the name itself or
 *    ends in ": " + name (tracefold's writer stores the original frame text
 *    "file.py(12): fn" there and the short name fn in name, so a round trip
 *    is exact); otherwise name (a C++ system_name is a mangled symbol and
 *    name the readable one), else system_name.  A location without lines is
 *    named by its address "0x...", a sample without locations "[no location]".
 *  - labels: str and num labels, at most TF_AGG_MAX_LABELS per sample (the
 *    first ones by key order of the profile; more are dropped).
 *  - values: matched to the agg's types by (type, unit) name.
 *  - mappings are only validated; the first one's file name becomes the
 *    agg's main_file when it has none (a merge keeps the original input's
 *    name).  Addresses are dropped, so a location is its lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/pprof.h"
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "profile.pb-c.h"
#include "hmap.h"
#include "sat.h"

typedef Perftools__Profiles__Profile PB_Profile;

/* id -> index map for ids that must be non-zero and unique. */
static int index_ids(tf_hmap *m, const char *what, size_t n, const uint64_t *(*id_at)(const PB_Profile *, size_t),
		     const PB_Profile *p, const char *path, tf_error *err)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t id = *id_at(p, i);
		if (id == 0)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1,
					    "invalid profile: %s #%zu has id 0", what, i);
		if (tf_hmap_get(m, id) != UINT32_MAX)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1,
					    "invalid profile: %s id %" PRIu64 " is defined twice", what, id);
		if (tf_hmap_put(m, id, (uint32_t)i) < 0)
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	}
	return 0;
}

static const uint64_t *fn_id(const PB_Profile *p, size_t i) { return &p->function[i]->id; }
static const uint64_t *loc_id(const PB_Profile *p, size_t i) { return &p->location[i]->id; }
static const uint64_t *map_id(const PB_Profile *p, size_t i) { return &p->mapping[i]->id; }

#define STR_OK(p, s) ((s) >= 0 && (uint64_t)(s) < (p)->n_string_table)

static int bad(tf_error *err, const char *path, const char *what, size_t i, const char *field, int64_t v)
{
	return tf_error_set(err, TF_EFORMAT, path, -1, -1,
			    "invalid profile: %s #%zu: %s %" PRId64 " is out of range", what, i, field, v);
}

static int validate(const PB_Profile *p, tf_hmap *fns, tf_hmap *locs, tf_hmap *maps, const char *path,
		    tf_error *err)
{
	if (p->n_string_table == 0 || p->string_table[0][0] != '\0')
		return tf_error_set(err, TF_EFORMAT, path, -1, -1,
				    "invalid profile: string_table[0] must be the empty string");
	for (size_t i = 0; i < p->n_sample_type; i++) {
		if (!STR_OK(p, p->sample_type[i]->type))
			return bad(err, path, "sample_type", i, "type", p->sample_type[i]->type);
		if (!STR_OK(p, p->sample_type[i]->unit))
			return bad(err, path, "sample_type", i, "unit", p->sample_type[i]->unit);
	}
	TF_TRY(index_ids(maps, "mapping", p->n_mapping, map_id, p, path, err));
	TF_TRY(index_ids(fns, "function", p->n_function, fn_id, p, path, err));
	TF_TRY(index_ids(locs, "location", p->n_location, loc_id, p, path, err));
	for (size_t i = 0; i < p->n_mapping; i++) {
		if (!STR_OK(p, p->mapping[i]->filename))
			return bad(err, path, "mapping", i, "filename", p->mapping[i]->filename);
		if (!STR_OK(p, p->mapping[i]->build_id))
			return bad(err, path, "mapping", i, "build_id", p->mapping[i]->build_id);
	}
	for (size_t i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *f = p->function[i];
		if (!STR_OK(p, f->name))
			return bad(err, path, "function", i, "name", f->name);
		if (!STR_OK(p, f->system_name))
			return bad(err, path, "function", i, "system_name", f->system_name);
		if (!STR_OK(p, f->filename))
			return bad(err, path, "function", i, "filename", f->filename);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		if (l->mapping_id && tf_hmap_get(maps, l->mapping_id) == UINT32_MAX)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1,
					    "invalid profile: location id %" PRIu64 " refers to undefined mapping id %" PRIu64,
					    l->id, l->mapping_id);
		for (size_t k = 0; k < l->n_line; k++)
			if (tf_hmap_get(fns, l->line[k]->function_id) == UINT32_MAX)
				return tf_error_set(err, TF_EFORMAT, path, -1, -1,
						    "invalid profile: location id %" PRIu64 " refers to undefined function id %" PRIu64,
						    l->id, l->line[k]->function_id);
	}
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		if (s->n_value != p->n_sample_type)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1,
					    "invalid profile: sample #%zu has %zu values, the profile has %zu sample types",
					    i, s->n_value, p->n_sample_type);
		for (size_t k = 0; k < s->n_location_id; k++)
			if (s->location_id[k] == 0 || tf_hmap_get(locs, s->location_id[k]) == UINT32_MAX)
				return tf_error_set(err, TF_EFORMAT, path, -1, -1,
						    "invalid profile: sample #%zu refers to undefined location id %" PRIu64,
						    i, s->location_id[k]);
		for (size_t k = 0; k < s->n_label; k++) {
			const Perftools__Profiles__Label *l = s->label[k];
			if (!STR_OK(p, l->key) || l->key == 0)
				return bad(err, path, "sample", i, "label key", l->key);
			if (!STR_OK(p, l->str))
				return bad(err, path, "sample", i, "label str", l->str);
			if (!STR_OK(p, l->num_unit))
				return bad(err, path, "sample", i, "label num_unit", l->num_unit);
		}
	}
	for (size_t i = 0; i < p->n_comment; i++)
		if (!STR_OK(p, p->comment[i]))
			return bad(err, path, "comment", i, "string index", p->comment[i]);
	if (!STR_OK(p, p->default_sample_type))
		return bad(err, path, "profile", 0, "default_sample_type", p->default_sample_type);
	if (p->period_type && (!STR_OK(p, p->period_type->type) || !STR_OK(p, p->period_type->unit)))
		return bad(err, path, "profile", 0, "period_type", p->period_type->type);
	return 0;
}

static int ends_with_name(const char *sys, const char *name)
{
	size_t ls = strlen(sys), ln = strlen(name);
	return ls > ln + 2 && memcmp(sys + ls - ln - 2, ": ", 2) == 0 && strcmp(sys + ls - ln, name) == 0;
}

/* The frame name of a function (see the file comment). */
static const char *function_frame(const PB_Profile *p, const Perftools__Profiles__Function *f)
{
	const char *name = p->string_table[f->name];
	const char *sys = p->string_table[f->system_name];
	if (!*name)
		return sys;
	if (*sys && (strcmp(sys, name) == 0 || ends_with_name(sys, name)))
		return sys;
	return name;
}

static void pb_types_text(const PB_Profile *p, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t t = 0; t < p->n_sample_type && o < len; t++) {
		int w = snprintf(buf + o, len - o, "%s%s/%s", t ? " " : "", p->string_table[p->sample_type[t]->type],
				 p->string_table[p->sample_type[t]->unit]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

/* Maps the profile's sample types onto the agg's; fills map[t]. */
static int map_types(tf_agg *agg, const PB_Profile *p, int *map, const char *path, tf_error *err)
{
	int empty = tf_agg_ntypes(agg) == 0;
	int clash = 0;
	for (size_t t = 0; t < p->n_sample_type && !clash; t++) {
		const char *type = p->string_table[p->sample_type[t]->type];
		const char *unit = p->string_table[p->sample_type[t]->unit];
		/* a type the agg lacks is added (0 in its samples so far): the union */
		int i = empty || tf_agg_type_find(agg, type) < 0 ? tf_agg_type(agg, type, unit) : tf_agg_type_find(agg, type);
		if (i == TF_ENOMEM)
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		if (i < 0 || strcmp(tf_strtab_get(tf_agg_strtab(agg), tf_agg_type_get(agg, i).unit), unit) != 0) {
			if (empty)
				return tf_error_set(err, TF_EFORMAT, path, -1, -1,
						    "invalid profile: sample type '%s' appears twice", type);
			clash = 1;
			break;
		}
		map[t] = i;
	}
	if (clash) {
		char have[600], got[600];
		tf_agg_types_text(agg, have, sizeof(have));
		pb_types_text(p, got, sizeof(got));
		return tf_error_set(err, TF_ECLASH, path, -1, -1,
				    "a sample type has another unit: this profile has [%s], the profile it is added to has [%s]",
				    got, have);
	}
	if (empty) {
		const char *def = p->string_table[p->default_sample_type];
		if (*def) {
			int d = tf_agg_type_find(agg, def);
			if (d < 0)
				return tf_error_set(err, TF_EFORMAT, path, -1, -1,
						    "invalid profile: default_sample_type '%s' is not a sample type", def);
			tf_agg_set_default_type(agg, d);
		}
	}
	return 0;
}

typedef struct rd {
	const PB_Profile *p;
	tf_agg *agg;
	tf_strtab *st;
	tf_hmap fns, locs, maps;
	tf_str *fn_frame;       /* function index -> frame string */
} rd;

static int add_sample(rd *r, const Perftools__Profiles__Sample *s, const int *map, int64_t *vals,
		      tf_str *frames, size_t capframes, const char *path, tf_error *err)
{
	const PB_Profile *p = r->p;
	size_t nf = 0;
	/* leaf first, inner inline frames first */
	for (size_t k = 0; k < s->n_location_id; k++) {
		const Perftools__Profiles__Location *l = p->location[tf_hmap_get(&r->locs, s->location_id[k])];
		if (l->n_line == 0) {
			char buf[40];
			snprintf(buf, sizeof(buf), "0x%" PRIx64, l->address);
			tf_str id = tf_strtab_intern_cstr(r->st, buf);
			if (id == (tf_str)-1 || nf >= capframes)
				return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
			frames[nf++] = id;
			continue;
		}
		for (size_t j = 0; j < l->n_line; j++) {
			if (nf >= capframes)
				return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
			frames[nf++] = r->fn_frame[tf_hmap_get(&r->fns, l->line[j]->function_id)];
		}
	}
	uint32_t node = TF_AGG_ROOT;
	if (nf == 0) {
		node = tf_agg_child(r->agg, node, tf_strtab_intern_cstr(r->st, "[no location]"));
	} else {
		while (nf > 0 && node != (uint32_t)-1)
			node = tf_agg_child(r->agg, node, frames[--nf]);
	}
	if (node == (uint32_t)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	tf_label ls[TF_AGG_MAX_LABELS];
	int nl = 0;
	for (size_t k = 0; k < s->n_label && nl < TF_AGG_MAX_LABELS; k++) {
		const Perftools__Profiles__Label *l = s->label[k];
		tf_label x;
		memset(&x, 0, sizeof(x));
		x.key = tf_strtab_intern_cstr(r->st, p->string_table[l->key]);
		if (l->str) {
			x.str = tf_strtab_intern_cstr(r->st, p->string_table[l->str]);
		} else {
			x.num = l->num;
			x.num_unit = tf_strtab_intern_cstr(r->st, p->string_table[l->num_unit]);
		}
		if (x.key == (tf_str)-1 || x.str == (tf_str)-1 || x.num_unit == (tf_str)-1)
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		ls[nl++] = x;
	}
	uint32_t lset = tf_agg_labelset(r->agg, ls, nl);
	if (lset == (uint32_t)-1)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	int nt = tf_agg_ntypes(r->agg);
	memset(vals, 0, (size_t)nt * sizeof(int64_t));
	for (size_t t = 0; t < s->n_value; t++)
		vals[map[t]] = tf_sat_add(vals[map[t]], s->value[t]);
	if (tf_agg_add_values(r->agg, node, lset, vals) < 0)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	return 0;
}

static int walk_fields(const unsigned char *b, size_t n, size_t *at, size_t *fields);

int tf_pprof_read(tf_agg *agg, const char *path, tf_error *err)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	TF_TRY(tf_in_read_all(path, "profile", &buf, &len, err));
	PB_Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
	if (!p) {
		size_t at, fields;
		int w = walk_fields(buf, len, &at, &fields);
		free(buf);
		if (w == 1)
			return tf_error_set(err, TF_EFORMAT, path, (int64_t)len, -1,
					    "truncated pprof profile: the field at byte %zu runs past the end "
					    "(%zu bytes decompressed)", at, len);
		return tf_error_set(err, TF_EFORMAT, path, w < 0 ? (int64_t)at : -1, -1,
				    "not a valid pprof profile (profile.proto decoding failed)");
	}
	free(buf);
	rd r;
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.agg = agg;
	r.st = tf_agg_strtab(agg);
	int *map = NULL;
	int64_t *vals = NULL;
	tf_str *frames = NULL;
	int rc = validate(p, &r.fns, &r.locs, &r.maps, path, err);
	if (rc < 0)
		goto out;
	map = calloc(p->n_sample_type + 1, sizeof(int));
	if (!map) {
		rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		goto out;
	}
	int was_empty = tf_agg_ntypes(agg) == 0;
	rc = map_types(agg, p, map, path, err);
	if (rc < 0)
		goto out;
	r.fn_frame = calloc(p->n_function + 1, sizeof(tf_str));
	vals = calloc((size_t)tf_agg_ntypes(agg) + 1, sizeof(int64_t));
	size_t capframes = 1;
	for (size_t i = 0; i < p->n_sample; i++) {
		size_t n = 0;
		for (size_t k = 0; k < p->sample[i]->n_location_id; k++) {
			size_t nl = p->location[tf_hmap_get(&r.locs, p->sample[i]->location_id[k])]->n_line;
			n += nl ? nl : 1;
		}
		if (n > capframes)
			capframes = n;
	}
	frames = calloc(capframes, sizeof(tf_str));
	if (!r.fn_frame || !vals || !frames) {
		rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p->n_function; i++) {
		r.fn_frame[i] = tf_strtab_intern_cstr(r.st, function_frame(p, p->function[i]));
		if (r.fn_frame[i] == (tf_str)-1) {
			rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < p->n_sample; i++) {
		rc = add_sample(&r, p->sample[i], map, vals, frames, capframes, path, err);
		if (rc < 0)
			goto out;
	}
	/* span: earliest start, latest end */
	tf_agg_meta *m = tf_agg_meta_get(agg);
	if (p->time_nanos || p->duration_nanos) {
		if (!m->time_nanos && !m->duration_nanos) {
			m->time_nanos = p->time_nanos;
			m->duration_nanos = p->duration_nanos;
		} else {
			int64_t s0 = m->time_nanos < p->time_nanos ? m->time_nanos : p->time_nanos;
			int64_t e0 = tf_sat_add(m->time_nanos, m->duration_nanos);
			int64_t e1 = tf_sat_add(p->time_nanos, p->duration_nanos);
			m->time_nanos = s0;
			m->duration_nanos = tf_sat_sub(e0 > e1 ? e0 : e1, s0);
		}
	}
	if (was_empty && p->period)
		m->period = p->period;
	/* the main mapping's file name (ours: the input the profile was made from) */
	if (!m->main_file && p->n_mapping && p->string_table[p->mapping[0]->filename][0]) {
		m->main_file = tf_strtab_intern_cstr(r.st, p->string_table[p->mapping[0]->filename]);
		if (m->main_file == (tf_str)-1) {
			m->main_file = 0;
			rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
			goto out;
		}
	}
	/* comments already there are not repeated: a set of interned texts,
	 * linear in the number of comments */
	tf_hmap seen = { 0 };
	tf_strtab *st = tf_agg_strtab(agg);
	size_t n0 = tf_agg_ncomments(agg);
	for (size_t i = 0; i < n0 + p->n_comment; i++) {
		bool old = i < n0;
		const char *c = old ? tf_agg_comment_get(agg, i) : p->string_table[p->comment[i - n0]];
		tf_str id = tf_strtab_intern_cstr(st, c);
		bool dup = id != (tf_str)-1 && tf_hmap_get(&seen, id) != UINT32_MAX;
		if (id == (tf_str)-1 || (!dup && tf_hmap_put(&seen, id, 1) < 0) ||
		    (!dup && !old && tf_agg_comment(agg, c) < 0)) {
			tf_hmap_free(&seen);
			rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
			goto out;
		}
	}
	tf_hmap_free(&seen);
	rc = 0;
out:
	tf_hmap_free(&r.fns);
	tf_hmap_free(&r.locs);
	tf_hmap_free(&r.maps);
	free(r.fn_frame);
	free(map);
	free(vals);
	free(frames);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return rc;
}

/* Reads a base-128 varint from b[*i..n); 0 if truncated or too long. */
static int varint(const unsigned char *b, size_t n, size_t *i, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && *i < n; shift += 7) {
		unsigned char c = b[(*i)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

/* A sample_type entry: a ValueType, type (1) and unit (2), both varints.
 * (This is what tells a profile from a Perfetto trace: both are a list of
 * length-delimited field 1 at the top.) */
static bool value_type(const unsigned char *b, size_t n)
{
	size_t i = 0;
	if (n == 0) /* type and unit both "": nothing a profile writes */
		return false;
	while (i < n) {
		uint64_t tag, v;
		if (!varint(b, n, &i, &tag) || (tag != 0x08 && tag != 0x10) || !varint(b, n, &i, &v))
			return false;
	}
	return true;
}

/* Walks b[0..n) as Profile fields: each must be a known field number with
 * its wire type (1-6, 11: length-delimited; 7-10, 12, 14, 15: varint; 13:
 * varint or packed).  Returns 0 when the fields end exactly at n, 1 when the
 * last one runs past n (truncated), -1 when a field is not a Profile field;
 * *at is where the last field starts, *fields how many were whole. */
static int walk_fields(const unsigned char *b, size_t n, size_t *at, size_t *fields)
{
	size_t i = 0;
	*fields = 0;
	while (i < n) {
		uint64_t tag, v;
		*at = i;
		if (!varint(b, n, &i, &tag))
			return 1;
		uint64_t field = tag >> 3, wt = tag & 7;
		if (field < 1 || field > 15)
			return -1;
		int ld = field <= 6 || field == 11 || field == 13;
		int vi = !(field <= 6 || field == 11);
		if (wt == 2 && ld) {
			if (!varint(b, n, &i, &v))
				return 1;
			if (v > (1ull << 40))
				return -1;
			if (v > (uint64_t)(n - i))
				return 1;
			if (field == 1 && !value_type(b + i, (size_t)v))
				return -1;
			i += (size_t)v;
		} else if (wt == 0 && vi) {
			if (!varint(b, n, &i, &v))
				return 1;
		} else {
			return -1;
		}
		(*fields)++;
	}
	*at = n;
	return 0;
}

/* The sniff of a profile.proto: head, n bytes of it (decompressed), whole
 * if they are the whole file. */
static bool sniff_head(const unsigned char *head, size_t n, bool whole)
{
	if (!n)
		return false;
	size_t at, fields;
	int w = walk_fields(head, n, &at, &fields);
	if (w == 1) /* the last field runs past the head: a longer file, or a cut profile */
		return whole ? fields >= 2 : fields > 0 || at > 0;
	return w == 0 && fields > 0;
}

bool tf_pprof_sniff(const char *path)
{
	unsigned char head[TF_SNIFF_HEAD];
	tf_error err;
	tf_error_clear(&err);
	bool whole; /* the head is the whole file, unless a cut gzip file ended it */
	ptrdiff_t n = tf_file_head_whole(path, head, sizeof(head), &whole, &err);
	return n > 0 && sniff_head(head, (size_t)n, whole);
}

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	return !is_dir && sniff_head(head, n, whole) ? TF_SNIFF_YES : TF_SNIFF_NO;
}

static int read_profile(tf_agg *agg, const char *path, const tf_profile_opts *po, tf_error *err)
{
	return tf_pprof_read(agg, path, err);
}

const tf_format tf_format_pprof = {
	.name = "pprof",
	.description = "pprof profiles (profile.proto, gzipped or not): tracefold's, Go's, any tool's",
	.sniff = sniff,
	.kind = TF_INPUT_PROFILE,
	.noun = "pprof profile",
	.read_profile = read_profile,
};
