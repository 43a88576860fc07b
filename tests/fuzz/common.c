/* common.c - helpers shared by the fuzz targets (see fuzz.h). */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "fuzz.h"
#include "tracefold/agg.h"
#include "tracefold/pprof.h"
#include "tracefold/stack.h"
#include "tracefold/agg_sink.h"
#include "report.h"

void fz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fuzz contract broken: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static char tmpdir[256];

/* Removes path and everything below it (our own temp dir only). */
static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *de;
	char p[1024];
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		rm_tree(p);
	}
	closedir(d);
	rmdir(path);
}

static void rm_tmpdir(void)
{
	rm_tree(tmpdir);
}

const char *fz_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(tmpdir, sizeof(tmpdir), "%s/tf-fuzz-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpdir))
			fz_fail("cannot create a temporary directory in %s", t && *t ? t : "/tmp");
		atexit(rm_tmpdir);
	}
	return tmpdir;
}

const char *fz_path(const char *name)
{
	static char bufs[4][600];
	static int k;
	char *b = bufs[k++ & 3];
	snprintf(b, sizeof(bufs[0]), "%s/%s", fz_tmpdir(), name);
	return b;
}

void fz_write(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		fz_fail("cannot write %s", path);
}

unsigned char *fz_gzip(const void *data, size_t n, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		fz_fail("deflateInit2");
	size_t cap = deflateBound(&z, n) + 32;
	unsigned char *out = malloc(cap);
	if (!out)
		fz_fail("out of memory");
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fz_fail("deflate");
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

unsigned char *fz_fixture(const char *rel, size_t *n_out)
{
	const char *root = getenv("TF_FUZZ_DATA");
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", root && *root ? root : "tests/data", rel);
	FILE *f = fopen(p, "rb");
	if (!f)
		fz_fail("fixture %s is missing (run from the repository root or set TF_FUZZ_DATA)", p);
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			unsigned char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	fclose(f);
	if (!b)
		fz_fail("out of memory");
	*n_out = n;
	return b;
}

void fz_check_error(int rc, const tf_error *err, bool where)
{
	static int selftest = -1;
	if (selftest < 0)
		selftest = getenv("FZ_SELFTEST") != NULL;
	if (selftest) { /* tests/e2e/fuzz_regress.sh: a read that "fails" without a file name */
		static tf_error e;
		tf_error_clear(&e);
		tf_error_set(&e, TF_EFORMAT, NULL, 0, -1, "self test");
		rc = TF_EFORMAT;
		err = &e;
	}
	if (rc >= 0 || rc == TF_ESTOP)
		return;
	if (err->code == 0)
		fz_fail("reader returned %d (%s) without filling the tf_error", rc, tf_strerror(rc));
	if (!err->path[0])
		fz_fail("error without a file name: %s", err->msg);
	if (!err->msg[0])
		fz_fail("error without a message (code %d) for '%s'", err->code, err->path);
	if (where && err->code == TF_EFORMAT && err->offset < 0 && err->event_index < 0)
		fz_fail("format error with neither byte offset nor event index: '%s': %s", err->path, err->msg);
	char buf[1200];
	tf_error_format(err, buf, sizeof(buf));
	if (strncmp(buf, "cannot read '", 13) != 0)
		fz_fail("error text does not name the file: %s", buf);
}

void fz_check_accounting(const tf_ctx *ctx)
{
	const tf_diag *d = tf_ctx_diag((tf_ctx *)ctx);
	uint64_t sum = 0;
	for (int i = TF_DIAG_ev_duration; i <= TF_DIAG_trace_span; i++)
		sum += d->n[i];
	sum += d->n[TF_DIAG_truncated_record] + d->n[TF_DIAG_bad_event] + d->n[TF_DIAG_unknown_event_id];
	sum += d->n[TF_DIAG_xplane_not_timeline] + d->n[TF_DIAG_xplane_memory_event]; /* the XPlane reader's skips */
	sum += d->n[TF_DIAG_telemetry_na]; /* the telemetry readers' values not available */
	if (d->n[TF_DIAG_events_read] != sum)
		fz_fail("accounting: events_read=%llu but kinds + skips = %llu",
			(unsigned long long)d->n[TF_DIAG_events_read], (unsigned long long)sum);
}

/* Sum of every sample's value of type name, or 0 if the type is absent. */
static int64_t type_total(const tf_agg *a, const char *name)
{
	int t = tf_agg_type_find(a, name);
	if (t < 0)
		return 0;
	uint64_t s = 0; /* wrapping sum: equal inputs give equal sums */
	for (size_t i = 0; i < tf_agg_nsamples(a); i++)
		s += (uint64_t)tf_agg_sample_value(a, i, t);
	return (int64_t)s;
}

/* The aggregate -> pprof bytes -> tf_pprof_read: every profile we write must
 * be one we (and so pprof's CheckValid) accept, with the same totals. */
static void pprof_round_trip(tf_agg *agg)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_pprof_encode(agg, &buf, &len, &err);
	if (rc < 0)
		fz_fail("tf_pprof_encode failed: %s", err.msg);
	const char *p = fz_path("roundtrip.pb");
	fz_write(p, buf, len);
	free(buf);
	tf_strtab *st = tf_strtab_new();
	tf_agg *back = tf_agg_new(st);
	if (!st || !back)
		fz_fail("out of memory");
	tf_error_clear(&err);
	rc = tf_pprof_read(back, p, &err);
	if (rc < 0) {
		char m[1200];
		tf_error_format(&err, m, sizeof(m));
		fz_fail("our own profile does not read back: %s", m);
	}
	tf_strtab *ast = tf_agg_strtab(agg);
	if (tf_agg_ntypes(back) != tf_agg_ntypes(agg))
		fz_fail("round trip: %d sample types written, %d read", tf_agg_ntypes(agg), tf_agg_ntypes(back));
	for (int t = 0; t < tf_agg_ntypes(agg); t++) {
		const char *name = tf_strtab_get(ast, tf_agg_type_get(agg, t).type);
		int64_t a = type_total(agg, name), b = type_total(back, name);
		if (a != b)
			fz_fail("round trip: total of '%s' was %lld, reads back as %lld", name, (long long)a,
				(long long)b);
	}
	tf_agg_free(back);
	tf_strtab_free(st);
}

