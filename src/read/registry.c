/* registry.c - the input formats, of every kind: one row per format.  A new
 * format is a new file in src/read/ plus one line here.  Profiles come
 * first: a pprof or folded-stacks file is said to be one before a trace
 * reader's "maybe" (a JSON-looking text) could take it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"

extern const tf_format tf_format_chrome;
extern const tf_format tf_format_tau;
extern const tf_format tf_format_otf2;
extern const tf_format tf_format_perfetto;
extern const tf_format tf_format_pprof;
extern const tf_format tf_format_folded;
extern const tf_format tf_format_nsys;
extern const tf_format tf_format_xla_memory;
extern const tf_format tf_format_xplane;
extern const tf_format tf_format_perf;
extern const tf_format tf_format_firefox;
extern const tf_format tf_format_speedscope;
extern const tf_format tf_format_austin;
extern const tf_format tf_format_tables;
extern const tf_format tf_format_telemetry;
extern const tf_format tf_format_nvidia_smi;
extern const tf_format tf_format_rocm_smi;

const tf_format *const tf_formats[] = {
	&tf_format_pprof,
	/* telemetry CSVs: their first line is theirs alone, and a row of
	 * nvidia-smi ,noheader could look like anything's */
	&tf_format_telemetry,
	&tf_format_nvidia_smi,
	&tf_format_rocm_smi,
	&tf_format_austin, /* "Thread <hex>;frames N": folded-looking, so before folded */
	&tf_format_folded,
	&tf_format_perf, /* text whose first line is a perf script sample header */
	&tf_format_tables, /* a folder with table folders of *.parquet, or a PAR1 file: before the folder readers */
	&tf_format_otf2,
	&tf_format_tau,
	&tf_format_firefox, /* before chrome: its JSON object with "meta" is a chrome MAYBE */
	&tf_format_speedscope, /* JSON: before chrome, whose sniff says maybe to any JSON */
	&tf_format_chrome,
	&tf_format_xplane, /* before perfetto: both are protobuf starting 0x0a */
	&tf_format_perfetto,
	&tf_format_nsys,
	&tf_format_xla_memory,
	NULL,
};

const tf_format *tf_format_by_name(const char *name)
{
	for (int i = 0; tf_formats[i]; i++)
		if (strcmp(tf_formats[i]->name, name) == 0)
			return tf_formats[i];
	return NULL;
}

/* How far leading whitespace is skipped to find what a text file holds. */
#define SNIFF_WS_BYTES (1u << 20)

static int sniff_all(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole,
		     const tf_format **maybe)
{
	for (int i = 0; tf_formats[i]; i++) {
		int s = tf_formats[i]->sniff(path, is_dir, head, n, whole);
		if (s == TF_SNIFF_YES)
			return i;
		if (s == TF_SNIFF_MAYBE && !*maybe)
			*maybe = tf_formats[i];
	}
	return -1;
}

static bool all_ws(const unsigned char *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i] != ' ' && h[i] != '\t' && h[i] != '\n' && h[i] != '\r')
			return false;
	return true;
}

/* A text file that starts with whitespace (a JSON trace after 200 blank
 * lines): sniff again from its first other byte. */
static const tf_format *sniff_after_ws(const char *path, const tf_format **maybe, tf_error *err)
{
	unsigned char *big = malloc(SNIFF_WS_BYTES);
	if (!big)
		return NULL;
	ptrdiff_t n = tf_file_head(path, big, SNIFF_WS_BYTES, err);
	size_t off = 0;
	while (n > 0 && off < (size_t)n && all_ws(big + off, 1))
		off++;
	int k = -1;
	if (n > 0 && off < (size_t)n) {
		size_t len = (size_t)n - off < TF_SNIFF_HEAD ? (size_t)n - off : TF_SNIFF_HEAD;
		k = sniff_all(path, 0, big + off, len, len < TF_SNIFF_HEAD, maybe);
	}
	free(big);
	return k >= 0 ? tf_formats[k] : NULL;
}

/* UTF-16 (Windows tools write it) is named, not "not a trace". */
static bool is_utf16(const unsigned char *h, size_t n)
{
	if (n >= 2 && ((h[0] == 0xFF && h[1] == 0xFE) || (h[0] == 0xFE && h[1] == 0xFF)))
		return true;
	return n >= 4 && ((h[1] == 0 && h[3] == 0 && (h[0] == '[' || h[0] == '{')) ||
			  (h[0] == 0 && h[2] == 0 && (h[1] == '[' || h[1] == '{')));
}

