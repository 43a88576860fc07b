/* read_all.c - a file in one call, over io.c's streams: the whole
 * (decompressed) input, for the formats read whole (pprof, XPlane, the
 * XLA memory profile: tf_in_read_all), and a whole output made in memory
 * (tf_out_write_file: a man page, an overview report). */
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include "grow.h"

int tf_in_read_all(const char *path, const char *what, unsigned char **buf_out, size_t *len_out, tf_error *err)
{
	tf_in *in;
	TF_TRY(tf_in_open(&in, path, err));
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	for (;;) {
		const unsigned char *data;
		ptrdiff_t n = tf_in_chunk(in, &data, err);
		if (n <= 0) {
			rc = (int)n;
			break;
		}
		if (tf_grow_n((void **)&buf, &cap, len + (size_t)n, 1, false) < 0) {
			rc = tf_error_set(err, TF_ENOMEM, path, (int64_t)len, -1, "out of memory holding the %s (%zu bytes)",
					  what, len);
			break;
		}
		memcpy(buf + len, data, (size_t)n);
		len += (size_t)n;
	}
	if (rc == 0 && tf_in_truncated(in))
		rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)len, -1, "gzip data ends early (truncated file)");
	tf_in_close(in);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*buf_out = buf;
	*len_out = len;
	return 0;
}

int tf_out_write_file(const char *path, const void *buf, size_t n, tf_error *err)
{
	tf_out *o;
	TF_TRY(tf_out_open(&o, path, false, err));
	tf_out_write(o, buf, n);
	return tf_out_close(o, err); /* a failed write is reported by the close */
}
