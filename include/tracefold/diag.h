/* diag.h - named counters of what was read, skipped and repaired (see include/tracefold/diag.def). */
#ifndef TRACEFOLD_DIAG_H
#define TRACEFOLD_DIAG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
#define X(id, sev, text) TF_DIAG_##id,
#include "diag.def"
#undef X
	TF_DIAG_COUNT
} tf_diag_id;

typedef enum { TF_SEV_INFO, TF_SEV_REPAIR, TF_SEV_SKIP, TF_SEV_WARN } tf_severity;

typedef struct tf_diag {
	uint64_t n[TF_DIAG_COUNT];
	/* Time a repair moved, in ns: child_clipped (overhang cut off a child),
	 * overlap_cut (end of a region moved back to where the overlapping one
	 * starts), begin_unclosed (duration given to a region closed at the end
	 * of its track), negative_duration (negative length dropped),
	 * depth_limited (self time folded into the frame at the limit).  0 for
	 * every other counter. */
	uint64_t ns[TF_DIAG_COUNT];
} tf_diag;

const char *tf_diag_name(tf_diag_id id);
const char *tf_diag_text(tf_diag_id id);
tf_severity tf_diag_severity(tf_diag_id id);
/* Whether the counter also sums a time (tf_diag.ns): every repair, and the
 * time a window clipped and the GPU time attributed or not. */
bool tf_diag_timed(tf_diag_id id);
void tf_diag_add(tf_diag *dst, const tf_diag *src);
/* Number of repairs and warnings (what a user should be told about). */
uint64_t tf_diag_problems(const tf_diag *d);
/* Adds one repair of id that moved ns nanoseconds (saturating). */
void tf_diag_repair(tf_diag *d, tf_diag_id id, int64_t ns);
/* Writes "name=value" pairs of every non-zero counter of the given minimal
 * severity, separated by sep, into buf (always NUL-terminated).  A repair
 * that moved time is followed by "name_ns=N" (human == 0, for machines) or
 * shows it as "name=value (moved 1.5 ms)" (human != 0). */
void tf_diag_format(const tf_diag *d, tf_severity min_sev, const char *sep, int human, char *buf, size_t len);
/* "1.234 s", "12.5 ms", "3 us", "17 ns": a duration for people. */
void tf_fmt_ns(uint64_t ns, char *buf, size_t len);

#endif
