/* plan.c - sharing the inputs of a distributed run out (docs/distributed.md):
 *
 *   inputs --tf_format.parts--> parts (a TAU directory's trace files, an
 *   OTF2 archive's locations, a whole Chrome file) --by bytes--> processes
 *
 * Each process then reads its parts (tf_pipeline_opts.select) into its own
 * aggregate with the single-process code.  The share-out is the classic
 * greedy one (largest part first, to the least loaded process): no process
 * gets more than the ideal share plus one part. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tracefold/pipeline.h"
#include "tracefold/reader.h"
#include "grow.h"

int tf_pipeline_plan(tf_ctx *ctx, const char *const *inputs, int n, const tf_format *const *fmts,
		     tf_plan_part **out, tf_error *err)
{
	tf_plan_part *v = NULL;
	uint32_t nv = 0, cap = 0;
	int rc = 0;
	*out = NULL;
	if (fmts && tf_pipeline_any_join(fmts, n))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
				    "sampled inputs with a trace are read with it by one process: run them without "
				    "--mpi (docs/samples.md)");
	for (int i = 0; i < n && rc >= 0; i++) {
		if (!strcmp(inputs[i], "-")) {
			rc = tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					  "standard input cannot be shared out among processes: name the files");
			break;
		}
		const tf_format *f = fmts ? fmts[i] : tf_format_find(inputs[i], NULL, err);
		if (!f) {
			rc = err && err->code ? err->code : TF_EUNKNOWN;
			break;
		}
		if (!tf_format_streams(f)) {
			rc = tf_error_set(err, TF_EUSAGE, NULL, -1, -1,
					  "'%s' is a profile: a distributed run reads traces (add profiles with "
					  "'tracefold merge')", inputs[i]);
			break;
		}
		tf_part *parts = NULL;
		int np;
		if (f->parts) {
			np = f->parts(inputs[i], ctx, &parts, err);
		} else {
			struct stat sb;
			np = 1;
			if (stat(inputs[i], &sb) != 0)
				np = tf_error_set(err, TF_EIO, inputs[i], -1, -1, "cannot open");
			else if (!(parts = malloc(sizeof(tf_part))))
				np = tf_error_set(err, TF_ENOMEM, inputs[i], -1, -1, "out of memory");
			else
				parts[0].bytes = (uint64_t)sb.st_size;
		}
		if (np < 0) {
			rc = np;
			break;
		}
		for (int k = 0; k < np; k++) {
			if (tf_grow((void **)&v, &cap, nv + 1, sizeof(tf_plan_part)) < 0) {
				rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
				break;
			}
			v[nv++] = (tf_plan_part){ (uint32_t)i, (uint32_t)k, parts[k].bytes, 0 };
		}
		free(parts);
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	return (int)nv;
}

static int by_size(const void *x, const void *y)
{
	const tf_plan_part *a = *(tf_plan_part *const *)x, *b = *(tf_plan_part *const *)y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->input != b->input) /* the same order on every process */
		return a->input < b->input ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

void tf_pipeline_plan_assign(tf_plan_part *parts, size_t n, uint32_t nproc)
{
	if (!nproc)
		nproc = 1;
	tf_plan_part **order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t *load = calloc(nproc, sizeof(uint64_t));
	if (!order || !load) { /* round robin needs no memory */
		for (size_t i = 0; i < n; i++)
			parts[i].owner = (uint32_t)(i % nproc);
		free(order);
		free(load);
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &parts[i];
	qsort(order, n, sizeof(*order), by_size);
	/* a linear scan for the least loaded process: n x nproc, fine for the
	 * thousands of parts and processes of a large run */
	for (size_t i = 0; i < n; i++) {
		uint32_t best = 0;
		for (uint32_t p = 1; p < nproc; p++)
			if (load[p] < load[best])
				best = p;
		order[i]->owner = best;
		load[best] += order[i]->bytes ? order[i]->bytes : 1;
	}
	free(order);
	free(load);
}

int tf_pipeline_plan_select(const tf_plan_part *parts, size_t n, int ninputs, uint32_t me, tf_input_sel *sel,
			    uint8_t **masks)
{
	*masks = calloc(n ? n : 1, 1);
	if (!*masks)
		return TF_ENOMEM;
	for (int i = 0; i < ninputs; i++)
		sel[i] = (tf_input_sel){ TF_SEL_NONE, NULL, 0 };
	/* parts are listed input by input, each input's in part order */
	for (size_t k = 0; k < n;) {
		size_t e = k;
		while (e < n && parts[e].input == parts[k].input)
			e++;
		uint32_t i = parts[k].input;
		size_t mine = 0;
		for (size_t j = k; j < e; j++) {
			(*masks)[j] = parts[j].owner == me;
			mine += (*masks)[j];
		}
		if (mine && (int)i < ninputs)
			sel[i] = (tf_input_sel){ mine == e - k ? TF_SEL_ALL : TF_SEL_PARTS, *masks + k, e - k };
		k = e;
	}
	return 0;
}
