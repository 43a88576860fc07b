/* agg_mem.c - Kineto's memory events per call path (agg_mem.h,
 * docs/memory.md).
 *
 * The stack builder hands a sorted input's threads over one after another,
 * so the live memory of a device, which every thread changes, is only
 * known once they all are: each memory event is noted (48 bytes) and
 * replayed at the end in time order (ties: the input's own order).  Past
 * half of --sort-mem the notes go, sorted, as a run to a temporary file
 * (spill.h) and the replay merges the runs with what is left in memory:
 * the same order (it is total), so memory stays bounded whatever the
 * number of memory events.  A
 * device is the device of one process of one input (addresses are the
 * process's).  The replay keeps per address the call path (and label set)
 * of its live allocation, per (call path, label set) its live bytes now
 * and at the last peak, and per device the slots changed since that peak
 * (each once): at a new peak only those are copied, so the replay costs
 * O(events) whatever the number of peaks.  A free whose address has no
 * live allocation (allocated before the trace began, or outside --window)
 * is counted apart (mem_free_unknown), subtracted from nobody; an event
 * without an address (PyTorch before 1.10 wrote none) is counted, and is
 * never live: nothing could tell its free. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "agg_mem.h"
#include "tracefold/diag.h"
#include "hmap.h"
#include "sat.h"
#include "spill.h"

typedef struct note {
	int64_t ts, bytes;
	uint64_t index, addr;
	uint32_t node, ls, dev, input;
} note;
_Static_assert(sizeof(note) == 48, "a note has no padding: the spill file codes every byte (spill.c)");

typedef struct slot {       /* a (call path, label set) of one device */
	uint32_t node, ls, dev;
	bool dirty;         /* in its device's log */
	int64_t cur, snap;  /* live bytes now, at the peak */
	int64_t cur_n, snap_n;
} slot;

typedef struct block {      /* an address's allocation */
	uint64_t addr;
	uint32_t dev, slot;
	int64_t bytes;
	bool live;
} block;

typedef struct mdev {
	tf_mem_device pub;
	int64_t live;
	uint32_t *log;
	uint32_t nlog, caplog;
} mdev;

struct tf_agg_mem {
	tf_ctx *ctx;
	tf_agg *agg;
	note *notes;
	size_t nnotes, capnotes;
	tf_spill *spill;    /* the notes' sorted runs past half of --sort-mem */
	tf_runs runs;
	int spill_state;    /* 0 no file yet, 1 made, -1 cannot be made */
	mdev *dev;
	uint32_t ndev, capdev;
	tf_hmap dev_idx;    /* (input, process, device) -> dev */
	tf_mem_device *pub; /* the devices' results, once replayed */
	slot *slots;
	uint32_t nslots, capslots;
	tf_hmap slot_idx;   /* (node, ls, dev) -> slot */
	block *blocks;
	uint32_t nblocks, capblocks;
	tf_hmap block_idx;  /* (dev, addr) -> block */
};

tf_agg_mem *tf_agg_mem_new(tf_ctx *ctx, tf_agg *agg)
{
	tf_agg_mem *m = calloc(1, sizeof(*m));
	if (m) {
		m->ctx = ctx;
		m->agg = agg;
	}
	return m;
}

void tf_agg_mem_free(tf_agg_mem *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->ndev; i++)
		free(m->dev[i].log);
	free(m->dev);
	free(m->pub);
	free(m->notes);
	tf_runs_free(&m->runs);
	tf_spill_free(m->spill);
	free(m->slots);
	free(m->blocks);
	tf_hmap_free(&m->dev_idx);
	tf_hmap_free(&m->slot_idx);
	tf_hmap_free(&m->block_idx);
	free(m);
}

/* The device of an event: its input, its track's process, its device. */
static int device_of(tf_agg_mem *m, const tf_event *ev, uint32_t *out)
{
	const tf_track *t = tf_ctx_track_get(m->ctx, ev->track);
	uint32_t input = t ? t->input : 0;
	tf_str proc = t ? t->process_key : 0;
	uint64_t key = tf_mix64(tf_mix64((uint64_t)input << 32 | proc) ^ ev->mem_device);
	uint32_t d = tf_hmap_get(&m->dev_idx, key);
	if (d == UINT32_MAX) {
		if (tf_grow((void **)&m->dev, &m->capdev, m->ndev + 1, sizeof(*m->dev)) < 0 ||
		    tf_hmap_put(&m->dev_idx, key, m->ndev) < 0)
			return TF_ENOMEM;
		d = m->ndev++;
		memset(&m->dev[d], 0, sizeof(m->dev[d]));
		tf_mem_device *p = &m->dev[d].pub;
		p->input = input;
		p->process = proc;
		p->rank = t ? t->rank : -1;
		p->device = ev->mem_device;
		p->peak_ns = INT64_MIN;
	}
	*out = d;
	return 0;
}

