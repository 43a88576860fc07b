/* out.c - the output half of the input and output layer (io.h): a
 * buffered output, optionally gzipped, written aside and renamed on
 * success (io.c is the input half). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "tracefold/io.h"

#define OUT_BYTES (512u * 1024u)

struct tf_out {
	FILE *f;
	bool own, gzip, failed;
	int err_no;           /* errno of the first failure (0: none known) */
	z_stream z;
	unsigned char *buf;   /* pending plain bytes */
	size_t len;
	unsigned char *zbuf;
	char path[512];
	char *tmp;            /* the temporary file renamed to target on success */
	char *target;         /* path, or what its symbolic link points to */
};

/* A regular file (or a new one) is written to a temporary file beside it
 * and renamed over it when everything was written: a failed run never
 * leaves a half-written file nor destroys the one that was there.  Devices
 * and pipes (/dev/null, /dev/full, a FIFO) are written directly. */
static int out_create(tf_out *o, const char *path, tf_error *err)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot create '%s': it is a directory", path);
		o->f = fopen(path, "wb");
		return o->f ? 0 : tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot create '%s'", path);
	}
	struct stat lst;
	o->target = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : strdup(path);
	if (!o->target)
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot create '%s'", path);
	const char *slash = strrchr(o->target, '/');
	size_t dlen = slash ? (size_t)(slash - o->target) + 1 : 0;
	const char *base = o->target + dlen;
	o->tmp = malloc(dlen + strlen(base) + 16);
	if (!o->tmp)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dlen, o->target, base);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot create '%s'", path);
	}
	if (exists) { /* the file it replaces keeps its mode (a private profile stays private) */
		(void)fchmod(fd, st.st_mode & 07777);
	} else { /* what fopen would have given */
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot create '%s'", path);
	}
	return 0;
}

static void out_free(tf_out *o)
{
	free(o->buf);
	free(o->zbuf);
	free(o->tmp);
	free(o->target);
	free(o);
}

int tf_out_open(tf_out **out, const char *path, bool gzip, tf_error *err)
{
	*out = NULL;
	tf_out *o = calloc(1, sizeof(*o));
	if (!o)
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
	} else {
		int rc = out_create(o, path, err);
		if (rc < 0) {
			out_free(o);
			return rc;
		}
		o->own = true;
	}
	o->buf = malloc(OUT_BYTES);
	o->gzip = gzip;
	if (gzip) {
		o->zbuf = malloc(OUT_BYTES);
		/* windowBits 15+16: gzip wrapper with no name and mtime 0: deterministic */
		if (!o->zbuf || deflateInit2(&o->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			o->gzip = false;
			tf_out_abort(o); /* never replaces what is at path */
			return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': zlib init failed", path);
		}
	}
	if (!o->buf) {
		tf_out_abort(o);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", path);
	}
	*out = o;
	return 0;
}

/* The first failure, with its errno (ENOSPC, EIO, EFBIG...) kept for the
 * message: later calls (fclose, zlib) may change errno. */
static void out_failed(tf_out *o)
{
	if (!o->failed)
		o->err_no = errno;
	o->failed = true;
}

static void deflate_some(tf_out *o, const unsigned char *p, size_t n, int flush)
{
	o->z.next_in = (unsigned char *)p;
	o->z.avail_in = (uInt)n;
	do {
		o->z.next_out = o->zbuf;
		o->z.avail_out = OUT_BYTES;
		int zr = deflate(&o->z, flush);
		if (zr == Z_STREAM_ERROR) {
			errno = 0;
			out_failed(o);
			return;
		}
		size_t have = OUT_BYTES - o->z.avail_out;
		if (have && fwrite(o->zbuf, 1, have, o->f) != have)
			out_failed(o);
	} while (o->z.avail_out == 0 || (flush == Z_FINISH && o->z.avail_in));
}

static void flush_buf(tf_out *o, int final)
{
	if (o->gzip)
		deflate_some(o, o->buf, o->len, final ? Z_FINISH : Z_NO_FLUSH);
	else if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		out_failed(o);
	o->len = 0;
}

int tf_out_write(tf_out *o, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	while (n) {
		size_t k = OUT_BYTES - o->len;
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (o->len == OUT_BYTES)
			flush_buf(o, 0);
	}
	if (!o->failed)
		return 0;
	errno = o->err_no; /* for a caller's tf_error_set */
	return TF_EIO;
}

int tf_out_puts(tf_out *o, const char *s) { return tf_out_write(o, s, strlen(s)); }

int tf_out_printf(tf_out *o, const char *fmt, ...)
{
	char small[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return TF_EIO;
	if ((size_t)n < sizeof(small))
		return tf_out_write(o, small, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big)
		return TF_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int rc = tf_out_write(o, big, (size_t)n);
	free(big);
	return rc;
}

int tf_out_close(tf_out *o, tf_error *err)
{
	if (!o)
		return 0;
	if (o->buf)
		flush_buf(o, 1);
	if (o->gzip)
		deflateEnd(&o->z);
	if (fflush(o->f) != 0 || ferror(o->f))
		out_failed(o);
	if (o->tmp && !o->failed && fsync(fileno(o->f)) != 0)
		out_failed(o);
	if (o->own && fclose(o->f) != 0)
		out_failed(o);
	int rc = 0;
	if (o->tmp) {
		if (!o->failed && rename(o->tmp, o->target) != 0)
			out_failed(o);
		if (o->failed)
			unlink(o->tmp);
	}
	if (o->failed)
		rc = tf_out_error(o, err);
	out_free(o);
	return rc;
}

int tf_out_error(const tf_out *o, tf_error *err)
{
	errno = o->err_no; /* 0 (zlib failed): tf_error_set adds no errno text */
	if (!o->err_no)
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': %s", o->path, tf_strerror(TF_EIO));
	return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", o->path);
}

int tf_out_open_named(tf_out **out, const char *path, tf_error *err)
{
	size_t n = strlen(path);
	return tf_out_open(out, path, n > 3 && !strcmp(path + n - 3, ".gz"), err);
}

int tf_out_finish(tf_out *o, int rc, tf_error *err)
{
	if (rc == 0)
		return tf_out_close(o, err);
	if (o && o->failed) /* a write failed: why (ENOSPC...), not "input/output error" */
		rc = tf_out_error(o, err);
	else
		rc = tf_error_set(err, rc, NULL, -1, -1, "cannot write '%s': %s", o ? o->path : "?", tf_strerror(rc));
	tf_out_abort(o);
	return rc;
}

void tf_out_abort(tf_out *o)
{
	if (!o)
		return;
	if (o->gzip)
		deflateEnd(&o->z);
	if (o->own)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	out_free(o);
}
