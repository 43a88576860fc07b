/* registry.c - the input formats: one row per format.  A new format is a new
 * file in src/read/ plus one line here. */
#include <string.h>
#include <sys/stat.h>
#include "tracefold/reader.h"
#include "tracefold/io.h"

extern const tf_format tf_format_chrome;
extern const tf_format tf_format_tau;
extern const tf_format tf_format_otf2;

const tf_format *const tf_formats[] = {
	&tf_format_otf2,
	&tf_format_tau,
	&tf_format_chrome,
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
	for (int i = 0; tf_formats[i]; i++) {
		int s = tf_formats[i]->sniff(path, is_dir, head, (size_t)n);
		if (s == TF_SNIFF_YES)
			return tf_formats[i];
		if (s == TF_SNIFF_MAYBE && !maybe)
			maybe = tf_formats[i];
	}
	if (!maybe && strcmp(path, "-") == 0)
		maybe = &tf_format_chrome; /* stdin: JSON is the only streamable format */
	if (!maybe)
		tf_error_set(err, TF_EUNKNOWN, path, -1, -1,
			     "not a trace tracefold can read (expected Chrome/PyTorch JSON, a TAU .trc "
			     "file or trace directory, or an OTF2 anchor file or directory)");
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
