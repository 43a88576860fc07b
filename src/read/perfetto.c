/* perfetto.c - Perfetto protobuf traces (TrackEvent-based: what tracefold's
 * writer, Perfetto's SDK and SDK-style tools write) -> tf_event.
 *
 * A trace is a sequence of (tag 0x0a, length, TracePacket); packets are read
 * one at a time from a growing buffer and unpacked by protobuf-c
 * (proto/perfetto_trace.proto, the fields this reader knows; the others are
 * skipped) into an arena emptied after each packet.  Format facts and the
 * choices made here: docs/format-perfetto.md.
 *
 *   TrackDescriptor  a thread (pid, tid) -> a track of process pid; a process
 *                    -> its name (and rank, see rank_of); a counter -> its
 *                    values go to the parent's track; any other track (a GPU
 *                    stream, an async track) -> a track of its nearest
 *                    process ancestor, named after it
 *   TrackEvent       SLICE_BEGIN/END -> begin/end, INSTANT -> instant (or,
 *                    carrying flow ids only, the flow's end), COUNTER ->
 *                    counter; flow_ids -> flow start (the earliest of an
 *                    id's, by time, held to the input's end) or step,
 *                    terminating_flow_ids -> flow end
 *   InternedData     event names and categories per sequence
 *                    (trusted_packet_sequence_id)
 *   defaults         TracePacketDefaults: the track and clock of events
 *                    that do not name theirs
 *   ClockSnapshot    sequence-scoped clocks (ids 64-127), incremental or
 *                    scaled, are turned into the snapshot's reference clock;
 *                    the built-in clocks are taken as one time base
 *
 * Perfetto files are not sorted per track (trace processor sorts them), so
 * every track is buffered and sorted by the stack builder (tf_track
 * needs_sort): memory grows with the events of a track, like Chrome JSON.
 *
 * This file: the stream, the packets; what they hold is perfetto_tracks.c's
 * (perfetto_int.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/io.h"
#include <zlib.h>
#include "perfetto_int.h"
#include "grow.h"

/* ---- arena for protobuf-c ---- */

static void *arena_alloc(void *u, size_t n)
{
	arena *a = u;
	n = (n + 15) & ~(size_t)15;
	if (a->used + n <= a->cap) {
		void *p = a->block + a->used;
		a->used += n;
		return p;
	}
	if (a->used + a->spill + n > a->limit) /* hostile nesting: the packet fails (bad_event) */
		return NULL;
	void *p = malloc(n);
	if (!p || tf_grow((void **)&a->extra, &a->capextra, a->nextra + 1, sizeof(void *)) < 0) {
		free(p);
		return NULL;
	}
	a->extra[a->nextra++] = p;
	a->spill += n;
	return p;
}

static void arena_free(void *u, void *p)
{
	(void)u;
	(void)p;
}

/* What unpacking a packet of len bytes may take: 32 bytes of structures
 * per byte (empty sub-messages are 2 bytes each), at most 256 MiB, plus 1
 * MiB.  A real packet needs a few times its size. */
static size_t arena_limit(uint64_t len)
{
	uint64_t l = len * 32;
	return (size_t)((l < (256u << 20) ? l : (256u << 20)) + (1u << 20));
}

/* Empties the arena; a block that was too small is replaced by one that
 * holds what the last packet needed. */
static void arena_reset(arena *a)
{
	for (uint32_t i = 0; i < a->nextra; i++)
		free(a->extra[i]);
	if (a->spill) {
		size_t want = (a->used + a->spill) * 2;
		char *b = malloc(want);
		if (b) {
			free(a->block);
			a->block = b;
			a->cap = want;
		}
	}
	a->nextra = 0;
	a->used = a->spill = 0;
}

static int on_packet(tf_pf *r, const PB_Packet *p);

/* A chunk of compressed packets (what Perfetto's service and tracefold's
 * writer by default write): inflated (zlib, or gzip) into a buffer of at
 * most 256 MiB, its packets read one after the other. */
