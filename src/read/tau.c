/* tau.c - TAU binary traces (.trc records + .edf definitions) -> tf_event.
 *
 * Inputs: a trace directory (tautrace.<node>.<context>.<thread>.trc with
 * events.<node>.edf, or a merged tau.trc + tau.edf), or one .trc file (its
 * EDF beside it, or --edf).  Records are read in fixed-size blocks, so memory
 * does not depend on the trace length.  Every record becomes exactly one
 * tf_emit or one tf_count_skip.  The definitions (.edf) are parsed in
 * tau_edf.c, the input files found in tau_files.c; what the three share is
 * in tau.h.  Format facts and the choices made here: docs/format-tau.md. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tracefold/io.h"
#include "tau.h"

#define TAU_EV_INIT_PARAM 3
/* A multiple of 24 and 32, so blocks hold whole records of either layout. */
#define TAU_FLUSH_NAME "[TAU trace flush]"
#define TAU_MAX_REREADS 16
/* This many records in a row without a usable definition (an undefined id,
 * or TAU's ".TAU <unknown event>" placeholder, id 0, which TAU never
 * writes) is no TAU trace: all-zero data (-F tau /dev/zero) decodes as
 * endless triggers of the placeholder.  A real trace has a defined record
 * at least every 65,536 (its FLUSH records). */
#define TAU_MAX_UNUSABLE_RUN 1000000u

/* ---- records ---- */

static inline uint16_t ld16(const unsigned char *p, bool sw)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return sw ? __builtin_bswap16(v) : v;
}
static inline uint32_t ld32(const unsigned char *p, bool sw)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return sw ? __builtin_bswap32(v) : v;
}
static inline uint64_t ld64(const unsigned char *p, bool sw)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return sw ? __builtin_bswap64(v) : v;
}

static inline __attribute__((always_inline)) void decode(const unsigned char *p, tf_tau_layout lay, tf_tau_rec *r)
{
	if (lay.recsize == 24) {
		r->ev = (int32_t)ld32(p, lay.swap);
		r->nid = ld16(p + 4, lay.swap);
		r->tid = ld16(p + 6, lay.swap);
		r->par = (int64_t)ld64(p + 8, lay.swap);
		r->ti = ld64(p + 16, lay.swap);
	} else {
		r->ev = (int64_t)ld64(p, lay.swap);
		r->nid = ld16(p + 8, lay.swap);
		r->tid = ld16(p + 10, lay.swap);
		r->par = (int64_t)ld64(p + 16, lay.swap);
		r->ti = ld64(p + 24, lay.swap);
	}
}

void tf_tau_decode(const unsigned char *p, tf_tau_layout lay, tf_tau_rec *r)
{
	decode(p, lay, r);
}

tf_tau_layout tf_tau_detect_layout(const unsigned char *p, size_t n)
{
	static const tf_tau_layout hyp[4] = { { 24, false, false }, { 24, true, false },
					      { 32, false, false }, { 32, true, false } };
	int nmatch = 0, which = 0;
	for (int i = 0; i < 4; i++) {
		unsigned off = hyp[i].recsize == 24 ? 8 : 16;
		if (n < hyp[i].recsize)
			continue;
		if (ld64(p + off, hyp[i].swap) == TAU_EV_INIT_PARAM) {
			if (!nmatch)
				which = i;
			nmatch++;
		}
	}
	tf_tau_layout l = hyp[0];
	if (nmatch == 1)
		l = hyp[which];
	else
		l.guessed = true;
	return l;
}

void tf_tau_unpack_msg(int64_t spar, tf_message *m)
{
	uint64_t par = (uint64_t)spar;
	m->bytes = (int64_t)((par & 0xFFFFu) | (((par >> 32) & 0x3FFu) << 16));
	m->tag = (int64_t)(((par >> 16) & 0xFFu) | (((par >> 48) & 0xFFu) << 8));
	m->peer = (int64_t)(((par >> 24) & 0xFFu) | (((par >> 56) & 0xFFu) << 8));
	m->comm = (int64_t)((par >> 42) & 0x3Fu);
}

