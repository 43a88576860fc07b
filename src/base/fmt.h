/* fmt.h - values for people, shared by the reports (top, diff) and the
 * pictures (flame): time units scaled to ns/us/ms/s, other units as integers. */
#ifndef TRACEFOLD_FMT_H
#define TRACEFOLD_FMT_H

#include <stddef.h>

/* Whether a unit is a time unit (nanoseconds, microseconds, ...): its ns
 * factor, else 0. */
double tf_unit_ns(const char *unit);
/* Human value: "12.35 ms" for time units (v in the unit's own scale), else the integer. */
void tf_fmt_value(char *buf, size_t len, double v, const char *unit);
/* Human signed value ("+1.20 ms", "-3"). */
void tf_fmt_delta(char *buf, size_t len, double v, const char *unit);

#endif
