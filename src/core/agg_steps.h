/* agg_steps.h - the aggregate's samples under a step label set aside
 * (agg_steps.c, tf_agg_steps_aside in agg.h): the hooks agg.c calls. */
#ifndef TRACEFOLD_AGG_STEPS_H
#define TRACEFOLD_AGG_STEPS_H

#include "tracefold/agg.h"

typedef struct tf_agg_steps tf_agg_steps;

/* agg.c: the agg's slot for its tf_agg_steps (NULL: none). */
tf_agg_steps **tf_agg_steps_slot_(tf_agg *a);
const tf_agg_steps *tf_agg_steps_get_(const tf_agg *a);
void tf_agg_steps_free_(tf_agg_steps *s);
/* 1 when label set lset has the step label (its samples go to the open
 * table: tf_agg_steps_values_, tf_agg_steps_add_), 0 when not, TF_ENOMEM. */
int tf_agg_steps_is_(tf_agg *a, uint32_t lset);
int64_t *tf_agg_steps_values_(tf_agg *a, uint32_t node, uint32_t lset);
int tf_agg_steps_add_(tf_agg *a, uint32_t node, uint32_t lset, int t, int64_t v);
int tf_agg_steps_add_values_(tf_agg *a, uint32_t node, uint32_t lset, const int64_t *values);

#endif
