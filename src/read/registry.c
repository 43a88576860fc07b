/* registry.c - the input formats: one row per format.  A new format is a new
 * file in src/read/ plus one line here. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"

extern const tf_format tf_format_chrome;
extern const tf_format tf_format_tau;
extern const tf_format tf_format_otf2;
extern const tf_format tf_format_perfetto;

const tf_format *const tf_formats[] = {
	&tf_format_otf2,
	&tf_format_tau,
	&tf_format_chrome,
	&tf_format_perfetto,
	NULL,
};

const tf_format *tf_format_by_name(const char *name)
{
	for (int i = 0; tf_formats[i]; i++)
		if (strcmp(tf_formats[i]->name, name) == 0)
			return tf_formats[i];
	return NULL;
}

#define SNIFF_BYTES 128
/* How far leading whitespace is skipped to find what a text file holds. */
#define SNIFF_WS_BYTES (1u << 20)

static int sniff_all(const char *path, int is_dir, const unsigned char *head, size_t n,
		     const tf_format **maybe)
{
	for (int i = 0; tf_formats[i]; i++) {
		int s = tf_formats[i]->sniff(path, is_dir, head, n);
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
		size_t len = (size_t)n - off < SNIFF_BYTES ? (size_t)n - off : SNIFF_BYTES;
		k = sniff_all(path, 0, big + off, len, maybe);
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

const tf_format *tf_format_find(const char *path, const char *force, tf_error *err)
{
	if (force) {
		const tf_format *f = tf_format_by_name(force);
		if (!f)
			tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "unknown format '%s'", force);
		return f;
	}
	struct stat sb;
	int is_dir = 0;
	if (strcmp(path, "-") != 0) {
		if (stat(path, &sb) != 0) {
			tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
			return NULL;
		}
		is_dir = S_ISDIR(sb.st_mode);
	}
	unsigned char head[SNIFF_BYTES];
	ptrdiff_t n = 0;
	if (!is_dir && strcmp(path, "-") != 0) {
		n = tf_file_head(path, head, sizeof(head), err);
		if (n < 0)
			return NULL;
	}
	const tf_format *maybe = NULL;
	int k = sniff_all(path, is_dir, head, (size_t)n, &maybe);
	if (k >= 0)
		return tf_formats[k];
	if (!is_dir && is_utf16(head, (size_t)n)) {
		tf_error_set(err, TF_EUNKNOWN, path, -1, -1,
			     "is UTF-16 text; tracefold reads JSON traces as UTF-8 (convert it: "
			     "iconv -f UTF-16 -t UTF-8 IN > OUT)");
		return NULL;
	}
	if (!maybe && strcmp(path, "-") == 0)
		maybe = &tf_format_chrome; /* stdin: JSON is the only streamable format */
	if (!maybe && !is_dir && n == SNIFF_BYTES && all_ws(head, (size_t)n)) {
		const tf_format *f = sniff_after_ws(path, &maybe, err);
		if (f)
			return f;
	}
	if (!maybe)
		tf_error_set(err, TF_EUNKNOWN, path, -1, -1,
			     "not a trace tracefold can read (expected Chrome/PyTorch JSON, a TAU .trc "
			     "file or trace directory, an OTF2 anchor file or directory, or a Perfetto "
			     "protobuf trace)");
	return maybe;
}

int tf_read_input(const char *path, const char *force, uint32_t input, tf_ctx *ctx,
		  tf_sink *sink, tf_error *err)
{
	const tf_format *f = tf_format_find(path, force, err);
	if (!f)
		return err && err->code ? err->code : TF_EUNKNOWN;
	int rc = f->read(path, input, ctx, sink, err);
	if (rc < 0 && rc != TF_ESTOP)
		return rc;
	if (sink && sink->end_input)
		TF_TRY(sink->end_input(sink, input));
	return 0;
}
