/* chrome_event.c - the Chrome trace-event reader's events (chrome_int.h):
 * an event object's fields picked out by the tokenizer (spans into the
 * buffer, every other value skipped), its strings decoded and interned,
 * its numbers in nanoseconds, and the tf_event it makes (counters one per
 * value, Kineto's memory, correlation and Python ids, flow and async ids),
 * or the diagnostic it counts. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "chrome_int.h"

#define US_TO_NS 3 /* decimal places from microseconds to nanoseconds */

/* ---- Kineto's memory events ---- */

/* c10's DeviceType, in its order (c10/core/DeviceType.h), named as torch
 * names devices (DeviceTypeName, lower case) */
static const char *const c10_device[] = {
	"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
	"metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone",
};

/* A "[memory]" instant's args (docs/memory.md): Bytes allocated (negative:
 * freed), Addr, the device as torch writes it: "cuda:0" (type name, ':'
 * and "Device Id" when it is >= 0), "cpu" (Id -1); an unknown type is
 * "device<N>". */
static int memory_args(tf_chrome *r, const tf_chrome_fields *f, tf_event *ev)
{
	tf_json_iter it;
	tf_json_span k, v;
	int64_t type = -1, id = -1, addr = 0;
	bool bytes = false;
	const uint16_t mine = 1 << PK_BYTES | 1 << PK_ADDR | 1 << PK_DEV_ID | 1 << PK_DEV_TYPE;
	if (f->picks && !(f->pick_dup & mine)) { /* each at most once: what the walk below gives */
		const tf_json_span *pk = f->pick;
		bytes = f->picked & 1 << PK_BYTES && tf_json_double(&pk[PK_BYTES], &ev->value);
		if (f->picked & 1 << PK_DEV_TYPE && !tf_json_i64(&pk[PK_DEV_TYPE], &type))
			type = -1;
		if (f->picked & 1 << PK_DEV_ID && !tf_json_i64(&pk[PK_DEV_ID], &id))
			id = -1;
		if (f->picked & 1 << PK_ADDR && !tf_json_i64(&pk[PK_ADDR], &addr))
			addr = 0;
	} else {
		for (tf_json_iter_begin(&it, &f->args); tf_json_iter_next(&it, &k, &v);) {
			if (tf_json_is(&k, "Bytes"))
				bytes = tf_json_double(&v, &ev->value);
			else if (tf_json_is(&k, "Device Type") && !tf_json_i64(&v, &type))
				type = -1;
			else if (tf_json_is(&k, "Device Id") && !tf_json_i64(&v, &id))
				id = -1;
			else if (tf_json_is(&k, "Addr") && !tf_json_i64(&v, &addr))
				addr = 0;
		}
	}
	if (!bytes)
		return 0;
	ev->flags |= TF_EVF_MEMORY;
	ev->mem_addr = (uint64_t)addr;
	if (type < 0 || type > INT32_MAX - 1)
		return 0;
	ev->mem_dev_type = (int32_t)type + 1;
	ev->mem_dev_id = id >= 0 && id <= INT32_MAX ? (int32_t)id : -1;
	if (r->mem_device && r->mem_type == type && r->mem_id == id) {
		/* the same device as the last one (most are): its name again,
		 * without the snprintf (2% of a Kineto read) */
		ev->mem_device = r->mem_device;
		return 0;
	}
	char buf[48];
	size_t nd = sizeof(c10_device) / sizeof(c10_device[0]);
	int n = type < (int64_t)nd ? snprintf(buf, sizeof(buf), "%s", c10_device[type])
				   : snprintf(buf, sizeof(buf), "device%lld", (long long)type);
	if (id >= 0)
		snprintf(buf + n, sizeof(buf) - (size_t)n, ":%lld", (long long)id);
	ev->mem_device = tf_strtab_intern_cstr(r->st, buf);
	if (ev->mem_device == (tf_str)-1)
		return TF_ENOMEM;
	r->mem_type = type;
	r->mem_id = id;
	r->mem_device = ev->mem_device;
	return 0;
}

/* ---- event fields ---- */

