/* err.h - error codes and diagnostics shared by every stage.
 *
 * Library code (src/core, src/read, src/write, src/io) never prints and never
 * exits: it returns 0 or a negative TF_E* code and, where it knows more, fills
 * a tf_error with the file and byte offset or event index.  Only src/main.c
 * and src/cmd/ print and choose exit codes.
 */
#ifndef TRACEFOLD_ERR_H
#define TRACEFOLD_ERR_H

#include <stdint.h>
#include <stddef.h>

enum {
	TF_OK = 0,
	TF_ENOMEM = -1,   /* allocation failed */
	TF_EIO = -2,      /* read/write/open failed (errno kept in tf_error) */
	TF_EFORMAT = -3,  /* input is malformed beyond repair */
	TF_EUSAGE = -4,   /* bad option or argument */
	TF_EUNKNOWN = -5, /* no reader recognises the input */
	TF_ENOTIMPL = -6, /* feature not built in */
	TF_ECLASH = -7,   /* incompatible inputs (e.g. sample types differ) */
	TF_ESTOP = -8,    /* a consumer asked the producer to stop (not an error) */
	TF_ECANCEL = -9,  /* stopped because another process of a distributed run failed */
};

const char *tf_strerror(int code);

/* Where an error happened.  Readers fill path and either byte offset or
 * event index (-1 when unknown). */
typedef struct tf_error {
	int code;
	int sys_errno;
	int64_t offset;      /* byte offset in the (decompressed) input, or -1 */
	int64_t event_index; /* 0-based event index in the input, or -1 */
	char path[512];
	char msg[512];
} tf_error;

void tf_error_clear(tf_error *e);
/* Sets e (if non-NULL) and returns code, so callers can `return tf_error_set(...)`. */
int tf_error_set(tf_error *e, int code, const char *path, int64_t offset,
		 int64_t event_index, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Formats "cannot read 'PATH' at byte N: MSG" into buf. */
void tf_error_format(const tf_error *e, char *buf, size_t len);

#define TF_TRY(expr)                          \
	do {                                  \
		int tf_try_rc_ = (expr);      \
		if (tf_try_rc_ < 0)           \
			return tf_try_rc_;    \
	} while (0)

#endif
