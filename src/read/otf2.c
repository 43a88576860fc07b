/* otf2.c - OTF2 archives (Score-P, TAU, ...) read through libotf2: the
 * entry point (tf_format_otf2: sniffing, finding the anchor, read_input).
 *
 *   anchor file --libotf2--> global definitions (strings, regions, locations,
 *   location groups, groups, communicators, metrics, clock) --> tracks
 *   (otf2_defs.c)
 *   then, one location at a time: local definitions (mapping tables, clock
 *   offsets: applied by libotf2) and the location's events in stored order.
 *   One set of event callbacks turns each event into a compact record and
 *   puts it: the serial path (the default) applies it at once
 *   (otf2_events.c); with TRACEFOLD_THREADS=2 the callbacks run on a second
 *   thread that queues the records in batches, which the main thread
 *   applies in the same order (otf2_pipe.c).
 *
 * Internals shared by these files: otf2.h.  Facts relied on, the clock
 * conversion, the rank/thread mapping and what is counted for each record
 * type: docs/format-otf2.md. */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tracefold/io.h"
#include "otf2.h"

/* --------------------------------------------------------- libotf2 errors */

/* libotf2's first message and its code, per thread (otf2.h) */
__thread char tf_otf2_msg[TF_OTF2_MSG_MAX];
__thread OTF2_ErrorCode tf_otf2_code;

/* Registered for the duration of a read: keeps the message instead of
 * printing it. */

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *fn,
				  OTF2_ErrorCode code, const char *fmt, va_list va)
{
	if (tf_otf2_msg[0])
		return code; /* keep the first message: the root cause */
	tf_otf2_code = code;
	if (fmt)
		vsnprintf(tf_otf2_msg, sizeof(tf_otf2_msg), fmt, va);
	if (!tf_otf2_msg[0])
		snprintf(tf_otf2_msg, sizeof(tf_otf2_msg), "%s", OTF2_Error_GetDescription(code));
	return code;
}

/* libotf2's error callback is one for the process: readers on several
 * threads (-j, docs/format-otf2.md) register it once between them, the
 * first in and the last out. */
static pthread_mutex_t quiet_mu = PTHREAD_MUTEX_INITIALIZER;
static int quiet_users;
static OTF2_ErrorCallback quiet_old;

static void quiet_on(void)
{
	pthread_mutex_lock(&quiet_mu);
	if (quiet_users++ == 0)
		quiet_old = OTF2_Error_RegisterCallback(quiet_error, NULL);
	pthread_mutex_unlock(&quiet_mu);
	tf_otf2_msg[0] = 0;
}

static void quiet_off(void)
{
	pthread_mutex_lock(&quiet_mu);
	if (--quiet_users == 0)
		OTF2_Error_RegisterCallback(quiet_old, NULL);
	pthread_mutex_unlock(&quiet_mu);
}

/* ------------------------------------------------------ finding the anchor */

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

static bool is_anchor_head(const unsigned char *h, size_t n)
{
	return n >= 6 && h[0] == 0x03 && memcmp(h + 2, "OTF2", 4) == 0;
}

static bool is_file(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Counts the *.otf2 files directly in dir; the first (by name) goes to out. */
static int anchors_in(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	char best[256] = "";
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".otf2") || strlen(e->d_name) >= sizeof(best))
			continue;
		char p[PATH_MAX];
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p) || !is_file(p))
			continue;
		if (!n++ || strcmp(e->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", e->d_name);
	}
	closedir(d);
	if (n && out)
		snprintf(out, len, "%s/%s", dir, best);
	return n;
}

/* An anchor in dir (depth 0) or in one of its subdirectories (depth 1).
 * Returns the number found at the shallowest depth that has any; *depth_out
 * is that depth. */
static int find_anchor(const char *dir, char *out, size_t len, int *depth_out)
{
	*depth_out = 0;
	int n = anchors_in(dir, out, len);
	if (n)
		return n;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	char best[PATH_MAX] = "";
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[PATH_MAX], a[PATH_MAX];
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p) || !is_dir(p))
			continue;
		int k = anchors_in(p, a, sizeof(a));
		if (k && (!n || strcmp(a, best) < 0))
			snprintf(best, sizeof(best), "%s", a);
		n += k;
	}
	closedir(d);
	*depth_out = 1;
	if (n)
		snprintf(out, len, "%s", best);
	return n;
}