tf_json_span *tf_chrome_field_for(tf_chrome_fields *f, const tf_json_span *k)
{
	const u8 *s = k->p;
	if (k->esc)
		return NULL;
	switch (k->n) {
	case 2:
		if (s[0] == 'p' && s[1] == 'h')
			return &f->ph;
		if (s[0] == 't' && s[1] == 's')
			return &f->ts;
		if (s[0] == 'i' && s[1] == 'd')
			return &f->id;
		return NULL;
	case 3:
		if (memcmp(s, "dur", 3) == 0)
			return &f->dur;
		if (memcmp(s, "pid", 3) == 0)
			return &f->pid;
		if (memcmp(s, "tid", 3) == 0)
			return &f->tid;
		if (memcmp(s, "cat", 3) == 0)
			return &f->cat;
		if (memcmp(s, "id2", 3) == 0)
			return &f->id2;
		return NULL;
	case 4:
		if (memcmp(s, "name", 4) == 0)
			return &f->name;
		if (memcmp(s, "args", 4) == 0)
			return &f->args;
		return NULL;
	case 10:
		if (memcmp(s, "sort_index", 10) == 0)
			return &f->sort_index;
		return NULL;
	}
	return NULL;
}

/* a key's bytes after its opening quote, closing quote included, as a
 * little-endian word */
#define K3(a, b) ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)'"' << 16)
#define K4(a, b, c) ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)'"' << 24)
#define K5(a, b, c, d) \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | (uint64_t)'"' << 32)

/* p at a key's opening quote, 9 bytes or more before the end: the field of
 * the keys events have ("ph", "ts", "dur", ..., quote included: no escapes)
 * straight from the bytes, *after past the closing quote; NULL for any
 * other key (the caller reads it as a string).  A scan for the quote and
 * tf_chrome_field_for cost twice as much per key (issue 33). */
