/* test_spill.c - the sorted runs' temporary file (src/core/spill.h) when
 * it fails: a write cut short (a file size limit, as a full disk would)
 * and a read back of a run that is no longer all there are TF_EIO, and
 * tf_spill_error names the folder and the cause (docs/robustness.md,
 * issue 26 item 4).  The records and the limit are fixed by the test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "spill.h"
#include "spill_fd.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_spill.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

/* In a child (the limit must not touch the test's own output): runs of
 * 7.5 KiB (1024 records 2^54 apart: 7.5 bytes each once coded) under a
 * 20 KiB file size limit; the third is cut short. */
static void write_cut_short(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 20 << 10, 20 << 10 };
		signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of the signal */
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			_exit(10);
		tf_spill *f = tf_spill_new(dir);
		if (!f)
			_exit(11);
		tf_runs rs = { 0 };
		uint64_t rec[1024];
		for (int i = 0; i < 1024; i++)
			rec[i] = (uint64_t)i << 54;
		int r = 0, k;
		for (k = 0; k < 8 && r == 0; k++)
			r = tf_spill_write(f, &rs, rec, 1024, sizeof(rec[0]), cmp_u64);
		const tf_error *e = tf_spill_error(f);
		char want[300];
		snprintf(want, sizeof(want), "cannot write the temporary run file in '%s': File too large (--sort-mem: "
			 "give TMPDIR more room or raise --sort-mem)", dir);
		int ok = r == TF_EIO && k == 3 && e && e->code == TF_EIO && !e->path[0] && !e->sys_errno &&
			 !strcmp(e->msg, want);
		if (!ok)
			fprintf(stderr, "r=%d k=%d msg=%s\n", r, k, e ? e->msg : "(none)");
		tf_runs_free(&rs);
		tf_spill_free(f);
		_exit(ok ? 0 : 12);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Three runs written, the file cut to 100 bytes under the spill: the merge
 * cannot read them back. */
static void read_back_short(void **state)
{
	(void)state;
	tf_spill *f = tf_spill_new(dir);
	assert_non_null(f);
	assert_null(tf_spill_error(f));
	tf_runs rs = { 0 };
	uint64_t rec[2048];
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 2048; i++)
			rec[i] = (uint64_t)(i * 3 + k);
		assert_int_equal(tf_spill_write(f, &rs, rec, 2048, sizeof(rec[0]), cmp_u64), 0);
	}
	assert_int_equal(rs.n, 3);
	/* what was written reads back in order */
	tf_merge m;
	assert_int_equal(tf_merge_init(&m, f, &rs, NULL, 0, sizeof(uint64_t), cmp_u64), 0);
	uint64_t n = 0, last = 0;
	for (const uint64_t *p; (p = tf_merge_peek(&m)); n++) {
		assert_true(n == 0 || *p >= last);
		last = *p;
		assert_int_equal(tf_merge_pop(&m), 0);
	}
	assert_int_equal(n, 3 * 2048);
	tf_merge_free(&m);
	int fd = tf_test_spill_fd();
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 100), 0);
	int r = tf_merge_init(&m, f, &rs, NULL, 0, sizeof(uint64_t), cmp_u64);
	assert_int_equal(r, TF_EIO);
	const tf_error *e = tf_spill_error(f);
	assert_non_null(e);
	char want[200];
	snprintf(want, sizeof(want), "cannot read back the temporary run file in '%s': Input/output error", dir);
	assert_non_null(strstr(e->msg, want));
	assert_string_equal(e->path, "");
	tf_runs_free(&rs);
	tf_spill_free(f);
	/* nothing left in the folder: the file was unlinked when made */
	DIR *d = opendir(dir);
	int left = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		left += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(left, 0);
}

/* Records of two words compared by the first only, so that equal records
 * show which run they came from; the compares are counted. */
typedef struct kv {
	uint64_t key, run;
} kv;

static unsigned long ncmp;

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = ((const kv *)a)->key, y = ((const kv *)b)->key;
	ncmp++;
	return (x > y) - (x < y);
}

/* Merges rs (and n records at mem) and checks the order: by key, equal
 * keys in run order (the runs' own, then the records in memory last);
 * the number of records read back. */
