/* example.c - a C program traced with libtracefold-record (docs/record.md):
 * a loader thread makes batches, a queue hands them to the main thread,
 * which trains on each in a step of forward, backward and optimizer
 * regions; a flow links each batch from where it was made to where it was
 * used, a counter track follows the queue's depth, and each step carries
 * its number and the batch's shape as annotations.
 *
 *   cc -O2 example.c $(pkg-config --cflags --libs tracefold-record) -o example
 *   ./example example.pftrace && tracefold top example.pftrace */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <tracefold/record.h>

#define STEPS 8
#define QCAP 4

static tfr *R;
static tfr_track depth_track;
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t flow[QCAP];
	int head, n;
} Q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };

/* work that takes about us microseconds of CPU */
static void spin(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *loader(void *unused)
{
	(void)unused;
	tfr_thread_name(R, "loader");
	for (int i = 0; i < STEPS; i++) {
		TFR_SCOPE(R, "load_batch");
		{
			TFR_SCOPE(R, "read_files");
			spin(300);
		}
		{
			TFR_SCOPE(R, "augment");
			spin(200);
		}
		uint64_t f = tfr_flow_begin(R, 0, "batch ready");
		pthread_mutex_lock(&Q.mu);
		while (Q.n == QCAP)
			pthread_cond_wait(&Q.cv, &Q.mu);
		Q.flow[(Q.head + Q.n++) % QCAP] = f;
		tfr_counter(R, depth_track, Q.n);
		pthread_cond_broadcast(&Q.cv);
		pthread_mutex_unlock(&Q.mu);
	}
	return NULL;
}

static uint64_t take(void)
{
	TFR_SCOPE(R, "wait_for_batch");
	pthread_mutex_lock(&Q.mu);
	while (Q.n == 0)
		pthread_cond_wait(&Q.cv, &Q.mu);
	uint64_t f = Q.flow[Q.head];
	Q.head = (Q.head + 1) % QCAP;
	Q.n--;
	tfr_counter(R, depth_track, Q.n);
	pthread_cond_broadcast(&Q.cv);
	pthread_mutex_unlock(&Q.mu);
	return f;
}

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "example.pftrace";
	if (!(R = tfr_open(out, NULL))) {
		perror(out);
		return 1;
	}
	tfr_process_name(R, "example");
	tfr_thread_name(R, "trainer");
	tfr_track queue = tfr_track_new(R, 0, "data queue");
	depth_track = tfr_counter_track_new(R, queue, "queue depth", "count");
	pthread_t th;
	pthread_create(&th, NULL, loader, NULL);
	for (int s = 0; s < STEPS; s++) {
		tfr_arg_int(R, "step", s);
		tfr_arg_dict(R, "batch");
		tfr_arg_int(R, "size", 32);
		tfr_arg_string(R, "dtype", "float32");
		tfr_arg_close(R);
		tfr_begin(R, 0, "train_step");
		uint64_t f = take();
		tfr_flow_end(R, 0, f);
		{
			TFR_SCOPE(R, "forward");
			spin(400);
		}
		{
			TFR_SCOPE(R, "backward");
			spin(800);
		}
		{
			TFR_SCOPE(R, "optimizer");
			spin(150);
		}
		tfr_end(R, 0);
	}
	pthread_join(th, NULL);
	int rc = tfr_close(R);
	if (rc) {
		fprintf(stderr, "%s: %d\n", out, rc);
		return 1;
	}
	return 0;
}
