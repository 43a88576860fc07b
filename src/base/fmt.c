/* fmt.c - values for people: "12.35 ms" for time units, integers else. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "fmt.h"

double tf_unit_ns(const char *unit)
{
	static const struct { const char *name; double ns; } u[] = {
		{ "nanoseconds", 1 }, { "ns", 1 }, { "nanosecond", 1 },
		{ "microseconds", 1e3 }, { "us", 1e3 }, { "microsecond", 1e3 },
		{ "milliseconds", 1e6 }, { "ms", 1e6 }, { "millisecond", 1e6 },
		{ "seconds", 1e9 }, { "s", 1e9 }, { "second", 1e9 },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (strcmp(unit, u[i].name) == 0)
			return u[i].ns;
	return 0;
}

void tf_fmt_value(char *buf, size_t len, double v, const char *unit)
{
	double f = tf_unit_ns(unit);
	if (f == 0) {
		/* a count clamped at INT64_MAX (tf_sat_add) comes as a double,
		 * 2^63: the value printed is the clamped one, exactly */
		if (v >= 9223372036854775807.0)
			snprintf(buf, len, "%lld", (long long)INT64_MAX);
		else if (v <= -9223372036854775808.0)
			snprintf(buf, len, "%lld", (long long)INT64_MIN);
		else
			snprintf(buf, len, "%.0f", v);
		return;
	}
	double ns = v * f, a = fabs(ns);
	if (a == 0)
		snprintf(buf, len, "0");
	else if (a < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

void tf_fmt_delta(char *buf, size_t len, double v, const char *unit)
{
	if (len < 2)
		return;
	buf[0] = v > 0 ? '+' : v < 0 ? '-' : ' ';
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	tf_fmt_value(buf + 1, len - 1, fabs(v), unit);
}
