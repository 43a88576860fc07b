// rec_cxx.cc - libtracefold-record from C++ (include/tracefold/record.h
// compiled as C++11 with -Wall -Wextra -Werror): tfr_span, the RAII slice,
// on the thread's own track and on a track of its own, with an early return
// and an exception ending spans; prints what it recorded as JSON
// (tests/e2e/record.sh compares it with tests/tools/record_check.py).
//
//   rec_cxx TRACE OUT.json
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>
#include "tracefold/record.h"

static int leaf(tfr *r, int i)
{
	tfr_span s(r, "leaf");
	if (i % 2)
		return 1; // the span ends here too
	return 0;
}

static void thrower(tfr *r)
{
	tfr_span s(r, "thrower");
	throw std::runtime_error("x");
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	tfr *r = tfr_open(argv[1], nullptr);
	if (!r)
		return 1;
	tfr_thread_name(r, "main");
	tfr_track gpu = tfr_track_new(r, 0, "gpu");
	const int N = 5;
	{
		tfr_span outer(r, "outer");
		for (int i = 0; i < N; i++)
			leaf(r, i);
		for (int i = 0; i < 2; i++) {
			try {
				thrower(r);
			} catch (const std::exception &) {
			}
		}
		tfr_span k(r, "kernel", gpu);
	}
	std::vector<std::thread> th;
	for (int w = 0; w < 2; w++)
		th.emplace_back([r, w] {
			char name[32];
			std::snprintf(name, sizeof(name), "cxx %d", w);
			tfr_thread_name(r, name);
			for (int i = 0; i < 3; i++) {
				tfr_span s(r, "task");
				TFR_SCOPE(r, "scoped");
			}
		});
	for (auto &t : th)
		t.join();
	if (tfr_close(r) != 0)
		return 1;
	FILE *o = std::fopen(argv[2], "w");
	if (!o)
		return 1;
	std::fprintf(o, "{\"tracks\": {\"main\": {\"slices\": {\"outer\": 1, \"leaf\": %d, \"thrower\": 2}, \"instants\": {}},"
			" \"gpu\": {\"slices\": {\"kernel\": 1}, \"instants\": {}},"
			" \"cxx 0\": {\"slices\": {\"task\": 3, \"scoped\": 3}, \"instants\": {}},"
			" \"cxx 1\": {\"slices\": {\"task\": 3, \"scoped\": 3}, \"instants\": {}}}}\n",
		N);
	std::fclose(o);
	return 0;
}
