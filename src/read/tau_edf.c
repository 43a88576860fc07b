/* tau_edf.c - TAU event definitions (.edf): one line per event id (its
 * group, tag, name and kind), parsed and classified for the reader
 * (tau.c), which re-reads the file when it meets an id not defined yet
 * (TAU rewrites it while the program runs).  Format facts:
 * docs/format-tau.md. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tau.h"

/* An EDF line is under 1 KB (a name, a group, a kind); a longer one than
 * this is no EDF (or /dev/zero): fatal, without reading on. */
#define TAU_EDF_MAX_LINE (64u * 1024u)

int tf_tau_edf_put(tau_edf *e, const tau_def *d)
{
	tau_def *old = tf_tau_edf_find(e, d->id);
	if (old) {
		*old = *d;
		return 0;
	}
	if (tf_grow((void **)&e->defs, &e->cap, e->ndefs + 1, sizeof(*e->defs)) < 0)
		return TF_ENOMEM;
	if ((uint64_t)d->id < TAU_DENSE_IDS) {
		uint32_t id = (uint32_t)d->id;
		if (id >= e->ndense) {
			uint32_t n = e->ndense ? e->ndense : 64;
			while (n <= id)
				n *= 2;
			uint32_t *t = realloc(e->dense, (size_t)n * sizeof(*t));
			if (!t)
				return TF_ENOMEM;
			memset(t + e->ndense, 0, (size_t)(n - e->ndense) * sizeof(*t));
			e->dense = t;
			e->ndense = n;
		}
		e->dense[id] = e->ndefs + 1;
	} else if (tf_hmap_put(&e->idx, (uint64_t)d->id, e->ndefs) < 0) {
		return TF_ENOMEM;
	}
	e->defs[e->ndefs++] = *d;
	return 0;
}

void tf_tau_edf_free(tau_edf *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->defs);
	free(e->dense);
	tf_hmap_free(&e->idx);
	free(e);
}

