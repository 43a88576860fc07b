/* test_record.c - libtracefold-record's API at its edges
 * (include/tracefold/record.h), linked with that library alone: NULL
 * recorders, bad flags and paths, %p and %% in the path, close and flush,
 * annotations past their limits, stats, two recordings open at once, a
 * thread that exits before close, and 100 recordings opened and closed with
 * threads (ASan's leak check in the san build).  What a file holds is
 * checked by its bytes: an event name is interned once per sequence, so a
 * name recorded into a file is found in it (tests/e2e/record.sh decodes
 * traces for real). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracefold/record.h"

static char dir[256];

static const char *at(const char *name)
{
	static char b[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(b[k], sizeof(b[k]), "%s/%s", dir, name);
	return b[k];
}

/* The file's bytes (NUL-terminated), NULL when it does not exist. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)len + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	b[len] = 0;
	fclose(f);
	if (n)
		*n = (size_t)len;
	return b;
}

static bool holds(const char *path, const char *s)
{
	size_t n;
	char *b = slurp(path, &n);
	assert_non_null(b);
	bool r = memmem(b, n, s, strlen(s)) != NULL;
	free(b);
	return r;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void test_null(void **state)
{
	(void)state;
	tfr_begin(NULL, 0, "a");
	tfr_end(NULL, 0);
	tfr_instant(NULL, 0, "a");
	tfr_counter(NULL, 1, 1.0);
	assert_int_equal(tfr_flow_begin(NULL, 0, "f"), 0);
	tfr_flow_step(NULL, 0, 1);
	tfr_flow_end(NULL, 0, 1);
	tfr_arg_int(NULL, "k", 1);
	tfr_arg_uint(NULL, "k", 1);
	tfr_arg_double(NULL, "k", 1);
	tfr_arg_bool(NULL, "k", 1);
	tfr_arg_string(NULL, "k", "v");
	tfr_arg_dict(NULL, "k");
	tfr_arg_array(NULL, "k");
	tfr_arg_close(NULL);
	tfr_process_name(NULL, "p");
	tfr_rank(NULL, 3);
	tfr_thread_name(NULL, "t");
	assert_int_equal(tfr_track_new(NULL, 0, "t"), 0);
	assert_int_equal(tfr_counter_track_new(NULL, 0, "c", "ns"), 0);
	{
		TFR_SCOPE(NULL, "scope");
	}
	tfr_stats s;
	memset(&s, 0xff, sizeof(s));
	tfr_get_stats(NULL, &s);
	assert_int_equal(s.events, 0);
	assert_int_equal(s.threads, 0);
	assert_int_equal(tfr_flush(NULL), -EINVAL);
	assert_int_equal(tfr_close(NULL), -EINVAL);
}

static void test_bad_open(void **state)
{
	(void)state;
	errno = 0;
	assert_null(tfr_open_ex(at("flags.pftrace"), NULL, 2));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(tfr_open_ex(at("flags.pftrace"), NULL, TFR_SHARED | 0x80));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(tfr_open(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(tfr_open("", NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(tfr_open(at("no/such/t.pftrace"), NULL));
	assert_int_equal(errno, ENOENT);
	assert_false(exists(at("flags.pftrace")));
}

static void test_expand(void **state)
{
	(void)state;
	tfr *r = tfr_open(at("x%p-%%-%d.pftrace"), NULL);
	assert_non_null(r);
	tfr_instant(r, 0, "expanded");
	assert_int_equal(tfr_close(r), 0);
	char want[64];
	snprintf(want, sizeof(want), "x%d-%%-%%d.pftrace", (int)getpid());
	assert_true(exists(at(want)));
	assert_true(holds(at(want), "expanded"));
}

static void test_close_flush(void **state)
{
	(void)state;
	tfr *r = tfr_open(at("cf.pftrace"), NULL);
	assert_non_null(r);
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "cf.pftrace.tmp-%d", (int)getpid());
	assert_true(exists(at(tmp)));      /* written under its .tmp name */
	assert_false(exists(at("cf.pftrace")));
	tfr_begin(r, 0, "flushed-slice");
	tfr_end(r, 0);
	assert_int_equal(tfr_flush(r), 0);
	assert_true(holds(at(tmp), "flushed-slice")); /* on disk after the flush */
	tfr_stats s;
	tfr_get_stats(r, &s);
	assert_true(s.bytes > 0);
	assert_int_equal(tfr_close(r), 0);
	assert_true(exists(at("cf.pftrace")));
	assert_false(exists(at(tmp)));
	assert_true(holds(at("cf.pftrace"), "flushed-slice"));
}

