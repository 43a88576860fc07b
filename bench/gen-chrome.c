/* gen-chrome.c - writes a large, realistic Kineto-like Chrome trace to stdout
 * for benchmarking the JSON reader: the object form with device properties,
 * pretty-printed events as PyTorch's Kineto writes them (float microseconds
 * with 3 decimals), nested cpu_op X events on several threads with args
 * (shapes, types, call stacks), cuda_runtime launches, GPU kernels on two
 * streams, ac2g flows, [memory] instants, some B/E user annotations and
 * metadata.  Deterministic (fixed seed).
 *
 *   gen-chrome MEGABYTES OUT.json [NSTEPS]
 *
 * NSTEPS: step numbers wrap after NSTEPS (ProfilerStep#0..NSTEPS-1), so the
 * number of distinct call paths stops growing with the size (what a memory
 * bound needs to show); without it every step has a name of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t seed = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)(seed % n);
}

static const char *const ops[] = {
	"aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution",
	"aten::batch_norm", "aten::_batch_norm_impl_index", "aten::cudnn_batch_norm", "aten::relu_",
	"aten::max_pool2d", "aten::linear", "aten::addmm", "aten::empty", "aten::add_", "aten::mul",
	"aten::copy_", "aten::to", "aten::view", "aten::t", "aten::transpose", "aten::as_strided",
	"aten::softmax", "aten::_log_softmax", "aten::nll_loss_forward", "aten::zero_",
	"autograd::engine::evaluate_function: ConvolutionBackward0", "Optimizer.step#SGD.step",
};
static const char *const kernels[] = {
	"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams<float, float>)",
	"volta_scudnn_128x64_relu_interior_nn_v1",
	"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)",
	"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
	"Memcpy HtoD (Pageable -> Device)",
};

#define NTHREADS 4
static long long ext_id = 1, corr = 1;
static double now_us[NTHREADS];
static const int pid = 19392;
static const int tids[NTHREADS] = { 19392, 19411, 19412, 19413 };
static double gpu_us = 0;

static void shape_args(FILE *f)
{
	int n = 1 + (int)rnd(3);
	fputs("\"Input Dims\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s[%u, %u, %u, %u]", i ? ", " : "", 1 + rnd(64), 1 + rnd(512), 1 + rnd(56), 1 + rnd(56));
	fputs("], \"Input type\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"float\"", i ? ", " : "");
	fputs("], \"Input Strides\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s[%u, %u, %u, 1]", i ? ", " : "", rnd(1 << 20), rnd(4096), rnd(64));
	fputs("], \"Concrete Inputs\": [", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", rnd(3) ? "" : "[1, 1]");
	fputs("]", f);
}

/* One cpu_op subtree on thread t starting at its current time; returns its duration. */
/* The shape of a subtree (children, names, launches) is a function of its
 * path code, as in a training loop that runs the same model every step;
 * only times, ids and shapes vary. */
static uint32_t mix(uint32_t c, uint32_t k)
{
	c ^= k + 0x9E3779B9u + (c << 6) + (c >> 2);
	c *= 0x85EBCA6Bu;
	return c ^ (c >> 13);
}