static int on_compressed(tf_pf *r, const ProtobufCBinaryData *z)
{
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 15 + 32) != Z_OK)
		return TF_ENOMEM;
	size_t n = 0;
	int zr = Z_OK;
	s.next_in = z->data;
	s.avail_in = (uInt)z->len;
	while (zr == Z_OK) {
		if (n == r->capzbuf && (n >= (256u << 20) ||
					tf_grow_n((void **)&r->zbuf, &r->capzbuf, n ? n * 2 : 1u << 20, 1, false) < 0))
			break;
		s.next_out = r->zbuf + n;
		s.avail_out = (uInt)(r->capzbuf - n);
		zr = inflate(&s, Z_NO_FLUSH);
		n = r->capzbuf - s.avail_out;
	}
	inflateEnd(&s);
	if (zr != Z_STREAM_END) {
		tf_count_skip(r->ctx, TF_DIAG_bad_event);
		tf_ctx_note(r->ctx, "compressed packets at byte %" PRIu64 " of '%s' do not inflate: skipped", r->offset,
			    r->path);
		return 0;
	}
	ProtobufCAllocator alloc = { arena_alloc, arena_free, &r->inner };
	for (size_t i = 0; i < n;) {
		uint64_t tag = r->zbuf[i++], len = 0;
		int sh = 0;
		while (i < n && sh < 64) {
			len |= (uint64_t)(r->zbuf[i] & 0x7f) << sh;
			sh += 7;
			if (!(r->zbuf[i++] & 0x80))
				break;
		}
		if (tag != 0x0a || len > n - i) {
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
			tf_ctx_note(r->ctx, "compressed packets at byte %" PRIu64 " of '%s': damaged after %zu bytes",
				    r->offset, r->path, i);
			return 0;
		}
		r->inner.limit = arena_limit(len);
		PB_Packet *p = perfetto__protos__trace_packet__unpack(&alloc, (size_t)len, r->zbuf + i);
		int rc = 0;
		if (!p)
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		else if (p->has_compressed_packets) /* chunks in chunks: no */
			tf_count_skip(r->ctx, TF_DIAG_bad_event);
		else
			rc = on_packet(r, p);
		arena_reset(&r->inner);
		TF_TRY(rc);
		i += (size_t)len;
	}
	return 0;
}

static int on_packet(tf_pf *r, const PB_Packet *p)
{
	if (p->has_compressed_packets)
		return on_compressed(r, &p->compressed_packets);
	uint32_t seq = p->has_trusted_packet_sequence_id ? p->trusted_packet_sequence_id : 0;
	bool cleared = (p->has_sequence_flags && (p->sequence_flags & SEQ_CLEARED)) ||
		       (p->has_incremental_state_cleared && p->incremental_state_cleared);
	pseq *s = tf_pf_seq_get(r, seq, cleared || p->trace_packet_defaults || p->clock_snapshot);
	if (!s && (cleared || p->trace_packet_defaults || p->clock_snapshot))
		return TF_ENOMEM;
	if (s && cleared) {
		s->has_track = false;
		s->clock = 0;
		s->nclocks = 0;
	}
	bool used = false;
	if (p->trace_packet_defaults) {
		const Perfetto__Protos__TracePacketDefaults *d = p->trace_packet_defaults;
		s->clock = d->has_timestamp_clock_id ? d->timestamp_clock_id : 0;
		s->has_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid;
		s->track = s->has_track ? d->track_event_defaults->track_uuid : 0;
		used = true;
	}
	if (p->clock_snapshot) {
		TF_TRY(tf_pf_on_clocks(r, s, p->clock_snapshot));
		used = true;
	}
	if (p->interned_data) {
		const Perfetto__Protos__InternedData *in = p->interned_data;
		for (size_t i = 0; i < in->n_event_names; i++)
			TF_TRY(tf_pf_put_interned(r, seq, 0, in->event_names[i]->iid, in->event_names[i]->name));
		for (size_t i = 0; i < in->n_event_categories; i++)
			TF_TRY(tf_pf_put_interned(r, seq, 1, in->event_categories[i]->iid, in->event_categories[i]->name));
		for (size_t i = 0; i < in->n_debug_annotation_names; i++)
			TF_TRY(tf_pf_put_interned(r, seq, 2, in->debug_annotation_names[i]->iid,
					    in->debug_annotation_names[i]->name));
		used = true;
	}
	if (p->track_descriptor) {
		TF_TRY(tf_pf_on_descriptor(r, p->track_descriptor));
		tf_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.kind = TF_EV_METADATA;
		ev.track = TF_TRACK_NONE;
		TF_TRY(tf_pf_emit(r, &ev));
		return 0;
	}
	if (p->track_event)
		return tf_pf_on_track_event(r, s, seq, p);
	if (!used && (p->base.n_unknown_fields || !p->has_timestamp))
		tf_count_skip(r->ctx, TF_DIAG_ev_other); /* packets of other data sources */
	return 0;
}