static void test_args_limits(void **state)
{
	(void)state;
	tfr *r = tfr_open(at("args.pftrace"), NULL);
	assert_non_null(r);
	/* 12 levels: those past 8 are not kept, their closes close nothing */
	for (int i = 0; i < 12; i++)
		tfr_arg_dict(r, "level");
	tfr_arg_int(r, "deep", 1);
	for (int i = 0; i < 12; i++)
		tfr_arg_close(r);
	tfr_begin(r, 0, "deep-event");
	tfr_end(r, 0);
	/* over 64 KiB: one string of 100 KiB, then more */
	size_t big = 100u << 10;
	char *s = malloc(big + 1);
	assert_non_null(s);
	memset(s, 'z', big);
	s[big] = 0;
	tfr_arg_string(r, "small", "kept-value");
	tfr_arg_string(r, "huge", s);
	tfr_arg_int(r, "after", 7);
	tfr_instant(r, 0, "big-event");
	/* 2000 small ones, 64 KiB reached on the way */
	for (int i = 0; i < 2000; i++)
		tfr_arg_string(r, "many", "0123456789012345678901234567890123456789");
	tfr_instant(r, 0, "many-event");
	/* the next event has none left over */
	tfr_instant(r, 0, "plain-event");
	free(s);
	tfr_stats st;
	tfr_get_stats(r, &st);
	assert_int_equal(st.events, 5);
	assert_int_equal(tfr_close(r), 0);
	size_t n;
	char *b = slurp(at("args.pftrace"), &n);
	assert_non_null(b);
	assert_non_null(memmem(b, n, "deep-event", 10));
	assert_non_null(memmem(b, n, "big-event", 9));
	assert_non_null(memmem(b, n, "kept-value", 10));
	assert_non_null(memmem(b, n, "many-event", 10));
	assert_non_null(memmem(b, n, "plain-event", 11));
	assert_null(memmem(b, n, "zzzzzzzz", 8)); /* the huge one is not written */
	assert_true(n < (64u << 10) * 2);          /* at most 64 KiB per event */
	free(b);
}

static void test_stats(void **state)
{
	(void)state;
	tfr *r = tfr_open(at("stats.pftrace"), NULL);
	assert_non_null(r);
	tfr_track c = tfr_counter_track_new(r, 0, "ctr", "count");
	assert_int_not_equal(c, 0);
	for (int i = 0; i < 100; i++) {
		tfr_begin(r, 0, "s");
		tfr_counter(r, c, i);
		tfr_end(r, 0);
	}
	tfr_counter(r, 0, 1.0); /* no track: nothing */
	tfr_stats s;
	tfr_get_stats(r, &s);
	assert_int_equal(s.events, 300);
	assert_int_equal(s.dropped, 0);
	assert_int_equal(s.threads, 1);
	assert_int_equal(tfr_close(r), 0);
}

static tfr *ra, *rb;
static void *both(void *arg)
{
	(void)arg;
	tfr_instant(ra, 0, "thread-in-a");
	tfr_instant(rb, 0, "thread-in-b");
	return NULL;
}

static void test_two_open(void **state)
{
	(void)state;
	ra = tfr_open(at("a.pftrace"), NULL);
	rb = tfr_open(at("b.pftrace"), NULL);
	assert_non_null(ra);
	assert_non_null(rb);
	tfr_begin(ra, 0, "main-in-a");
	tfr_begin(rb, 0, "main-in-b");
	tfr_end(rb, 0);
	tfr_end(ra, 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, both, NULL), 0);
	pthread_join(t, NULL);
	assert_int_equal(tfr_close(rb), 0);
	tfr_instant(ra, 0, "a-after-b-closed");
	assert_int_equal(tfr_close(ra), 0);
	assert_true(holds(at("a.pftrace"), "main-in-a"));
	assert_true(holds(at("a.pftrace"), "thread-in-a"));
	assert_true(holds(at("a.pftrace"), "a-after-b-closed"));
	assert_false(holds(at("a.pftrace"), "-in-b"));
	assert_true(holds(at("b.pftrace"), "main-in-b"));
	assert_true(holds(at("b.pftrace"), "thread-in-b"));
	assert_false(holds(at("b.pftrace"), "-in-a"));
}

