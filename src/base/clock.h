/* clock.h - seconds on a POSIX clock, for the times -v prints (a run's
 * wall time, a thread's CPU time). */
#ifndef TRACEFOLD_CLOCK_H
#define TRACEFOLD_CLOCK_H

#include <time.h>

/* Seconds on clock id (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID...), 0 when
 * it cannot be read. */
static inline double tf_clock_s(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
