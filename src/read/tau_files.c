/* tau_files.c - the TAU reader's inputs: a trace directory
 * (tautrace.<node>.<context>.<thread>.trc with events.<node>.edf, or a
 * merged tau.trc + tau.edf) or one .trc file and the EDF that goes with it.
 * Format facts: docs/format-tau.md. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tracefold/io.h"
#include "tau.h"

char *tf_tau_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p = malloc(dl + nl + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	size_t k = dl;
	if (k && p[k - 1] != '/')
		p[k++] = '/';
	memcpy(p + k, name, nl + 1);
	return p;
}

static bool file_exists(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* "tautrace.<node>.<context>.<thread>.trc" -> true and the three numbers. */
bool tf_tau_parse_tautrace(const char *name, long *node, long *context, long *thread)
{
	if (strncmp(name, "tautrace.", 9) != 0)
		return false;
	const char *p = name + 9;
	long v[3];
	for (int i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*p))
			return false;
		char *e;
		v[i] = strtol(p, &e, 10);
		if (*e != '.')
			return false;
		p = e + 1;
	}
	if (strcmp(p, "trc") != 0 && strcmp(p, "trc.gz") != 0)
		return false;
	*node = v[0];
	*context = v[1];
	*thread = v[2];
	return true;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

char *tf_tau_dir_name(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return strdup(".");
	size_t n = (size_t)(s - path);
	char *d = malloc(n + 2);
	if (!d)
		return NULL;
	if (n == 0)
		d[n++] = '/';
	else
		memcpy(d, path, n);
	d[n] = 0;
	return d;
}

/* Node id of the first record of a .trc, or -1. */
static long first_nid(const char *path)
{
	unsigned char head[32];
	tf_error e;
	tf_error_clear(&e);
	ptrdiff_t n = tf_file_head(path, head, sizeof(head), &e);
	if (n < 24)
		return -1;
	tf_tau_layout lay = tf_tau_detect_layout(head, (size_t)n);
	if ((size_t)n < lay.recsize)
		return -1;
	tf_tau_rec r;
	tf_tau_decode(head, lay, &r);
	return r.nid;
}

/* dir/name if that file exists (malloc'd), else NULL. */
char *tf_tau_beside(const char *dir, const char *name)
{
	char *p = tf_tau_path_join(dir, name);
	if (p && !file_exists(p)) {
		free(p);
		p = NULL;
	}
	return p;
}

/* The EDF that goes with a lone .trc: --edf, events.<node>.edf for
 * tautrace.<node>.*, <stem>.edf (tau.trc -> tau.edf), events.<nid of the
 * first record>.edf, tau.edf.  NULL if none exists (malloc'd). */
char *tf_tau_edf_for_trc(const char *trc, const char *opt)
{
	if (opt)
		return strdup(opt);
	char *dir = tf_tau_dir_name(trc);
	if (!dir)
		return NULL;
	const char *bn = base_name(trc);
	const char *dot = strrchr(bn, '.');
	char name[600];
	char *p = NULL;
	long node, context, thread, nid;
	if (tf_tau_parse_tautrace(bn, &node, &context, &thread)) {
		snprintf(name, sizeof(name), "events.%ld.edf", node);
		p = tf_tau_beside(dir, name);
	}
	if (!p && dot && dot - bn < 500) {
		snprintf(name, sizeof(name), "%.*s.edf", (int)(dot - bn), bn);
		p = tf_tau_beside(dir, name);
	}
	if (!p && (nid = first_nid(trc)) >= 0) {
		snprintf(name, sizeof(name), "events.%ld.edf", nid);
		p = tf_tau_beside(dir, name);
	}
	if (!p)
		p = tf_tau_beside(dir, "tau.edf");
	free(dir);
	return p;
}

/* --edf is for a lone .trc (tf_tau_edf_for_trc): given with a directory
 * that holds event definitions of its own, it would replace them for every
 * node (another run's ids: bad_event and unknown_event_id counts, exit 0),
 * so that is refused as a usage error naming both.  A directory without an
 * EDF of its own takes --edf for its trace files. */