/* ---- the reader ---- */

typedef struct tau_pend {
	tau_def def;
	int64_t par;
	uint64_t ti, index;
} tau_pend;

typedef struct tau_trk {
	uint32_t key;   /* nid << 16 | tid */
	uint32_t track; /* ctx track id */
	int npend;      /* user-event records held back to recognise 0/value/0 */
	tau_pend pend[2];
} tau_trk;

typedef struct tau_rd {
	tf_ctx *ctx;
	tf_sink *sink;
	tf_error *err;
	uint32_t input;
	bool show_flush;
	tf_str flush_name;
	uint64_t index; /* records of this input so far */
	uint64_t run, run_off; /* unusable records in a row in this file, the first one's offset */
	/* edfs loaded for this input (by path) */
	tau_edf **edfs;
	size_t nedfs;
	/* nodes of the current file that its EDF does not describe: nid ->
	 * index in edfs of events.<nid>.edf, or NODE_SKIPPED */
	tf_hmap node_edf;
	/* per (nid, tid) state of the current file */
	tau_trk *trks;
	uint32_t ntrks, captrks;
	tf_hmap trk_idx;             /* nid << 16 | tid -> index in trks */
	uint64_t last_key; /* cache: the last (nid, tid) key, UINT64_MAX none */
	tau_trk *last;     /* its state */
	tf_diag *diag;
	/* the events handed on, zero but for the fields each record sets
	 * (zeroing a whole tf_event per record cost a fifth of the loop) */
	tf_event rev; /* regions and flushes: kind, name, cat, track, ts_ns, index */
	tf_event tev; /* user events: kind, name, cat, value, track, ts_ns, index */
} tau_rd;

static tau_edf *rd_edf(tau_rd *rd, const char *path)
{
	for (size_t i = 0; i < rd->nedfs; i++)
		if (strcmp(rd->edfs[i]->path, path) == 0)
			return rd->edfs[i];
	tau_edf *e = calloc(1, sizeof(*e));
	tau_edf **ne = realloc(rd->edfs, (rd->nedfs + 1) * sizeof(*ne));
	if (!e || !ne || !(e->path = strdup(path))) {
		free(e);
		if (ne)
			rd->edfs = ne;
		tf_error_set(rd->err, TF_ENOMEM, path, -1, -1, "out of memory");
		return NULL;
	}
	rd->edfs = ne;
	e->node = tf_tau_edf_node(path);
	if (tf_tau_edf_load(e, rd->ctx, rd->err) < 0) {
		tf_tau_edf_free(e);
		return NULL;
	}
	rd->edfs[rd->nedfs++] = e;
	return e;
}

/* The state of (nid, tid), defining its track on first use; NULL on
 * allocation failure. */