/* ---- the stream ---- */

typedef struct pbuf {
	tf_in *in;
	unsigned char *b;
	size_t cap, pos, len;
	uint64_t base;    /* input offset of b[0] */
} pbuf;

/* At least need bytes from pos, or fewer at the end of input (0 = some). */
static ptrdiff_t fill(pbuf *q, size_t need, tf_error *err)
{
	while (q->len - q->pos < need) {
		if (q->pos) {
			memmove(q->b, q->b + q->pos, q->len - q->pos);
			q->base += q->pos;
			q->len -= q->pos;
			q->pos = 0;
		}
		size_t want = need > 64 * 1024 ? need : 64 * 1024;
		if (tf_grow_n((void **)&q->b, &q->cap, want, 1, false) < 0)
			return TF_ENOMEM;
		ptrdiff_t n = tf_in_read(q->in, q->b + q->len, q->cap - q->len, err);
		if (n < 0)
			return n;
		if (n == 0)
			break;
		q->len += (size_t)n;
	}
	return (ptrdiff_t)(q->len - q->pos);
}

/* A varint at pos: 1 read, 0 the input ended inside it, -1 malformed. */
static int varint(pbuf *q, uint64_t *v, tf_error *err)
{
	ptrdiff_t n = fill(q, 10, err);
	if (n < 0)
		return (int)n;
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if ((ptrdiff_t)i >= n)
			return 0;
		unsigned char c = q->b[q->pos + (size_t)i];
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			q->pos += (size_t)i + 1;
			*v = x;
			return 1;
		}
	}
	return -1;
}

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	tf_pf r;
	memset(&r, 0, sizeof(r));
	r.flfree = UINT32_MAX;
	r.ctx = ctx;
	r.st = tf_ctx_strtab(ctx);
	r.sink = sink;
	r.path = path;
	r.input = input;
	pbuf q;
	memset(&q, 0, sizeof(q));
	arena ar;
	memset(&ar, 0, sizeof(ar));
	ProtobufCAllocator alloc = { arena_alloc, arena_free, &ar };
	int rc = tf_in_open(&q.in, path, err);
	while (rc >= 0) {
		ptrdiff_t n = fill(&q, 1, err);
		if (n <= 0) {
			rc = n < 0 ? (int)n : 0;
			break;
		}
		r.offset = q.base + q.pos;
		uint64_t tag = 0, len = 0;
		int v = varint(&q, &tag, err);
		if (v == 1 && (tag & 7) == 2)
			v = varint(&q, &len, err);
		else if (v == 1)
			v = -1; /* a Trace holds only packets (field 1) */
		if (v < 0 && v != -1) {
			rc = v;
			break;
		}
		if (v == -1 || (v == 1 && len > MAX_PACKET)) {
			rc = tf_error_set(err, TF_EFORMAT, path, (int64_t)r.offset, -1,
					  "not a Perfetto trace packet at byte %" PRIu64 " (packet %" PRIu64 ")",
					  r.offset, r.packet);
			break;
		}
		if (v == 0 || (n = fill(&q, (size_t)len, err)) < (ptrdiff_t)len) {
			if (n < 0) {
				rc = (int)n;
				break;
			}
			tf_count_skip(ctx, TF_DIAG_truncated_record);
			tf_ctx_note(ctx, "truncated last packet at byte %" PRIu64 " of '%s'", r.offset, path);
			break;
		}
		const unsigned char *data = q.b + q.pos;
		q.pos += (size_t)len;
		if (tag >> 3 != 1) { /* other fields of Trace: none are known */
			r.packet++;
			continue;
		}
		ar.limit = arena_limit(len);
		PB_Packet *p = perfetto__protos__trace_packet__unpack(&alloc, (size_t)len, data);
		if (!p) {
			tf_count_skip(ctx, TF_DIAG_bad_event);
			tf_ctx_note(ctx, "undecodable packet %" PRIu64 " at byte %" PRIu64 " of '%s': skipped", r.packet,
				    r.offset, path);
		} else {
			rc = on_packet(&r, p);
			if (rc == TF_ENOMEM)
				tf_error_set(err, rc, path, (int64_t)r.offset, -1, "out of memory");
		}
		arena_reset(&ar);
		r.packet++;
	}
	if (!rc && (rc = tf_pf_flows_end(&r)) == TF_ENOMEM)
		tf_error_set(err, rc, path, (int64_t)r.offset, -1, "out of memory");
	tf_in_close(q.in);
	free(q.b);
	arena_reset(&ar);
	free(ar.block);
	free(ar.extra);
	arena_reset(&r.inner);
	free(r.inner.block);
	free(r.inner.extra);
	free(r.zbuf);
	free(r.tracks);
	free(r.procs);
	free(r.seqs);
	tf_hmap_free(&r.by_uuid);
	tf_hmap_free(&r.by_pid);
	tf_hmap_free(&r.by_seq);
	tf_hmap_free(&r.interned);
	free(r.fl);
	free(r.flv);
	tf_hmap_free(&r.flopen);
	return rc;
}

