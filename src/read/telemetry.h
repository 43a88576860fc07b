/* telemetry.h - what the telemetry readers share (telemetry.c: the CSV
 * lines, values, tracks and the wall-clock alignment; telemetry_smi.c:
 * nvidia-smi and rocm-smi).  docs/telemetry.md. */
#ifndef TRACEFOLD_READ_TELEMETRY_H
#define TRACEFOLD_READ_TELEMETRY_H

#include <stdint.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"

/* At most this many columns in a line (more: the line is refused). */
#define TEL_MAX_FIELDS 64

typedef struct tel_field {
	const char *p;
	size_t n;
} tel_field;

typedef struct tel_rd tel_rd;
/* One line of the file (without its end of line, not empty; '#' comment
 * lines too, for the formats that read them); off: its byte offset. */
typedef int (*tel_line_fn)(tel_rd *r, const char *s, size_t n, uint64_t off);

struct tel_rd {
	const char *path, *what;  /* what: the format in messages ("nvidia-smi CSV") */
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	uint64_t line, index, samples;
	bool aligned;             /* tel_align was called */
	bool own_clock;           /* the times are the trace's already (generic clock=trace) */
	int64_t shift;            /* added to each wall-clock time */
	tf_str proc;              /* "telemetry <host or file>": process key and name */
	char host[128];           /* the host, "" for the file's name */
	void *fmt;                /* the format's own state */
};

int tel_read(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err, const char *what,
	     tel_line_fn fn, void *fmt);
/* A TF_EFORMAT naming the file, the line and its byte offset. */
int tel_error(tel_rd *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* s[0..n) split at ',' (each field's blanks around it trimmed); returns
 * the count or -1 when there are more than max. */
int tel_split(const char *s, size_t n, tel_field *f, int max);
bool tel_is(const tel_field *f, const char *lit);
/* A value: 1 and *v (the number times scale, a unit after it, attached or
 * after a blank, and parentheses around it allowed: "35 %", "1234 MiB",
 * "(1700Mhz)"; a MiB/KiB/GiB unit sets the scale to bytes); 0 not
 * available ("", "[N/A]", "N/A", "[Not Supported]", any "[...]"); -1 not a
 * number. */
int tel_value(const tel_field *f, double scale, double *v);
/* The byte multiplier of a unit ("MiB" 1048576, "B" 1 ...), 0 none. */
double tel_unit_bytes(const char *u, size_t n);
/* Puts the file on the trace's clock (once, before its first sample). */
void tel_align(tel_rd *r);
/* One sample of counter name on track (a thread of the file's process)
 * at wall-clock time wall_ns (or the trace's own, own_clock). */
int tel_emit(tel_rd *r, const char *track, size_t tn, tf_str name, int64_t wall_ns, double v);
/* A value not available: counted (telemetry_na), not emitted. */
void tel_skip_na(tel_rd *r);

#endif