static __attribute__((noinline)) tau_trk *trk_slow(tau_rd *rd, uint16_t nid, uint16_t tid)
{
	uint32_t key = (uint32_t)nid << 16 | tid;
	uint32_t k = tf_hmap_get(&rd->trk_idx, key);
	if (k != UINT32_MAX) {
		rd->last_key = key;
		return rd->last = &rd->trks[k];
	}
	if (tf_grow((void **)&rd->trks, &rd->captrks, rd->ntrks + 1, sizeof(*rd->trks)) < 0 ||
	    tf_hmap_put(&rd->trk_idx, key, rd->ntrks) < 0)
		return NULL;
	tf_strtab *st = tf_ctx_strtab(rd->ctx);
	char pk[16], tk[16], tn[32], pn[32];
	snprintf(pk, sizeof(pk), "%u", (unsigned)nid);
	snprintf(tk, sizeof(tk), "%u", (unsigned)tid);
	snprintf(tn, sizeof(tn), "thread %u", (unsigned)tid);
	snprintf(pn, sizeof(pn), "node %u", (unsigned)nid);
	tf_str spk = tf_strtab_intern_cstr(st, pk), stk = tf_strtab_intern_cstr(st, tk);
	tf_str stn = tf_strtab_intern_cstr(st, tn), spn = tf_strtab_intern_cstr(st, pn);
	if (spk == (tf_str)-1 || stk == (tf_str)-1 || stn == (tf_str)-1 || spn == (tf_str)-1)
		return NULL;
	uint32_t track = tf_ctx_track(rd->ctx, rd->input, spk, stk);
	if (track == (uint32_t)-1)
		return NULL;
	tf_track *t = tf_ctx_track_get(rd->ctx, track);
	t->rank = nid;
	t->thread_name = stn;
	t->process_name = spn;
	t->kind = TF_TRACK_CPU;
	t->needs_sort = false;
	tau_trk *s = &rd->trks[rd->ntrks++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->track = track;
	rd->last_key = key;
	return rd->last = s;
}

static inline tau_trk *rd_trk(tau_rd *rd, uint16_t nid, uint16_t tid)
{
	uint32_t key = (uint32_t)nid << 16 | tid;
	return key == rd->last_key ? rd->last : trk_slow(rd, nid, tid);
}

static void rd_reset_trks(tau_rd *rd)
{
	rd->ntrks = 0;
	rd->last_key = UINT64_MAX;
	rd->last = NULL;
	tf_hmap_free(&rd->trk_idx);
}

static int64_t ts_of(uint64_t ti)
{
	return (int64_t)(ti * 1000u);
}

/* One user-event record as a counter (or metadata) event. */
static int emit_trigger(tau_rd *rd, uint32_t track, const tau_def *d, int64_t par, uint64_t ti,
			uint64_t index)
{
	tf_event *ev = &rd->tev;
	ev->track = track;
	ev->name = d->name;
	ev->ts_ns = ts_of(ti);
	ev->index = index;
	if (d->kind == TK_METADATA) {
		ev->kind = TF_EV_METADATA;
		ev->cat = d->value;
		ev->value = 0;
	} else {
		ev->kind = TF_EV_COUNTER;
		ev->cat = 0;
		ev->value = (double)par;
	}
	return tf_emit(rd->ctx, rd->sink, ev);
}

/* Emits held-back user-event records of s as single samples. */
static int flush_pend(tau_rd *rd, tau_trk *s)
{
	for (int i = 0; i < s->npend; i++) {
		tau_pend *p = &s->pend[i];
		int rc = emit_trigger(rd, s->track, &p->def, p->par, p->ti, p->index);
		if (rc < 0) {
			s->npend = 0;
			return rc;
		}
	}
	s->npend = 0;
	return 0;
}

/* The steps of on_trigger that hold or release without a flush: the three
 * records of a triple, and a value outside one.  1 when it took the record
 * (*rc its outcome), 0 when the general steps must (a record that breaks
 * what is held).  Inline in the record loop (issue 33: most TAU records are
 * triples). */
static inline __attribute__((always_inline)) int trigger_step(tau_rd *rd, tau_trk *s, const tau_def *d, int64_t par,
							      uint64_t ti, uint64_t index, int *rc)
{
	*rc = 0;
	switch (s->npend) {
	case 0:
		if (par != 0) {
			*rc = emit_trigger(rd, s->track, d, par, ti, index);
			return 1;
		}
		s->pend[0] = (tau_pend){ *d, par, ti, index };
		s->npend = 1;
		return 1;
	case 1:
		if (d->id != s->pend[0].def.id)
			return 0;
		s->pend[1] = (tau_pend){ *d, par, ti, index };
		s->npend = 2;
		return 1;
	default:
		if (d->id != s->pend[0].def.id || par != 0)
			return 0;
		/* a complete 0, value, 0: the zeros counted as skipped (tf_count_skip twice) */
		s->npend = 0;
		rd->diag->n[TF_DIAG_events_read] += 2;
		rd->diag->n[TF_DIAG_tau_trigger_frame] += 2;
		*rc = emit_trigger(rd, s->track, &s->pend[1].def, s->pend[1].par, s->pend[1].ti, s->pend[1].index);
		return 1;
	}
}

/* User-event records: TAU writes each trigger as three records of one id on
 * one thread: 0, value, 0.  A record with parameter 0 is held back; a second
 * record of the same id is held too; a third of the same id with parameter 0
 * completes the triple (its middle value is emitted, the zeros are counted as
 * tau_trigger_frame).  Anything else on the thread (another user event, a
 * region, a message) releases what is held as single samples, e.g. TAU's
 * single-record TauTraceClockOffset* events.  Tracer records never break a
 * triple (a buffer flush may fall inside one). */
static __attribute__((noinline)) int on_trigger(tau_rd *rd, tau_trk *s, const tau_def *d, int64_t par,
						 uint64_t ti, uint64_t index)
{
	for (;;) {
		int rc;
		if (trigger_step(rd, s, d, par, ti, index, &rc))
			return rc;
		if (d->id != s->pend[0].def.id) {
			TF_TRY(flush_pend(rd, s));
			continue;
		}
		/* 0, x, y with y != 0: the first zero stood alone; x may open a triple */
		tau_pend first = s->pend[0], second = s->pend[1];
		s->npend = 0;
		TF_TRY(emit_trigger(rd, s->track, &first.def, first.par, first.ti, first.index));
		TF_TRY(on_trigger(rd, s, &second.def, second.par, second.ti, second.index));
		/* then retry the current record against the new state */
	}
}

/* A trigger or metadata record: trigger_step inline, the rest out of line. */
static inline __attribute__((always_inline)) int trigger(tau_rd *rd, tau_trk *s, const tau_def *d, int64_t par,
							 uint64_t ti, uint64_t index)
{
	int rc;
	return trigger_step(rd, s, d, par, ti, index, &rc) ? rc : on_trigger(rd, s, d, par, ti, index);
}

static int flush_all_pend(tau_rd *rd)
{
	for (uint32_t k = 0; k < rd->ntrks; k++)
		if (rd->trks[k].npend)
			TF_TRY(flush_pend(rd, &rd->trks[k]));
	return 0;
}

static int run_error(tau_rd *rd, const char *path, const tau_edf *edf)
{
	return tf_error_set(rd->err, TF_EFORMAT, path, (int64_t)rd->run_off, -1,
			    "%u records in a row from here on have no usable event definition in '%s' "
			    "(undefined ids, or TAU's \"" TAU_PLACEHOLDER_NAME "\" placeholder): "
			    "not a TAU trace, or not the EDF that goes with it",
			    TAU_MAX_UNUSABLE_RUN, edf->path);
}

#define NODE_SKIPPED (UINT32_MAX - 1)

/* The EDF for the records of node nid in a file read with edf: edf itself
 * when it describes nid (or every node); else events.<nid>.edf from edf's
 * directory, or NULL (*out) when there is none.  The first record of such a
 * node gets a note saying which. */
static int node_edf(tau_rd *rd, tau_edf *edf, uint16_t nid, const char *path, uint64_t off, tau_edf **out)
{
	*out = edf;
	if (edf->node < 0 || nid == edf->node)
		return 0;
	uint32_t k = tf_hmap_get(&rd->node_edf, nid);
	if (k == UINT32_MAX) {
		char name[32];
		snprintf(name, sizeof(name), "events.%u.edf", (unsigned)nid);
		char *dir = tf_tau_dir_name(edf->path), *p = dir ? tf_tau_beside(dir, name) : NULL;
		if (!dir)
			return tf_error_set(rd->err, TF_ENOMEM, path, (int64_t)off, -1, "out of memory");
		tau_edf *e = p ? rd_edf(rd, p) : NULL;
		if (p && !e) {
			free(p);
			free(dir);
			return rd->err && rd->err->code ? rd->err->code : TF_ENOMEM;
		}
		k = NODE_SKIPPED;
		for (uint32_t i = 0; e && i < rd->nedfs; i++)
			if (rd->edfs[i] == e)
				k = i;
		if (e)
			tf_ctx_note(rd->ctx, "'%s' byte %llu: records of node %u, which '%s' does not describe "
				    "(event ids are per node): decoded with '%s'",
				    path, (unsigned long long)off, (unsigned)nid, edf->path, e->path);
		else
			tf_ctx_note(rd->ctx, "'%s' byte %llu: records of node %u, which '%s' does not describe "
				    "(event ids are per node), and no '%s' in '%s': skipped (unknown_event_id)",
				    path, (unsigned long long)off, (unsigned)nid, edf->path, name, dir);
		free(p);
		free(dir);
		if (tf_hmap_put(&rd->node_edf, nid, k) < 0)
			return tf_error_set(rd->err, TF_ENOMEM, path, (int64_t)off, -1, "out of memory");
	}
	*out = k == NODE_SKIPPED ? NULL : rd->edfs[k];
	return 0;
}

/* A record of a node without its EDF: skipped.  For the runaway bound it
 * counts as usable when the file's EDF defines its id: a real record of
 * another node, not garbage. */
static int skip_node(tau_rd *rd, const tau_edf *file_edf, int64_t id, const char *path, uint64_t off)
{
	const tau_def *d = tf_tau_edf_find(file_edf, id);
	if (d && !d->unusable)
		rd->run = 0;
	else if (rd->run++ == 0)
		rd->run_off = off;
	else if (rd->run == TAU_MAX_UNUSABLE_RUN)
		return run_error(rd, path, file_edf);
	rd->index++;
	tf_count_skip(rd->ctx, TF_DIAG_unknown_event_id);
	return 0;
}

/* A record whose id has no usable definition in edf (*dp: none, TK_BAD or
 * the placeholder).  An id not defined yet makes the EDF be read again (TAU
 * rewrites it while the program runs); one still unknown is skipped
 * (*dp = NULL).  Either way it counts towards TAU_MAX_UNUSABLE_RUN unless
 * the re-read defined it. */
static __attribute__((noinline)) int on_unusable(tau_rd *rd, tau_edf *edf, int64_t id, const char *path,
						 uint64_t off, const tau_def **dp)
{
	const tau_def *d = *dp;
	if (!d && edf->rereads < TAU_MAX_REREADS) {
		edf->rereads++;
		TF_TRY(tf_tau_edf_load(edf, rd->ctx, rd->err));
		d = tf_tau_edf_find(edf, id);
		if (!d) {
			tau_def bad = { .id = id, .kind = TK_BAD, .unusable = true };
			TF_TRY(tf_tau_edf_put(edf, &bad));
			tf_ctx_note(rd->ctx, "'%s' byte %llu: event id %lld is not defined in '%s'", path,
				    (unsigned long long)off, (long long)id, edf->path);
		}
	}
	if (d && !d->unusable) {
		rd->run = 0;
	} else if (rd->run++ == 0) {
		rd->run_off = off;
	} else if (rd->run == TAU_MAX_UNUSABLE_RUN) {
		return run_error(rd, path, edf);
	}
	if (!d || d->kind == TK_BAD) {
		rd->index++;
		tf_count_skip(rd->ctx, TF_DIAG_unknown_event_id);
		d = NULL;
	}
	*dp = d;
	return 0;
}

/* (the record by value: inlined into read_recs, its fields stay in registers) */
static inline __attribute__((always_inline)) int on_record(tau_rd *rd, tau_edf *edf, tf_tau_rec rec,
							   const char *path, uint64_t off)
{
	const tf_tau_rec *r = &rec;
	const tau_def *d = tf_tau_edf_find(edf, r->ev);
	if (__builtin_expect(!d || d->unusable, 0)) {
		TF_TRY(on_unusable(rd, edf, r->ev, path, off, &d));
		if (!d)
			return 0;
	} else {
		rd->run = 0;
	}
	uint64_t index = rd->index++;
	if (r->ti > (uint64_t)INT64_MAX / 1000u) {
		tf_count_skip(rd->ctx, TF_DIAG_bad_event);
		return 0;
	}
	tau_trk *s = rd_trk(rd, r->nid, r->tid);
	if (!s)
		return tf_error_set(rd->err, TF_ENOMEM, path, (int64_t)off, -1, "out of memory");
	bool entry_exit = r->par == 1 || r->par == -1;
	if (d->kind == TK_TRIGGER || d->kind == TK_METADATA)
		return trigger(rd, s, d, r->par, r->ti, index);
	if (d->kind == TK_TRACER || (d->kind == TK_FLUSH && (!rd->show_flush || !entry_exit))) {
		tf_count_skip(rd->ctx, TF_DIAG_ev_tracer); /* never releases held user-event records */
		return 0;
	}
	if (s->npend && d->kind != TK_FLUSH) /* a flush may fall inside a triple */
		TF_TRY(flush_pend(rd, s));
	tf_event *ev = &rd->rev, msg;
	switch (d->kind) {
	case TK_FLUSH:
		ev->kind = r->par == 1 ? TF_EV_BEGIN : TF_EV_END;
		ev->name = rd->flush_name;
		ev->cat = d->group;
		break;
	case TK_REGION:
		if (!entry_exit) {
			tf_count_skip(rd->ctx, TF_DIAG_bad_event);
			return 0;
		}
		ev->kind = r->par == 1 ? TF_EV_BEGIN : TF_EV_END;
		ev->name = d->name;
		ev->cat = d->group;
		break;
	case TK_SEND:
	case TK_RECV:
		ev = &msg;
		memset(ev, 0, sizeof(*ev));
		ev->kind = d->kind == TK_SEND ? TF_EV_SEND : TF_EV_RECV;
		ev->name = d->name;
		tf_tau_unpack_msg(r->par, &ev->msg);
		break;
	default:
		tf_count_skip(rd->ctx, TF_DIAG_ev_other);
		return 0;
	}
	ev->track = s->track;
	ev->ts_ns = ts_of(r->ti);
	ev->index = index;
	return tf_emit(rd->ctx, rd->sink, ev);
}

/* A record of a node that the file's EDF does not describe: *out = that
 * node's EDF to decode it with, or NULL when there is none (then it has
 * been skipped). */
static __attribute__((noinline)) int other_node(tau_rd *rd, tau_edf *file_edf, uint16_t nid, int64_t id,
						const char *path, uint64_t off, tau_edf **out)
{
	TF_TRY(node_edf(rd, file_edf, nid, path, off, out));
	return *out ? 0 : skip_node(rd, file_edf, id, path, off);
}

/* Streams one .trc file through the definitions in edf. */
/* Records at p[0..n) (whole ones), the first at file offset off. */
static int read_recs(tau_rd *rd, tau_edf *edf, tf_tau_layout lay, const unsigned char *p, size_t n, uint64_t off,
		     const char *path)
{
	long node = edf->node; /* the node edf describes, -1: every node */
	bool native24 = lay.recsize == 24 && !lay.swap; /* the usual layout: decoded inline */
	for (size_t k = 0; k < n; k += lay.recsize) {
		tf_tau_rec r;
		if (__builtin_expect(native24, 1))
			decode(p + k, (tf_tau_layout){ 24, false, false }, &r);
		else
			decode(p + k, lay, &r);
		tau_edf *e = edf;
		if (__builtin_expect(node >= 0 && r.nid != node, 0)) {
			TF_TRY(other_node(rd, edf, r.nid, r.ev, path, off + k, &e));
			if (!e)
				continue;
		}
		TF_TRY(on_record(rd, e, r, path, off + k));
	}
	return 0;
}

/* The file's first bytes (carry[0..*have), up to 32) decide the layout;
 * their whole records are read, the rest moved to the front of carry. */
static int first_recs(tau_rd *rd, tau_edf *edf, const char *path, tf_tau_layout *lay, unsigned char *carry,
		      size_t *have, uint64_t *off)
{
	*lay = tf_tau_detect_layout(carry, *have);
	if (lay->guessed)
		tf_ctx_note(rd->ctx,
			    "'%s': the first record is not EV_INIT with parameter 3; "
			    "assuming 24-byte records in this machine's byte order", path);
	size_t whole = *have - *have % lay->recsize;
	TF_TRY(read_recs(rd, edf, *lay, carry, whole, *off, path));
	*off += whole;
	*have -= whole;
	memmove(carry, carry + whole, *have);
	return 0;
}

/* Reads the records where tf_in holds them (no copy into a block of our
 * own); a record cut by the end of a chunk is put together in carry. */
static int read_trc(tau_rd *rd, const char *path, tau_edf *edf)
{
	tf_in *in = NULL;
	TF_TRY(tf_in_open(&in, path, rd->err));
	int rc = 0;
	unsigned char carry[32];
	size_t have = 0;  /* bytes in carry */
	uint64_t off = 0; /* file offset of the next record */
	tf_tau_layout lay = { 0 };
	bool first = true;
	rd_reset_trks(rd);
	tf_hmap_free(&rd->node_edf);
	rd->run = 0;
	for (;;) {
		const unsigned char *p;
		ptrdiff_t n = tf_in_chunk(in, &p, rd->err);
		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (n == 0)
			break;
		size_t len = (size_t)n;
		if (first) { /* the first 32 bytes decide the layout */
			size_t k = len < 32 - have ? len : 32 - have;
			memcpy(carry + have, p, k);
			have += k;
			p += k;
			len -= k;
			if (have < 32)
				continue;
			if ((rc = first_recs(rd, edf, path, &lay, carry, &have, &off)) < 0)
				goto done;
			first = false;
		}
		if (have) { /* the record cut at the end of the last chunk */
			size_t k = lay.recsize - have < len ? lay.recsize - have : len;
			memcpy(carry + have, p, k);
			have += k;
			p += k;
			len -= k;
			if (have < lay.recsize)
				continue;
			if ((rc = read_recs(rd, edf, lay, carry, have, off, path)) < 0)
				goto done;
			off += have;
			have = 0;
		}
		size_t whole = len - len % lay.recsize;
		if ((rc = read_recs(rd, edf, lay, p, whole, off, path)) < 0)
			goto done;
		off += whole;
		have = len - whole;
		memcpy(carry, p + whole, have);
	}
	if (rc >= 0 && first && have >= 24) { /* a file of less than 32 bytes */
		if ((rc = first_recs(rd, edf, path, &lay, carry, &have, &off)) < 0)
			goto done;
		first = false;
	}
	if (have) {
		tf_count_skip(rd->ctx, TF_DIAG_truncated_record);
		tf_ctx_note(rd->ctx, "'%s': truncated last record at byte %llu (%zu of %u bytes): ignored",
			    path, (unsigned long long)off, have, first ? 24u : lay.recsize);
	} else if (tf_in_truncated(in)) {
		tf_count_skip(rd->ctx, TF_DIAG_truncated_record); /* the lost rest */
	}
	if (tf_in_truncated(in))
		tf_ctx_note(rd->ctx, "'%s': gzip data ends early (truncated file) after %llu bytes of records: "
			    "the records before the cut are read", path, (unsigned long long)tf_in_offset(in));
done:
	if (rc >= 0)
		rc = flush_all_pend(rd);
	tf_in_close(in);
	return rc;
}

/* ---- inputs ---- */

static int read_one(tau_rd *rd, const char *trc, const char *edf_path)
{
	if (!edf_path)
		return tf_error_set(rd->err, TF_EFORMAT, trc, -1, -1,
				    "no event definitions found beside it (events.<node>.edf or tau.edf); "
				    "name them with --edf");
	tau_edf *e = rd_edf(rd, edf_path);
	if (!e)
		return rd->err && rd->err->code ? rd->err->code : TF_EIO;
	return read_trc(rd, trc, e);
}

/* Every trace file of a directory (list_dir), each with its EDF. */
static int read_dir(tau_rd *rd, const char *dir)
{
	trc_file *files = NULL;
	size_t n = 0;
	bool per_thread = false;
	const tf_read_opts *ro = tf_ctx_opts(rd->ctx);
	const char *opt = ro->edf_path;
	int rc = tf_tau_edf_conflict(dir, opt, rd->err);
	if (rc >= 0)
		rc = tf_tau_list_dir(dir, &files, &n, &per_thread, rd->err);
	if (rc >= 0 && n == 0)
		rc = tf_error_set(rd->err, TF_EFORMAT, dir, -1, -1,
				  "no TAU trace files (tautrace.*.trc or tau.trc) in this directory");
	if (rc >= 0 && ro->part_mask && n != ro->npart_mask) /* parts are positions in the listing */
		rc = tf_error_set(rd->err, TF_EFORMAT, dir, -1, -1,
				  "%zu trace files now, %zu when the run was planned: the directory changed "
				  "(or looks different from this machine)", n, ro->npart_mask);
	for (size_t i = 0; i < n && rc >= 0; i++) {
		if (ro->part_mask && (i >= ro->npart_mask || !ro->part_mask[i]))
			continue; /* another process reads it (a distributed run) */
		if (ro->cancelled && ro->cancelled(ro->cancel_arg)) {
			rc = tf_error_set(rd->err, TF_ECANCEL, dir, -1, -1, "%s", tf_strerror(TF_ECANCEL));
			break;
		}
		char *trc = tf_tau_path_join(dir, files[i].name), *edf = NULL;
		if (!trc) {
			rc = tf_error_set(rd->err, TF_ENOMEM, dir, -1, -1, "out of memory");
			break;
		}
		if (per_thread && !opt) { /* the node's EDF, shared by its threads */
			char name[64];
			snprintf(name, sizeof(name), "events.%ld.edf", files[i].node);
			edf = tf_tau_beside(dir, name);
		}
		if (!edf)
			edf = tf_tau_edf_for_trc(trc, opt);
		rc = read_one(rd, trc, edf);
		free(trc);
		free(edf);
	}
	for (size_t i = 0; i < n; i++)
		free(files[i].name);
	free(files);
	return rc;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	tau_rd rd = { .ctx = ctx, .sink = sink, .err = err, .input = input, .diag = tf_ctx_diag(ctx) };
	rd.show_flush = tf_ctx_opts(ctx)->show_tau_flush;
	rd.flush_name = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), TAU_FLUSH_NAME);
	int rc = 0;
	struct stat sb;
	if (stat(path, &sb) != 0) {
		rc = tf_error_set(err, TF_EIO, path, -1, -1, "cannot open");
	} else if (S_ISDIR(sb.st_mode)) {
		rc = read_dir(&rd, path);
	} else {
		char *edf = tf_tau_edf_for_trc(path, tf_ctx_opts(ctx)->edf_path);
		rc = read_one(&rd, path, edf);
		free(edf);
	}
	for (size_t i = 0; i < rd.nedfs; i++)
		tf_tau_edf_free(rd.edfs[i]);
	free(rd.edfs);
	free(rd.trks);
	tf_hmap_free(&rd.trk_idx);
	tf_hmap_free(&rd.node_edf);
	return rc;
}

