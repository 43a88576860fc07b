/* waiting.c - top, diff and diff --gate leave out the threads that only
 * wait (include/tracefold/waiting.h, docs/stack-rules.md "Threads that only
 * wait") unless --keep-waiting, and say what they left out. */
#include <stdio.h>
#include <stdlib.h>
#include "cmd.h"
#include "fmt.h"
#include "sat.h"
#include "tracefold/waiting.h"

int tf_leave_out_waiting(tf_agg **agg, const tf_input_opts *io, tf_waiting_left *left)
{
	if (io->keep_waiting)
		return TF_EXIT_OK;
	tf_waiting_thread *wt = NULL;
	int64_t ns = 0;
	int n = tf_waiting_threads(*agg, tf_agg_type_find(*agg, "wall"), &wt, &ns);
	free(wt);
	if (n < 0) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	if (!n)
		return TF_EXIT_OK;
	tf_agg *a = tf_agg_without_waiting(*agg);
	if (!a) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	tf_agg_free(*agg);
	*agg = a;
	if (n > left->threads)
		left->threads = n;
	left->wall_ns = tf_sat_add(left->wall_ns, ns);
	return TF_EXIT_OK;
}

void tf_say_waiting(const tf_waiting_left *left)
{
	if (tf_quiet || !left->threads)
		return;
	char t[32];
	tf_fmt_value(t, sizeof(t), (double)left->wall_ns, "nanoseconds");
	fprintf(stderr, "tracefold: left out %d thread%s that only wait%s (%s wall; docs/stack-rules.md); "
		"--keep-waiting keeps them\n", left->threads, left->threads == 1 ? "" : "s",
		left->threads == 1 ? "s" : "", t);
}
