/* load.c - inputs -> one aggregate, shared by profile, top, diff and merge.
 *
 * Every input is either a trace (any reader; the stack builder turns it into
 * calls/count and wall/nanoseconds samples) or a pprof profile (sniffed with
 * tf_pprof_sniff, read with tf_pprof_read).  Traces are read first, in the
 * given order, through one stack builder; then each profile is read into a
 * scratch aggregate and added, after checking that its sample types are the
 * same set (name and unit) as what is already loaded.  Standard input ("-")
 * is always read as a trace (sniffing would consume it).  Errors are printed
 * here; the return value is an exit status (TF_EXIT_OK or TF_EXIT_INPUT).
 *
 * The agg's main_file (the file name of the written profile's mapping) is
 * the first input's: its base name for a trace, for a profile the file name
 * of its own first mapping (so a merge keeps the original trace's name), else
 * its base name. */
#include <stdlib.h>
#include <string.h>
#include "cmd.h"
#include "report.h"
#include "tracefold/reader.h"
#include "tracefold/stack.h"
#include "tracefold/pprof.h"
#include "hmap.h"

/* Same set of (type, unit) names? */
static bool same_types(const tf_agg *a, const tf_agg *b)
{
	if (tf_agg_ntypes(a) != tf_agg_ntypes(b))
		return false;
	tf_strtab *st = tf_agg_strtab(a);
	for (int t = 0; t < tf_agg_ntypes(b); t++) {
		tf_sample_type ty = tf_agg_type_get(b, t);
		int i = tf_agg_type_find(a, tf_strtab_get(st, ty.type));
		if (i < 0 || tf_agg_type_get(a, i).unit != ty.unit)
			return false;
	}
	return true;
}

/* -c NAME that selects nothing is said, not silently ignored. */
static void warn_unmatched_counters(tf_ctx *ctx, const tf_agg *agg, const char *const *counters)
{
	if (!counters || tf_quiet)
		return;
	for (int i = 0; counters[i]; i++) {
		if (!strcmp(counters[i], "all")) {
			if (!tf_ctx_diag(ctx)->n[TF_DIAG_ev_counter])
				tf_msg("--counters all: the input has no counters");
		} else if (tf_report_type(agg, counters[i]) < 0) {
			tf_msg("--counters: no counter named '%s' in the input ('tracefold info' lists them)",
			       counters[i]);
		}
	}
}

/* Adds text to agg's comments unless it is there (seen: interned text ->
 * 1); add = false only records it. */
static int add_comment(tf_ctx *ctx, tf_agg *agg, tf_hmap *seen, const char *text, bool add)
{
	tf_str id = tf_strtab_intern_cstr(tf_ctx_strtab(ctx), text);
	if (id == (tf_str)-1)
		return -1;
	if (tf_hmap_get(seen, id) != UINT32_MAX)
		return 0;
	if (tf_hmap_put(seen, id, 1) < 0)
		return -1;
	return add ? tf_agg_comment(agg, text) : 0;
}

/* Interned base name of an input path ("dir/run.json.gz" -> "run.json.gz",
 * "traces/" -> "traces", "-" -> "stdin"); (tf_str)-1 on allocation failure. */
static tf_str base_name(tf_strtab *st, const char *path)
{
	if (!strcmp(path, "-"))
		return tf_strtab_intern_cstr(st, "stdin");
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (start == end) /* "/" */
		return tf_strtab_intern(st, path, end);
	return tf_strtab_intern(st, path + start, end - start);
}

