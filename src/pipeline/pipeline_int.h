/* pipeline_int.h - what the pipeline's files share (not a public interface). */
#ifndef TRACEFOLD_PIPELINE_INT_H
#define TRACEFOLD_PIPELINE_INT_H

#include "tracefold/pipeline.h"

/* A first pass for the filters and steps: every input read into sink
 * through a scratch ctx of its own (ctx's tracks and diagnostics stay
 * untouched; its reader options are used).  *cur and *cur_input (when not
 * NULL) are the input being read (its index among inputs), for a sink that
 * looks at its tracks. */
int tf_pipeline_first_pass(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts, tf_sink *sink,
			   tf_ctx **cur, uint32_t *cur_input, tf_error *err);

#endif
