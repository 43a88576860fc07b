/* chrome_int.h - private to the Chrome trace-event reader: its state and
 * what chrome.c (the parser: top level, carry, errors), chrome_event.c
 * (an event's fields, strings, numbers, the tf_event) and chrome_tracks.c
 * (tracks, metadata, GPU classification) share.  The JSON tokenizer under
 * both is json.h; the entry points for tests and benchmarks are chrome.h. */
#ifndef TRACEFOLD_READ_CHROME_INT_H
#define TRACEFOLD_READ_CHROME_INT_H

#include <stdbool.h>
#include <stdint.h>
#include "tracefold/io.h"
#include "tracefold/reader.h"
#include "chrome.h"
#include "hmap.h"
#include "json.h"

typedef unsigned char u8;

typedef struct tf_chrome_prof tf_chrome_prof; /* chrome_profile.c */
typedef struct tf_chrome_pipe tf_chrome_pipe; /* chrome_pipe.c */

/* step/parse results: the tokenizer's OK and NEED; negative values are
 * TF_E* codes (a tokenizer error is turned into one at once) */
enum { R_OK = TF_JSON_OK, R_NEED = TF_JSON_NEED };

#define NSCRATCH 4
#define CACHE_KEY 64
#define KP_N 16   /* the first members of an event, whose separator and key are predicted ... */
#define KP_WAYS 4 /* ... each from this many of the last events' shapes */

/* A member's bytes from the end of the value before it (or the event's '{')
 * to its key's ':' and a space after it (`, "name": `), at most 16: the
 * bytes (zero after len), a bit for each of them (need), how many (len),
 * the member's field (offset in tf_chrome_fields, -1: none) and what its
 * value is read as (KP_*); or the bytes to the event's closing '}' (KP_END).
 * An entry that predicts nothing has need 0x10000: no 16 bytes match it. */
enum { KP_VALUE, KP_TS, KP_DUR, KP_ARGS, KP_END };
typedef struct tf_chrome_kp {
	uint64_t word[2];
	uint32_t need;
	int16_t off;
	uint8_t len, kind;
	uint8_t voff, vlen, vtype; /* a whole member (tf_chrome's kw): its value's span from s */
} tf_chrome_kp;

/* The fields of an event that the reader uses: spans into the buffer, and
 * ts and dur in ns when the tokenizer read them as it scanned them (ts_ok,
 * dur_ok; else they are converted from their spans). */
/* args' members picked out as args is checked (chrome_event.c): */
enum { PK_BYTES, PK_ADDR, PK_DEV_ID, PK_DEV_TYPE, PK_PY_ID, PK_PY_PARENT, PK_CORR, PK_CORR_ID, NPICK };

typedef struct tf_chrome_fields {
	tf_json_span ph, name, cat, ts, dur, pid, tid, id, id2, args, sort_index;
	int64_t ts_ns, dur_ns;
	uint8_t ts_ok, dur_ok;
	uint8_t picks;             /* args is an object and pick holds its members below */
	uint16_t picked, pick_dup; /* bit PK_*: pick[PK_*] set; that key more than once */
	tf_json_span pick[NPICK];  /* not zeroed: valid where picked says */
} tf_chrome_fields;

/* Thread metadata, kept also for tracks not seen yet. */
typedef struct tf_chrome_pending {
	tf_str pk, tk;
	tf_str name;
	int64_t sort_index;
	bool has_name, has_sort;
	uint8_t gpu;   /* tracefold_gpu_stream: 1 under its launches, 2 in place */
} tf_chrome_pending;

struct tf_chrome {
	tf_ctx *ctx;
	tf_strtab *st;
	tf_sink *sink;
	uint32_t input;
	char path[512];
	tf_error *err;
	tf_json_error jerr;    /* the tokenizer's last error */

	int state;
	bool object_form;
	bool stopped;
	int topkey;
	tf_json_skip skip;     /* resumable skip of a top-level value */