int tf_load_inputs(tf_ctx *ctx, tf_agg *agg, const char *const *inputs, int n, const tf_load_opts *o)
{
	const char *format = o ? o->format : NULL;
	uint32_t first = o ? o->first_input : 0;
	bool comments = o && o->comments;
	int rc = TF_EXIT_OK;
	char note[2100];
	bool *is_pprof = calloc((size_t)n + 1, sizeof(bool));
	tf_stacks *stacks = NULL;
	tf_agg *tmp = NULL;
	const char *types_from = NULL;
	tf_hmap seen = { 0 }; /* comment strings already in agg */
	int nseen = 0;        /* seen holds agg's comments */
	if (!is_pprof) {
		tf_msg("out of memory");
		return TF_EXIT_INPUT;
	}
	int ntraces = 0;
	for (int i = 0; i < n; i++) {
		/* stdin cannot be sniffed without consuming it: always a trace */
		is_pprof[i] = !format && strcmp(inputs[i], "-") != 0 && tf_pprof_sniff(inputs[i]);
		ntraces += !is_pprof[i];
	}
	tf_agg_meta *meta = tf_agg_meta_get(agg);
	if (n > 0 && !is_pprof[0] && !meta->main_file) {
		tf_str name = base_name(tf_ctx_strtab(ctx), inputs[0]);
		if (name == (tf_str)-1) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
			goto done;
		}
		meta->main_file = name;
	}
	if (ntraces) {
		tf_stacks_opts sopts = { .counters = o ? o->counters : NULL };
		stacks = tf_stacks_new(ctx, agg, &sopts);
		if (!stacks) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
			goto done;
		}
	}
	for (int i = 0; i < n; i++) {
		if (is_pprof[i])
			continue;
		tf_error err;
		tf_error_clear(&err);
		const tf_format *f = tf_format_find(inputs[i], format, &err);
		if (!f) {
			rc = tf_report(&err);
			goto done;
		}
		if (!types_from)
			types_from = inputs[i];
		uint32_t idx = first + (uint32_t)i;
		tf_diag before = *tf_ctx_diag(ctx);
		int r = f->read(inputs[i], idx, ctx, tf_stacks_sink(stacks), &err);
		if (r >= 0 || r == TF_ESTOP)
			r = tf_stacks_sink(stacks)->end_input(tf_stacks_sink(stacks), idx);
		if (r < 0 && r != TF_ESTOP) {
			if (!err.code)
				tf_error_set(&err, r, inputs[i], -1, -1, "%s", tf_strerror(r));
			rc = tf_report(&err);
			goto done;
		}
		rc = tf_check_input_used(ctx, inputs[i], &before);
		if (rc != TF_EXIT_OK)
			goto done;
		if (comments) {
			snprintf(note, sizeof(note), "input: %s (%s)", inputs[i], f->name);
			tf_agg_comment(agg, note);
		}
	}
	if (stacks) {
		int r = tf_stacks_finish(stacks);
		if (r < 0) {
			tf_msg("cannot build stacks: %s", tf_strerror(r));
			rc = TF_EXIT_INPUT;
			goto done;
		}
		warn_unmatched_counters(ctx, agg, o ? o->counters : NULL);
		if (comments) {
			char diagbuf[2048];
			tf_diag_format(tf_ctx_diag(ctx), TF_SEV_INFO, ", ", 0, diagbuf, sizeof(diagbuf));
			snprintf(note, sizeof(note), "events: %s", diagbuf);
			tf_agg_comment(agg, note);
		}
	}
	for (int i = 0; i < n; i++) {
		if (!is_pprof[i])
			continue;
		tf_error err;
		tf_error_clear(&err);
		tmp = tf_agg_new(tf_ctx_strtab(ctx));
		if (!tmp) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
			goto done;
		}
		if (tf_pprof_read(tmp, inputs[i], &err) < 0) {
			rc = tf_report(&err);
			goto done;
		}
		if (!tf_agg_nsamples(tmp)) {
			tf_msg("cannot use '%s': the profile has no samples", inputs[i]);
			rc = TF_EXIT_INPUT;
			goto done;
		}
		tf_agg_meta *tm = tf_agg_meta_get(tmp);
		if (!tm->main_file && (tm->main_file = base_name(tf_ctx_strtab(ctx), inputs[i])) == (tf_str)-1) {
			tf_msg("out of memory");
			rc = TF_EXIT_INPUT;
			goto done;
		}
		if (types_from && !same_types(agg, tmp)) {
			char a[800], b[800];
			tf_agg_types_text(agg, a, sizeof(a));
			tf_agg_types_text(tmp, b, sizeof(b));
			tf_msg("cannot combine '%s' with '%s': sample types differ: '%s' has [%s], '%s' has [%s]",
			       inputs[i], types_from, inputs[i], b, types_from, a);
			rc = TF_EXIT_INPUT;
			goto done;
		}
		bool was_empty = !types_from;
		int r = tf_agg_merge(agg, tmp, 1);
		if (r < 0) {
			tf_msg("cannot combine '%s': %s", inputs[i], tf_strerror(r));
			rc = TF_EXIT_INPUT;
			goto done;
		}
		if (was_empty) {
			tf_agg_meta_get(agg)->period = tf_agg_meta_get(tmp)->period;
			types_from = inputs[i];
		}
		if (comments) {
			/* de-duplicated through the string table: linear in comments */
			int cr = 0;
			for (size_t k = 0; k < tf_agg_ncomments(agg) && !nseen; k++)
				cr |= add_comment(ctx, agg, &seen, tf_agg_comment_get(agg, k), false);
			nseen = 1;
			for (size_t k = 0; k < tf_agg_ncomments(tmp); k++)
				cr |= add_comment(ctx, agg, &seen, tf_agg_comment_get(tmp, k), true);
			snprintf(note, sizeof(note), "input: %s (pprof)", inputs[i]);
			cr |= add_comment(ctx, agg, &seen, note, true);
			if (cr < 0) {
				tf_msg("out of memory");
				rc = TF_EXIT_INPUT;
				goto done;
			}
		}
		tf_agg_free(tmp);
		tmp = NULL;
	}
	if (rc == TF_EXIT_OK && !tf_agg_nsamples(agg)) {
		/* an empty profile is never a success: say what there was */
		uint64_t nctr = tf_ctx_diag(ctx)->n[TF_DIAG_ev_counter];
		tf_msg("nothing to profile in '%s'%s: no regions%s", inputs[0], n > 1 ? " and the other inputs" : "",
		       nctr && !(o && o->counters) ? " (it has counters: select them with -c)" : "");
		rc = TF_EXIT_INPUT;
	}
done:
	tf_hmap_free(&seen);
	tf_agg_free(tmp);
	tf_stacks_free(stacks);
	free(is_pprof);
	return rc;
}
