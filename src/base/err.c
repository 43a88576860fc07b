/* err.c - error codes and error records (err.h).  The diagnostics counters
 * (diag.h) are diag.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include "tracefold/err.h"

const char *tf_strerror(int code)
{
	switch (code) {
	case TF_OK: return "success";
	case TF_ENOMEM: return "out of memory";
	case TF_EIO: return "input/output error";
	case TF_EFORMAT: return "malformed input";
	case TF_EUSAGE: return "usage error";
	case TF_EUNKNOWN: return "unrecognised input format";
	case TF_ENOTIMPL: return "not implemented";
	case TF_ECLASH: return "incompatible inputs";
	case TF_ESTOP: return "stopped";
	case TF_ECANCEL: return "stopped: another process of the distributed run failed";
	default: return "unknown error";
	}
}

void tf_error_clear(tf_error *e)
{
	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	e->offset = -1;
	e->event_index = -1;
}

int tf_error_set(tf_error *e, int code, const char *path, int64_t offset,
		 int64_t event_index, const char *fmt, ...)
{
	if (!e || e->code)     /* keep the first (innermost) error */
		return code;
	e->code = code;
	e->sys_errno = (code == TF_EIO) ? errno : 0;
	e->offset = offset;
	e->event_index = event_index;
	snprintf(e->path, sizeof(e->path), "%s", path ? path : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

void tf_error_format(const tf_error *e, char *buf, size_t len)
{
	char where[96] = "";
	if (e->offset >= 0)
		snprintf(where, sizeof(where), " at byte %lld", (long long)e->offset);
	else if (e->event_index >= 0)
		snprintf(where, sizeof(where), " at event %lld", (long long)e->event_index);
	const char *msg = e->msg[0] ? e->msg : tf_strerror(e->code);
	if (e->path[0])
		snprintf(buf, len, "cannot read '%s'%s: %s%s%s", e->path, where, msg,
			 e->sys_errno ? ": " : "", e->sys_errno ? strerror(e->sys_errno) : "");
	else
		snprintf(buf, len, "%s%s%s", msg, e->sys_errno ? ": " : "",
			 e->sys_errno ? strerror(e->sys_errno) : "");
}
