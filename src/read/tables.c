/* tables.c - tracefold's own event tables as input (docs/format-tables.md):
 * a folder of Parquet tables as `tracefold events` writes them
 * (docs/schema.md), or a DuckDB COPY of a selection of them, read back
 * into events so that every output of a selection can be made:
 *
 *   tracks       -> the tracks, in track_id order (all of them sorted: the
 *                   slices come in end order)
 *   collectives  -> the collective facts of the slices (tf_coll_note)
 *   call_paths   -> in memory, for the samples' stacks
 *   slices       -> TF_EV_COMPLETE (raw_name, category, correlation, op)
 *   counters, instants, samples, messages, flows -> their events
 *
 * Row group by row group (src/parquet/pq_read.h): memory grows with the
 * tracks, call paths and collectives, not the slices. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tables_int.h"

static const char *const table_dirs[] = { "slices", "counters", "instants", "samples", "messages", "flows",
					  "tracks", "call_paths", "collectives", "collective_slices", NULL };

/* ---- files ---- */

static bool is_parquet(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && n > 8 && !strcmp(name + n - 8, ".parquet");
}

typedef struct flist {
	char **v;
	uint32_t n, cap;
	bool one;              /* stop at the first file (whether there is one) */
} flist;

static int walk(const char *dir, int depth, flist *l)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && !(l->one && l->n) && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		struct stat sb;
		if (stat(p, &sb) < 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth < 8)
				rc = walk(p, depth + 1, l);
		} else if (is_parquet(e->d_name)) {
			char *c = strdup(p);
			if (!c || tf_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(char *)) < 0) {
				free(c);
				rc = TF_ENOMEM;
			} else {
				l->v[l->n++] = c;
			}
		}
	}
	closedir(d);
	return rc;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder of a table: ROOT/<table>, or a lake run's ROOT/<table>/run=NAME. */
static void table_dir(const tin *t, const char *table, char *d, size_t n)
{
	if (t->run[0])
		snprintf(d, n, "%s/%s/run=%s", t->root, table, t->run);
	else
		snprintf(d, n, "%s/%s", t->root, table);
}

/* Whether the table has a file (walked up to the first). */
static bool tin_any(const tin *t, const char *table)
{
	if (t->single)
		return !strcmp(table, "slices");
	char d[8500];
	table_dir(t, table, d, sizeof(d));
	flist l = { .one = true };
	int rc = walk(d, 0, &l);
	tin_files_free(l.v, l.n);
	return rc == 0 && l.n;
}

int tin_files(tin *t, const char *table, char ***out, uint32_t *n)
{
	flist l = { 0 };
	int rc = 0;
	if (t->single) {
		if (!strcmp(table, "slices") && !(l.v = malloc(sizeof(char *))))
			rc = TF_ENOMEM;
		else if (l.v && !(l.v[l.n++] = strdup(t->path)))
			rc = TF_ENOMEM;
	} else {
		char d[8500];
		table_dir(t, table, d, sizeof(d));
		rc = walk(d, 0, &l);
	}
	if (rc < 0) {
		tin_files_free(l.v, l.n);
		return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(char *), str_cmp);
	*out = l.v;
	*n = l.n;
	return 0;
}