void fz_reports(tf_agg *agg)
{
	for (int t = 0; t < tf_agg_ntypes(agg); t++)
		for (int paths = 0; paths < 2; paths++) {
			tf_fnstats fs;
			memset(&fs, 0, sizeof(fs));
			int rc = tf_fnstats_build(&fs, agg, t, paths);
			if (rc < 0)
				fz_fail("tf_fnstats_build: %s", tf_strerror(rc));
			tf_fnstats_free(&fs);
		}
}

int fz_pipeline_fn(fz_read_fn fn, void *arg, bool where, tf_diag *diag_out)
{
	static const char *const all[] = { "all", NULL };
	tf_ctx *ctx = tf_ctx_new();
	tf_agg *agg = ctx ? tf_agg_new(tf_ctx_strtab(ctx)) : NULL;
	/* wired as the pipeline does: an aggregate consumer of all counters */
	tf_stacks *s = agg ? tf_stacks_new(ctx, tf_agg_cpath(agg), NULL) : NULL;
	tf_agg_sink *ak = s ? tf_agg_sink_new(ctx, agg, all) : NULL;
	if (!ak || tf_stacks_add_consumer(s, tf_agg_sink_spans(ak)) < 0)
		fz_fail("out of memory");
	tf_error err;
	tf_error_clear(&err);
	tf_sink *sink = tf_stacks_sink(s);
	int rc = fn(arg, ctx, sink, &err);
	fz_check_error(rc, &err, where);
	if (rc == TF_ENOMEM) /* inputs are small: this is a size taken from the input */
		fz_fail("out of memory reading a small input: %s", err.msg);
	if (rc >= 0 || rc == TF_ESTOP) {
		fz_check_accounting(ctx);
		int r = sink->end_input(sink, 0);
		if (r >= 0)
			r = tf_stacks_finish(s);
		if (r < 0)
			fz_fail("stack builder failed: %s", tf_strerror(r));
		int64_t first, last; /* the time span, as the pipeline writes it */
		if (tf_stacks_time_span(s, &first, &last)) {
			tf_agg_meta *m = tf_agg_meta_get(agg);
			m->time_nanos = first >= 1000000000000000000ll ? first : 0;
			m->duration_nanos = first < 0 && last > INT64_MAX + first ? INT64_MAX : last - first;
		}
		pprof_round_trip(agg);
		fz_reports(agg);
	}
	/* the notes must be printable */
	for (size_t i = 0; i < tf_ctx_nnotes(ctx) && i < TF_CTX_MAX_NOTES; i++) {
		const char *n = tf_ctx_note_get(ctx, i);
		if (!n || !n[0])
			fz_fail("empty note %zu", i);
	}
	if (diag_out)
		*diag_out = *tf_ctx_diag(ctx);
	tf_stacks_free(s);
	tf_agg_sink_free(ak);
	tf_agg_free(agg);
	tf_ctx_free(ctx);
	return rc;
}

struct fmt_arg {
	const tf_format *f;
	const char *path;
};

static int read_format(void *arg, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	struct fmt_arg *a = arg;
	return a->f->read(a->path, 0, ctx, sink, err);
}

int fz_pipeline(const tf_format *f, const char *path, bool where, tf_diag *diag_out)
{
	struct fmt_arg a = { f, path };
	return fz_pipeline_fn(read_format, &a, where, diag_out);
}