/* A Trace starts with packet 1 (0x0a, a length), and the packet's first
 * bytes are well-formed fields, not text.  The name says yes on its own. */
static int sniff(const char *path, int is_dir, const unsigned char *h, size_t n, bool whole)
{
	if (is_dir)
		return TF_SNIFF_NO;
	size_t pl = strlen(path);
	static const char *const sfx[] = { ".pftrace", ".perfetto-trace", ".pftrace.gz", ".perfetto-trace.gz", NULL };
	bool named = false;
	for (int i = 0; sfx[i]; i++) {
		size_t k = strlen(sfx[i]);
		named |= pl > k && !strcmp(path + pl - k, sfx[i]);
	}
	if (n < 3 || h[0] != 0x0a)
		return TF_SNIFF_NO;
	/* text (JSON after blank lines starts with 0x0a too): packets hold
	 * varints and lengths, bytes below 0x20 that are no white space */
	bool binary = false;
	for (size_t k = 0; k < n && !binary; k++)
		binary = (h[k] < 0x20 && h[k] != '\t' && h[k] != '\n' && h[k] != '\r') || h[k] >= 0x7f;
	if (!binary)
		return named ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
	size_t i = 1;
	uint64_t len = 0;
	for (int s = 0; i < n && s < 64; s += 7) {
		len |= (uint64_t)(h[i] & 0x7f) << s;
		if (!(h[i++] & 0x80))
			break;
	}
	if (len == 0 || len > MAX_PACKET)
		return named ? TF_SNIFF_MAYBE : TF_SNIFF_NO; /* the reader says where it is wrong */
	size_t end = len < n - i ? i + (size_t)len : n;
	int fields = 0;
	while (i < end) {
		uint64_t tag = 0;
		int s = 0;
		while (i < end && s < 64) {
			tag |= (uint64_t)(h[i] & 0x7f) << s;
			s += 7;
			if (!(h[i++] & 0x80))
				break;
		}
		uint64_t wt = tag & 7, f = tag >> 3;
		if (f == 0 || (wt != 0 && wt != 1 && wt != 2 && wt != 5))
			return TF_SNIFF_NO;
		if (i >= end)
			break;
		uint64_t v = 0;
		if (wt == 0 || wt == 2) {
			s = 0;
			while (i < end && s < 64) {
				v |= (uint64_t)(h[i] & 0x7f) << s;
				s += 7;
				if (!(h[i++] & 0x80))
					break;
			}
			if (wt == 2)
				i += v < end - i ? (size_t)v : end - i;
		} else {
			i += wt == 1 ? 8 : 4;
		}
		fields++;
	}
	return fields && (named || fields >= 2 || len <= n - 2) ? TF_SNIFF_YES : named ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
}

const tf_format tf_format_perfetto = {
	.name = "perfetto",
	.description = "Perfetto protobuf traces with track events (.pftrace; tracefold's, Perfetto SDK's)",
	.sniff = sniff,
	.read = read_input, /* one part */
};
