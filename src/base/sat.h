/* sat.h - saturating int64 arithmetic for numbers that come from input
 * (timestamps, durations, counter and profile values).  Damaged or hostile
 * input can hold any int64, and signed overflow is undefined behaviour in
 * C: sums and differences of such numbers clamp to INT64_MIN / INT64_MAX
 * instead.  A clamped value is visibly absurd in a profile; a wrapped one
 * would look plausible. */
#ifndef TRACEFOLD_SAT_H
#define TRACEFOLD_SAT_H

#include <stdint.h>

static inline int64_t tf_sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t tf_sat_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a + b for counts and totals that only grow (uint64), clamped to UINT64_MAX. */
static inline uint64_t tf_sat_addu(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Nearest int64 (halves away from zero), clamped; NaN -> 0. */
static inline int64_t tf_sat_from_double(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775807.0) /* 2^63: the first double above INT64_MAX */
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	double r = v < 0 ? v - 0.5 : v + 0.5;
	if (r >= 9223372036854775807.0)
		return INT64_MAX;
	if (r <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)r;
}

#endif