static inline tf_json_span *key_fast(tf_chrome_fields *f, const u8 *p, const u8 **after)
{
	uint64_t w;
	memcpy(&w, p + 1, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	switch (w & 0xFFFFFFu) {
	case K3('p', 'h'): *after = p + 4; return &f->ph;
	case K3('t', 's'): *after = p + 4; return &f->ts;
	case K3('i', 'd'): *after = p + 4; return &f->id;
	}
	switch (w & 0xFFFFFFFFu) {
	case K4('d', 'u', 'r'): *after = p + 5; return &f->dur;
	case K4('p', 'i', 'd'): *after = p + 5; return &f->pid;
	case K4('t', 'i', 'd'): *after = p + 5; return &f->tid;
	case K4('c', 'a', 't'): *after = p + 5; return &f->cat;
	}
	switch (w & 0xFFFFFFFFFFull) {
	case K5('n', 'a', 'm', 'e'): *after = p + 6; return &f->name;
	case K5('a', 'r', 'g', 's'): *after = p + 6; return &f->args;
	}
	return NULL;
}

/* The members of args that process_event's helpers use (PK_* order),
 * picked out by the strict check of args instead of a second walk of it
 * (the walks were 7% of a Kineto read). */
static const char *const pick_keys[NPICK] = {
	"Bytes", "Addr", "Device Id", "Device Type", "Python id", "Python parent id", "correlation", "correlation_id",
};
static const uint8_t pick_len[NPICK] = { 5, 4, 9, 11, 9, 16, 11, 14 };
static const uint16_t pick_first[256] = {
	['B'] = 1 << PK_BYTES,
	['A'] = 1 << PK_ADDR,
	['D'] = 1 << PK_DEV_ID | 1 << PK_DEV_TYPE,
	['P'] = 1 << PK_PY_ID | 1 << PK_PY_PARENT,
	['c'] = 1 << PK_CORR | 1 << PK_CORR_ID,
};

/* p at args' '{': checked as tf_json_value checks it, its members picked. */
static int args_object(tf_chrome *r, const u8 *p, const u8 *end, tf_chrome_fields *f, const u8 **out)
{
	tf_json_pick pk = { pick_first, pick_keys, pick_len, f->pick, 0, 0 };
	f->picks = 0;
	int rc = tf_json_nested_pick(p, end, out, &r->jerr, &pk);
	if (rc != R_OK)
		return tf_chrome_json_rc(r, rc);
	f->args.p = p;
	f->args.n = (size_t)(*out - p);
	f->args.type = TF_JSON_OBJECT;
	f->args.esc = 0;
	f->picks = 1;
	f->picked = pk.seen;
	f->pick_dup = pk.dup;
	return R_OK;
}

/* How the value of field dst is read (KP_*). */
static inline int value_kind(const tf_chrome_fields *f, const tf_json_span *dst)
{
	return dst == &f->ts ? KP_TS : dst == &f->dur ? KP_DUR : dst == &f->args ? KP_ARGS : KP_VALUE;
}

/* p at '{'.  Fills f (spans into the buffer).  Each member's separator and
 * key are first matched against the bytes the last events had there
 * (tf_chrome's kp, 16 at once): the same bytes are read the same way, so
 * only the value is read; else they are read one token at a time, and
 * learned. */
int tf_chrome_parse_event(tf_chrome *r, const u8 *p, const u8 *end, tf_chrome_fields *f, const u8 **out)
{
	memset(f, 0, offsetof(tf_chrome_fields, pick));
	if (!r->kp_ready)
		tf_chrome_kp_init(r);
	for (size_t i = 0;; i++) {
		/* p at the '{' (i == 0) or just after the value before member i */
		const u8 *s = p;
		tf_json_span k, tmp, *dst = NULL;
		int rc, kind;
		if (i < KP_N && end - s >= 17) {
			const tf_chrome_kp *e = &r->kw[i];
			if (tf_chrome_kp_match(e, s)) { /* the whole member as in the last two events */
				dst = (tf_json_span *)(void *)((char *)f + e->off);
				dst->p = s + e->voff;
				dst->n = e->vlen;
				dst->type = e->vtype;
				dst->esc = 0;
				if (e->kind == KP_ARGS) {
					f->picks = 1;
					f->picked = 0;
					f->pick_dup = 0;
				}
				p = s + e->len;
				continue;
			}
			e = r->kp[i];
			for (unsigned j = 0; j < KP_WAYS; j++, e++)
				if (tf_chrome_kp_match(e, s)) { /* as in one of the last events */
					p = s + e->len;
					kind = e->kind;
					if (kind == KP_END) {
						*out = p;
						return R_OK;
					}
					if (e->off >= 0)
						dst = (tf_json_span *)(void *)((char *)f + e->off);
					if (tf_json_ws[*p] && (p = tf_json_skip_ws(p, end)) >= end)
						return R_NEED;
					goto at_value;
				}
		}
		if (i == 0) {
			p = tf_json_skip_ws(p + 1, end);
			if (p >= end)
				return R_NEED;
			if (*p == '}') {
				*out = p + 1;
				return R_OK;
			}
		} else if (end - p >= 3 && p[0] == ',' && p[1] == ' ' && p[2] == '"') {
			p += 2;
		} else {
			p = tf_json_skip_ws(p, end);
			if (p >= end)
				return R_NEED;
			if (*p == '}') {
				tf_chrome_kp_learn(r, i, s, p, end, f, NULL, KP_END);
				*out = p + 1;
				return R_OK;
			}
			if (*p != ',')
				return tf_chrome_fail_char(r, p, "expected ',' or '}' in an event");
			p = tf_json_skip_ws(p + 1, end);
			if (p >= end)
				return R_NEED;
		}
		if (*p != '"')
			return tf_chrome_fail_char(r, p, "expected a quoted key in an event");
		if (end - p < 9 || !(dst = key_fast(f, p, &p))) {
			rc = tf_json_string(p, end, &k, &p);
			if (rc != R_OK)
				return rc;
			dst = tf_chrome_field_for(f, &k);
		} else if (p[0] == ':' && p[1] == ' ' && !tf_json_ws[p[2]]) {
			/* '": ' then the value (key_fast leaves 3 bytes or more): where
			 * the scans below would stop, without them */
			kind = value_kind(f, dst);
			tf_chrome_kp_learn(r, i, s, p, end, f, dst, kind);
			p += 2;
			goto at_value;
		}
		p = tf_json_skip_ws(p, end);
		if (p >= end)
			return R_NEED;
		if (*p != ':')
			return tf_chrome_fail_char(r, p, "expected ':' after a key");
		kind = value_kind(f, dst);
		tf_chrome_kp_learn(r, i, s, p, end, f, dst, kind);
		p = tf_json_skip_ws(p + 1, end);
		if (p >= end)
			return R_NEED;
	at_value:
		if (kind == KP_ARGS && *p == '{') {
			const u8 *v = p;
			if ((rc = args_object(r, p, end, f, &p)) != R_OK)
				return rc;
			if (p - v == 2 && i < KP_N && p - s <= 16) /* {} */
				tf_chrome_kw_learn(r, i, s, (size_t)(p - s), 0, end, f, dst, KP_ARGS);
			continue;
		}
		if ((kind == KP_TS || kind == KP_DUR) && /* in ns as the digits are scanned */
		    tf_json_number_scaled(p, end, dst, &p, US_TO_NS, kind == KP_TS ? &f->ts_ns : &f->dur_ns,
					  kind == KP_TS ? &f->ts_ok : &f->dur_ok))
			continue;
		rc = tf_json_value(p, end, dst ? dst : &tmp, &p, &r->jerr);
		if (rc != R_OK)
			return tf_chrome_json_rc(r, rc);
		if (p - s < 16 && kind == KP_VALUE && i < KP_N && dst && dst->type <= TF_JSON_LITERAL)
			tf_chrome_kw_learn(r, i, s, (size_t)(p - s), dst->type != TF_JSON_STRING, end, f, dst, KP_VALUE);
	}
}

/* ---- strings ---- */

static int grow(char **buf, size_t *cap, size_t need)
{
	return tf_grow_n((void **)buf, cap, need, 1, false) < 0 ? TF_ENOMEM : 0;
}

int tf_chrome_text(tf_chrome *r, const tf_json_span *s, int slot, const char **t, size_t *n)
{
	if (s->type == TF_JSON_STRING && s->esc) {
		if (grow(&r->scr[slot], &r->scr_cap[slot], s->n + 1) < 0)
			return TF_ENOMEM;
		*n = tf_json_unescape(s->p, s->n, r->scr[slot]);
		*t = r->scr[slot];
		return 0;
	}
	if (s->type == TF_JSON_STRING || s->type == TF_JSON_NUMBER) {
		*t = (const char *)s->p;
		*n = s->n;
		return 0;
	}
	*t = "";
	*n = 0;
	return 0;
}

int tf_chrome_intern(tf_chrome *r, const tf_json_span *s, int slot, tf_str *out)
{
	const char *t;
	size_t n;
	TF_TRY(tf_chrome_text(r, s, slot, &t, &n));
	if (n == 0) {
		*out = 0;
		return 0;
	}
	if (slot == 1 && n == r->cat_n && r->cat_text && memcmp(t, r->cat_text, n) == 0) {
		*out = r->cat_id; /* the last event's category (most are): no hash (a name seldom is) */
		return 0;
	}
	tf_str id = tf_strtab_intern(r->st, t, n);
	if (id == (tf_str)-1)
		return TF_ENOMEM;
	if (slot == 1) {
		r->cat_text = tf_strtab_get(r->st, id);
		r->cat_n = n;
		r->cat_id = id;
	}
	*out = id;
	return 0;
}

/* ---- numbers ---- */

int tf_chrome_us_to_ns(const char *s, size_t n, int64_t *ns_out)
{
	return tf_json_decimal_scaled(s, n, US_TO_NS, ns_out);
}

static inline bool span_ns(const tf_json_span *s, int64_t *ns)
{
	return tf_json_scaled(s, US_TO_NS, ns);
}

/* ts or dur in ns: as the tokenizer read it, else from its span */
static inline bool field_ns(const tf_json_span *s, bool ok, int64_t v, int64_t *ns)
{
	if (ok) {
		*ns = v;
		return true;
	}
	return span_ns(s, ns);
}

/* ---- events ---- */

static int emit(tf_chrome *r, const tf_event *ev)
{
	int rc = tf_emit(r->ctx, r->sink, ev);
	if (rc == TF_ESTOP)
		r->stopped = true;
	return rc;
}

static int do_counter(tf_chrome *r, const tf_chrome_fields *f, tf_event *ev)
{
	tf_json_span key, val;
	tf_json_iter it;
	int nnum = 0;
	double v;
	if (f->args.type == TF_JSON_OBJECT) {
		tf_json_iter_begin(&it, &f->args);
		while (tf_json_iter_next(&it, &key, &val))
			nnum += tf_json_double(&val, &v);
	}
	if (nnum == 0) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	const char *nt;
	size_t nn;
	TF_TRY(tf_chrome_text(r, &f->name, 0, &nt, &nn));
	ev->kind = TF_EV_COUNTER;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val)) {
		if (!tf_json_double(&val, &ev->value))
			continue;
		if (nnum == 1) {
			ev->name = ev->name ? ev->name : (nn ? tf_strtab_intern(r->st, nt, nn) : 0);
		} else {
			const char *kt;
			size_t kn;
			TF_TRY(tf_chrome_text(r, &key, 1, &kt, &kn));
			TF_TRY(grow(&r->tmp, &r->tmp_cap, nn + kn + 2));
			memcpy(r->tmp, nt, nn);
			r->tmp[nn] = '.';
			memcpy(r->tmp + nn + 1, kt, kn);
			ev->name = tf_strtab_intern(r->st, r->tmp, nn + 1 + kn);
		}
		if (ev->name == (tf_str)-1)
			return TF_ENOMEM;
		TF_TRY(emit(r, ev));
	}
	return 0;
}