static double op_tree(FILE *f, int t, int depth, uint32_t code)
{
	double start = now_us[t];
	now_us[t] += 0.5 + rnd(1000) / 1000.0;
	int kids = depth < 5 ? (int)(code % 4) : 0;
	for (int k = 0; k < kids; k++)
		op_tree(f, t, depth + 1, mix(code, (uint32_t)k + 1));
	if (depth >= 3 && (code >> 8) % 2) {
		/* a runtime launch, its kernel on a GPU stream and the ac2g flow */
		double ls = now_us[t];
		double ld = 3 + rnd(5000) / 1000.0;
		long long c = corr++;
		fprintf(f, "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d,\n"
			   "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %lld, \"cbid\": 211, \"correlation\": %lld\n    }\n  },\n",
			pid, tids[t], ls, ld, ext_id, c);
		fprintf(f, "  {\n    \"ph\": \"s\", \"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": %.3f,\n"
			   "    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  },\n", c, pid, tids[t], ls);
		if (gpu_us < ls + ld)
			gpu_us = ls + ld + 1;
		int stream = 7 + (int)rnd(2) * 13;
		double kd = 1 + rnd(200000) / 1000.0;
		fprintf(f, "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d,\n"
			   "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %lld,\n"
			   "      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": %d, \"correlation\": %lld,\n"
			   "      \"registers per thread\": 72,\n      \"shared memory\": 16384,\n      \"blocks per SM\": 0.5,\n"
			   "      \"warps per SM\": 4.0,\n      \"grid\": [%u, 1, 1],\n      \"block\": [128, 1, 1],\n"
			   "      \"est. achieved occupancy %%\": 6\n    }\n  },\n",
			kernels[(code >> 12) % 5], stream, gpu_us, kd, ext_id, stream, c, 1 + rnd(4096));
		fprintf(f, "  {\n    \"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": %d, \"ts\": %.3f,\n"
			   "    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  },\n", c, stream, gpu_us);
		gpu_us += kd;
		now_us[t] = ls + ld + 0.2;
	}
	if (rnd(8) == 0) {
		fprintf(f, "  {\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n"
			   "    \"pid\": %d, \"tid\": %d,\n    \"ts\": %.3f,\n    \"args\": {\n"
			   "      \"Total Reserved\": %u, \"Total Allocated\": %u, \"Bytes\": %d, \"Addr\": %llu, \"Device Id\": 0, \"Device Type\": 1\n    }\n  },\n",
			pid, tids[t], now_us[t], rnd(1u << 30), rnd(1u << 30), (int)rnd(1 << 20) - (1 << 19),
			(unsigned long long)rnd(1u << 31) * 4096);
	}
	now_us[t] += 0.3 + rnd(500) / 1000.0;
	double dur = now_us[t] - start;
	fprintf(f, "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n"
		   "    \"ts\": %.3f, \"dur\": %.3f,\n    \"args\": {\n      \"External id\": %lld,\"Record function id\": 0, \"Ev Idx\": %lld, ",
		ops[(code >> 4) % (sizeof(ops) / sizeof(ops[0]))], pid, tids[t], start, dur, ext_id, ext_id);
	shape_args(f);
	if (rnd(4) == 0)
		fputs(", \"Call stack\": \"train.py(88): forward;torch/nn/modules/module.py(1501): _call_impl;"
		      "torch/nn/modules/conv.py(463): forward;torch/nn/modules/conv.py(459): _conv_forward\"", f);
	fputs("\n    }\n  },\n", f);
	ext_id++;
	return dur;
}

int main(int argc, char **argv)
{
	long long mb = argc > 1 ? atoll(argv[1]) : 200;
	long long nsteps = argc > 3 ? atoll(argv[3]) : 0;
	long long target = mb * 1000000LL;
	if (argc < 3) {
		fprintf(stderr, "usage: gen-chrome MEGABYTES OUT.json\n");
		return 2;
	}
	FILE *f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	fputs("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", "
	      "\"totalGlobalMem\": 85045379072,\n      \"computeMajor\": 9, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024 }\n  ],\n"
	      "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n"
	      "  \"traceEvents\": [\n", f);
	fprintf(f, "  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 1419247332500.000, \"pid\": %d, \"tid\": 0,\n"
		   "    \"args\": {\n      \"name\": \"python3\"\n    }\n  },\n", pid);
	fputs("  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 1419247332500.000, \"pid\": 0, \"tid\": 0,\n"
	      "    \"args\": {\n      \"labels\": \"GPU 0\"\n    }\n  },\n", f);
	for (int t = 0; t < NTHREADS; t++) {
		fprintf(f, "  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 1419247332500.000, \"pid\": %d, \"tid\": %d,\n"
			   "    \"args\": {\n      \"name\": \"thread %d (python3)\"\n    }\n  },\n", pid, tids[t], tids[t]);
		now_us[t] = 1419247332500.684 + t * 3.5;
	}
	gpu_us = now_us[0];
	long long step = 0;
	while (ftell(f) < target) {
		int t = (int)rnd(NTHREADS);
		if (step++ % 16 == 0) {
			fprintf(f, "  {\"ph\": \"B\", \"name\": \"ProfilerStep#%lld\", \"cat\": \"user_annotation\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f},\n",
				nsteps > 0 ? step % nsteps : step, pid, tids[t], now_us[t]);
			now_us[t] += 0.1;
			op_tree(f, t, 0, mix(0, rnd(12)));
			fprintf(f, "  {\"ph\": \"E\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f},\n", pid, tids[t], now_us[t]);
			now_us[t] += 0.1;
		} else {
			op_tree(f, t, 0, mix(0, rnd(12)));
		}
	}
	fprintf(f, "  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": 1419247332500.684, \"dur\": %.3f,\n"
		   "    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n"
		   "    \"args\": {\n      \"Op count\": 0\n    }\n  }\n],\n  \"traceName\": \"bench.pt.trace.json\"\n}\n",
		now_us[0] - 1419247332500.684);
	return (ferror(f) | fclose(f)) ? 1 : 0;
}