static int note_cmp(const void *pa, const void *pb)
{
	const note *a = pa, *b = pb;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Past half of --sort-mem, the notes in memory go to the file as a sorted
 * run; without a file (none can be made) they stay in memory, as with
 * --sort-mem 0. */
static int spill_notes(tf_agg_mem *m)
{
	const tf_read_opts *o = tf_ctx_opts(m->ctx);
	size_t budget = tf_sort_mem_half(o);
	if (!budget || m->nnotes * sizeof(note) < budget || m->spill_state < 0)
		return 0;
	if (!m->spill_state && tf_spill_lazy(&m->spill, &m->spill_state, o->tmp_dir) < 0) {
		tf_ctx_warn(m->ctx, "cannot make a temporary file in %s (%s): the memory events stay in memory",
			    o->tmp_dir && *o->tmp_dir ? o->tmp_dir : "/tmp", strerror(errno));
		return 0;
	}
	qsort(m->notes, m->nnotes, sizeof(*m->notes), note_cmp);
	int r = tf_spill_write(m->spill, &m->runs, m->notes, m->nnotes, sizeof(*m->notes), note_cmp);
	if (r < 0) {
		const tf_error *e = r == TF_EIO ? tf_spill_error(m->spill) : NULL;
		if (e)
			tf_ctx_fail(m->ctx, e);
		return r;
	}
	m->nnotes = 0;
	return 0;
}

int tf_agg_mem_note(tf_agg_mem *m, const tf_event *ev, uint32_t node, uint32_t ls)
{
	uint32_t d;
	TF_TRY(device_of(m, ev, &d));
	if (tf_grow_n((void **)&m->notes, &m->capnotes, m->nnotes + 1, sizeof(*m->notes), false) < 0)
		return TF_ENOMEM;
	m->notes[m->nnotes++] = (note){ ev->ts_ns, tf_sat_from_double(ev->value), ev->index, ev->mem_addr,
					node, ls, d, m->dev[d].pub.input };
	return spill_notes(m);
}

static int slot_of(tf_agg_mem *m, const note *n, uint32_t *out)
{
	uint64_t key = tf_mix64(tf_mix64((uint64_t)n->node << 32 | n->ls) ^ n->dev);
	uint32_t s = tf_hmap_get(&m->slot_idx, key);
	if (s == UINT32_MAX) {
		if (tf_grow((void **)&m->slots, &m->capslots, m->nslots + 1, sizeof(*m->slots)) < 0 ||
		    tf_hmap_put(&m->slot_idx, key, m->nslots) < 0)
			return TF_ENOMEM;
		s = m->nslots++;
		m->slots[s] = (slot){ n->node, n->ls, n->dev, false, 0, 0, 0, 0 };
	}
	*out = s;
	return 0;
}

/* Adds bytes (and objects) to a slot's live memory, logging it for the next peak. */
static int slot_add(tf_agg_mem *m, uint32_t s, int64_t bytes, int64_t objects)
{
	slot *sl = &m->slots[s];
	mdev *d = &m->dev[sl->dev];
	sl->cur += bytes;
	sl->cur_n += objects;
	if (sl->dirty)
		return 0;
	if (tf_grow((void **)&d->log, &d->caplog, d->nlog + 1, sizeof(uint32_t)) < 0)
		return TF_ENOMEM;
	d->log[d->nlog++] = s;
	sl->dirty = true;
	return 0;
}

/* A new peak: the slots changed since the last one take their live bytes. */
static void snapshot(tf_agg_mem *m, mdev *d)
{
	for (uint32_t i = 0; i < d->nlog; i++) {
		slot *sl = &m->slots[d->log[i]];
		sl->snap = sl->cur;
		sl->snap_n = sl->cur_n;
		sl->dirty = false;
	}
	d->nlog = 0;
}

/* The block at (dev, addr), made (not live) when new. */
static int block_of(tf_agg_mem *m, uint32_t dev, uint64_t addr, bool make, block **out)
{
	uint64_t key = tf_mix64(addr ^ tf_mix64(dev));
	uint32_t b = tf_hmap_get(&m->block_idx, key);
	*out = NULL;
	if (b == UINT32_MAX) {
		if (!make)
			return 0;
		if (tf_grow((void **)&m->blocks, &m->capblocks, m->nblocks + 1, sizeof(*m->blocks)) < 0 ||
		    tf_hmap_put(&m->block_idx, key, m->nblocks) < 0)
			return TF_ENOMEM;
		b = m->nblocks++;
		m->blocks[b] = (block){ addr, dev, 0, 0, false };
	}
	if (m->blocks[b].addr == addr && m->blocks[b].dev == dev)
		*out = &m->blocks[b];
	return 0;
}

static int replay_alloc(tf_agg_mem *m, const note *n, mdev *d)
{
	block *b;
	uint32_t s;
	d->pub.allocs++;
	d->pub.alloc_bytes = tf_sat_add(d->pub.alloc_bytes, n->bytes);
	if (!n->addr) /* no address (PyTorch before 1.10): its free cannot be told, so it is never live */
		return 0;
	TF_TRY(block_of(m, n->dev, n->addr, true, &b));
	if (b && b->live) { /* allocated again without a free: the old block is gone */
		TF_TRY(slot_add(m, b->slot, -b->bytes, -1));
		d->live -= b->bytes;
	}
	TF_TRY(slot_of(m, n, &s));
	TF_TRY(slot_add(m, s, n->bytes, 1));
	d->live += n->bytes;
	if (b)
		*b = (block){ n->addr, n->dev, s, n->bytes, true };
	if (d->live > d->pub.peak_bytes) {
		d->pub.peak_bytes = d->live;
		d->pub.peak_ns = n->ts;
		snapshot(m, d);
	}
	return 0;
}

static int replay_free(tf_agg_mem *m, const note *n, mdev *d)
{
	block *b;
	d->pub.frees++;
	d->pub.free_bytes = tf_sat_add(d->pub.free_bytes, -n->bytes);
	b = NULL;
	if (n->addr)
		TF_TRY(block_of(m, n->dev, n->addr, false, &b));
	if (!b || !b->live) {
		d->pub.frees_unknown++;
		tf_ctx_diag(m->ctx)->n[TF_DIAG_mem_free_unknown]++;
		return 0;
	}
	b->live = false;
	d->live -= b->bytes;
	return slot_add(m, b->slot, -b->bytes, -1);
}

/* The peak's samples, and per device the call path that held the most of
 * it (its slots' bytes added up over their label sets; ties: the first met). */
static int peak_samples(tf_agg_mem *m)
{
	int t_space = -1, t_objects = -1;
	int64_t *by_node = NULL;
	size_t capnode = 0;
	int rc = 0;
	for (uint32_t i = 0; i < m->nslots && rc >= 0; i++) {
		const slot *sl = &m->slots[i];
		if (!sl->snap && !sl->snap_n)
			continue;
		if (t_space < 0 && ((t_space = tf_agg_type(m->agg, "inuse_space", "bytes")) < 0 ||
				    (t_objects = tf_agg_type(m->agg, "inuse_objects", "count")) < 0))
			return TF_ENOMEM;
		if ((rc = tf_agg_add(m->agg, sl->node, sl->ls, t_space, sl->snap)) >= 0)
			rc = tf_agg_add(m->agg, sl->node, sl->ls, t_objects, sl->snap_n);
	}
	for (uint32_t d = 0; d < m->ndev && rc >= 0; d++) {
		tf_mem_device *p = &m->dev[d].pub;
		for (uint32_t i = 0; i < m->nslots && rc >= 0; i++) {
			const slot *sl = &m->slots[i];
			if (sl->dev != d || !sl->snap)
				continue;
			if (tf_grow_n((void **)&by_node, &capnode, (size_t)sl->node + 1, sizeof(int64_t), true) < 0) {
				rc = TF_ENOMEM;
				break;
			}
			by_node[sl->node] += sl->snap;
		}
		for (uint32_t i = 0; i < m->nslots && rc >= 0; i++) {
			const slot *sl = &m->slots[i];
			if (sl->dev != d || !sl->snap)
				continue;
			if (by_node[sl->node] > p->peak_node_bytes) {
				p->peak_node_bytes = by_node[sl->node];
				p->peak_node = sl->node;
			}
		}
		for (uint32_t i = 0; i < m->nslots && rc >= 0; i++)
			if (m->slots[i].dev == d && m->slots[i].node < capnode)
				by_node[m->slots[i].node] = 0;
	}
	free(by_node);
	return rc;
}

/* The notes in time order: the runs on file merged with those in memory. */
static int replay(tf_agg_mem *m)
{
	tf_merge mg;
	const note *n;
	qsort(m->notes, m->nnotes, sizeof(*m->notes), note_cmp);
	int r = tf_merge_init(&mg, m->spill, &m->runs, m->notes, m->nnotes, sizeof(*m->notes), note_cmp);
	while (r >= 0 && (n = tf_merge_peek(&mg))) {
		note cur = *n;
		mdev *d = &m->dev[cur.dev];
		r = cur.bytes > 0 ? replay_alloc(m, &cur, d) : replay_free(m, &cur, d);
		if (r >= 0)
			r = tf_merge_pop(&mg);
	}
	tf_merge_free(&mg);
	if (r == TF_EIO && tf_spill_error(m->spill))
		tf_ctx_fail(m->ctx, tf_spill_error(m->spill));
	return r;
}

int tf_agg_mem_finish(tf_agg_mem *m)
{
	if (!m->nnotes && !m->runs.n)
		return 0;
	TF_TRY(replay(m));
	free(m->notes); /* replayed once */
	m->notes = NULL;
	m->nnotes = m->capnotes = 0;
	tf_runs_free(&m->runs);
	tf_spill_free(m->spill);
	m->spill = NULL;
	TF_TRY(peak_samples(m));
	if (!(m->pub = malloc((size_t)m->ndev * sizeof(*m->pub))))
		return TF_ENOMEM;
	for (uint32_t i = 0; i < m->ndev; i++)
		m->pub[i] = m->dev[i].pub;
	return 0;
}

size_t tf_agg_mem_devices(const tf_agg_mem *m, const tf_mem_device **out)
{
	*out = m ? m->pub : NULL;
	return *out ? m->ndev : 0;
}
