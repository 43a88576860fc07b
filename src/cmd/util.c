/* util.c - what the commands share: messages, error reports, option values. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd.h"
#include "tracefold/names.h"
#include "tracefold/pipeline.h"
#include "tracefold/reader.h"
#include "tracefold/dist.h"

int tf_verbose;
int tf_jobs; /* -j N; 0: every core */
int tf_quiet;

void tf_msg(const char *fmt, ...)
{
	va_list ap;
	fputs("tracefold: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tf_report(const tf_error *err)
{
	char buf[1400];
	tf_error_format(err, buf, sizeof(buf));
	tf_msg("%s", buf);
	return err->code == TF_EUSAGE ? TF_EXIT_USAGE : TF_EXIT_INPUT;
}

int tf_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tracefold %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tracefold %s --help'.\n", cmd);
	return TF_EXIT_USAGE;
}

bool tf_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

bool tf_parse_i64(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* strtod for people's numbers: decimal only ([+-]digits[.digits][e[+-]digits]),
 * so "0x10", "inf", "nan" and " 5" are refused as strtod alone would take
 * them; a result below DBL_MIN (a subnormal, 1e-320) is taken as strtod
 * gives it, one that overflows or underflows to zero is refused.  *end_out:
 * where the number ends. */
static bool parse_decimal(const char *s, double *out, const char **end_out)
{
	const char *p = s + (*s == '+' || *s == '-');
	size_t digits = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			p = q;
		}
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end != p || !isfinite(v) || (errno == ERANGE && v == 0))
		return false;
	*out = v;
	*end_out = p;
	return true;
}

bool tf_parse_double(const char *s, double *out)
{
	const char *end;
	double v;
	if (!parse_decimal(s, &v, &end) || *end)
		return false;
	*out = v;
	return true;
}

void tf_report_diag(tf_ctx *ctx)
{
	const tf_diag *d = tf_ctx_diag(ctx);
	if (tf_quiet || !tf_diag_problems(d))
		return;
	char buf[2048];
	tf_diag_format(d, TF_SEV_REPAIR, ", ", 1, buf, sizeof(buf));
	tf_msg("repaired or skipped damaged input: %s (see docs/diagnostics.md)", buf);
	size_t n = tf_ctx_nnotes(ctx), shown = 0;
	for (size_t i = 0; i < n && shown < 10; i++) {
		const char *note = tf_ctx_note_get(ctx, i);
		if (note) {
			tf_msg("  %s", note);
			shown++;
		}
	}
	if (n > shown)
		tf_msg("  ... and %zu more", n - shown);
}

int tf_opt_next(const char *cmd, int argc, char **argv, const tf_opt *table, tf_input_opts *iopts,
		tf_optstate *st, const char **value)
{
	*value = NULL;
	for (;;) {
		if (++st->i >= argc)
			return TF_OPT_DONE;
		const char *a = argv[st->i];
		st->opt = a;
		if (st->endopts || a[0] != '-' || !a[1]) {
			*value = a;
			return TF_OPT_ARG;
		}
		if (!strcmp(a, "--")) {
			st->endopts = true;
			continue;
		}
		if (iopts) {
			int io = tf_input_option(cmd, argc, argv, &st->i, iopts);
			if (io < 0)
				return TF_OPT_USAGE;
			if (io > 0)
				continue;
		}
		if (tf_is_help(a))
			return TF_OPT_HELP;
		for (const tf_opt *o = table; o && o->long_name; o++) {
			if (o->id == TF_OPT_SECTION ||
			    (strcmp(a, o->long_name) && !(o->short_name && !strcmp(a, o->short_name))))
				continue;
			if (o->has_value) {
				if (tf_missing_value(cmd, argc, argv, st->i))
					return TF_OPT_USAGE;
				*value = argv[++st->i];
			}
			return o->id;
		}
		tf_usage_error(cmd, "unknown option '%s'", a);
		return TF_OPT_USAGE;
	}
}