/* A memory dump's hex string ("1a2b", Chrome's memory-infra; also "0x1a2b"). */
static bool hex_value(const tf_json_span *v, double *out)
{
	uint64_t x = 0;
	if (v->type != TF_JSON_STRING || v->esc) /* also an absent one: p is NULL */
		return false;
	const u8 *p = v->p, *e = v->p + v->n;
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == e || e - p > 16)
		return false;
	for (; p < e; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
		if (d < 0)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*out = (double)x;
	return true;
}

/* One counter "memory:<key>" of a memory dump (ev: its time and track;
 * NULL: only say whether there is one). */
static int dump_counter(tf_chrome *r, tf_event *ev, const tf_json_span *key, const tf_json_span *val)
{
	const char *kt;
	size_t kn;
	double x;
	if (!hex_value(val, &x))
		return 0;
	if (!ev)
		return 1;
	ev->value = x;
	TF_TRY(tf_chrome_text(r, key, 1, &kt, &kn));
	TF_TRY(grow(&r->tmp, &r->tmp_cap, kn + 8));
	memcpy(r->tmp, "memory:", 7);
	memcpy(r->tmp + 7, kt, kn);
	if ((ev->name = tf_strtab_intern(r->st, r->tmp, kn + 7)) == (tf_str)-1)
		return TF_ENOMEM;
	TF_TRY(emit(r, ev));
	return 1;
}

