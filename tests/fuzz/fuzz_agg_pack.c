/* fuzz_agg_pack.c - the packed aggregate reader (src/core/agg_pack.c,
 * tf_agg_unpack_merge), the bytes one MPI rank sends another.
 *
 * Input: the packed bytes as they are.  They are added to an empty
 * aggregate and to one that already has samples and types (calls/count,
 * wall/nanoseconds, counter:c0/count: the type-matching and clash paths).
 * Either it succeeds, or it fails with TF_EFORMAT (a byte offset inside the
 * input) or TF_ECLASH, naming the input, and the destination is as it was
 * (no TF_ENOMEM on a small input).  What was added must pack again, unpack
 * into a fresh aggregate and encode to the same pprof bytes, and encode to
 * a profile that our pprof reader accepts; top/diff statistics run on it.
 * Seeds: packed aggregates written by tests/unit/test_agg_pack.c
 * (TF_AGG_PACK_SEEDS=DIR: synthetic ones with dense and sparse types,
 * labels and meta, and real traces read with every counter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "tracefold/agg.h"
#include "tracefold/agg_pack.h"
#include "tracefold/pprof.h"

/* What tf_agg_unpack_merge may change, as numbers (a changed dst on error
 * shows in one of them). */
static void shape(tf_agg *a, uint64_t out[8])
{
	tf_agg_meta *m = tf_agg_meta_get(a);
	uint64_t sum = 0;
	for (size_t i = 0; i < tf_agg_nsamples(a); i++)
		for (int t = 0; t < tf_agg_ntypes(a); t++)
			sum = sum * 31 + (uint64_t)tf_agg_sample_value(a, i, t);
	uint64_t v[8] = { (uint64_t)tf_agg_ntypes(a), tf_agg_nnodes(a), tf_agg_nlabelsets(a), tf_agg_nsamples(a),
			  tf_agg_ncomments(a), (uint64_t)m->time_nanos ^ ((uint64_t)m->duration_nanos << 1),
			  m->main_file + ((uint64_t)(uint32_t)tf_agg_default_type(a) << 32), sum };
	memcpy(out, v, sizeof(v));
}

static unsigned char *encode(tf_agg *a, size_t *len)
{
	unsigned char *b = NULL;
	tf_error err;
	tf_error_clear(&err);
	if (tf_pprof_encode(a, &b, len, &err) < 0)
		fz_fail("tf_pprof_encode of an unpacked aggregate failed: %s", err.msg);
	return b;
}

static void unpack_into(tf_agg *dst, const uint8_t *data, size_t size, bool fresh)
{
	uint64_t before[8], after[8];
	shape(dst, before);
	tf_error err;
	tf_error_clear(&err);
	int rc = tf_agg_unpack_merge(dst, data, size, "fuzz.tfagg", &err);
	fz_check_error(rc, &err, true);
	if (rc == TF_ENOMEM)
		fz_fail("out of memory unpacking a small input: %s", err.msg);
	if (rc < 0 && rc != TF_EFORMAT && rc != TF_ECLASH)
		fz_fail("unpack returned %d (%s)", rc, tf_strerror(rc));
	if (rc == TF_EFORMAT && (err.offset < 0 || (uint64_t)err.offset > size))
		fz_fail("format error at byte %lld of a %zu-byte input", (long long)err.offset, size);
	if (rc == TF_ECLASH && fresh)
		fz_fail("a clash of sample types in an empty aggregate: %s", err.msg);
	if (rc < 0) {
		shape(dst, after);
		if (memcmp(before, after, sizeof(before)) != 0)
			fz_fail("a failed unpack changed the aggregate: %s", err.msg);
		return;
	}
	/* what was added packs, unpacks and encodes to the same pprof bytes */
	void *p = NULL;
	size_t pl = 0;
	if (tf_agg_pack(dst, &p, &pl) < 0)
		fz_fail("cannot pack an unpacked aggregate");
	tf_agg *back = tf_agg_new(tf_agg_strtab(dst));
	if (!back)
		fz_fail("out of memory");
	tf_error_clear(&err);
	if (tf_agg_unpack_merge(back, p, pl, "again", &err) < 0)
		fz_fail("what we packed does not unpack: %s", err.msg);
	free(p);
	size_t l1, l2;
	unsigned char *b1 = encode(dst, &l1), *b2 = encode(back, &l2);
	if (l1 != l2 || memcmp(b1, b2, l1) != 0)
		fz_fail("pack and unpack changed the profile (%zu and %zu pprof bytes)", l1, l2);
	free(b1);
	free(b2);
	tf_agg_free(back);
	fz_reports(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tf_strtab *st = tf_strtab_new();
	tf_agg *a = st ? tf_agg_new(st) : NULL;
	tf_agg *b = st ? tf_agg_new(st) : NULL;
	if (!a || !b)
		fz_fail("out of memory");
	unpack_into(a, data, size, true);

	tf_agg_type(b, "calls", "count");
	tf_agg_type(b, "wall", "nanoseconds");
	tf_agg_type(b, "counter:c0", "count");
	uint32_t ls = tf_agg_labelset(b, NULL, 0);
	uint32_t n = tf_agg_child(b, TF_AGG_ROOT, tf_strtab_intern_cstr(st, "main"));
	tf_agg_add(b, n, ls, 0, 1);
	tf_agg_add(b, n, ls, 2, 3);
	tf_agg_meta_get(b)->time_nanos = 100;
	tf_agg_meta_get(b)->duration_nanos = 10;
	unpack_into(b, data, size, false);
	tf_agg_free(a);
	tf_agg_free(b);
	tf_strtab_free(st);
	return 0;
}