void tf_formats_list(int kind, char *buf, size_t len)
{
	int n = 0, k = 0;
	for (int i = 0; tf_formats[i]; i++)
		n += kind < 0 || tf_formats[i]->kind == kind;
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; tf_formats[i] && at < len; i++) {
		if (kind >= 0 && tf_formats[i]->kind != kind)
			continue;
		k++;
		int w = snprintf(buf + at, len - at, "%s%s", k == 1 ? "" : k == n ? " or " : ", ", tf_formats[i]->name);
		at += w > 0 ? (size_t)w : 0;
	}
}

static const tf_format *unknown(const char *path, tf_error *err)
{
	char tr[256], sa[256], pr[256];
	tf_formats_list(TF_INPUT_EVENTS, tr, sizeof(tr));
	tf_formats_list(TF_INPUT_SAMPLES, sa, sizeof(sa));
	tf_formats_list(TF_INPUT_PROFILE, pr, sizeof(pr));
	tf_error_set(err, TF_EUNKNOWN, path, -1, -1,
		     "not a trace or profile tracefold can read (traces: %s; sampled profiles: %s; profiles: %s; "
		     "'tracefold --help' describes each)", tr, sa, pr);
	return NULL;
}

const tf_format *tf_format_find(const char *path, const char *force, tf_error *err)
{
	if (force) {
		const tf_format *f = tf_format_by_name(force);
		if (!f)
			tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "unknown format '%s'", force);
		return f;
	}
	if (!strcmp(path, "-"))
		return &tf_format_chrome; /* stdin: JSON is the only streamable format */
	struct stat sb;
	if (stat(path, &sb) != 0) {
		tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
		return NULL;
	}
	int is_dir = S_ISDIR(sb.st_mode);
	unsigned char head[TF_SNIFF_HEAD];
	ptrdiff_t n = 0;
	bool whole = false;
	if (!is_dir && (n = tf_file_head_whole(path, head, TF_SNIFF_HEAD, &whole, err)) < 0)
		return NULL;
	const tf_format *maybe = NULL;
	int k = sniff_all(path, is_dir, head, (size_t)n, whole, &maybe);
	if (k >= 0)
		return tf_formats[k];
	if (!is_dir && is_utf16(head, (size_t)n)) {
		tf_error_set(err, TF_EUNKNOWN, path, -1, -1,
			     "is UTF-16 text; tracefold reads JSON traces as UTF-8 (convert it: "
			     "iconv -f UTF-16 -t UTF-8 IN > OUT)");
		return NULL;
	}
	if (!maybe && !is_dir && n == TF_SNIFF_HEAD && all_ws(head, (size_t)n)) {
		const tf_format *f = sniff_after_ws(path, &maybe, err);
		if (f)
			return f;
	}
	return maybe ? maybe : unknown(path, err);
}

int tf_inputs_resolve(const char *const *paths, int n, const char *force, const tf_format **out, tf_error *err)
{
	for (int i = 0; i < n; i++)
		if (!(out[i] = tf_format_find(paths[i], force, err)))
			return err && err->code ? err->code : TF_EUNKNOWN;
	return 0;
}

int tf_inputs_resolve_new(const char *const *paths, int n, const char *force, const tf_format ***out,
			  tf_error *err)
{
	const tf_format **f = *out = calloc((size_t)n + 1, sizeof(*f));
	if (!f)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	int rc = tf_inputs_resolve(paths, n, force, f, err);
	if (rc < 0) {
		free(f);
		*out = NULL;
	}
	return rc;
}

int tf_read_input(const char *path, const char *force, uint32_t input, tf_ctx *ctx,
		  tf_sink *sink, tf_error *err)
{
	const tf_format *f = tf_format_find(path, force, err);
	if (!f)
		return err && err->code ? err->code : TF_EUNKNOWN;
	if (!f->read)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "'%s' is a %s, not a trace", path, f->noun);
	int rc = f->read(path, input, ctx, sink, err);
	if (rc < 0 && rc != TF_ESTOP)
		return rc;
	if (sink && sink->end_input)
		TF_TRY(sink->end_input(sink, input));
	return 0;
}
