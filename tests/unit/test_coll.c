/* test_coll.c - the collectives' facts (src/core/coll.c,
 * docs/collectives.md): names normalized as written there, element sizes
 * of c10 ScalarType names, records shared by equal facts, regions found by
 * (track, start, name) only, the merge of an inner region's facts over an
 * outer one's, and the labels of a record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "tracefold/coll.h"
#include "tracefold/strtab.h"

static void norm(const char *in, const char *want)
{
	char buf[64];
	size_t n = tf_coll_normalize(in, strlen(in), buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_normalize(void **state)
{
	(void)state;
	norm("allreduce", "all_reduce");
	norm("all_reduce", "all_reduce");
	norm("AllReduce", "all_reduce");
	norm("allreduce_coalesced", "all_reduce");
	norm("_allgather_base", "all_gather");
	norm("all_gather_into_tensor", "all_gather");
	norm("AllGather", "all_gather");
	norm("reduce_scatter_tensor", "reduce_scatter");
	norm("ReduceScatter", "reduce_scatter");
	norm("alltoall_base", "all_to_all");
	norm("broadcast_", "broadcast");
	norm("barrier", "barrier");
	norm("Reduce", "reduce");
	norm("SendRecv", "send_recv");
	norm("recv_any_source", "recv");
	norm("Generic", "generic"); /* unknown: lower case, no '_' */
	assert_int_equal(tf_coll_dtype_size("Float", 5), 4);
	assert_int_equal(tf_coll_dtype_size("BFloat16", 8), 2);
	assert_int_equal(tf_coll_dtype_size("Long", 4), 8);
	assert_int_equal(tf_coll_dtype_size("Float8_e4m3fn", 13), 1);
	assert_int_equal(tf_coll_dtype_size("Floa", 4), 0);
	assert_int_equal(tf_coll_dtype_size("float", 5), 0);
}

static void test_records(void **state)
{
	(void)state;
	tf_strtab *st = tf_strtab_new();
	tf_coll *c = tf_coll_new();
	tf_str ar = tf_strtab_intern_cstr(st, "all_reduce"), fl = tf_strtab_intern_cstr(st, "Float");
	tf_str name = tf_strtab_intern_cstr(st, "record_param_comms"), inner = tf_strtab_intern_cstr(st, "nccl:all_reduce");
	tf_coll_facts outer = { ar, fl, tf_strtab_intern_cstr(st, "0"), tf_strtab_intern_cstr(st, "[0,1]"), 4096, 1024, -1, -1 };
	assert_int_equal(tf_coll_note(c, 3, 1000, name, &outer), 0);
	assert_int_equal(tf_coll_note(c, 4, 1000, name, &outer), 0); /* same facts: same record */
	uint32_t r = tf_coll_find(c, 3, 1000, name);
	assert_true(r != 0);
	assert_int_equal(tf_coll_find(c, 4, 1000, name), r);
	assert_int_equal(tf_coll_find(c, 3, 1001, name), 0);
	assert_int_equal(tf_coll_find(c, 2, 1000, name), 0);
	assert_int_equal(tf_coll_find(c, 3, 1000, inner), 0);
	/* an inner region with the name only: the outer's size stays */
	tf_coll_facts in = { tf_strtab_intern_cstr(st, "all_gather"), 0, 0, 0, -1, -1, -1, -1 };
	assert_int_equal(tf_coll_note(c, 3, 1005, inner, &in), 0);
	uint32_t m = tf_coll_merge(c, r, tf_coll_find(c, 3, 1005, inner));
	const tf_coll_facts *f = tf_coll_get(c, m);
	assert_non_null(f);
	assert_int_equal(f->name, in.name);
	assert_int_equal(f->bytes, 4096);
	assert_int_equal(f->dtype, fl);
	assert_int_equal(tf_coll_merge(c, r, tf_coll_find(c, 3, 1005, inner)), m); /* cached */
	assert_int_equal(tf_coll_merge(c, 0, r), r);
	assert_int_equal(tf_coll_merge(c, r, 0), r);
	assert_int_equal(tf_coll_merge(c, 0, 0), 0);
	/* MPI's root and bytes received (OTF2): the inner's known ones over the outer's,
	 * facts differing in them only are other records */
	tf_coll_facts mpi = outer;
	mpi.root = 2;
	mpi.bytes_recv = 8;
	assert_int_equal(tf_coll_note(c, 6, 1, name, &mpi), 0);
	uint32_t rm = tf_coll_find(c, 6, 1, name);
	assert_true(rm != 0 && rm != r);
	f = tf_coll_get(c, tf_coll_merge(c, rm, tf_coll_find(c, 3, 1005, inner)));
	assert_int_equal(f->root, 2);
	assert_int_equal(f->bytes_recv, 8);
	f = tf_coll_get(c, tf_coll_merge(c, r, rm));
	assert_int_equal(f->root, 2);
	assert_int_equal(tf_coll_get(c, r)->root, -1);
	tf_label l[TF_COLL_MAX_LABELS];
	int n = tf_coll_labels(c, r, st, l);
	assert_int_equal(n, 5);
	assert_string_equal(tf_strtab_get(st, l[0].key), "collective");
	assert_string_equal(tf_strtab_get(st, l[1].key), "comm_bytes");
	assert_int_equal(l[1].str, 0);
	assert_int_equal(l[1].num, 4096);
	assert_string_equal(tf_strtab_get(st, l[1].num_unit), "bytes");
	/* a size without a known dtype: elements */
	tf_coll_facts ne = { ar, 0, 0, 0, -1, 77, -1, -1 };
	assert_int_equal(tf_coll_note(c, 5, 1, name, &ne), 0);
	n = tf_coll_labels(c, tf_coll_find(c, 5, 1, name), st, l);
	assert_int_equal(n, 2);
	assert_string_equal(tf_strtab_get(st, l[1].key), "comm_nelems");
	assert_int_equal(l[1].num, 77);
	assert_int_equal(tf_coll_labels(c, 0, st, l), 0);
	assert_null(tf_coll_get(c, 0));
	tf_coll_free(c);
	tf_coll_free(NULL);
	tf_strtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
