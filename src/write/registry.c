/* registry.c - the output formats: one row per format.  A new output is a new
 * file in src/write/ plus one line here (include/tracefold/writer.h). */
#include <string.h>
#include "tracefold/writer.h"
#include "tracefold/pprof.h"
#include "tracefold/folded.h"

static const char *const pprof_suffixes[] = { ".pb.gz", ".pprof", ".pb", ".prof", NULL };

static const tf_writer tf_writer_pprof = {
	.name = "pprof",
	.description = "gzipped pprof profile.proto, for go tool pprof (top, flame graphs, -diff_base)",
	.suffixes = pprof_suffixes,
	.consumes = TF_WRITER_AGG,
	.write_agg = tf_pprof_write,
	.flags = TF_WRITER_STDOUT,
};

/* The sample type a picture shows (tf_agg_type_pick): the default, wall. */
static int folded_write_default(const tf_agg *agg, const char *path, tf_error *err)
{
	return tf_folded_write(agg, tf_agg_type_pick(agg, NULL), path, err);
}

static const char *const folded_suffixes[] = { ".folded", ".folded.gz", NULL };

static const tf_writer tf_writer_folded = {
	.name = "folded",
	.description = "folded stacks (self values of the default type), for flamegraph.pl, speedscope, inferno",
	.suffixes = folded_suffixes,
	.consumes = TF_WRITER_AGG,
	.write_agg = folded_write_default,
	.flags = TF_WRITER_STDOUT,
};

extern const tf_writer tf_writer_parquet;
extern const tf_writer tf_writer_chrome;
extern const tf_writer tf_writer_perfetto;
extern const tf_writer tf_writer_flame;
extern const tf_writer tf_writer_otf2;
extern const tf_writer tf_writer_speedscope;

const tf_writer *const tf_writers[] = {
	&tf_writer_pprof,
	&tf_writer_folded,
	&tf_writer_parquet,
	&tf_writer_chrome,
	&tf_writer_perfetto,
	&tf_writer_otf2,
	&tf_writer_speedscope,
	&tf_writer_flame,
	NULL,
};

const tf_writer *tf_writer_by_name(const char *name)
{
	for (int i = 0; tf_writers[i]; i++)
		if (strcmp(tf_writers[i]->name, name) == 0)
			return tf_writers[i];
	return NULL;
}

const tf_writer *tf_writer_by_command(const char *name)
{
	for (int i = 0; tf_writers[i]; i++)
		if (tf_writers[i]->command && strcmp(tf_writers[i]->command, name) == 0)
			return tf_writers[i];
	return NULL;
}

const tf_writer_opt *tf_writer_opt_find(const tf_writer *w, const char *name)
{
	for (const tf_writer_opt *o = w->opts; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

const tf_writer *tf_writer_for_path(const char *path)
{
	size_t n = strlen(path);
	for (int i = 0; tf_writers[i]; i++)
		for (const char *const *s = tf_writers[i]->suffixes; *s; s++) {
			size_t k = strlen(*s);
			if (n > k && strcmp(path + n - k, *s) == 0)
				return tf_writers[i];
		}
	return NULL;
}

int tf_writer_fail_out(tf_ctx *ctx, const tf_out *o)
{
	tf_error e;
	tf_error_clear(&e);
	tf_out_error(o, &e);
	return tf_ctx_fail(ctx, &e);
}