/* v (process memory dump) and V (global): each allocator's attrs.size.value
 * in args.dumps.allocators a counter memory:<allocator>, each hex value of
 * args.dumps.process_totals memory:<name> (docs/format-chrome.md "Memory
 * dumps").  ev NULL: only counts them.  Returns how many, or < 0. */
static int do_memory_dump(tf_chrome *r, const tf_chrome_fields *f, tf_event *ev)
{
	tf_json_iter it;
	tf_json_span k, v, size;
	tf_json_span dumps = tf_json_member(&f->args, "dumps");
	tf_json_span allocs = tf_json_member(&dumps, "allocators"), totals = tf_json_member(&dumps, "process_totals");
	int n = 0, rc;
	if (ev)
		ev->kind = TF_EV_COUNTER;
	if (allocs.type == TF_JSON_OBJECT)
		for (tf_json_iter_begin(&it, &allocs); tf_json_iter_next(&it, &k, &v);) {
			size = tf_json_member(&v, "attrs");
			size = tf_json_member(&size, "size");
			size = tf_json_member(&size, "value");
			if ((rc = dump_counter(r, ev, &k, &size)) < 0)
				return rc;
			n += rc;
		}
	if (totals.type == TF_JSON_OBJECT)
		for (tf_json_iter_begin(&it, &totals); tf_json_iter_next(&it, &k, &v);) {
			if ((rc = dump_counter(r, ev, &k, &v)) < 0)
				return rc;
			n += rc;
		}
	return n;
}

/* A Kineto Python frame's "Python id" and "Python parent id" (0: none). */
static void python_ids(const tf_chrome_fields *f, tf_event *ev)
{
	if (f->args.type != TF_JSON_OBJECT)
		return;
	if (f->picks) { /* the last of each, as the walk below */
		if (f->picked & 1 << PK_PY_ID)
			ev->id = tf_json_id(&f->pick[PK_PY_ID]);
		if (f->picked & 1 << PK_PY_PARENT)
			ev->parent_id = tf_json_id(&f->pick[PK_PY_PARENT]);
		return;
	}
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "Python id"))
			ev->id = tf_json_id(&val);
		else if (tf_json_is(&key, "Python parent id"))
			ev->parent_id = tf_json_id(&val);
}

/* A backward op's key (event.h bwd_key): Kineto's "Fwd thread id" (> 0
 * on the ops the autograd engine runs, 0 on forward ops) and "Sequence
 * number", the same on the engine's evaluate_function wrapper and the op
 * inside it (docs/gpu.md "Backward under forward"); 0 when none. */