static uint64_t merge_check(tf_spill *f, const tf_runs *rs, const kv *mem, size_t n)
{
	tf_merge m;
	assert_int_equal(tf_merge_init(&m, f, rs, mem, n, sizeof(kv), cmp_key), 0);
	uint64_t got = 0;
	kv last = { 0, 0 };
	for (const kv *p; (p = tf_merge_peek(&m)); got++) {
		assert_true(got == 0 || p->key > last.key || (p->key == last.key && p->run >= last.run));
		last = *p;
		assert_int_equal(tf_merge_pop(&m), 0);
	}
	tf_merge_free(&m);
	return got;
}

/* Runs that follow one another (sorted input spilled in pieces) merge
 * with a few compares per read buffer, not one or more per record; runs
 * that interleave, with equal keys across runs, still come back in order
 * (equal keys in run order). */
static void merge_order(void **state)
{
	(void)state;
	tf_spill *f = tf_spill_new(dir);
	assert_non_null(f);
	enum { RUNS = 8, PER = 3000 };
	static kv rec[PER];
	tf_runs rs = { 0 };
	/* disjoint, written out of order: run k holds keys of block (k * 5) % 8 */
	for (uint64_t k = 0; k < RUNS; k++) {
		uint64_t b = k * 5 % RUNS;
		for (uint64_t i = 0; i < PER; i++)
			rec[i] = (kv){ b * PER + i, k };
		assert_int_equal(tf_spill_write(f, &rs, rec, PER, sizeof(kv), cmp_key), 0);
	}
	for (uint64_t i = 0; i < PER; i++)
		rec[i] = (kv){ RUNS * PER + i, RUNS };
	ncmp = 0;
	assert_int_equal(merge_check(f, &rs, rec, PER), (RUNS + 1) * PER);
	/* about 2 log2(170) compares per 8 KiB buffer of 170 records, and the
	 * heap's work when a run takes over: far under one per record */
	assert_true(ncmp < (RUNS + 1) * PER / 4);
	tf_runs_free(&rs);
	/* interleaved, every key in three runs */
	for (uint64_t k = 0; k < RUNS; k++) {
		for (uint64_t i = 0; i < PER; i++)
			rec[i] = (kv){ (i * RUNS + k) / 3, k };
		assert_int_equal(tf_spill_write(f, &rs, rec, PER, sizeof(kv), cmp_key), 0);
	}
	for (uint64_t i = 0; i < PER; i++)
		rec[i] = (kv){ i * RUNS / 3, RUNS };
	assert_int_equal(merge_check(f, &rs, rec, PER), (RUNS + 1) * PER);
	tf_runs_free(&rs);
	tf_spill_free(f);
}

/* Records of any size and content come back byte for byte, also after
 * 32 runs were merged into one: sizes not a multiple of 8, words that go
 * down as well as up, the extremes. */
static size_t rt_sz;

static int cmp_bytes(const void *a, const void *b) { return memcmp(a, b, rt_sz); }

static void round_trip(void **state)
{
	(void)state;
	static const size_t sizes[] = { 1, 7, 8, 13, 16, 48, 152 };
	enum { N = 5000 };
	tf_spill *f = tf_spill_new(dir);
	assert_non_null(f);
	unsigned char *rec = malloc(N * 152);
	uint64_t x = 88172645463325252u;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t sz = rt_sz = sizes[s];
		for (size_t i = 0; i < N * sz; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mostly small steps, some extremes */
			rec[i] = (unsigned char)(x % 7 == 0 ? 0xff : x % 5 == 0 ? 0 : x % 3);
		}
		qsort(rec, N, sz, cmp_bytes);
		tf_runs rs = { 0 };
		for (size_t k = 0; k < 40; k++) /* 40 runs of N / 40: the first 32 merged into one */
			assert_int_equal(tf_spill_write(f, &rs, rec + k * (N / 40) * sz, N / 40, sz, cmp_bytes), 0);
		assert_int_equal(rs.n, 9);
		tf_merge m;
		assert_int_equal(tf_merge_init(&m, f, &rs, NULL, 0, sz, cmp_bytes), 0);
		size_t n = 0;
		for (const unsigned char *p; (p = tf_merge_peek(&m)); n++) {
			assert_true(n < N);
			assert_memory_equal(p, rec + n * sz, sz); /* sorted before it was cut: the same order */
			assert_int_equal(tf_merge_pop(&m), 0);
		}
		assert_int_equal(n, N);
		tf_merge_free(&m);
		tf_runs_free(&rs);
	}
	free(rec);
	tf_spill_free(f);
}

/* Bytes that are not records (every length says 15 bytes of a word): the
 * read back fails, as for a file cut short. */