/* ---- sniffing ---- */

static bool head_is_tau(const unsigned char *head, size_t n)
{
	if (n < 24)
		return false;
	tf_tau_layout l = tf_tau_detect_layout(head, n);
	return !l.guessed;
}

static int sniff(const char *path, int is_dir, const unsigned char *head, size_t n, bool whole)
{
	if (is_dir) {
		DIR *d = opendir(path);
		if (!d)
			return TF_SNIFF_NO;
		int ans = TF_SNIFF_NO;
		struct dirent *de;
		long a, b, c;
		while ((de = readdir(d))) {
			if (tf_tau_parse_tautrace(de->d_name, &a, &b, &c) || strcmp(de->d_name, "tau.trc") == 0) {
				ans = TF_SNIFF_YES;
				break;
			}
		}
		closedir(d);
		return ans;
	}
	bool named = tf_tau_ends_with(path, ".trc") || tf_tau_ends_with(path, ".trc.gz");
	if (named)
		return TF_SNIFF_YES;
	return head_is_tau(head, n) ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
}

const tf_format tf_format_tau = {
	.name = "tau",
	.description = "TAU traces: a directory of tautrace.N.C.T.trc + events.N.edf, a merged tau.trc, or one .trc",
	.sniff = sniff,
	.read = read_input,
	.parts = tf_tau_parts,
};