static uint64_t bwd_key(const tf_chrome_fields *f)
{
	if (f->args.type != TF_JSON_OBJECT)
		return 0;
	tf_json_iter it;
	tf_json_span key, val;
	uint64_t thread = 0, seq = 0;
	bool has_seq = false;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "Fwd thread id"))
			thread = tf_json_id(&val);
		else if (tf_json_is(&key, "Sequence number")) {
			seq = tf_json_id(&val);
			has_seq = true;
		}
	/* thread >= 1 keeps the key non-zero whatever the sequence number */
	return thread && has_seq ? thread << 40 ^ seq : 0;
}

/* args.correlation of a GPU activity or launch (Kineto), or its
 * args.correlation_id (the XLA profiler's, on the kernel and on the host
 * call that launched it: cuLaunchKernel, cuGraphLaunch); 0 when none. */
static uint64_t correlation(const tf_chrome_fields *f)
{
	if (f->args.type != TF_JSON_OBJECT)
		return 0;
	if (f->picks && !(f->pick_dup & (1 << PK_CORR | 1 << PK_CORR_ID))) { /* the first of the two */
		const tf_json_span *a = f->picked & 1 << PK_CORR ? &f->pick[PK_CORR] : NULL;
		const tf_json_span *b = f->picked & 1 << PK_CORR_ID ? &f->pick[PK_CORR_ID] : NULL;
		if (a && b)
			return tf_json_id(a->p < b->p ? a : b);
		return a ? tf_json_id(a) : b ? tf_json_id(b) : 0;
	}
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val))
		if (tf_json_is(&key, "correlation") || tf_json_is(&key, "correlation_id"))
			return tf_json_id(&val);
	return 0;
}

/* args.tf_op of an XLA GPU activity: the framework op it ran for (JAX's
 * op path, jit(f)/jit(main)/dot_general), or 0: none, or XLA's
 * "XlaModule:..." when it could not tell (a command buffer's kernels). */
static int xla_op(tf_chrome *r, const tf_chrome_fields *f, tf_str *op)
{
	if (f->args.type != TF_JSON_OBJECT)
		return 0;
	tf_json_iter it;
	tf_json_span key, val;
	tf_json_iter_begin(&it, &f->args);
	while (tf_json_iter_next(&it, &key, &val)) {
		if (!tf_json_is(&key, "tf_op") || val.type != TF_JSON_STRING || !val.n)
			continue;
		if (val.n >= 10 && !memcmp(val.p, "XlaModule:", 10))
			return 0;
		return tf_chrome_intern(r, &val, 1, op);
	}
	return 0;
}

