/* diag.h - named counters of what was read, skipped and repaired (see src/core/diag.def). */
#ifndef TRACEFOLD_DIAG_H
#define TRACEFOLD_DIAG_H

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
} tf_diag;

const char *tf_diag_name(tf_diag_id id);
const char *tf_diag_text(tf_diag_id id);
tf_severity tf_diag_severity(tf_diag_id id);
void tf_diag_add(tf_diag *dst, const tf_diag *src);
/* Number of repairs and warnings (what a user should be told about). */
uint64_t tf_diag_problems(const tf_diag *d);
/* Writes "name=value" pairs of every non-zero counter of the given minimal
 * severity, separated by sep, into buf (always NUL-terminated). */
void tf_diag_format(const tf_diag *d, tf_severity min_sev, const char *sep, char *buf, size_t len);

#endif
