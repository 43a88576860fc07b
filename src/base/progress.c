/* progress.c - the run's progress counters (progress.h). */
#include <string.h>
#include <sys/mman.h>
#include "tracefold/progress.h"

tf_progress *tf_progress_counters;

bool tf_progress_on(void)
{
	if (!tf_progress_counters) {
		void *p = mmap(NULL, sizeof(tf_progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return false;
		tf_progress_counters = p;
	}
	__atomic_store_n(&tf_progress_counters->bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&tf_progress_counters->events, 0, __ATOMIC_RELAXED);
	return true;
}

tf_progress tf_progress_get(void)
{
	tf_progress p = { 0, 0 };
	if (tf_progress_counters) {
		p.bytes = __atomic_load_n(&tf_progress_counters->bytes, __ATOMIC_RELAXED);
		p.events = __atomic_load_n(&tf_progress_counters->events, __ATOMIC_RELAXED);
	}
	return p;
}
