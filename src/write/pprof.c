/* pprof.c - writes a tf_agg as profile.proto (protobuf-c), gzipped.
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
 * "Main binary filename not available". */
#include <stdlib.h>
#include <string.h>
#include "tracefold/pprof.h"
#include "tracefold/io.h"
#include "profile.pb-c.h"
#include "hmap.h"

typedef Perftools__Profiles__Profile PB_Profile;
typedef Perftools__Profiles__ValueType PB_ValueType;
typedef Perftools__Profiles__Sample PB_Sample;
typedef Perftools__Profiles__Label PB_Label;
typedef Perftools__Profiles__Location PB_Location;
typedef Perftools__Profiles__Line PB_Line;
typedef Perftools__Profiles__Function PB_Function;
typedef Perftools__Profiles__Mapping PB_Mapping;

typedef struct enc {
	const tf_agg *agg;
	tf_strtab *st;
	tf_hmap str_idx;     /* tf_str -> pprof string index */
	char **strings;
	uint32_t nstrings, capstrings;
	tf_hmap fn_idx;      /* frame tf_str -> function index */
	PB_Function *fns;
	uint32_t nfns, capfns;
	tf_hmap loc_idx;     /* frame tf_str -> location index */
	PB_Location *locs;
	PB_Line *lines;
	PB_Line **line_ptrs;
	uint32_t nlocs, caplocs, caplines, caplineptrs;
	uint64_t *node_loc;  /* node -> location id (0 = not yet) */
} enc;

static int64_t str_index(enc *e, tf_str s)
{
	uint32_t i = tf_hmap_get(&e->str_idx, s);
	if (i != UINT32_MAX)
		return i;
	if (tf_grow((void **)&e->strings, &e->capstrings, e->nstrings + 1, sizeof(char *)) < 0)
		return -1;
	i = e->nstrings;
	if (tf_hmap_put(&e->str_idx, s, i) < 0)
		return -1;
	e->strings[e->nstrings++] = (char *)tf_strtab_get(e->st, s);
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
	tf_str name = frame, file = 0;
	if (split_frame(text, len, &file_len, &line, &fn_off) && fn_off < len) {
		name = tf_strtab_intern(e->st, text + fn_off, len - fn_off);
		file = tf_strtab_intern(e->st, text, file_len);
		if (name == (tf_str)-1 || file == (tf_str)-1)
			return -1;
	}
	/* one function per distinct frame text: file.py(10): f and file.py(20): f
	 * are different Python functions; pprof still groups -top by name */
	uint64_t fkey = frame;
	uint32_t fi = tf_hmap_get(&e->fn_idx, fkey);
	if (fi == UINT32_MAX) {
		if (tf_grow((void **)&e->fns, &e->capfns, e->nfns + 1, sizeof(PB_Function)) < 0)
			return -1;
		fi = e->nfns;
		if (tf_hmap_put(&e->fn_idx, fkey, fi) < 0)
			return -1;
		PB_Function f = PERFTOOLS__PROFILES__FUNCTION__INIT;
		f.id = fi + 1;
		f.name = str_index(e, name);
		f.system_name = str_index(e, frame);
		f.filename = str_index(e, file);
		f.start_line = line;
		if (f.name < 0 || f.system_name < 0 || f.filename < 0)
			return -1;
		e->fns[e->nfns++] = f;
	}
	if (tf_grow((void **)&e->locs, &e->caplocs, e->nlocs + 1, sizeof(PB_Location)) < 0 ||
	    tf_grow((void **)&e->lines, &e->caplines, e->nlocs + 1, sizeof(PB_Line)) < 0)
		return -1;
	li = e->nlocs++;
	if (tf_hmap_put(&e->loc_idx, frame, li) < 0)
		return -1;
	PB_Line ln = PERFTOOLS__PROFILES__LINE__INIT;
	ln.function_id = fi + 1;
	ln.line = line;
	e->lines[li] = ln;
	PB_Location loc = PERFTOOLS__PROFILES__LOCATION__INIT;
	loc.id = li + 1;
	loc.mapping_id = 1;
	e->locs[li] = loc;
	return (int64_t)li + 1;
}

