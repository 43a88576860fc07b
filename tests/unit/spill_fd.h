/* spill_fd.h - for unit tests: the descriptor of the run's temporary sort
 * file (src/core/spill.c), found by its unlinked name in /proc/self/fd, or
 * -1, so that a test can garble or cut what was written to it. */
#ifndef TF_TEST_SPILL_FD_H
#define TF_TEST_SPILL_FD_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int tf_test_spill_fd(void)
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

#endif