void tin_files_free(char **v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The N of the innermost rank=N folder of path, -1 none. */
static int64_t dir_rank(const char *path)
{
	int64_t r = -1;
	for (const char *p = path; (p = strstr(p, "/rank=")); p++) {
		char *end;
		long long v = strtoll(p + 6, &end, 10);
		if (end != p + 6 && *end == '/')
			r = v;
	}
	return r;
}

int tin_open(tin *t, const char *file, const char *table, const tin_col *cols, int ncols, tin_file *f)
{
	memset(f, 0, sizeof(*f));
	if (ncols > TIN_MAXCOLS)
		return tf_error_set(t->err, TF_EFORMAT, file, -1, -1, "too many columns asked for"); /* a bug */
	TF_TRY(pq_ropen(&f->r, file, t->err));
	f->dir_rank = dir_rank(file);
	for (int i = 0; i < ncols; i++)
		f->col[i] = pq_rcol_find(f->r, cols[i].name);
	for (int i = 0; i < ncols; i++) {
		if (f->col[i] < 0 && cols[i].need && (cols[i].alt < 0 || f->col[cols[i].alt] < 0)) {
			int rc = tf_error_set(t->err, TF_EFORMAT, file, -1, -1,
					      "the %s table needs a column '%s'%s%s%s (docs/format-tables.md)", table,
					      cols[i].name, cols[i].alt >= 0 ? " or '" : "",
					      cols[i].alt >= 0 ? cols[cols[i].alt].name : "", cols[i].alt >= 0 ? "'" : "");
			pq_rclose(f->r);
			f->r = NULL;
			return rc;
		}
		if (f->col[i] >= 0 && pq_ruse(f->r, f->col[i], t->err) < 0) {
			pq_rclose(f->r);
			f->r = NULL;
			return t->err->code;
		}
	}
	/* the file says what was repaired before the tables were written */
	const char *diag = t->diag_done ? NULL : pq_rkv(f->r, "tracefold.diagnostics");
	if (diag) {
		t->diag_done = true;
		tf_diag *dg = tf_ctx_diag(t->ctx);
		for (int id = 0; id < TF_DIAG_COUNT; id++) {
			tf_severity sev = tf_diag_severity((tf_diag_id)id);
			if (sev == TF_SEV_INFO)
				continue; /* counted again by this read */
			const char *nm = tf_diag_name((tf_diag_id)id);
			size_t nl = strlen(nm);
			for (const char *p = diag; (p = strstr(p, nm)); p += nl) {
				if ((p != diag && p[-1] != ' ') || (p[nl] != '=' && strncmp(p + nl, "_ns=", 4)))
					continue;
				uint64_t v = strtoull(p + nl + (p[nl] == '=' ? 1 : 4), NULL, 10);
				if (p[nl] == '=') {
					dg->n[id] += v;
					if (sev == TF_SEV_SKIP) /* events the first read decoded */
						dg->n[TF_DIAG_events_read] += v;
				} else
					dg->ns[id] += v;
			}
		}
	}
	return 0;
}

/* ---- values ---- */

tf_str tin_intern(tin *t, const char *s, size_t n)
{
	return tf_strtab_intern(t->st, s, n);
}

bool tin_have(const tin_file *f, int c)
{
	return f->col[c] >= 0 && !pq_rnull(f->r, f->col[c]);
}

tf_str tin_str(tin *t, const tin_file *f, int c)
{
	if (!tin_have(f, c))
		return 0;
	size_t n;
	const char *s = pq_rstr(f->r, f->col[c], &n);
	return tin_intern(t, s, n);
}

int64_t tin_i64(const tin_file *f, int c, int64_t dflt)
{
	return tin_have(f, c) ? pq_ri64(f->r, f->col[c]) : dflt;
}

int tin_emit(tin *t, tf_event *ev)
{
	ev->index = t->index++;
	t->emitted++;
	return tf_emit(t->ctx, t->sink, ev);
}

/* ---- tracks ---- */

enum { K_TRACK, K_PKEY, K_TKEY, K_PNAME, K_TNAME, K_RANK, K_KIND, K_INPLACE, K_SORT, K_INPUT, K_N };
static const tin_col track_cols[K_N] = {
	{ "track_id", true, -1 }, { "process_key", false, -1 }, { "thread_key", false, -1 },
	{ "process_name", false, -1 }, { "thread_name", false, -1 }, { "rank", false, -1 },
	{ "kind", false, -1 }, { "gpu_in_place", false, -1 }, { "sort_index", false, -1 },
	{ "input", false, -1 },
};

/* The tracks of the k-th input the tables were made of (k > 0) are made
 * as those of input input + k x TIN_INPUT_STRIDE: two inputs' tracks of
 * the same process and thread keys (two ranks' pid 0 GPU streams) stay
 * apart, and so do their correlation ids (unique within one input). */
#define TIN_INPUT_STRIDE TF_TRACK_INPUT_STRIDE

/* A track the tables name: made in the ctx, sorted (the slices come in
 * end order). */
static int add_track(tin *t, int64_t id, uint32_t k, tf_str pk, tf_str tk, uint32_t *out)
{
	uint32_t ct = tf_ctx_track(t->ctx, t->input + k * TIN_INPUT_STRIDE, pk, tk);
	if (ct == UINT32_MAX || tf_grow((void **)&t->tracks, &t->captracks, t->ntracks + 1, sizeof(tin_tk)) < 0 ||
	    tf_hmap_put(&t->track_of, (uint64_t)id, t->ntracks) < 0)
		return tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
	t->tracks[t->ntracks++] = (tin_tk){ .id = ct };
	tf_ctx_track_get(t->ctx, ct)->needs_sort = true;
	*out = ct;
	return 0;
}

int tin_track(tin *t, int64_t track_id, const char *thread, size_t tlen, int64_t rank, uint32_t *out)
{
	uint32_t i = tf_hmap_get(&t->track_of, (uint64_t)track_id);
	if (i != UINT32_MAX) {
		*out = t->tracks[i].id;
		return 0;
	}
	/* not in the tracks table (none was selected): what the row says */
	char b[32];
	snprintf(b, sizeof(b), "%" PRId64, rank >= 0 ? rank : 0);
	tf_str pk = tin_intern(t, b, strlen(b));
	snprintf(b, sizeof(b), "%" PRId64, track_id);
	tf_str tk = tin_intern(t, b, strlen(b));
	TF_TRY(add_track(t, track_id, 0, pk, tk, out));
	tf_track *tr = tf_ctx_track_get(t->ctx, *out);
	tr->rank = rank;
	if (thread && tlen)
		tr->thread_name = tin_intern(t, thread, tlen);
	return 0;
}

typedef struct trow {
	int64_t id, rank, sort;
	tf_str pk, tk, pn, tn, in;
	bool gpu, in_place;
} trow;

static int trow_cmp(const void *a, const void *b)
{
	const trow *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every row of the tracks table, then the tracks in track_id order. */
static int read_tracks(tin *t)
{
	char **files;
	uint32_t nf;
	TF_TRY(tin_files(t, "tracks", &files, &nf));
	trow *rows = NULL;
	uint32_t n = 0, cap = 0;
	int rc = 0;
	for (uint32_t fi = 0; fi < nf && rc == 0; fi++) {
		tin_file f;
		if ((rc = tin_open(t, files[fi], "tracks", track_cols, K_N, &f)) < 0)
			break;
		while ((rc = pq_rnext(f.r, t->err)) > 0) {
			if (tf_grow((void **)&rows, &cap, n + 1, sizeof(trow)) < 0) {
				rc = tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
				break;
			}
			trow *w = &rows[n++];
			w->id = tin_i64(&f, K_TRACK, 0);
			w->rank = tin_i64(&f, K_RANK, f.dir_rank);
			w->sort = tin_i64(&f, K_SORT, 0);
			w->pk = tin_str(t, &f, K_PKEY);
			w->tk = tin_str(t, &f, K_TKEY);
			w->pn = tin_str(t, &f, K_PNAME);
			w->tn = tin_str(t, &f, K_TNAME);
			w->in = tin_str(t, &f, K_INPUT);
			tf_str k = tin_str(t, &f, K_KIND);
			w->gpu = k && !strcmp(tf_strtab_get(t->st, k), "gpu");
			w->in_place = tin_have(&f, K_INPLACE) && pq_rbool(f.r, f.col[K_INPLACE]);
		}
		pq_rclose(f.r);
	}
	tin_files_free(files, nf);
	if (rc == 0 && n > 1)
		qsort(rows, n, sizeof(trow), trow_cmp);
	tf_str ins[64];
	uint32_t nins = 0;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		uint32_t ct, k = 0;
		if (tf_hmap_get(&t->track_of, (uint64_t)rows[i].id) != UINT32_MAX)
			continue; /* a track in two parts of a distributed run */
		while (k < nins && ins[k] != rows[i].in)
			k++;
		if (k == nins && nins < 64)
			ins[nins++] = rows[i].in;
		if (k == 64)
			k = 63; /* past 64 inputs: their keys may meet (docs/format-tables.md) */
		if ((rc = add_track(t, rows[i].id, k, rows[i].pk, rows[i].tk, &ct)) < 0)
			break;
		tf_track *tr = tf_ctx_track_get(t->ctx, ct);
		tr->rank = rows[i].rank;
		tr->process_name = rows[i].pn;
		tr->thread_name = rows[i].tn;
		tr->kind = rows[i].gpu ? TF_TRACK_GPU : TF_TRACK_CPU;
		tr->gpu_in_place = rows[i].gpu && rows[i].in_place;
		tr->sort_index = rows[i].sort;
	}
	free(rows);
	return rc < 0 ? rc : 0;
}

/* ---- call paths (for the samples) and collectives (by slice) ---- */

static int read_paths(tin *t)
{
	static const tin_col cols[] = { { "call_path_id", true, -1 }, { "parent_id", false, -1 }, { "name", true, -1 } };
	char **files;
	uint32_t nf;
	TF_TRY(tin_files(t, "call_paths", &files, &nf));
	int rc = 0;
	for (uint32_t fi = 0; fi < nf && rc == 0; fi++) {
		tin_file f;
		if ((rc = tin_open(t, files[fi], "call_paths", cols, 3, &f)) < 0)
			break;
		while ((rc = pq_rnext(f.r, t->err)) > 0) {
			int64_t id = tin_i64(&f, 0, 0);
			if (tf_hmap_get(&t->path_of, (uint64_t)id) != UINT32_MAX)
				continue;
			if (tf_grow((void **)&t->paths, &t->cappaths, t->npaths + 1, sizeof(tin_path)) < 0 ||
			    tf_hmap_put(&t->path_of, (uint64_t)id, t->npaths) < 0) {
				rc = tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
				break;
			}
			t->paths[t->npaths++] = (tin_path){ tin_i64(&f, 1, -1), tin_str(t, &f, 2) };
		}
		pq_rclose(f.r);
	}
	tin_files_free(files, nf);
	return rc < 0 ? rc : 0;
}

/* collective_slices: the facts of each slice in a collective, noted
 * back as the profile's labels had them (the collectives table, one row
 * per call, is for SQL) */
enum { L_SLICE, L_COLL, L_BYTES, L_NELEMS, L_DTYPE, L_PG, L_RANKS, L_ROOT, L_BRECV, L_N };
static const tin_col coll_cols[L_N] = {
	{ "slice_id", true, -1 }, { "collective", false, -1 }, { "comm_bytes", false, -1 }, { "comm_nelems", false, -1 },
	{ "dtype", false, -1 }, { "pg", false, -1 }, { "pg_ranks", false, -1 }, { "root", false, -1 },
	{ "bytes_received", false, -1 },
};

static int read_colls(tin *t)
{
	char **files;
	uint32_t nf;
	TF_TRY(tin_files(t, "collective_slices", &files, &nf));
	int rc = 0;
	for (uint32_t fi = 0; fi < nf && rc == 0; fi++) {
		tin_file f;
		if ((rc = tin_open(t, files[fi], "collective_slices", coll_cols, L_N, &f)) < 0)
			break;
		while ((rc = pq_rnext(f.r, t->err)) > 0) {
			if (tf_grow((void **)&t->colls, &t->capcolls, t->ncolls + 1, sizeof(tf_coll_facts)) < 0 ||
			    tf_hmap_put(&t->coll_of, (uint64_t)tin_i64(&f, L_SLICE, 0), t->ncolls) < 0) {
				rc = tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
				break;
			}
			t->colls[t->ncolls++] = (tf_coll_facts){ tin_str(t, &f, L_COLL), tin_str(t, &f, L_DTYPE),
								 tin_str(t, &f, L_PG), tin_str(t, &f, L_RANKS),
								 tin_i64(&f, L_BYTES, -1), tin_i64(&f, L_NELEMS, -1),
								 tin_i64(&f, L_ROOT, -1), tin_i64(&f, L_BRECV, -1) };
		}
		pq_rclose(f.r);
	}
	tin_files_free(files, nf);
	return rc < 0 ? rc : 0;
}

/* ---- the input ---- */

static int each(tin *t, const char *table, int (*fn)(tin *, const char *))
{
	char **files;
	uint32_t nf;
	TF_TRY(tin_files(t, table, &files, &nf));
	int rc = 0;
	for (uint32_t i = 0; i < nf && rc == 0; i++)
		rc = fn(t, files[i]);
	tin_files_free(files, nf);
	return rc;
}

static int read_all(tin *t)
{
	TF_TRY(read_tracks(t));
	TF_TRY(read_colls(t));
	if (tin_any(t, "samples"))
		TF_TRY(read_paths(t));
	TF_TRY(each(t, "slices", tin_slices));
	TF_TRY(tin_flush_all(t));
	TF_TRY(each(t, "counters", tin_counters));
	TF_TRY(each(t, "instants", tin_instants));
	TF_TRY(each(t, "samples", tin_samples));
	TF_TRY(each(t, "messages", tin_messages));
	TF_TRY(each(t, "flows", tin_flows));
	if (!t->emitted)
		return tf_error_set(t->err, TF_EFORMAT, t->path, -1, -1,
				    "no rows in its event tables (slices, counters, instants, samples, messages, flows)");
	/* the inputs past the first have no end of their own: their tracks
	 * are finished at the end of the run, after the first's, as a direct
	 * read of them would (the Parquet writer writes their collectives'
	 * waiting calls then) */
	return 0;
}

/* Whether path is a lake's LAKE/<table>/run=NAME folder: *root the lake,
 * run its name. */
static bool lake_run_dir(const char *path, char *root, size_t rootn, char *run, size_t runn)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t b = n;
	while (b && path[b - 1] != '/')
		b--;
	if (n - b <= 4 || strncmp(path + b, "run=", 4) || n - b - 4 >= runn || !b)
		return false;
	size_t te = b - 1, tb = te;
	while (tb && path[tb - 1] != '/')
		tb--;
	bool table = false;
	for (int i = 0; table_dirs[i] && !table; i++)
		table = strlen(table_dirs[i]) == te - tb && !strncmp(path + tb, table_dirs[i], te - tb);
	if (!table || (tb ? tb - 1 : 1) >= rootn)
		return false;
	if (tb)
		snprintf(root, rootn, "%.*s", (int)(tb > 1 ? tb - 1 : 1), path);
	else
		snprintf(root, rootn, ".");
	snprintf(run, runn, "%.*s", (int)(n - b - 4), path + b + 4);
	return true;
}