static int sniff(const char *path, int dir, const unsigned char *head, size_t n, bool whole)
{
	if (dir) {
		char a[PATH_MAX];
		int depth;
		if (!find_anchor(path, a, sizeof(a), &depth))
			return TF_SNIFF_NO;
		return depth == 0 ? TF_SNIFF_YES : TF_SNIFF_MAYBE;
	}
	if (is_anchor_head(head, n))
		return TF_SNIFF_YES;
	return has_suffix(path, ".otf2") ? TF_SNIFF_MAYBE : TF_SNIFF_NO;
}

/* ------------------------------------------------------------------ read */

/* A TF_EFORMAT error on the anchor: what failed, and libotf2's message. */
int tf_otf2_fail(rd *r, const char *what, OTF2_ErrorCode ec)
{
	return tf_error_set(r->err, TF_EFORMAT, r->anchor, -1, -1, "%s (libotf2: %s)", what,
			    tf_otf2_msg[0] ? tf_otf2_msg : OTF2_Error_GetDescription(ec));
}


/* Reads the events of every location, one location at a time, each in the
 * order the archive stores them.  A location whose event data cannot be
 * read is counted (missing_location) and the others are still read. */
static int read_events(rd *r, OTF2_Reader *rdr)
{
	const tf_read_opts *ro = tf_ctx_opts(r->ctx);
	if (ro->part_mask && r->nlocs != ro->npart_mask) /* parts are positions in the definitions */
		return tf_error_set(r->err, TF_EFORMAT, r->anchor, -1, -1,
				    "%zu locations now, %zu when the run was planned: the archive changed", r->nlocs,
				    ro->npart_mask);
	for (size_t i = 0; i < r->nlocs; i++) {
		/* a distributed run: read only the locations given to this process */
		r->locs[i].skip = ro->part_mask && (i >= ro->npart_mask || !ro->part_mask[i]);
		if (!r->locs[i].skip && OTF2_Reader_SelectLocation(rdr, r->locs[i].id) != OTF2_SUCCESS)
			return tf_otf2_fail(r, "cannot select a location", OTF2_ERROR_INVALID);
	}
	bool defs_open = OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS; /* local defs are optional */
	OTF2_ErrorCode ec = OTF2_Reader_OpenEvtFiles(rdr);
	if (ec != OTF2_SUCCESS) {
		if (defs_open)
			OTF2_Reader_CloseDefFiles(rdr);
		return tf_otf2_fail(r, "cannot open the event files", ec);
	}
	int rc = 1;
	if (ro->otf2_pipeline) /* off by default: docs/performance.md "OTF2 reader" */
		rc = tf_otf2_read_piped(r, rdr, defs_open);
	if (rc == 1)
		rc = tf_otf2_read_serial(r, rdr, defs_open);
	if (rc == 0)
		tf_otf2_note_ldefs(r);
	OTF2_Reader_CloseEvtFiles(rdr);
	if (defs_open)
		OTF2_Reader_CloseDefFiles(rdr);
	return rc;
}

/* The archive's anchor: path, or the one *.otf2 in the directory path. */
static int anchor_of(const char *path, char *anchor, size_t len, tf_error *err)
{
	if (is_dir(path)) {
		int depth;
		int n = find_anchor(path, anchor, len, &depth);
		if (n == 0)
			return tf_error_set(err, TF_EFORMAT, path, -1, -1, "no OTF2 anchor file (*.otf2) in this directory");
		if (n > 1)
			return tf_error_set(err, TF_EUSAGE, path, -1, -1,
					    "%d OTF2 anchor files (*.otf2) in this directory; name one", n);
	} else {
		if ((size_t)snprintf(anchor, len, "%s", path) >= len)
			return tf_error_set(err, TF_EIO, path, -1, -1, "path too long");
	}
	return 0;
}

static int read_archive(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err);

/* One archive at a time in a process, whatever the threads (-j): two
 * OTF2_Readers on two threads at once, which libotf2's documentation
 * allows, were seen to misread a damaged location as complete (3 runs in
 * 30, libotf2 3.0.2; tests/e2e/otf2.sh "cut at byte 700"), and not with
 * the reads one after the other.  Processes (--mpi) read in parallel. */
static pthread_mutex_t archive_mu = PTHREAD_MUTEX_INITIALIZER;

static int read_input(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	pthread_mutex_lock(&archive_mu);
	int rc = read_archive(path, input, ctx, sink, err);
	pthread_mutex_unlock(&archive_mu);
	return rc;
}