int tf_tau_edf_conflict(const char *dir, const char *opt, tf_error *err)
{
	if (!opt)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0; /* reading it says why */
	char own[256] = "";
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t k = strlen(de->d_name);
		if (k < sizeof(own) && tf_tau_ends_with(de->d_name, ".edf") && (!own[0] || strcmp(de->d_name, own) < 0)) {
			char *p = tf_tau_beside(dir, de->d_name);
			if (p)
				memcpy(own, de->d_name, k + 1);
			free(p);
		}
	}
	closedir(d);
	if (!own[0])
		return 0;
	return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
			    "--edf '%s' is for a lone .trc file, and '%s' is a TAU directory with event definitions "
			    "of its own (%s): leave --edf out to read them", opt, dir, own);
}

static int cmp_trc(const void *a, const void *b)
{
	const trc_file *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return strcmp(x->name, y->name);
}

bool tf_tau_ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Lists the directory's trace files: per-thread tautrace files if any,
 * else every other *.trc (a merged tau.trc). */
int tf_tau_list_dir(const char *dir, trc_file **out, size_t *nout, bool *per_thread, tf_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return tf_error_set(err, TF_EIO, dir, -1, -1, "cannot open the directory");
	trc_file *v = NULL;
	size_t n = 0, cap = 0, nthread = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		long a = -1, b = -1, c = -1;
		bool t = tf_tau_parse_tautrace(de->d_name, &a, &b, &c);
		if (!t && !tf_tau_ends_with(de->d_name, ".trc") && !tf_tau_ends_with(de->d_name, ".trc.gz"))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			trc_file *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				rc = TF_ENOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		v[n].name = strdup(de->d_name);
		if (!v[n].name) {
			rc = TF_ENOMEM;
			break;
		}
		v[n].node = t ? a : -1;
		v[n].context = b;
		v[n].thread = c;
		nthread += t;
		n++;
	}
	closedir(d);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		return tf_error_set(err, rc, dir, -1, -1, "out of memory");
	}
	if (nthread && nthread < n) { /* keep the per-thread files only */
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].node >= 0)
				v[k++] = v[i];
			else
				free(v[i].name);
		}
		n = k;
	}
	qsort(v, n, sizeof(*v), cmp_trc);
	*out = v;
	*nout = n;
	*per_thread = nthread > 0;
	return 0;
}

/* A directory's parts are its trace files, in the order read_dir reads
 * them; a file is one part. */
int tf_tau_parts(const char *path, tf_ctx *ctx, tf_part **out, tf_error *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
	if (!S_ISDIR(sb.st_mode)) {
		if (!(*out = malloc(sizeof(tf_part))))
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		(*out)[0].bytes = (uint64_t)sb.st_size;
		return 1;
	}
	trc_file *files = NULL;
	size_t n = 0;
	bool per_thread = false;
	int rc = tf_tau_edf_conflict(path, tf_ctx_opts(ctx)->edf_path, err);
	if (rc >= 0)
		rc = tf_tau_list_dir(path, &files, &n, &per_thread, err);
	if (rc >= 0 && n == 0)
		rc = tf_error_set(err, TF_EFORMAT, path, -1, -1,
				  "no TAU trace files (tautrace.*.trc or tau.trc) in this directory");
	tf_part *p = rc >= 0 ? calloc(n, sizeof(tf_part)) : NULL;
	if (rc >= 0 && !p)
		rc = tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	for (size_t i = 0; i < n; i++) {
		char *trc = rc >= 0 ? tf_tau_path_join(path, files[i].name) : NULL;
		if (trc && stat(trc, &sb) == 0)
			p[i].bytes = (uint64_t)sb.st_size;
		free(trc);
		free(files[i].name);
	}
	free(files);
	if (rc < 0) {
		free(p);
		return rc;
	}
	*out = p;
	return (int)n;
}
