/* otf2.c - any input as an OTF2 archive (docs/otf2-out.md), for Vampir,
 * Scalasca and the Score-P tools: a span consumer that writes, through
 * libotf2's writer, in one streaming pass
 *
 *   per track a location (a CPU thread, or an accelerator stream for a GPU
 *     stream; overlapping GPU activities on extra locations "NAME (overlap
 *     N)", so that each location's regions nest), with Enter at each
 *     region's open and Leave at its close: the stack builder's nesting
 *     order, so that regions of equal timestamps never cross;
 *   counters as Metric events of one metric class per counter name;
 *   MPI messages as MpiSend / MpiRecv on one communicator of all ranks;
 *
 * and at the end the global definitions: strings (each once), the system
 * tree (machine -> node), a location group per process (rank N) and one
 * per GPU device (created by its process), locations with their event
 * counts, regions (each name once), metrics, the MPI communicator, the
 * attributes and the clock (1 ns ticks, the inputs' own timestamps; a
 * run that starts before 0 shifted to start at 0: tids.c tf_time_shift).
 *
 * A location's events must be in time order.  The stack builder closes
 * the regions that ended before a counter or message before it hands the
 * event over; one that still comes later than the innermost open region's
 * end would wait in a per-track queue until that region's Leave (empty on
 * every fixture); one written later than its own time (a counter inside a
 * GPU activity, whose Enter and Leave are written at once) is counted in
 * a warning.  Memory: per location libotf2's event buffer (OTF2 chunks of
 * 256 KiB) while its track is being written, closed at the track's end;
 * the definitions (strings, regions, metrics, locations).
 *
 * This file: the archive and the writer row; the span consumer is
 * otf2_events.c, the definitions otf2_defs.c (otf2_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracefold/outdir.h"
#include "tracefold/writer.h"
#include "otf2_int.h"

/* libotf2 prints its errors unless told otherwise; the library never
 * prints: the first message is kept for the error. */
static __thread char otf2_msg[512];
static OTF2_ErrorCode quiet(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
			    const char *fmt, va_list va)
{
	(void)ud, (void)file, (void)line, (void)fn;
	if (!otf2_msg[0] && fmt)
		vsnprintf(otf2_msg, sizeof(otf2_msg), fmt, va);
	return code;
}

int tf_otf2_out_fail(tf_otf2_out *w, OTF2_ErrorCode e, const char *what)
{
	if (!w->rc) {
		/* a full disk is an "integrity fault" to libotf2, whose message
		 * names the file: errno says why (ENOSPC), when it was set */
		int sys = errno;
		const char *desc = OTF2_Error_GetDescription(e);
		w->rc = TF_EIO;
		errno = 0; /* the text says why */
		tf_error_set(&w->err, TF_EIO, NULL, -1, -1, "cannot write '%s': %s: %s (libotf2: %s%s%s)", w->path, what,
			     sys ? strerror(sys) : desc, desc, otf2_msg[0] ? ": " : "", otf2_msg);
		tf_ctx_fail(w->ctx, &w->err); /* failing under the read: the run names the archive */
	}
	return w->rc;
}

int tf_otf2_out_oom(tf_otf2_out *w)
{
	if (!w->rc) {
		w->rc = TF_ENOMEM;
		tf_error_set(&w->err, TF_ENOMEM, NULL, -1, -1, "cannot write '%s': out of memory", w->path);
		tf_ctx_fail(w->ctx, &w->err);
	}
	return w->rc;
}

/* ---- the archive ---- */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	(void)u, (void)ft, (void)loc, (void)cb, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)u, (void)ft, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };
/* What an archive is (outdir.h): DIR/traces.otf2, DIR/traces.def and
 * DIR/traces/ of .evt and .def files, as libotf2 writes it; a Score-P
 * experiment folder, which holds more, is not. */
static bool archive_ours(const char *rel, bool is_dir)
{
	size_t n = strlen(rel);
	if (!strchr(rel, '/'))
		return is_dir ? !strcmp(rel, ARCHIVE) : !strcmp(rel, ARCHIVE ".otf2") || !strcmp(rel, ARCHIVE ".def");
	return !is_dir && !strncmp(rel, ARCHIVE "/", sizeof(ARCHIVE)) && !strchr(rel + sizeof(ARCHIVE), '/') &&
	       n > sizeof(ARCHIVE) + 4 && (!strcmp(rel + n - 4, ".evt") || !strcmp(rel + n - 4, ".def"));
}

static const tf_dir_kind archive_kind = {
	.what = "an OTF2 archive",
	.names = (const char *const[]){ ARCHIVE ".otf2", ARCHIVE ".def", ARCHIVE, NULL },
	.ours = archive_ours,
};

static void otf2_free(tf_otf2_out *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ntk; i++) {
		free(w->tk[i].q);
		free(w->tk[i].ends);
		free(w->tk[i].lane_loc);
		tf_lanes_free(&w->tk[i].lanes);
	}
	free(w->tk);
	free(w->loc);
	free(w->grp);
	tf_hmap_free(&w->grp_of);
	nametab *tabs[3] = { &w->strings, &w->regions, &w->metrics };
	for (int i = 0; i < 3; i++) {
		tf_hmap_free(&tabs[i]->ref);
		free(tabs[i]->name);
	}
	if (w->attrs)
		OTF2_AttributeList_Delete(w->attrs);
	if (w->old_cb)
		OTF2_Error_RegisterCallback(w->old_cb, NULL);
	free(w->ex);
	free(w->rank_loc);
	free(w->path);
	free(w->tmp);
	free(w);
}

static void otf2_abort(void *state)
{
	tf_otf2_out *w = state;
	if (!w)
		return;
	if (w->ar)
		OTF2_Archive_Close(w->ar);
	otf2_free(w); /* the folder it wrote is its tf_outdir's to remove */
}

