// record_bench_perfetto: record_bench's loop (bench/record_bench.c) with
// Perfetto's own tracing SDK (TRACE_EVENT_BEGIN/END, the in-process
// backend, the trace written into a file while recording), for
// docs/performance.md ("Recording overhead").  Built by
// bench/perfetto_sdk.sh PERFETTO_SDK_DIR against the SDK's amalgamated
// perfetto.h and perfetto.cc, which are not in this repository.
//
//   record_bench_perfetto THREADS PAIRS [--reps N] [--dir DIR] [--keep]
//                         [--shm-kb KB]
//
// Every thread does PAIRS begin/end pairs on its own track (constant
// names, category "bench"); the row is record_bench's: ns/pair = wall time
// of the threads' loops / PAIRS, median (min-max) of --reps (5), Mpairs/s,
// close ms (StopBlocking: the service's last flush and write), bytes.
// The SDK's shared memory buffer: its default (256 KiB) unless --shm-kb;
// its policy when that is full is the SDK's default (kDrop): events are
// lost, not waited for, so the events that reached the file are counted
// (tracefold info or protoc --decode; bench/perfetto_sdk.sh does).
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "perfetto.h"

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("bench").SetDescription("record_bench"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

namespace {

struct Worker {
	pthread_barrier_t *bar;
	long pairs;
	uint64_t t0, t1;
};

uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *work(void *arg)
{
	Worker *w = static_cast<Worker *>(arg);
	pthread_barrier_wait(w->bar);
	w->t0 = now_ns();
	for (long i = 0; i < w->pairs; i++) {
		TRACE_EVENT_BEGIN("bench", "step");
		TRACE_EVENT_END("bench");
	}
	w->t1 = now_ns();
	return nullptr;
}

struct Result {
	double ns_pair, mpairs_s, close_ms;
	long long bytes;
};

Result run_once(int threads, long pairs, const char *path)
{
	perfetto::TraceConfig cfg;
	auto *buf = cfg.add_buffers();
	buf->set_size_kb(64 * 1024);
	buf->set_fill_policy(perfetto::TraceConfig::BufferConfig::DISCARD);
	cfg.set_write_into_file(true);
	cfg.set_file_write_period_ms(100);
	cfg.add_data_sources()->mutable_config()->set_name("track_event");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	std::unique_ptr<perfetto::TracingSession> s = perfetto::Tracing::NewTrace();
	s->Setup(cfg, fd);
	s->StartBlocking();
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, nullptr, (unsigned)threads);
	std::vector<Worker> w(threads, Worker{ &bar, pairs, 0, 0 });
	std::vector<pthread_t> th(threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], nullptr, work, &w[i]);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], nullptr);
	uint64_t t0 = w[0].t0, t1 = w[0].t1;
	for (const Worker &x : w) {
		t0 = std::min(t0, x.t0);
		t1 = std::max(t1, x.t1);
	}
	uint64_t c0 = now_ns();
	perfetto::TrackEvent::Flush();
	s->StopBlocking();
	close(fd);
	uint64_t c1 = now_ns();
	pthread_barrier_destroy(&bar);
	struct stat st;
	Result r;
	r.ns_pair = (double)(t1 - t0) / (double)pairs;
	r.mpairs_s = (double)threads * (double)pairs / ((double)(t1 - t0) / 1e9) / 1e6;
	r.close_ms = (double)(c1 - c0) / 1e6;
	r.bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
	return r;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: record_bench_perfetto THREADS PAIRS [--reps N] [--dir DIR] [--keep] [--shm-kb KB]\n");
		return 2;
	}
	int threads = atoi(argv[1]), reps = 5, keep = 0;
	long pairs = atol(argv[2]);
	unsigned shm_kb = 0;
	const char *base = getenv("TMPDIR");
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			base = argv[++i];
		else if (!strcmp(argv[i], "--shm-kb") && i + 1 < argc)
			shm_kb = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else
			return fprintf(stderr, "record_bench_perfetto: unknown option %s\n", argv[i]), 2;
	}
	if (threads < 1 || pairs < 1 || reps < 1)
		return 2;
	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/record_bench.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		return perror(dir), 2;
	snprintf(path, sizeof(path), "%s/perfetto.pftrace", dir);
	perfetto::TracingInitArgs args;
	args.backends = perfetto::kInProcessBackend;
	args.shmem_size_hint_kb = shm_kb;
	perfetto::Tracing::Initialize(args);
	perfetto::TrackEvent::Register();
	std::vector<Result> rs;
	for (int i = 0; i < reps; i++) {
		rs.push_back(run_once(threads, pairs, path));
		if (!(keep && i == reps - 1))
			unlink(path);
	}
	std::vector<double> ns, tp, cl;
	for (const Result &r : rs) {
		ns.push_back(r.ns_pair);
		tp.push_back(r.mpairs_s);
		cl.push_back(r.close_ms);
	}
	std::sort(ns.begin(), ns.end());
	std::sort(tp.begin(), tp.end());
	std::sort(cl.begin(), cl.end());
	printf("# record_bench_perfetto: files in %s; %d reps, median (min-max); shm %u KiB (0: the SDK's default)\n",
	       dir, reps, shm_kb);
	printf("%-12s %3s %10s %9s %-17s %9s %10s %12s\n", "mode", "thr", "pairs/thr", "ns/pair", "(min-max)",
	       "Mpairs/s", "close ms", "bytes");
	printf("%-12s %3d %10ld %9.1f %8.1f-%-8.1f %9.2f %10.1f %12lld\n", shm_kb ? "perfetto-shm" : "perfetto", threads,
	       pairs, ns[reps / 2], ns[0], ns[reps - 1], tp[reps / 2], cl[reps / 2], rs[reps / 2].bytes);
	if (keep)
		printf("# kept: %s\n", path);
	else
		rmdir(dir);
	return 0;
}
