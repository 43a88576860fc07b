/* progress.c - the progress line on stderr (docs/cli.md "Progress"): while
 * inputs are read, when stderr is a terminal and -q is not given, a line
 * drawn after about a second and redrawn five times a second in place:
 *
 *   tracefold: 1.2 GB of 3.2 GB (38%), 812 MB/s, 4.1 M events, 2.4 s left
 *
 * or, where the total is not known (standard input, OTF2 archives, whose
 * files libotf2 reads itself), events and their rate.  It is erased before
 * anything else is printed (tf_progress_stop runs before the command says
 * anything).  The counters are the library's (tracefold/progress.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "cmd.h"
#include "tracefold/progress.h"
#include "tracefold/reader.h"

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool running, stop, drawn;
	uint64_t total;   /* input bytes, 0 unknown */
	double t0;
	long delay_ms;
} P = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static double now_s(void) { return tf_clock_s(CLOCK_MONOTONIC); }

/* Bytes of the regular files at path (a directory: all below it). */
static uint64_t size_of(const char *path, int depth)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	if (S_ISREG(sb.st_mode))
		return (uint64_t)sb.st_size;
	if (!S_ISDIR(sb.st_mode) || depth > 4)
		return 0;
	uint64_t sum = 0;
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char sub[4096];
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) < (int)sizeof(sub))
			sum += size_of(sub, depth + 1);
	}
	if (d)
		closedir(d);
	return sum;
}

/* 1.2 GB, 812 MB/s (unit "B"); 4.1 M events (unit " events") */
static void human(char *buf, size_t n, double v, const char *unit)
{
	const char *sp = unit[0] == ' ' ? " " : "";
	if (v >= 1e9)
		snprintf(buf, n, "%.1f%sG%s", v / 1e9, sp[0] ? sp : " ", unit);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1f%sM%s", v / 1e6, sp[0] ? sp : " ", unit);
	else if (v >= 1e3)
		snprintf(buf, n, "%.1f%sk%s", v / 1e3, sp[0] ? sp : " ", unit);
	else
		snprintf(buf, n, "%.0f%s%s", v, sp[0] ? "" : " ", unit);
}

static void draw(void)
{
	tf_progress c = tf_progress_get();
	double dt = now_s() - P.t0;
	if (dt <= 0)
		dt = 1e-9;
	char line[256], a[40], b[40], r[40], e[40];
	human(e, sizeof(e), (double)c.events, " events");
	if (P.total && c.bytes) {
		double pct = 100.0 * (double)c.bytes / (double)P.total, rate = (double)c.bytes / dt;
		human(a, sizeof(a), (double)c.bytes, "B");
		human(b, sizeof(b), (double)P.total, "B");
		human(r, sizeof(r), rate, "B/s");
		double left = c.bytes < P.total ? (double)(P.total - c.bytes) / rate : 0;
		snprintf(line, sizeof(line), "tracefold: %s of %s (%.0f%%), %s, %s, %.1f s left", a, b,
			 pct > 100 ? 100 : pct, r, e, left);
	} else {
		human(r, sizeof(r), (double)c.events / dt, " events/s");
		snprintf(line, sizeof(line), "tracefold: %s, %s", e, r);
	}
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	P.drawn = true;
}

static void *drawer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.mu);
	long wait_ms = P.delay_ms;
	while (!P.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += wait_ms / 1000;
		until.tv_nsec += (wait_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!P.stop && pthread_cond_timedwait(&P.cv, &P.mu, &until) == 0)
			;
		if (P.stop)
			break;
		tf_progress c = tf_progress_get();
		if (!c.bytes && !c.events) { /* nothing read yet: nothing to say, look again soon */
			wait_ms = 10;
			continue;
		}
		draw();
		wait_ms = 200;
	}
	pthread_mutex_unlock(&P.mu);
	return NULL;
}

void tf_progress_start(const char *const *inputs, int n, const tf_format *const *fmts)
{
	const char *dbg = getenv("TRACEFOLD_PROGRESS_DELAY_MS"); /* a testing aid */
	const char *term = getenv("TERM");
	if (tf_quiet || P.running || !isatty(2) || (term && !strcmp(term, "dumb")) || !tf_progress_on())
		return;
	P.total = 0;
	for (int i = 0; i < n; i++) {
		const tf_format *f = strcmp(inputs[i], "-") ? fmts[i] : NULL;
		if (!f || !strcmp(f->name, "otf2")) { /* bytes not counted: events only */
			P.total = 0;
			break;
		}
		P.total += size_of(inputs[i], 0);
	}
	P.delay_ms = dbg ? atol(dbg) : 1000;
	P.t0 = now_s();
	P.stop = P.drawn = false;
	P.running = pthread_create(&P.th, NULL, drawer, NULL) == 0;
}

void tf_progress_stop(void)
{
	if (!P.running)
		return;
	pthread_mutex_lock(&P.mu);
	P.stop = true;
	pthread_cond_broadcast(&P.cv);
	pthread_mutex_unlock(&P.mu);
	pthread_join(P.th, NULL);
	P.running = false;
	/* with no delay (the testing aid) a run too short for the drawer's
	 * first look still draws once, so that a test does not race it */
	tf_progress c = tf_progress_get();
	if (!P.drawn && P.delay_ms == 0 && (c.bytes || c.events))
		draw();
	if (P.drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