/* A lake of several runs read whole would mix them (their ids are each
 * run's own): refused, naming them and how to read one. */
static int lake_runs(tin *t)
{
	char names[512] = "", **seen = NULL;
	uint32_t nruns = 0, cap = 0;
	size_t used = 0;
	int rc = 0;
	for (int i = 0; table_dirs[i] && rc == 0; i++) {
		char d[4200];
		snprintf(d, sizeof(d), "%s/%s", t->root, table_dirs[i]);
		DIR *dir = opendir(d);
		if (!dir)
			continue;
		for (struct dirent *e; rc == 0 && (e = readdir(dir));) {
			if (strncmp(e->d_name, "run=", 4))
				continue;
			const char *nm = e->d_name + 4;
			uint32_t k = 0;
			while (k < nruns && strcmp(seen[k], nm))
				k++;
			if (k < nruns)
				continue;
			if (tf_grow((void **)&seen, &cap, nruns + 1, sizeof(char *)) < 0 || !(seen[nruns] = strdup(nm))) {
				rc = tf_error_set(t->err, TF_ENOMEM, t->path, -1, -1, "out of memory");
				break;
			}
			nruns++;
			if (used + strlen(nm) + 2 < sizeof(names))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? "," : "", nm);
		}
		closedir(dir);
	}
	if (rc == 0 && nruns == 1)
		snprintf(t->run, sizeof(t->run), "%s", seen[0]);
	else if (rc == 0 && nruns > 1)
		rc = tf_error_set(t->err, TF_EFORMAT, t->path, -1, -1,
				  "a lake of %u runs (%s%s): read one as %s/slices/run=NAME, or select rows with SQL "
				  "(docs/format-tables.md)", nruns, names, used + 1 >= sizeof(names) - 100 ? ",..." : "", t->path);
	for (uint32_t k = 0; k < nruns; k++)
		free(seen[k]);
	free(seen);
	return rc;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	struct stat sb;
	tin t = { .path = path, .input = input, .ctx = ctx, .sink = sink, .err = err, .st = tf_ctx_strtab(ctx) };
	t.single = stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode);
	int rc = 0;
	if (!t.single && !lake_run_dir(path, t.root, sizeof(t.root), t.run, sizeof(t.run))) {
		snprintf(t.root, sizeof(t.root), "%s", path);
		rc = lake_runs(&t);
	}
	if (rc == 0)
		rc = read_all(&t);
	for (uint32_t i = 0; i < t.ntracks; i++)
		free(t.tracks[i].pend);
	free(t.tracks);
	free(t.paths);
	free(t.sbuf);
	free(t.colls);
	tf_hmap_free(&t.track_of);
	tf_hmap_free(&t.path_of);
	tf_hmap_free(&t.coll_of);
	return rc;
}