size_t tf_tau_trim_len(const char *s, size_t len)
{
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool parse_int(const char **pp, const char *end, int64_t *out)
{
	const char *p = *pp;
	bool neg = false;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	uint64_t v = 0;
	while (p < end && isdigit((unsigned char)*p)) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*pp = p;
	return true;
}

int tf_tau_edf_parse_line(const char *line, size_t len, tf_tau_edf_line *o)
{
	const char *end = line + len;
	while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	const char *p = skip_ws(line, end);
	if (p == end || *p == '#')
		return 0;
	const char *q = p;
	if (!parse_int(&q, end, &o->id))
		return -1;
	q = skip_ws(q, end);
	/* header: "<N> dynamic_trace_events" (N is not trusted: TAU's per-node
	 * files count one more line than they hold) */
	static const char hdr[] = "dynamic_trace_events";
	if ((size_t)(end - q) >= sizeof(hdr) - 1 && memcmp(q, hdr, sizeof(hdr) - 1) == 0 &&
	    skip_ws(q + sizeof(hdr) - 1, end) == end)
		return 0;
	if (q == end || *q == '"')
		return -1;
	o->group = q;
	while (q < end && *q != ' ' && *q != '\t')
		q++;
	o->group_len = (size_t)(q - o->group);
	q = skip_ws(q, end);
	if (!parse_int(&q, end, &o->tag))
		return -1;
	q = skip_ws(q, end);
	if (q == end || *q != '"')
		return -1;
	/* the name runs to the LAST quote of the line: names may hold quotes */
	const char *last = end - 1;
	while (last > q && *last != '"')
		last--;
	if (last == q)
		return -1;
	o->name = q + 1;
	o->name_len = (size_t)(last - (q + 1));
	const char *k = skip_ws(last + 1, end);
	const char *kend = end;
	while (kend > k && (kend[-1] == ' ' || kend[-1] == '\t'))
		kend--;
	o->kind = k;
	o->kind_len = (size_t)(kend - k);
	return 1;
}

static bool eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int edf_add_line(tau_edf *e, tf_strtab *st, const tf_tau_edf_line *l)
{
	tau_def d = { .id = l->id };
	size_t nlen = tf_tau_trim_len(l->name, l->name_len);
	bool tracer_group = eq(l->group, l->group_len, "TRACER");
	d.group = tf_strtab_intern(st, l->group, l->group_len);
	if (l->tag == -7) {
		d.kind = TK_SEND;
	} else if (l->tag == -8) {
		d.kind = TK_RECV;
	} else if (tracer_group && eq(l->name, nlen, "FLUSH")) {
		d.kind = TK_FLUSH;
	} else if (tracer_group) {
		d.kind = TK_TRACER;
	} else if (eq(l->kind, l->kind_len, "EntryExit")) {
		d.kind = TK_REGION;
	} else if (eq(l->kind, l->kind_len, "TriggerValue")) {
		/* metadata: "<key> | <value>" (the value may be empty: "<key> | ") */
		const char *bar = NULL;
		for (size_t i = 0; i + 2 <= l->name_len; i++)
			if (memcmp(l->name + i, " |", 2) == 0 &&
			    (i + 2 == l->name_len || l->name[i + 2] == ' ')) {
				bar = l->name + i;
				break;
			}
		if (bar) {
			const char *v = bar + 2 + (bar + 2 < l->name + l->name_len);
			d.kind = TK_METADATA;
			d.value = tf_strtab_intern(st, v, tf_tau_trim_len(v, (size_t)(l->name + l->name_len - v)));
			nlen = tf_tau_trim_len(l->name, (size_t)(bar - l->name));
		} else {
			d.kind = TK_TRIGGER;
		}
	} else {
		d.kind = TK_OTHER;
	}
	d.unusable = eq(l->name, nlen, TAU_PLACEHOLDER_NAME);
	d.name = tf_strtab_intern(st, l->name, nlen);
	if (d.name == (tf_str)-1 || d.group == (tf_str)-1 || d.value == (tf_str)-1)
		return TF_ENOMEM;
	return tf_tau_edf_put(e, &d);
}

/* Reads one line (with its newline) of at most cap bytes into buf.  Returns
 * its length (0 at the end of the file), or cap + 1 when the line goes on
 * past cap bytes: not read further, so an endless line costs cap bytes. */
static size_t edf_getline(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int c;
	while ((c = getc(f)) != EOF) {
		if (n == cap)
			return cap + 1;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	return n;
}

/* (Re)reads the whole EDF; definitions replace earlier ones with the same id. */
int tf_tau_edf_load(tau_edf *e, tf_ctx *ctx, tf_error *err)
{
	FILE *f = fopen(e->path, "r");
	if (!f)
		return tf_error_set(err, TF_EIO, e->path, -1, -1, "cannot open the event definitions");
	char *line = malloc(TAU_EDF_MAX_LINE);
	if (!line) {
		fclose(f);
		return tf_error_set(err, TF_ENOMEM, e->path, -1, -1, "out of memory");
	}
	size_t n;
	int64_t off = 0, lineno = 0;
	int rc = 0, bad = 0;
	while ((n = edf_getline(f, line, TAU_EDF_MAX_LINE)) > 0) {
		lineno++;
		if (n > TAU_EDF_MAX_LINE) {
			rc = tf_error_set(err, TF_EFORMAT, e->path, off, -1,
					  "line %lld is longer than %u bytes: not a TAU event definition file "
					  "(whose lines are under 1 KB)", (long long)lineno, TAU_EDF_MAX_LINE);
			break;
		}
		tf_tau_edf_line l;
		int r = tf_tau_edf_parse_line(line, n, &l);
		if (r > 0 && (rc = edf_add_line(e, tf_ctx_strtab(ctx), &l)) < 0) {
			rc = tf_error_set(err, rc, e->path, -1, -1, "out of memory");
			break;
		}
		if (r < 0 && !bad++ && !e->rereads) /* noted once, not again on each re-read */
			tf_ctx_note(ctx, "'%s' line %lld (byte %lld): not an event definition: ignored",
				    e->path, (long long)lineno, (long long)off);
		off += (int64_t)n;
	}
	int ioerr = ferror(f);
	free(line);
	fclose(f);
	if (rc < 0)
		return rc;
	if (ioerr)
		return tf_error_set(err, TF_EIO, e->path, off, -1, "read failed");
	return 0;
}

/* The node an EDF describes, from its name: events.<node>.edf; -1 (every
 * node) for any other name. */
long tf_tau_edf_node(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (strncmp(b, "events.", 7) != 0 || !isdigit((unsigned char)b[7]))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(b + 7, &end, 10);
	return errno || v > UINT16_MAX || strcmp(end, ".edf") != 0 ? -1 : v;
}
