/* chrome.c - placeholder: this reader is being written (see the open issues). */
#include "tracefold/reader.h"

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n)
{
	return TF_SNIFF_NO;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	return tf_error_set(err, TF_ENOTIMPL, path, -1, -1, "the chrome reader is not built yet");
}

const tf_format tf_format_chrome = { "chrome", "chrome (not yet implemented)", sniff, read_input };