/* A folder with a table folder that holds a Parquet file, or one Parquet
 * file (the slices table). */
static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	if (!is_dir)
		return n >= 4 && !memcmp(head, "PAR1", 4) ? TF_SNIFF_YES : TF_SNIFF_NO;
	char root[4096], run[256];
	if (lake_run_dir(path, root, sizeof(root), run, sizeof(run))) {
		flist l = { .one = true };
		int rc = walk(path, 0, &l);
		tin_files_free(l.v, l.n);
		return rc == 0 && l.n ? TF_SNIFF_YES : TF_SNIFF_NO;
	}
	for (int i = 0; table_dirs[i]; i++) {
		char d[4096];
		snprintf(d, sizeof(d), "%s/%s", path, table_dirs[i]);
		flist l = { .one = true };
		int rc = walk(d, 0, &l);
		tin_files_free(l.v, l.n);
		if (rc == 0 && l.n)
			return TF_SNIFF_YES;
	}
	return TF_SNIFF_NO;
}

const tf_format tf_format_tables = {
	.name = "tables",
	.description = "tracefold's own Parquet event tables: a folder from 'tracefold events', a DuckDB COPY of them, or one slices file",
	.sniff = sniff,
	.read = read_input,
	.kind = TF_INPUT_EVENTS,
};
