/* util.c - what the commands share: messages, error reports, option values. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

int tf_verbose;
int tf_quiet;

void tf_msg(const char *fmt, ...)
{
	va_list ap;
	fputs("tracefold: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tf_report(const tf_error *err)
{
	char buf[1400];
	tf_error_format(err, buf, sizeof(buf));
	tf_msg("%s", buf);
	return err->code == TF_EUSAGE ? TF_EXIT_USAGE : TF_EXIT_INPUT;
}

int tf_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tracefold %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tracefold %s --help'.\n", cmd);
	return TF_EXIT_USAGE;
}

bool tf_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

bool tf_parse_i64(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

bool tf_parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

void tf_report_diag(tf_ctx *ctx)
{
	const tf_diag *d = tf_ctx_diag(ctx);
	if (tf_quiet || !tf_diag_problems(d))
		return;
	char buf[2048];
	tf_diag_format(d, TF_SEV_REPAIR, ", ", buf, sizeof(buf));
	tf_msg("repaired or skipped damaged input: %s (see docs/diagnostics.md)", buf);
	size_t n = tf_ctx_nnotes(ctx), shown = 0;
	for (size_t i = 0; i < n && shown < 10; i++) {
		const char *note = tf_ctx_note_get(ctx, i);
		if (note) {
			tf_msg("  %s", note);
			shown++;
		}
	}
	if (n > shown)
		tf_msg("  ... and %zu more", n - shown);
}