static int otf2_finish(void *state, tf_error *err)
{
	tf_otf2_out *w = state;
	for (uint32_t t = 0; t < w->ntk && !w->rc; t++)
		tf_otf2_out_on_end_track(&w->spans, t);
	if (!w->rc)
		tf_otf2_out_plan_extras(w);
	if (!w->rc) {
		OTF2_ErrorCode e = OTF2_Archive_CloseEvtFiles(w->ar);
		if (e != OTF2_SUCCESS)
			tf_otf2_out_fail(w, e, "the event files");
	}
	if (!w->rc && w->nloc == 0)
		tf_error_set(&w->err, w->rc = TF_EFORMAT, NULL, -1, -1, "nothing to write to '%s': no region, counter or message",
			     w->path);
	if (!w->rc)
		tf_otf2_out_write_defs(w);
	if (!w->rc) {
		OTF2_ErrorCode e = OTF2_Archive_Close(w->ar);
		w->ar = NULL;
		if (e != OTF2_SUCCESS)
			tf_otf2_out_fail(w, e, "the archive");
	}
	if (w->moved)
		tf_ctx_warn(w->ctx, "OTF2: %llu events written later than their time to keep their location in time order "
			    "(moved %llu ns in all)", (unsigned long long)w->moved, (unsigned long long)w->moved_ns);
	if (w->skipped_msgs)
		tf_ctx_warn(w->ctx, "OTF2: %llu messages of tracks without an MPI rank (or to none) not written",
			    (unsigned long long)w->skipped_msgs);
	int rc = w->rc;
	if (rc && err)
		*err = w->err;
	if (rc) {
		otf2_abort(w);
		return rc;
	}
	otf2_free(w);
	return 0;
}

static int otf2_open(const tf_writer_args *a, const char *path, tf_span_sink **sink_out, void **state_out,
		     tf_error *err)
{
	if (!strcmp(path, "-"))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "an OTF2 archive is a folder: give its name, not '-'");
	tf_otf2_out *w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path)) || !(w->tmp = strdup(a->dir ? a->dir : path))) {
		otf2_free(w);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	w->ctx = a->ctx;
	w->inputs = a->inputs, w->ninputs = a->ninputs; /* for messages */
	w->st = tf_ctx_strtab(a->ctx);
	w->max_rank = w->run_max_rank = w->max_peer = -1;
	w->min_ts = INT64_MAX;
	w->max_ts = INT64_MIN;
	otf2_msg[0] = 0;
	w->old_cb = OTF2_Error_RegisterCallback(quiet, NULL);
	w->ar = OTF2_Archive_Open(w->tmp, ARCHIVE, OTF2_FILEMODE_WRITE, CHUNK_EVENTS, CHUNK_DEFS,
				  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	w->attrs = OTF2_AttributeList_New();
	OTF2_ErrorCode e = OTF2_SUCCESS;
	if (!w->ar || !w->attrs || (e = OTF2_Archive_SetFlushCallbacks(w->ar, &flush_cbs, NULL)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetSerialCollectiveCallbacks(w->ar)) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_SetCreator(w->ar, "tracefold")) != OTF2_SUCCESS ||
	    (e = OTF2_Archive_OpenEvtFiles(w->ar)) != OTF2_SUCCESS) {
		errno = 0;
		int rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the OTF2 archive '%s': %s", path,
				      otf2_msg[0] ? otf2_msg : e != OTF2_SUCCESS ? OTF2_Error_GetDescription(e)
										  : "libotf2 failed to open it");
		otf2_abort(w);
		return rc;
	}
	w->spans = (tf_span_sink){ .open = tf_otf2_out_on_open, .close = tf_otf2_out_on_close, .event = tf_otf2_out_on_event, .end_track = tf_otf2_out_on_end_track,
				   .event_kinds = (1u << TF_EV_COUNTER) | (1u << TF_EV_SEND) | (1u << TF_EV_RECV) };
	*sink_out = &w->spans;
	*state_out = w;
	return 0;
}

const tf_writer tf_writer_otf2 = {
	.name = "otf2",
	.description = "an OTF2 archive in a folder (Vampir, Scalasca, Score-P tools; docs/otf2-out.md)",
	.suffixes = (const char *const[]){ NULL },
	.consumes = TF_WRITER_SPANS,
	.span_open = otf2_open,
	.span_finish = otf2_finish,
	.span_abort = otf2_abort,
	.flags = TF_WRITER_DIR,
	.dir_kind = &archive_kind,
	.command = "otf2",
	.summary = "an OTF2 archive for Vampir and Scalasca; docs/otf2-out.md",
	.usage = "-o DIR",
	.help = "Writes the INPUTs (the inputs of 'tracefold profile') as one OTF2 archive\n"
		"(DIR/traces.otf2, as Score-P writes it) through libotf2, in one streaming\n"
		"pass, for Vampir, Scalasca, Cube and the OTF2 tools: a location group per\n"
		"process (rank N) and per GPU device, a location per thread and GPU stream,\n"
		"Enter/Leave per region in the nesting the stack builder rebuilt (equal\n"
		"timestamps never cross), counters as metrics, MPI messages as\n"
		"MpiSend/MpiRecv on MPI_COMM_WORLD; 1 ns clock ticks, the inputs' own\n"
		"times (a run that starts before 0 shifted to start at 0); repairs as\n"
		"the attribute tracefold::repaired.  The archive is written aside and\n"
		"swapped in whole: one already at DIR is replaced; a folder holding\n"
		"anything else (a Score-P experiment folder) is refused and kept, or\n"
		"with --force written beside it (docs/otf2-out.md).\n",
};
