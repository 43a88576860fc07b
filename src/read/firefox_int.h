/* firefox_int.h - the Firefox Profiler reader's parts (firefox.c: samples,
 * threads, the profile, sniff; firefox_tables.c: the stack, frame and func
 * tables, stringArray, names and stack ids).  docs/format-firefox.md. */
#ifndef TRACEFOLD_READ_FIREFOX_INT_H
#define TRACEFOLD_READ_FIREFOX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracefold/reader.h"
#include "json.h"

#define FF_VERSION_MAX 70
#define UNSET UINT32_MAX /* a cache entry not made yet */

/* A decoded index column: -1 where it holds null. */
typedef struct ivec {
	int64_t *v;
	size_t n;
} ivec;

/* One set of tables: the shared one (>= 60) or one thread's. */
typedef struct tables {
	ivec prefix;        /* stack -> parent stack, -1 for a root */
	ivec frame;         /* stack -> frame */
	ivec func;          /* frame -> func */
	ivec name;          /* func -> stringArray index */
	uint32_t *sid;      /* stack -> our stack id, UNSET until made */
	tf_str *fname;      /* func -> our name, UNSET until made */
	bool ready;
} tables;

typedef struct strs {
	tf_json_span *s;
	size_t n;
	bool ready;
} strs;

/* One read of one file. */
typedef struct ff {
	const char *path;
	uint32_t input;
	tf_ctx *ctx;
	tf_sink *sink;
	tf_strtab *st;
	tf_error *err;
	const unsigned char *buf;
	int64_t version;
	uint64_t index;     /* samples read, for tf_event.index */
	char *tmp;
	size_t tmp_cap;
	int64_t *walk;
	size_t walk_cap;
	tf_str t_tracing, u_ns, t_bytes, u_bytes;
} ff;

/* The elements of an array span that tf_json_value returned (its brackets
 * and values are checked, so this only steps over them). */
typedef struct arr_iter {
	const unsigned char *p, *end;
} arr_iter;

static inline void arr_begin(arr_iter *it, const tf_json_span *a)
{
	it->p = a->p + 1;
	it->end = a->p + a->n - 1;
}

/* The next element of a checked array span. */
static inline bool arr_next(arr_iter *it, tf_json_span *v)
{
	tf_json_error e;
	it->p = tf_json_skip_ws(it->p, it->end);
	if (it->p < it->end && *it->p == ',')
		it->p = tf_json_skip_ws(it->p + 1, it->end);
	if (it->p >= it->end)
		return false;
	return tf_json_value(it->p, it->end + 1, v, &it->p, &e) == TF_JSON_OK;
}

/* A TF_EFORMAT error at byte `at` of the file (NULL: no offset). */
int ff_fail(ff *r, const void *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ff_oom(ff *r);
tf_str ff_intern(ff *r, const tf_json_span *s);
/* The stack, frame and func tables of holder (profile.shared or a thread). */
int ff_tables_read(ff *r, const tf_json_span *holder, tables *t);
void ff_tables_free(tables *t);
int ff_strs_read(ff *r, const tf_json_span *a, strs *s);
/* Our stack id of stack index s (built root first, once per index); at:
 * the sample, for errors. */
int ff_stack_id(ff *r, tables *t, const strs *ss, int64_t s, const void *at, uint32_t *out);

#endif