/* One decoded event object (f) -> tf_emit / tf_count_skip. */
int tf_chrome_process_event(tf_chrome *r, const tf_chrome_fields *f)
{
	uint64_t idx = r->index++;
	if (f->ph.type != TF_JSON_STRING || f->ph.n == 0) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	u8 ph = f->ph.n == 1 ? f->ph.p[0] : 0;
	tf_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.phase = ph;
	ev.index = idx;
	ev.msg.peer = -1;
	ev.msg.comm = -1;
	switch (ph) {
	case 'X': ev.kind = TF_EV_COMPLETE; break;
	case 'B': ev.kind = TF_EV_BEGIN; break;
	case 'E': ev.kind = TF_EV_END; break;
	case 'i': case 'I': ev.kind = TF_EV_INSTANT; break;
	case 'C': ev.kind = TF_EV_COUNTER; break;
	case 's': case 't': case 'f': ev.kind = TF_EV_FLOW; break;
	case 'b': case 'n': case 'e':
	case 'S': case 'T': case 'p': case 'F': ev.kind = TF_EV_ASYNC; break;
	case 'M': ev.kind = TF_EV_METADATA; break;
	case 'P': /* V8's CPU profile: samples at the end of the input */
		return tf_chrome_profile_event(r, f, idx);
	case 'v': case 'V': /* memory dumps: one with nothing read is of no use, as before */
		if (do_memory_dump(r, f, NULL) > 0) {
			ev.kind = TF_EV_COUNTER;
			break;
		}
		tf_count_skip(r->ctx, TF_DIAG_ev_other);
		return 0;
	default:
		tf_count_skip(r->ctx, TF_DIAG_ev_other);
		return 0;
	}
	TF_TRY(tf_chrome_intern(r, &f->name, 0, &ev.name));
	TF_TRY(tf_chrome_intern(r, &f->cat, 1, &ev.cat));
	if (ph == 'M') {
		TF_TRY(tf_chrome_metadata(r, f));
		ev.track = TF_TRACK_NONE;
		if (!field_ns(&f->ts, f->ts_ok, f->ts_ns, &ev.ts_ns))
			ev.ts_ns = 0;
		return emit(r, &ev);
	}
	if (ev.kind == TF_EV_INSTANT && ev.name == r->memory_name && f->args.type == TF_JSON_OBJECT)
		TF_TRY(memory_args(r, f, &ev));
	if (ph == 'X' && ev.cat && ev.cat == r->trace_cat && !tf_ctx_opts(r->ctx)->keep_trace_span) {
		/* Kineto's "PyTorch Profiler (0)": the trace window, not work */
		tf_count_skip(r->ctx, TF_DIAG_trace_span);
		return 0;
	}
	int64_t end_ns;
	bool no_dur = ph == 'X' && (f->dur.type == TF_JSON_NONE || tf_json_is_null(&f->dur));
	if (!field_ns(&f->ts, f->ts_ok, f->ts_ns, &ev.ts_ns) ||
	    (ph == 'X' && !no_dur && !field_ns(&f->dur, f->dur_ok, f->dur_ns, &ev.dur_ns)) ||
	    (ph == 'X' && !no_dur && __builtin_add_overflow(ev.ts_ns, ev.dur_ns, &end_ns))) { /* ends beyond int64 ns */
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		return 0;
	}
	if (no_dur) /* still running when tracing stopped (Chrome writes these) */
		ev.dur_ns = TF_DUR_UNTIL_END;
	TF_TRY(tf_chrome_track_for(r, &f->pid, &f->tid, &ev.track));
	int cls = tf_chrome_cat_class(r, ev.cat);
	if (cls == CAT_GPU || cls == CAT_SYNC || cls == CAT_GPU_LABEL)
		tf_ctx_track_get(r->ctx, ev.track)->kind = TF_TRACK_GPU;
	if (cls != CAT_OTHER && (ph == 'X' || ph == 'B'))
		TF_TRY(tf_chrome_note_class(r, ev.track, cls));
	if (cls == CAT_PYTHON && ph == 'X')
		python_ids(f, &ev);
	if (cls == CAT_CPU && (ph == 'X' || ph == 'B') && tf_ctx_opts(r->ctx)->backward_to_forward)
		ev.bwd_key = bwd_key(f);
	/* XLA's events have no category: every region of its trace may carry
	 * a correlation id (its GPU streams are its /device:GPU:N processes) */
	if ((cls == CAT_GPU || cls == CAT_LAUNCH || cls == CAT_GPU_LABEL || cls == CAT_SYNC || r->xla) &&
	    (ph == 'X' || ph == 'B')) {
		if (cls == CAT_GPU_LABEL)
			ev.flags |= TF_EVF_GPU_LABEL;
		ev.corr = correlation(f);
		if (r->xla && cls != CAT_GPU_LABEL && tf_ctx_track_get(r->ctx, ev.track)->kind == TF_TRACK_GPU)
			TF_TRY(xla_op(r, f, &ev.op));
	}
	if (ph == 'X' || ph == 'B') /* a collective's facts, beside the event (docs/collectives.md) */
		TF_TRY(tf_chrome_collective(r, f, &ev));
	if (ev.kind == TF_EV_FLOW || ev.kind == TF_EV_ASYNC) {
		if (f->id.type)
			ev.id = tf_json_id(&f->id);
		else if (f->id2.type == TF_JSON_OBJECT) {
			tf_json_iter it;
			tf_json_span k, v;
			tf_json_iter_begin(&it, &f->id2);
			while (tf_json_iter_next(&it, &k, &v))
				if (tf_json_is(&k, "local") || tf_json_is(&k, "global"))
					ev.id = tf_json_id(&v);
		}
	}
	if (ph == 'v' || ph == 'V') {
		int rc = do_memory_dump(r, f, &ev);
		return rc < 0 ? rc : 0;
	}
	if (ph == 'C') {
		ev.name = 0; /* set per value */
		return do_counter(r, f, &ev);
	}
	return emit(r, &ev);
}