static void *exiting(void *arg)
{
	tfr *r = arg;
	tfr_thread_name(r, "short-lived");
	tfr_begin(r, 0, "exited-before-close");
	tfr_end(r, 0);
	return NULL;
}

static void test_thread_exit(void **state)
{
	(void)state;
	tfr *r = tfr_open(at("exit.pftrace"), NULL);
	assert_non_null(r);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, exiting, r), 0);
	pthread_join(t, NULL);
	tfr_stats s;
	tfr_get_stats(r, &s);
	assert_int_equal(s.threads, 1);
	assert_int_equal(s.events, 2);
	assert_int_equal(tfr_close(r), 0);
	assert_true(holds(at("exit.pftrace"), "exited-before-close"));
	assert_true(holds(at("exit.pftrace"), "short-lived"));
}

/* Dropping, a buffer handed over when the queue is empty, however small
 * the limit (1 byte: a 4 KiB buffer, over it): after a flush the queue is
 * empty, so the first full buffer goes; nothing is dropped. */
static void test_drop_empty_queue(void **state)
{
	(void)state;
	tfr_opts o = { 1, 1 };
	tfr *r = tfr_open(at("dropq.pftrace"), &o);
	assert_non_null(r);
	tfr_instant(r, 0, "first");
	assert_int_equal(tfr_flush(r), 0);
	for (int i = 0; i < 200; i++) /* about 5 KiB: one buffer filled */
		tfr_instant(r, 0, "a");
	tfr_stats s;
	tfr_get_stats(r, &s);
	assert_int_equal(s.dropped, 0);
	assert_int_equal(s.events, 201);
	assert_int_equal(tfr_close(r), 0);
}

static int hammer_stop; /* __atomic */

static void *hammer(void *arg)
{
	tfr *r = arg;
	while (!__atomic_load_n(&hammer_stop, __ATOMIC_RELAXED)) {
		tfr_begin(r, 0, "h");
		tfr_end(r, 0);
	}
	return NULL;
}

/* fork while other threads record and the writer writes: the child's
 * copy of the recording is a no-op whose stats and close return (the
 * recording's mutex, held by another thread at the fork, hung the child's
 * tfr_get_stats); its exit status says so, alarm() ends a hung one. */
static void test_fork_busy(void **state)
{
	(void)state;
	tfr_opts o = { 4096, 0 };
	tfr *r = tfr_open(at("forkb.pftrace"), &o);
	assert_non_null(r);
	__atomic_store_n(&hammer_stop, 0, __ATOMIC_RELAXED);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, r), 0);
	for (int k = 0; k < 60; k++) {
		pid_t p = fork();
		assert_true(p >= 0);
		if (!p) {
			alarm(20);
			tfr_stats s;
			tfr_begin(r, 0, "child");
			tfr_get_stats(r, &s);
			_exit(tfr_flush(r) == 0 && tfr_close(r) == 0 ? 0 : 3);
		}
		int st = 0;
		assert_int_equal(waitpid(p, &st, 0), p);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	__atomic_store_n(&hammer_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(tfr_close(r), 0);
	assert_true(holds(at("forkb.pftrace"), "h"));
}

static void *looper(void *arg)
{
	tfr *r = arg;
	for (int i = 0; i < 20; i++) {
		tfr_arg_int(r, "i", i);
		tfr_begin(r, 0, "loop");
		tfr_end(r, 0);
	}
	return NULL;
}

static void test_many_recordings(void **state)
{
	(void)state;
	for (int k = 0; k < 100; k++) {
		tfr_opts o = { (size_t)(k % 3) * 16384, k % 2 };
		tfr *r = tfr_open(at("loop.pftrace"), &o);
		assert_non_null(r);
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&t[i], NULL, looper, r), 0);
		if (!(k % 2))
			looper(r); /* this thread too */
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		tfr_stats s;
		tfr_get_stats(r, &s);
		assert_int_equal(s.events + s.dropped, k % 2 ? 80 : 120);
		assert_int_equal(tfr_close(r), 0);
	}
	assert_true(holds(at("loop.pftrace"), "loop"));
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s/tf-rec.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_bad_open),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_close_flush),
		cmocka_unit_test(test_args_limits),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_two_open),
		cmocka_unit_test(test_thread_exit),
		cmocka_unit_test(test_many_recordings),
		cmocka_unit_test(test_drop_empty_queue),
		cmocka_unit_test(test_fork_busy),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = rc ? rc : 1;
	return rc;
}