bool tf_missing_value(const char *cmd, int argc, char **argv, int i)
{
	if (i + 1 < argc)
		return false;
	tf_usage_error(cmd, "option '%s' needs a value", argv[i]);
	return true;
}

static int split_counters(tf_input_opts *o, const char *list)
{
	free(o->counters_buf);
	free(o->counters);
	o->counters_buf = strdup(list);
	o->counters = calloc(strlen(list) + 2, sizeof(char *));
	if (!o->counters_buf || !o->counters)
		return -1;
	int n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(o->counters_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		o->counters[n++] = tok;
	return 0;
}

bool tf_parse_duration_ns(const char *s, int64_t *ns_out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { NULL, 0 },
	};
	const char *end;
	double v;
	if (!parse_decimal(s, &v, &end) || !(v >= 0))
		return false;
	for (int i = 0; units[i].unit; i++)
		if (!strcmp(end, units[i].unit)) {
			double ns = v * units[i].scale;
			if (ns > 9.2e18)
				return false;
			*ns_out = (int64_t)(ns + 0.5);
			return true;
		}
	if (!*end && v == 0) {
		*ns_out = 0;
		return true;
	}
	return false;
}

/* "123", "64K", "8M", "1G" (powers of 1024) -> bytes. */
static bool parse_size(const char *v, size_t *out)
{
	long long n;
	size_t len = strlen(v), shift = 0;
	char num[32];
	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, v, len + 1);
	char u = num[len - 1];
	if (u == 'K' || u == 'k' || u == 'M' || u == 'm' || u == 'G' || u == 'g') {
		shift = u == 'K' || u == 'k' ? 10 : u == 'M' || u == 'm' ? 20 : 30;
		num[--len] = 0;
	}
	if (!len || !tf_parse_i64(num, &n) || n < 0 || (unsigned long long)n > (SIZE_MAX >> 1 >> shift))
		return false;
	*out = (size_t)n << shift;
	return true;
}

/* ---- the input options every trace-reading command shares: one row each ---- */

/* A row's hook: checks v (NULL for a flag) and stores it in o; prints a
 * usage error and returns -1 when it is not one. */
typedef int (*in_set)(const char *cmd, const char *opt, const char *v, tf_input_opts *o);

typedef struct in_row {
	const char *short_name, *long_name;
	const char *value; /* what it takes, for --help; NULL: a flag */
	const char *help;  /* '\n' between its lines */
	in_set set;
} in_row;

bool tf_input_format_ok(const char *cmd, const char *v)
{
	if (tf_format_by_name(v))
		return true;
	char names[256];
	tf_formats_list(-1, names, sizeof(names));
	tf_usage_error(cmd, "unknown input format '%s' (one of: %s)", v, names);
	return false;
}

static int set_format(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (!tf_input_format_ok(cmd, v))
		return -1;
	o->format = v;
	return 0;
}

static int set_counters(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (*v && split_counters(o, v) == 0)
		return 0;
	tf_usage_error(cmd, "'%s' needs a comma-separated list of counter names", opt);
	return -1;
}

static int set_edf(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->edf = v;
	return 0;
}

static int set_tau_flush(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->tau_flush = true;
	return 0;
}

static int set_keep_span(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->keep_trace_span = true;
	return 0;
}

static int set_clip(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (!tf_parse_duration_ns(v, &o->clip_tolerance_ns)) {
		tf_usage_error(cmd, "'%s' needs a duration with a unit (ns, us, ms, s), like 1us, not '%s'", opt, v);
		return -1;
	}
	o->has_clip_tolerance = true;
	return 0;
}

static int set_clock_offset(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	bool neg = v[0] == '-';
	if (!tf_parse_duration_ns(v + (neg || v[0] == '+'), &o->clock_offset_ns)) {
		tf_usage_error(cmd, "'%s' needs a duration with a unit (ns, us, ms, s) and an optional sign, like -1.5s, "
			       "not '%s'", opt, v);
		return -1;
	}
	if (neg)
		o->clock_offset_ns = -o->clock_offset_ns;
	return 0;
}