	/* the buffer being parsed: its first byte's absolute offset */
	const unsigned char *buf0;
	int64_t buf_base;
	int64_t base;          /* absolute offset of the next fed chunk */

	unsigned char *carry;
	size_t carry_len, carry_cap;
	int64_t carry_off;
	size_t retry_at;       /* parse the carry again once it holds this many bytes */
	bool untried;          /* the carry got bytes since it was last parsed */

	uint64_t index;        /* next event's 0-based index in the input */
	int64_t rank;          /* distributedInfo.rank, -1 none */
	tf_str trace_cat;      /* "Trace" (Kineto's whole-trace span) */
	tf_str memory_name;    /* "[memory]" (Kineto's allocations and frees) */
	int64_t mem_type, mem_id; /* the last "[memory]" device (memory_args) ... */
	tf_str mem_device;     /* ... and its name; 0: none yet */
	bool lines;            /* JSON lines: events separated by newlines, no commas */
	bool has_events;       /* object form: a traceEvents array was met */
	bool nl;               /* a newline since the last event (S_ARR_NEXT) */
	bool xla;              /* an XLA/JAX profiler trace: a process named /device:... or
				* /host:...; its events' args.correlation_id link launches and
				* kernels (docs/format-jax.md) */

	/* scratch for decoded strings: 0 name, 1 cat, 2 pid, 3 tid */
	char *scr[NSCRATCH];
	size_t scr_cap[NSCRATCH];
	char *tmp;             /* counter names */
	size_t tmp_cap;

	/* the last category interned (tf_chrome_intern's slot 1): its text in
	 * the string table (NULL: none yet), length and id */
	const char *cat_text;
	size_t cat_n;
	tf_str cat_id;

	/* last (pid, tid) text -> track */
	bool tc_valid;
	uint32_t tc_track;
	size_t tc_pn, tc_tn;
	char tc_pid[CACHE_KEY], tc_tid[CACHE_KEY];

	/* Member i's bytes as the last events had them, in up to KP_WAYS
	 * shapes (chrome_event.c's tf_chrome_parse_event): an event with the
	 * same bytes there has the same separator and key, not read again.
	 * kp_new: the way to replace next.  Set up on the first event. */
	bool kp_ready;
	uint8_t kp_new[KP_N];
	tf_chrome_kp kp[KP_N][KP_WAYS];
	/* Member i whole, value included, when the last two events had the
	 * same bytes there (kw; kc: the last one's, to compare): a string
	 * without escapes, a number or literal (with the byte after it), or
	 * args' {}, all within 16 bytes.  Matched before kp. */
	tf_chrome_kp kw[KP_N], kc[KP_N];

	/* cat id -> 0 unknown, 1 GPU category, 2 other */
	uint8_t *catcls;
	size_t catcls_cap;
	uint8_t *trkcls;       /* per track id: 1 a GPU activity seen on it, 2 CPU work seen */
	size_t trkcls_cap;
	tf_hmap gpu_pids;      /* process key -> 1: marked GPU by its metadata */
	tf_chrome_pending *pend;
	uint32_t npend, cappend;
	tf_hmap pend_idx;      /* process key << 32 | thread key -> pend index */
	tf_chrome_prof *prof;  /* the CPU profiles met (Profile, ProfileChunk); NULL none */

	/* Stage 1 of a two-stage read (chrome_pipe.c): this tf_chrome only
	 * parses (no ctx); every event and every fact of the top level goes
	 * to the pipe's queue for stage 2, in file order; NULL: processed here */
	tf_chrome_pipe *pipe;
	bool fin_truncated;    /* stage 1: the finish found a cut event (truncated_record) */
};

/* chrome.c: r->jerr (the tokenizer's error, or one of ours) as r->err;
 * what, and the byte at `at`, as r->err.  Both return TF_EFORMAT. */
int tf_chrome_fail_json(tf_chrome *r);
int tf_chrome_fail_char(tf_chrome *r, const u8 *at, const char *what);
/* A tokenizer result: OK and NEED as they are, an error as r->err. */
static inline int tf_chrome_json_rc(tf_chrome *r, int rc)
{
	return rc < 0 ? tf_chrome_fail_json(r) : rc;
}