static void enc_free(enc *e)
{
	tf_hmap_free(&e->str_idx);
	tf_hmap_free(&e->fn_idx);
	tf_hmap_free(&e->loc_idx);
	free(e->strings);
	free(e->fns);
	free(e->locs);
	free(e->lines);
	free(e->line_ptrs);
	free(e->node_loc);
}

int tf_pprof_encode(const tf_agg *agg, unsigned char **buf_out, size_t *len_out, tf_error *err)
{
	enc e;
	memset(&e, 0, sizeof(e));
	e.agg = agg;
	e.st = tf_agg_strtab(agg);
	int rc = TF_ENOMEM;
	PB_Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	int ntypes = tf_agg_ntypes(agg);
	size_t nsamp = tf_agg_nsamples(agg);
	uint32_t nnodes = tf_agg_nnodes(agg);
	PB_ValueType *vt = calloc((size_t)ntypes + 1, sizeof(PB_ValueType));
	PB_ValueType **vtp = calloc((size_t)ntypes + 1, sizeof(PB_ValueType *));
	PB_Sample *samples = calloc(nsamp + 1, sizeof(PB_Sample));
	PB_Sample **samplep = calloc(nsamp + 1, sizeof(PB_Sample *));
	PB_Label *labels = calloc((nsamp + 1) * TF_AGG_MAX_LABELS, sizeof(PB_Label));
	PB_Label **labelp = calloc((nsamp + 1) * TF_AGG_MAX_LABELS, sizeof(PB_Label *));
	uint64_t *locids = NULL;
	int64_t *values = calloc((nsamp + 1) * (size_t)(ntypes ? ntypes : 1), sizeof(int64_t));
	PB_Location **locp = NULL;
	PB_Function **fnp = NULL;
	int64_t *comments = calloc(tf_agg_ncomments(agg) + 1, sizeof(int64_t));
	e.node_loc = calloc(nnodes, sizeof(uint64_t));
	size_t total_depth = 0;
	for (size_t i = 0; i < nsamp; i++)
		total_depth += tf_agg_node_get(agg, tf_agg_sample_get(agg, i).node)->depth;
	locids = calloc(total_depth + 1, sizeof(uint64_t));
	if (!vt || !vtp || !samples || !samplep || !labels || !labelp || !values || !comments ||
	    !e.node_loc || !locids)
		goto out;
	if (cstr_index(&e, "") != 0)
		goto out;
	for (int t = 0; t < ntypes; t++) {
		tf_sample_type st = tf_agg_type_get(agg, t);
		PB_ValueType v = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		v.type = str_index(&e, st.type);
		v.unit = str_index(&e, st.unit);
		vt[t] = v;
		vtp[t] = &vt[t];
	}
	p.n_sample_type = (size_t)ntypes;
	p.sample_type = vtp;

	size_t ns = 0, nl = 0, nloc = 0;
	for (size_t i = 0; i < nsamp; i++) {
		tf_agg_sample s = tf_agg_sample_get(agg, i);
		int nonzero = 0;
		for (int t = 0; t < ntypes; t++)
			nonzero |= s.values[t] != 0;
		if (!nonzero || s.node == TF_AGG_ROOT)
			continue; /* pprof drops all-zero samples; the root has no frame */
		PB_Sample *ps = &samples[ns];
		PB_Sample init = PERFTOOLS__PROFILES__SAMPLE__INIT;
		*ps = init;
		ps->location_id = locids + nloc;
		for (uint32_t n = s.node; n != TF_AGG_ROOT; n = tf_agg_node_get(agg, n)->parent) {
			if (!e.node_loc[n]) {
				int64_t id = location_for(&e, tf_agg_node_get(agg, n)->frame);
				if (id < 0)
					goto out;
				e.node_loc[n] = (uint64_t)id;
			}
			locids[nloc++] = e.node_loc[n];
		}
		ps->n_location_id = (size_t)(locids + nloc - ps->location_id);
		ps->value = values + ns * (size_t)ntypes;
		memcpy(ps->value, s.values, (size_t)ntypes * sizeof(int64_t));
		ps->n_value = (size_t)ntypes;
		const tf_label *ls;
		int nls = tf_agg_labelset_get(agg, s.labelset, &ls);
		ps->label = labelp + nl;
		for (int k = 0; k < nls; k++) {
			PB_Label l = PERFTOOLS__PROFILES__LABEL__INIT;
			l.key = str_index(&e, ls[k].key);
			if (ls[k].str)
				l.str = str_index(&e, ls[k].str);
			else {
				l.num = ls[k].num;
				l.num_unit = ls[k].num_unit ? str_index(&e, ls[k].num_unit) : 0;
			}
			labels[nl] = l;
			labelp[nl] = &labels[nl];
			nl++;
		}
		ps->n_label = (size_t)nls;
		samplep[ns] = ps;
		ns++;
	}
	p.n_sample = ns;
	p.sample = samplep;

	locp = calloc(e.nlocs + 1, sizeof(*locp));
	e.line_ptrs = calloc(e.nlocs + 1, sizeof(PB_Line *));
	fnp = calloc(e.nfns + 1, sizeof(*fnp));
	if (!locp || !e.line_ptrs || !fnp)
		goto out;
	for (uint32_t i = 0; i < e.nlocs; i++) {
		e.line_ptrs[i] = &e.lines[i];
		e.locs[i].line = &e.line_ptrs[i];
		e.locs[i].n_line = 1;
		locp[i] = &e.locs[i];
	}
	for (uint32_t i = 0; i < e.nfns; i++)
		fnp[i] = &e.fns[i];
	p.n_location = e.nlocs;
	p.location = locp;

	tf_agg_meta *m = tf_agg_meta_get((tf_agg *)agg);
	PB_Mapping map = PERFTOOLS__PROFILES__MAPPING__INIT;
	PB_Mapping *mapp = &map;
	map.id = 1;
	map.filename = m->main_file ? str_index(&e, m->main_file) : 0;
	if (map.filename < 0)
		goto out;
	map.has_functions = 1;
	map.has_filenames = 1;
	map.has_line_numbers = 1;
	p.n_mapping = 1;
	p.mapping = &mapp;
	p.n_function = e.nfns;
	p.function = fnp;

	p.time_nanos = m->time_nanos;
	p.duration_nanos = m->duration_nanos;
	int dt = tf_agg_default_type(agg);
	PB_ValueType period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	if (dt >= 0) {
		period = vt[dt];
		p.period_type = &period;
		p.period = m->period ? m->period : 1;
		p.default_sample_type = vt[dt].type;
	}
	for (size_t i = 0; i < tf_agg_ncomments(agg); i++) {
		comments[i] = cstr_index(&e, tf_agg_comment_get(agg, i));
		if (comments[i] < 0)
			goto out;
	}
	p.n_comment = tf_agg_ncomments(agg);
	p.comment = comments;
	p.n_string_table = e.nstrings;
	p.string_table = e.strings;

	size_t len = perftools__profiles__profile__get_packed_size(&p);
	unsigned char *buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(&p, buf);
	*buf_out = buf;
	*len_out = len;
	rc = 0;
out:
	if (rc < 0)
		tf_error_set(err, rc, NULL, -1, -1, "cannot encode profile: %s", tf_strerror(rc));
	free(vt);
	free(vtp);
	free(samples);
	free(samplep);
	free(labels);
	free(labelp);
	free(locids);
	free(values);
	free(locp);
	free(fnp);
	free(comments);
	enc_free(&e);
	return rc;
}

int tf_pprof_write(const tf_agg *agg, const char *path, tf_error *err)
{
	unsigned char *buf;
	size_t len;
	TF_TRY(tf_pprof_encode(agg, &buf, &len, err));
	tf_out *o;
	int rc = tf_out_open(&o, path, true, err);
	if (rc == 0) {
		tf_out_write(o, buf, len);
		rc = tf_out_close(o, err);
	}
	free(buf);
	return rc;
}