static int set_sort_mem(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (!parse_size(v, &o->sort_mem_bytes)) {
		tf_usage_error(cmd, "'%s' needs a size in bytes with an optional K, M or G (like 64M; 0: never use a "
			       "temporary file), not '%s'", opt, v);
		return -1;
	}
	o->has_sort_mem = true;
	return 0;
}

static int set_strict(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->strict = true;
	return 0;
}

/* --ranks, --window, --steps: parsed by the filter (filter.h). */
static int set_filter(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	tf_error err;
	tf_error_clear(&err);
	int r;
	if (!strcmp(opt, "--ranks")) {
		free(o->ranks_buf);
		o->ranks_buf = NULL;
		o->filter.nranks = 0;
		r = tf_ranks_parse(v, &o->ranks_buf, &o->filter.nranks, &err);
		o->filter.ranks = o->ranks_buf;
		o->filter.ranks_text = v;
	} else if (!strcmp(opt, "--window")) {
		r = tf_window_parse(v, &o->filter.window, &err);
		o->filter.window_text = v;
	} else {
		r = tf_steps_parse(v, &o->filter.step_lo, &o->filter.step_hi, &err);
		o->filter.steps_text = v;
	}
	if (r == 0 && o->filter.steps_text && o->filter.window_text) {
		tf_usage_error(cmd, "--steps and --window: give one of them (--steps is a window)");
		return -1;
	}
	if (r < 0) {
		tf_usage_error(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

static int set_label_steps(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->filter.label_steps = true;
	return 0;
}

static int set_step_region(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (!*v) {
		tf_usage_error(cmd, "--step-region needs the name of a region");
		return -1;
	}
	o->filter.step_region = v;
	return 0;
}

/* --raw-names, --step-frames: stable-name rules off (names.h). */
static int set_names(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->names_off |= !strcmp(opt, "--raw-names") ? TF_NAMES_ALL : TF_NAMES_STEP;
	return 0;
}

static int set_bwd(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	o->backward_to_forward = true;
	return 0;
}

static int set_folded_type(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	if (!tf_folded_type_ok(cmd, v))
		return -1;
	o->folded_type = v;
	return 0;
}

static int set_jobs(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	long long n;
	if (!tf_parse_i64(v, &n) || n < 1 || n > 256) {
		tf_usage_error(cmd, "-j takes a number of threads from 1 to 256, not '%s'", v);
		return -1;
	}
	tf_jobs = (int)n;
	return 0;
}

static int set_mpi(const char *cmd, const char *opt, const char *v, tf_input_opts *o)
{
	tf_mpi = 1;
	return 0;
}

static const in_row input_rows[] = {
	{ "-F", "--input-format", "NAME", "read the inputs as NAME (an input format of\n'tracefold --help') instead of sniffing",
	  set_format },
	{ "-c", "--counters", "LIST", "add a sample type per named counter (comma-separated, or\n'all'), attributed to "
	  "the call path active when it fired", set_counters },
	{ NULL, "--edf", "FILE", "TAU: event definitions for a lone .trc file", set_edf },
	{ NULL, "--tau-flush", NULL, "TAU: show trace-buffer flushes as a [TAU trace flush] frame", set_tau_flush },
	{ NULL, "--keep-trace-span", NULL, "Chrome: keep Kineto's whole-trace span 'PyTorch Profiler'", set_keep_span },
	{ NULL, "--clip-tolerance", "DUR", "a child overhanging its parent by at most DUR (default\n1us) is clipped; a "
	  "larger overlap ends the parent where the\nchild starts (docs/stack-rules.md)", set_clip },
	{ NULL, "--clock-offset", "DUR", "sampled inputs (perf, ...): added to their times to put\nthem on the traces' clock, "
	  "e.g. -3.2s (docs/samples.md)", set_clock_offset },
	{ NULL, "--sort-mem", "SIZE", "memory for JSON tracks waiting to be sorted before they\ngo to a temporary file "
	  "in $TMPDIR (default 4M; 0: never)", set_sort_mem },
	{ NULL, "--strict", NULL, "exit 3 if the input needed any repair or lost any data", set_strict },
	{ NULL, "--ranks", "LIST", "keep only the tracks of these MPI ranks: 0,2,5-7", set_filter },
	{ NULL, "--window", "START:END", "keep only what happened in [START, END): times with a\nunit (1.5s, 250ms, "
	  "10us, 100ns) from the run's first\ntimestamp (the inputs are then read twice), or with @ in\nthe inputs' own "
	  "time base; a side may be empty (:5s, 10s:);\nregions are clipped to it (docs/cli.md \"Filters\")", set_filter },
	{ NULL, "--steps", "A:B", "PyTorch: the window of Kineto's ProfilerStep#A..#B, to the\nend of the last GPU "
	  "work they launched (docs/gpu.md)", set_filter },
	{ NULL, "--label-steps", NULL, "a numeric label step=N on every sample: PyTorch's\nProfilerStep#N (pprof "
	  "-tagfocus=step=10:20), or the\ninstances of --step-region; the inputs are read twice", set_label_steps },
	{ NULL, "--step-region", "NAME", "steps are the instances of region NAME, per rank (a\nsolver iteration), not "
	  "ProfilerStep#N (--label-steps,\ndiff --gate)", set_step_region },
	{ NULL, "--raw-names", NULL, "keep frame names as the trace has them (no stable names:\n' at 0x...' addresses, "
	  "NVTX seq/op_id, ProfilerStep#N;\ndocs/stack-rules.md \"Stable names\")", set_names },
	{ NULL, "--step-frames", NULL, "keep one ProfilerStep#N frame per step (the other rules\nstay)", set_names },
	{ NULL, "--backward-to-forward", NULL, "PyTorch: each backward op (and the GPU work it launched)\nunder "
	  "its forward op's call path, below [backward]\n(docs/gpu.md \"Backward under forward\")", set_bwd },
	{ NULL, "--folded-type", "TYPE/UNIT", "folded stacks: the sample type of their values\n(default samples/count)",
	  set_folded_type },
	{ "-j", "--jobs", "N", "read the inputs' parts (files, TAU threads, OTF2\nlocations) on N threads (default: one "
	  "per core; 1: one;\nworker processes when an input is an OTF2 archive;\nwith TRACEFOLD_TWO_STAGE=1 a Chrome "
	  "JSON file read\nalone is read in two stages on two threads; and a lone\ninput's end may run on two)", set_jobs },
	{ NULL, "--mpi", NULL, "a distributed run: under mpirun or srun, tracefold-mpi's\nprocesses share the inputs' "
	  "parts out and add their\nprofiles up; the result is a single process's\n(docs/distributed.md)", set_mpi },
	{ NULL, NULL, NULL, NULL, NULL },
};

void tf_input_opts_help(void)
{
	for (const in_row *r = input_rows; r->long_name; r++)
		tf_help_opt(r->short_name, r->long_name, r->value, r->help);
}

int tf_input_option(const char *cmd, int argc, char **argv, int *i, tf_input_opts *o)
{
	const char *a = argv[*i], *v = NULL;
	const in_row *r = input_rows;
	for (; r->long_name; r++) {
		if (!strcmp(a, r->long_name) || (r->short_name && !strcmp(a, r->short_name)))
			break;
		size_t n = strlen(r->long_name);
		/* -jN and --jobs=N: the value joined to the option */
		if (r->set == set_jobs && ((a[1] == 'j' && a[2]) || (!strncmp(a, r->long_name, n) && a[n] == '='))) {
			v = a[1] == 'j' ? a + 2 : a + n + 1;
			break;
		}
	}
	if (!r->long_name)
		return 0;
	if (r->value && !v) {
		if (tf_missing_value(cmd, argc, argv, *i))
			return -1;
		v = argv[++*i];
	}
	return r->set(cmd, a, v, o) < 0 ? -1 : 1;
}

bool tf_folded_type_ok(const char *cmd, const char *v)
{
	const char *slash = strrchr(v, '/');
	if (slash && slash != v && slash[1])
		return true;
	tf_usage_error(cmd, "--folded-type takes TYPE/UNIT (e.g. wall/nanoseconds), not '%s'", v);
	return false;
}

tf_load_opts tf_input_load_opts(const tf_input_opts *o)
{
	return (tf_load_opts){ .format = o->format, .counters = o->counters, .filter = &o->filter,
			       .folded_type = o->folded_type };
}

int tf_pick_type(const tf_agg *a, const char *name, const char *where)
{
	int t = tf_agg_type_pick(a, name);
	if (t < 0 && name)
		tf_msg("no sample type '%s' in %s (see 'go tool pprof -raw' for the types)", name, where);
	else if (t < 0)
		tf_msg("the input has no sample types");
	return t;
}

void tf_input_opts_apply(const tf_input_opts *o, tf_ctx *ctx)
{
	tf_read_opts *r = tf_ctx_opts(ctx);
	r->edf_path = o->edf;
	r->show_tau_flush = o->tau_flush;
	r->keep_trace_span = o->keep_trace_span;
	if (o->has_clip_tolerance)
		r->clip_tolerance_ns = o->clip_tolerance_ns;
	if (o->has_sort_mem)
		r->sort_mem_bytes = o->sort_mem_bytes;
	r->clock_offset_ns = o->clock_offset_ns;
	r->tmp_dir = getenv("TMPDIR");
	/* TRACEFOLD_THREADS=2 (or more): the OTF2 reader's pipelined path,
	 * whatever the number of CPUs; unset or 1: the serial one, the default,
	 * because on the 2-core machine it was measured on the pipeline did not
	 * reliably beat it (docs/performance.md, "OTF2 reader") */
	const char *th = getenv("TRACEFOLD_THREADS");
	r->otf2_pipeline = th && atoi(th) >= 2;
	r->name_rules = TF_NAMES_ALL & ~o->names_off;
	r->backward_to_forward = o->backward_to_forward;
}

void tf_input_opts_free(tf_input_opts *o)
{
	free(o->counters);
	free(o->counters_buf);
	free(o->ranks_buf);
	o->counters = NULL;
	o->counters_buf = NULL;
	o->ranks_buf = NULL;
	o->filter.ranks = NULL;
	o->filter.nranks = 0;
}

int tf_out_format(const char *cmd, const char *v, int allowed, int *fmt_out)
{
	int f = !strcmp(v, "text") ? TF_OUT_TEXT
		: (!strcmp(v, "markdown") || !strcmp(v, "md")) ? TF_OUT_MARKDOWN
		: !strcmp(v, "json") ? TF_OUT_JSON : 0;
	if (!(f & allowed)) {
		tf_usage_error(cmd, "--format takes %s%s%s, not '%s'", (allowed & TF_OUT_TEXT) ? "text" : "",
			       (allowed & TF_OUT_MARKDOWN) ? ", markdown" : "", (allowed & TF_OUT_JSON) ? " or json" : "", v);
		return -1;
	}
	*fmt_out = f;
	return 0;
}

/* -v with -j: what each thread read and how long it took (the threads that
 * read nothing are not shown: fewer parts than threads, or one input read
 * whole), as --mpi -v shows each process (docs/distributed.md "Threads"). */
static void print_thread_stats(const tf_dist_stats *st, int jobs, int rc)
{
	int used = 0;
	for (int i = 0; st && rc >= 0 && i < jobs; i++)
		used += st[i].parts > 0;
	for (int i = 0, k = 0; used > 1 && i < jobs; i++)
		if (st[i].parts)
			tf_msg("[thread %d of %d] read %u part%s (%.1f MB) in %.3f s (CPU %.3f s), the slowest done at %.3f s; "
			       "reduction %.3f s", k++, used, st[i].parts, st[i].parts == 1 ? "" : "s",
			       (double)st[i].bytes / 1e6, st[i].own_s, st[i].own_cpu_s, st[i].read_s, st[i].reduce_s);
}

/* -v with -j: the inputs a reader read on two threads (stage 1 the bytes
 * and tokens, stage 2 the events: docs/distributed.md "Threads"). */
static void print_stage_stats(const tf_stage_stats *s, int rc)
{
	if (rc < 0)
		return;
	if (s->inputs)
		tf_msg("%u read%s of Chrome JSON (%.1f MB) in two stages on two threads in %.3f s: stage 1 (bytes, top "
		       "level, events tokenized) CPU %.3f s, waited %.3f s for room; stage 2 (events processed) waited "
		       "%.3f s for stage 1; %llu of %llu events tokenized by stage 2",
		       s->inputs, s->inputs == 1 ? "" : "s", (double)s->bytes / 1e6, s->wall_s, s->s1_cpu_s,
		       s->s1_wait_s, s->s2_wait_s, (unsigned long long)s->raw_events, (unsigned long long)s->events);
	if (s->end_inputs)
		tf_msg("the end of %llu input%s on two threads: %llu of %llu CPU tracks nested on the second",
		       (unsigned long long)s->end_inputs, s->end_inputs == 1 ? "" : "s",
		       (unsigned long long)s->end_moved, (unsigned long long)s->end_tracks);
}

/* With -j N (N >= 2) and an input read whole on one thread, a Chrome JSON
 * file is read in two stages (tf_read_opts.two_stage; docs/distributed.md
 * "Threads"): TWO_STAGE_DEFAULT, or TRACEFOLD_TWO_STAGE: 0 off, 1 on, 2 on
 * with every event tokenized by the second stage (for tests). */
#define TWO_STAGE_DEFAULT 0

static int two_stage(void)
{
	const char *e = getenv("TRACEFOLD_TWO_STAGE");
	if (!e || !*e)
		return TWO_STAGE_DEFAULT;
	return strcmp(e, "0") == 0 ? 0 : strcmp(e, "2") == 0 ? 2 : 1;
}

int tf_load_inputs(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o)
{
	if (tf_mpi)
		return tf_mpi_load(ctx, agg, inputs, n, o);
	tf_error err;
	tf_error_clear(&err);
	int jobs = tf_jobs;
	if (!jobs) { /* the default: every core */
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = nc < 1 ? 1 : nc > 256 ? 256 : (int)nc;
	}
	/* each input's format, resolved once for the progress line, the plan
	 * and the pipeline (unless the command did) */
	tf_load_opts with = o ? *o : (tf_load_opts){ 0 };
	const tf_format **own = NULL;
	int r = 0;
	if (!with.formats) {
		r = tf_inputs_resolve_new(inputs, n, with.format, &own, &err);
		with.formats = own;
	}
	if (r == 0) {
		tf_progress_start(inputs, n, with.formats);
		tf_dist_stats *st = jobs > 1 && tf_verbose ? calloc((size_t)jobs, sizeof(*st)) : NULL;
		tf_stage_stats ss = { 0 };
		tf_ctx_opts(ctx)->stage_stats = tf_verbose ? &ss : NULL;
		tf_ctx_opts(ctx)->two_stage = two_stage();
		r = jobs > 1 ? tf_dist_threads(jobs, ctx, agg, inputs, n, &with, st, &err)
			     : tf_pipeline_run(ctx, agg, inputs, n, &with, &err);
		tf_ctx_opts(ctx)->stage_stats = NULL;
		tf_progress_stop();
		print_thread_stats(st, jobs, r);
		print_stage_stats(&ss, r);
		free(st);
	}
	free(own);
	tf_print_warnings(ctx);
	if (r < 0) {
		if (!err.code)
			tf_error_set(&err, r, NULL, -1, -1, "%s", tf_strerror(r));
		return tf_report(&err);
	}
	return TF_EXIT_OK;
}

int tf_load_report(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_input_opts *io,
		   const char *type_name, int *type_out)
{
	tf_input_opts_apply(io, ctx);
	tf_load_opts lo = tf_input_load_opts(io);
	int rc = tf_load_inputs(ctx, agg, inputs, n, &lo);
	if (rc != TF_EXIT_OK)
		return rc;
	tf_report_diag(ctx);
	if ((rc = tf_check_strict(io, ctx)) != TF_EXIT_OK)
		return rc;
	if (type_out && (*type_out = tf_pick_type(agg, type_name, "the input")) < 0)
		return TF_EXIT_INPUT;
	return TF_EXIT_OK;
}

void tf_print_warnings(tf_ctx *ctx)
{
	static size_t printed; /* a command may load twice (diff): each once */
	size_t n = tf_ctx_nwarnings(ctx);
	for (; printed < n && !tf_quiet; printed++) {
		const char *w = tf_ctx_warning_get(ctx, printed);
		if (w)
			tf_msg("%s", w);
	}
}

int tf_check_strict(const tf_input_opts *o, tf_ctx *ctx)
{
	const tf_diag *d = tf_ctx_diag(ctx);
	if (!o->strict || !tf_diag_problems(d))
		return TF_EXIT_OK;
	char buf[2048];
	tf_diag_format(d, TF_SEV_REPAIR, ", ", 1, buf, sizeof(buf));
	tf_msg("--strict: the input needed repairs or lost data: %s", buf);
	return TF_EXIT_INPUT;
}

int tf_output_is_input(const char *cmd, const char *out, const char *const *inputs, int n)
{
	struct stat so, si;
	if (!out || !strcmp(out, "-") || stat(out, &so) != 0 || !(S_ISREG(so.st_mode) || S_ISDIR(so.st_mode)))
		return TF_EXIT_OK;
	/* a folder output replaces all it holds: an input inside it (an OTF2
	 * archive named by its anchor file, a file through a link) too */
	char *ro = S_ISDIR(so.st_mode) ? realpath(out, NULL) : NULL;
	size_t rn = ro ? strlen(ro) : 0;
	int rc = TF_EXIT_OK;
	for (int i = 0; i < n && rc == TF_EXIT_OK; i++) {
		if (!strcmp(inputs[i], "-") || stat(inputs[i], &si) != 0)
			continue;
		if (si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			rc = tf_usage_error(cmd, "the output '%s' is the input '%s': refusing to overwrite it "
					    "(choose another -o)", out, inputs[i]);
			break;
		}
		char *ri = ro ? realpath(inputs[i], NULL) : NULL;
		if (ri && !strncmp(ri, ro, rn) && (ri[rn] == '/' || (rn && ro[rn - 1] == '/')))
			rc = tf_usage_error(cmd, "the output folder '%s' holds the input '%s': refusing to replace "
					    "it (choose another -o)", out, inputs[i]);
		free(ri);
	}
	free(ro);
	return rc;
}

int tf_name_width(const char *cmd, const char *v, size_t *width_out)
{
	long long w;
	if (!tf_parse_i64(v, &w) || (w != 0 && w < TF_NAME_WIDTH_MIN) || w > 1000000) {
		tf_usage_error(cmd, "--name-width takes 0 (never shorten) or a width of %d to 1000000, not '%s'",
			       TF_NAME_WIDTH_MIN, v);
		return -1;
	}
	*width_out = (size_t)w;
	return 0;
}

int tf_split_inputs(const char *arg, char **copy, const char ***list)
{
	int n = 0;
	*copy = strdup(arg);
	*list = (const char **)calloc(strlen(arg) + 2, sizeof(char *));
	if (!*copy || !*list)
		return -1;
	if (access(arg, F_OK) == 0) {
		(*list)[n++] = *copy;
		return n;
	}
	char *save = NULL;
	for (char *tok = strtok_r(*copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		(*list)[n++] = tok;
	return n;
}