/* chrome_event.c */
/* The field an event's key k names (NULL: one the reader skips). */
tf_json_span *tf_chrome_field_for(tf_chrome_fields *f, const tf_json_span *k);
/* p at '{'.  Fills f (spans into the buffer); R_OK with *out after the
 * object, R_NEED when it is cut by end, or an error. */
int tf_chrome_parse_event(tf_chrome *r, const u8 *p, const u8 *end, tf_chrome_fields *f, const u8 **out);
/* One decoded event object (f) -> tf_emit / tf_count_skip. */
int tf_chrome_process_event(tf_chrome *r, const tf_chrome_fields *f);
/* The text of a string (decoded into scratch buffer `slot`) or
 * of a number/literal (as written); "" for absent, null, objects, arrays. */
int tf_chrome_text(tf_chrome *r, const tf_json_span *s, int slot, const char **t, size_t *n);
/* tf_chrome_text interned; 0 for "". */
int tf_chrome_intern(tf_chrome *r, const tf_json_span *s, int slot, tf_str *out);

/* chrome.c, for chrome_pipe.c: a stage-1 parser (no ctx: its events and
 * facts go to pipe); what a top-level value (key: which) says, on stage
 * 2's tf_chrome; the end of the input after tf_chrome_finish's parsing (the
 * GPU tracks settled, the CPU profiles' samples); a gzip stream cut short
 * (counted as a truncated record unless the finish counted one since cut,
 * the counter's value before it). */
tf_chrome *tf_chrome_new_stage1(const char *path, tf_chrome_pipe *pipe);
void tf_chrome_top_value(tf_chrome *r, int key, const tf_json_span *v);
int tf_chrome_finish_events(tf_chrome *r);
void tf_chrome_gzip_cut(tf_ctx *ctx, const char *path, uint64_t cut, uint64_t offset);

/* chrome_pipe.c: stage 1's hand-over (p: the stage-1 parser).  Whether
 * stage 1 is to hand the next events over raw (their end found, not
 * tokenized: stage 2 tokenizes them); where the next event's fields are
 * to be parsed (*f, in the queue: nothing is handed over until
 * tf_chrome_pipe_event); the event whose bytes are [q, end) with its
 * fields f (as pipe_fields gave, spans into them; NULL: raw); an element
 * of the events array that is not an object (a bad_event, with an index);
 * a top-level value v of key `key` (tf_chrome_top_value).  0 or a
 * negative TF_E* (TF_ECANCEL: stage 2 stopped). */
bool tf_chrome_pipe_raw(const tf_chrome *p);
/* q at an event's '{': true with *out after its end when a quick scan finds
 * it (its bytes are not checked: stage 2's parser does), false if not */
bool tf_chrome_pipe_end(const u8 *q, const u8 *end, const u8 **out);
int tf_chrome_pipe_fields(tf_chrome *p, tf_chrome_fields **f);
int tf_chrome_pipe_event(tf_chrome *p, const u8 *q, const u8 *end, tf_chrome_fields *f);
int tf_chrome_pipe_skip(tf_chrome *p);
int tf_chrome_pipe_top(tf_chrome *p, int key, const tf_json_span *v);
/* Reads the opened input in with two stages when it is a regular file,
 * tf_read_opts.reader_threads allows and its two_stage says so: returns
 * what the one-stage read returns, or 1 when it did not (then nothing of in
 * was read). */
int tf_chrome_read_piped(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_in *in,
			 tf_error *err);

/* chrome_keys.c: the predicted members (tf_chrome's kp, kw, kc): set up;
 * a separator and key learned (tf_chrome_kp_learn: member i's bytes from s
 * to its key's ':' at colon, field dst read as kind; or to the event's '}',
 * kind KP_END); a whole member noted (tf_chrome_kw_learn: n bytes from s to
 * its value's end, term more that reading it looked at; kept in kw when
 * the last event had the same).  Both keep nothing that needs more than 16
 * bytes or fewer than 17 left from s. */
