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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "spill.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The spill's descriptor, found by its (unlinked) name. */
static int spill_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	int found = -1;
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[300], t[4096];
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(p, t, sizeof(t) - 1);
		if (n > 0) {
			t[n] = 0;
			if (strstr(t, "tracefold-sort-"))
				found = atoi(e->d_name);
		}
	}
	if (d)
		closedir(d);
	return found;
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
 * 8 KiB under a 20 KiB file size limit; the third is cut short. */
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
			rec[i] = (uint64_t)i;
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
	int fd = spill_fd();
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_cut_short),
		cmocka_unit_test(read_back_short),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