/* Where the NUL ending the string at h[at] is, plus one; 0 if none. */
static size_t string_end(const unsigned char *h, size_t n, size_t at)
{
	const unsigned char *z = at < n ? memchr(h + at, 0, n - at) : NULL;
	return z ? (size_t)(z - h) + 1 : 0;
}

/* The counts of an anchor file, checked against its size before libotf2
 * reads it: OTF2_AnchorFile_Load trusts the property count and reads that
 * many pairs of strings, empty ones past the end of the file, so one
 * damaged byte (a string's NUL, the count) cost seconds to minutes of
 * libotf2's time and gigabytes (tests/e2e/inputs26.sh).  The layout
 * (libotf2's OTF2_AnchorFile.c): chunk type, endianness ('B' little, '#'
 * big), "OTF2\0", anchor format, 38 bytes of numbers, three strings
 * (machine, creator, description), and from anchor format 2 on a uint32
 * property count and that many name/value string pairs.  Returns the
 * offset of the fault, or -1. */
static int64_t anchor_fault(const unsigned char *h, size_t n)
{
	if (n < 8 + 38 || (h[1] != 0x42 && h[1] != 0x23))
		return n < 8 + 38 ? (int64_t)n : 1;
	size_t at = 8 + 38;
	for (int i = 0; i < 3; i++)
		if (!(at = string_end(h, n, at)))
			return (int64_t)n;
	if (h[7] < 2)
		return -1;
	if (at + 4 > n)
		return (int64_t)n;
	const unsigned char *c = h + at;
	uint32_t props = h[1] == 0x42 ? (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24
				     : (uint32_t)c[3] | (uint32_t)c[2] << 8 | (uint32_t)c[1] << 16 | (uint32_t)c[0] << 24;
	size_t start = at;
	at += 4;
	if ((uint64_t)props * 2 > n - at) /* two strings of one byte at least each */
		return (int64_t)start;
	for (uint64_t i = 0; i < 2 * (uint64_t)props; i++)
		if (!(at = string_end(h, n, at)))
			return (int64_t)n;
	return -1;
}

/* How much of an anchor is checked: real ones are a few hundred bytes
 * (their properties); a larger one is handed to libotf2 unchecked. */
#define ANCHOR_CHECK_BYTES (1u << 20)

/* The anchor of path, checked: libotf2 leaks its file handle when
 * OTF2_Reader_Open fails on a file that is no anchor at all, so the magic
 * is looked at first, and then its counts (anchor_fault). */
static int checked_anchor(const char *path, char *anchor, size_t len, tf_error *err)
{
	TF_TRY(anchor_of(path, anchor, len, err));
	unsigned char *head = malloc(ANCHOR_CHECK_BYTES);
	if (!head)
		return tf_error_set(err, TF_ENOMEM, anchor, -1, -1, "out of memory");
	ptrdiff_t nh = tf_file_head(anchor, head, ANCHOR_CHECK_BYTES, err);
	int rc = 0;
	int64_t at;
	if (nh < 0)
		rc = (int)nh;
	else if (!is_anchor_head(head, (size_t)nh))
		rc = tf_error_set(err, TF_EFORMAT, anchor, 0, -1, "not an OTF2 anchor file");
	else if ((size_t)nh < ANCHOR_CHECK_BYTES && (at = anchor_fault(head, (size_t)nh)) >= 0)
		rc = tf_error_set(err, TF_EFORMAT, anchor, at, -1,
				  "damaged OTF2 anchor file: its strings or its property count do not fit its %td bytes",
				  nh);
	free(head);
	return rc;
}

/* Opens r->anchor and reads and resolves its global definitions into r
 * (tracks in r->ctx): 0 with *out open (the caller closes it), or a
 * negative TF_E* with r->err filled.  libotf2's errors are kept quiet
 * (quiet_on) until the caller's quiet_off, in either case. */
static int open_defs(rd *r, OTF2_Reader **out)
{
	tf_otf2_clock_set(r, 1000000000ull, 0);
	quiet_on();
	*out = OTF2_Reader_Open(r->anchor);
	if (!*out)
		return tf_otf2_fail(r, "not a readable OTF2 archive", OTF2_ERROR_INVALID);
	OTF2_Reader_SetSerialCollectiveCallbacks(*out);
	int rc = tf_otf2_read_defs(r, *out);
	if (rc == 0)
		rc = tf_otf2_resolve_defs(r);
	return rc;
}

static int read_archive(const char *path, uint32_t input, tf_ctx *ctx, tf_sink *sink, tf_error *err)
{
	char anchor[PATH_MAX];
	TF_TRY(checked_anchor(path, anchor, sizeof(anchor), err));
	rd r = { .ctx = ctx, .sink = sink, .err = err, .path = path, .anchor = anchor, .input = input,
		 .attr_corr = OTF2_UNDEFINED_ATTRIBUTE, .attr_gpu = OTF2_UNDEFINED_ATTRIBUTE,
		 .rev = { .msg = { -1, 0, 0, -1 } } };
	OTF2_Reader *rdr = NULL;
	int rc = open_defs(&r, &rdr);
	if (rc == 0)
		rc = read_events(&r, rdr);
	if (rdr)
		OTF2_Reader_Close(rdr);
	quiet_off();
	tf_otf2_rd_free(&r);
	if (rc == TF_ENOMEM)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	return rc;
}

/* The parts of an archive are its locations, in definition order (the
 * order read_events reads them), each weighed by the size of its event
 * file (ANCHOR-without-.otf2/ID.evt, as Score-P and libotf2 lay archives
 * out; 1 byte where that file is not found).  An archive whose GPU streams
 * are nested under their launches (tracefold::gpu_launches) is one part:
 * its streams need its CPU threads. */
static int parts(const char *path, tf_ctx *ctx, tf_part **out, tf_error *err)
{
	char anchor[PATH_MAX];
	TF_TRY(checked_anchor(path, anchor, sizeof(anchor), err));
	if (tf_ctx_opts(ctx)->parts_for_threads) {
		/* threads read one archive at a time (archive_mu): one part, and no
		 * reading of the definitions to list locations no thread could use */
		if (!(*out = calloc(1, sizeof(tf_part))))
			return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
		size_t alen = strlen(anchor);
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%.*s", (int)(alen > 5 ? alen - 5 : alen), anchor);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char f[PATH_MAX + 260];
			struct stat sb;
			snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
			if (has_suffix(de->d_name, ".evt") && stat(f, &sb) == 0)
				(*out)[0].bytes += (uint64_t)sb.st_size;
		}
		if (d)
			closedir(d);
		return 1;
	}
	tf_ctx *scratch = tf_ctx_new(); /* the definitions make tracks: not in ctx */
	if (!scratch)
		return tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory");
	*tf_ctx_opts(scratch) = *tf_ctx_opts(ctx);
	rd r = { .ctx = scratch, .err = err, .path = path, .anchor = anchor,
		 .attr_corr = OTF2_UNDEFINED_ATTRIBUTE, .attr_gpu = OTF2_UNDEFINED_ATTRIBUTE };
	OTF2_Reader *rdr = NULL;
	int rc = open_defs(&r, &rdr);
	if (rdr)
		OTF2_Reader_Close(rdr);
	quiet_off();
	size_t n = r.nlocs, alen = strlen(anchor);
	bool whole = false;
	for (size_t i = 0; i < n; i++)
		whole |= r.locs[i].launched;
	tf_part *p = rc == 0 ? calloc(n ? n : 1, sizeof(tf_part)) : NULL;
	if (rc == 0 && !p)
		rc = TF_ENOMEM;
	uint64_t total = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char evt[PATH_MAX + 32];
		struct stat sb;
		snprintf(evt, sizeof(evt), "%.*s/%" PRIu64 ".evt", (int)(alen > 5 ? alen - 5 : alen), anchor,
			 r.locs[i].id);
		p[i].bytes = stat(evt, &sb) == 0 ? (uint64_t)sb.st_size : 1;
		total += p[i].bytes;
	}
	tf_otf2_rd_free(&r);
	tf_ctx_free(scratch);
	if (rc < 0) {
		free(p);
		return rc == TF_ENOMEM ? tf_error_set(err, TF_ENOMEM, path, -1, -1, "out of memory") : rc;
	}
	if (whole || !n) {
		p[0].bytes = total;
		n = 1;
	}
	*out = p;
	return (int)n;
}

const tf_format tf_format_otf2 = {
	.name = "otf2",
	.description = "OTF2 archive (Score-P, TAU): an anchor file (*.otf2) or a directory holding one",
	.sniff = sniff,
	.read = read_input,
	.parts = parts,
};