static void read_back_garbled(void **state)
{
	(void)state;
	tf_spill *f = tf_spill_new(dir);
	assert_non_null(f);
	tf_runs rs = { 0 };
	uint64_t rec[512];
	for (int i = 0; i < 512; i++)
		rec[i] = (uint64_t)i * 1000;
	assert_int_equal(tf_spill_write(f, &rs, rec, 512, sizeof(rec[0]), cmp_u64), 0);
	int fd = tf_test_spill_fd();
	assert_true(fd >= 0);
	unsigned char ff[64];
	memset(ff, 0xff, sizeof(ff));
	assert_int_equal(pwrite(fd, ff, sizeof(ff), 0), (ssize_t)sizeof(ff));
	tf_merge m;
	assert_int_equal(tf_merge_init(&m, f, &rs, NULL, 0, sizeof(uint64_t), cmp_u64), TF_EIO);
	assert_non_null(tf_spill_error(f));
	assert_non_null(strstr(tf_spill_error(f)->msg, "cannot read back the temporary run file"));
	tf_runs_free(&rs);
	tf_spill_free(f);
}

/* tf_spill_reader (the end of an input on two threads, stack_par.c): the
 * same runs merged through it on another thread while the file's own
 * handle merges them too, each in order; a run read back garbled through
 * the reader is its error, not the file's; freeing it leaves the file. */
typedef struct rd_arg {
	tf_spill *f;
	const tf_runs *rs;
	int n, rc;
} rd_arg;

static void *merge_all(void *arg)
{
	rd_arg *a = arg;
	tf_merge m;
	if ((a->rc = tf_merge_init(&m, a->f, a->rs, NULL, 0, sizeof(uint64_t), cmp_u64)) < 0)
		return NULL;
	uint64_t prev = 0;
	for (const uint64_t *p; (p = tf_merge_peek(&m)); a->n++) {
		if (*p < prev || *p != (uint64_t)a->n * 3) {
			a->rc = -100;
			break;
		}
		prev = *p;
		if ((a->rc = tf_merge_pop(&m)) < 0)
			break;
	}
	tf_merge_free(&m);
	return NULL;
}

static void reader_twin(void **state)
{
	(void)state;
	enum { N = 20000 };
	tf_spill *f = tf_spill_new(dir);
	assert_non_null(f);
	uint64_t *rec = malloc(N * sizeof(uint64_t));
	tf_runs a = { 0 }, b = { 0 };
	for (int k = 0; k < 2; k++) { /* two tracks' runs, interleaved in the file */
		for (int r = 0; r < 10; r++) {
			int n = 0;
			for (int i = r; i < N; i += 10)
				rec[n++] = (uint64_t)i * 3;
			assert_int_equal(tf_spill_write(f, k ? &b : &a, rec, (size_t)n, sizeof(uint64_t), cmp_u64), 0);
		}
	}
	tf_spill *r = tf_spill_reader(f);
	assert_non_null(r);
	rd_arg x = { r, &b, 0, 0 }, y = { f, &a, 0, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, merge_all, &x), 0);
	merge_all(&y);
	pthread_join(th, NULL);
	assert_int_equal(x.rc, 0);
	assert_int_equal(y.rc, 0);
	assert_int_equal(x.n, N);
	assert_int_equal(y.n, N);
	/* b's first run garbled: the reader's error, not the file's */
	int fd = tf_test_spill_fd();
	assert_true(fd >= 0);
	unsigned char ff[64];
	memset(ff, 0xff, sizeof(ff));
	assert_int_equal(pwrite(fd, ff, sizeof(ff), (off_t)b.r[0].off), (ssize_t)sizeof(ff));
	x = (rd_arg){ r, &b, 0, 0 };
	merge_all(&x);
	assert_int_equal(x.rc, TF_EIO);
	assert_non_null(tf_spill_error(r));
	assert_null(tf_spill_error(f));
	tf_spill_free(r);
	/* the file is still there for its own handle */
	y = (rd_arg){ f, &a, 0, 0 };
	merge_all(&y);
	assert_int_equal(y.rc, 0);
	assert_int_equal(y.n, N);
	tf_runs_free(&a);
	tf_runs_free(&b);
	free(rec);
	tf_spill_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_cut_short),
		cmocka_unit_test(read_back_short),
		cmocka_unit_test(merge_order),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(read_back_garbled),
		cmocka_unit_test(reader_twin),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