void tf_chrome_kp_init(tf_chrome *r);
void tf_chrome_kp_learn(tf_chrome *r, size_t i, const u8 *s, const u8 *colon, const u8 *end,
			const tf_chrome_fields *f, const tf_json_span *dst, int kind);
void tf_chrome_kw_learn(tf_chrome *r, size_t i, const u8 *s, size_t n, size_t term, const u8 *end,
			const tf_chrome_fields *f, const tf_json_span *dst, int kind);
/* Whether the 16 bytes at s start with e's bytes. */
static inline bool tf_chrome_kp_match(const tf_chrome_kp *e, const u8 *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	unsigned eq = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(v, _mm_loadu_si128((const __m128i *)(const void *)e->word)));
#else
	unsigned eq = 0;
	for (unsigned j = 0; j < 16; j++)
		eq |= (unsigned)(s[j] == ((const u8 *)e->word)[j]) << j;
#endif
	return (~eq & e->need) == 0; /* bit j of eq: byte j the same */
}

/* chrome_tracks.c */
/* The track of (pid, tid), made on first use (GPU by its stream name or
 * process, thread metadata seen before applied). */
int tf_chrome_track_for(tf_chrome *r, const tf_json_span *pid, const tf_json_span *tid, uint32_t *out);
/* A category of GPU work (kernel, gpu_memcpy, ...): its track is GPU. */
/* What a category says of its events (docs/gpu.md): CAT_GPU a GPU activity
 * (its track is a GPU stream), CAT_LAUNCH a CPU call that launches GPU work,
 * CAT_GPU_LABEL an annotation on a GPU stream, CAT_CPU other CPU work
 * (Python frames, operators), CAT_SYNC a synchronization (Kineto's
 * cuda_sync: a GPU activity on the device or a stream, with the correlation
 * id of the CPU call that waited), CAT_PYTHON a Python frame (CPU work with
 * "Python id" and "Python parent id"), CAT_OTHER anything else. */
enum { CAT_UNKNOWN = 0, CAT_OTHER, CAT_GPU, CAT_LAUNCH, CAT_GPU_LABEL, CAT_CPU, CAT_SYNC, CAT_PYTHON };
int tf_chrome_cat_class(tf_chrome *r, tf_str cat);
/* Notes what a region of category class cls says of its track; at the end
 * of the input, tf_chrome_settle_gpu makes CPU the tracks of GPU processes
 * that had CPU work and no GPU activity (Kineto puts some Python threads in
 * the device's pid).  Return 0 or TF_ENOMEM. */
int tf_chrome_note_class(tf_chrome *r, uint32_t track, int cls);
void tf_chrome_settle_gpu(tf_chrome *r);
/* What a metadata event (ph M) says about processes and threads. */
int tf_chrome_metadata(tf_chrome *r, const tf_chrome_fields *f);
/* The top-level "distributedInfo" object: its rank goes to every track. */
void tf_chrome_set_rank(tf_chrome *r, const tf_json_span *obj);

/* chrome_profile.c: the V8 CPU profile (docs/format-chrome-cpuprofile.md).
 * A ph P event (idx: its index): Profile and ProfileChunk are kept, other
 * names counted as ev_other.  At the end of the input, finish emits every
 * profile's samples as TF_EV_SAMPLE on its Profile's thread. */
int tf_chrome_profile_event(tf_chrome *r, const tf_chrome_fields *f, uint64_t idx);
int tf_chrome_profile_finish(tf_chrome *r);
void tf_chrome_prof_free(tf_chrome_prof *c); /* NULL-safe */

/* chrome_coll.c: notes the facts of a collective region (gloo:, nccl:,
 * record_param_comms, NCCL kernels) in the ctx's tf_coll (coll.h). */
int tf_chrome_collective(tf_chrome *r, const tf_chrome_fields *f, const tf_event *ev);

#endif
