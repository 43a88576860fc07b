/* read_all.c - the whole (decompressed) input, for the formats read whole
 * (pprof, XPlane, the XLA memory profile): io.h tf_in_read_all, over
 * io.c's streaming input. */
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
