/* names.h - stable names: the frames that become functions in profiles,
 * tables and flame graphs, made the same in every run of the same code
 * (docs/stack-rules.md "Stable names").
 *
 *   reader --tf_event.name (original)--> stack builder --call path frames
 *   (normalized)--> aggregate, profiles, top/diff, flame, Parquet `name`;
 *   the original text stays on the span (timelines, Parquet `raw_name`)
 *
 * Rules, each one bit of tf_read_opts.name_rules, applied in this order,
 * each to the result of the one before:
 *  - TF_NAMES_ADDR: a Python object address " at 0x<hex>" (its digits
 *    followed by the end or a character that is no letter, digit or '_') is removed
 *    ("<built-in method item of Tensor object at 0x7f..>" ->
 *    "<built-in method item of Tensor object>");
 *  - TF_NAMES_NVTX: PyTorch's NVTX range suffixes that number each call,
 *    ", seq = <digits>", ", op_id = <digits>" and ", input_op_ids = ..."
 *    (always the last), are removed; ", sizes = [...]" (the same in every
 *    run) stays;
 *  - TF_NAMES_STEP: a whole name "ProfilerStep#<digits>" becomes
 *    "ProfilerStep" (the step number is kept as a `step` label by
 *    --label-steps and diff --gate). */
#ifndef TRACEFOLD_NAMES_H
#define TRACEFOLD_NAMES_H

#include <stddef.h>

enum {
	TF_NAMES_ADDR = 1u << 0,
	TF_NAMES_STEP = 1u << 1,
	TF_NAMES_NVTX = 1u << 2,
	TF_NAMES_ALL = TF_NAMES_ADDR | TF_NAMES_STEP | TF_NAMES_NVTX,
};

/* s[0..n) normalized by `rules` into out (room for n bytes; the result is
 * never longer; not NUL-terminated); returns its length. */
size_t tf_name_normalize(const char *s, size_t n, unsigned rules, char *out);

#endif
