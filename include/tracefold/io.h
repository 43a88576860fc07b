/* io.h - buffered input with transparent gzip, and buffered output with
 * optional gzip.  No whole-file reads: inputs are consumed in chunks. */
#ifndef TRACEFOLD_IO_H
#define TRACEFOLD_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "err.h"

typedef struct tf_in tf_in;

/* Opens path ("-" = stdin); gzip is detected by its magic bytes and
 * decompressed on the fly (concatenated members too).  Gzip data that ends
 * before its end marker (a cut file) is not an error: the bytes it held are
 * delivered, then the end of input, and tf_in_truncated() says so.  Corrupt
 * gzip data is TF_EFORMAT at the (decompressed) offset where it was met. */
int tf_in_open(tf_in **out, const char *path, tf_error *err);
void tf_in_close(tf_in *in); /* NULL-safe */
/* Reads up to n bytes; returns bytes read, 0 at end, negative TF_E* on error. */
ptrdiff_t tf_in_read(tf_in *in, void *buf, size_t n, tf_error *err);
/* Zero-copy: points *data at the next decompressed bytes (all of them are
 * consumed); returns their count, 0 at end, negative TF_E* on error.  The
 * bytes stay valid until the next call on in. */
ptrdiff_t tf_in_chunk(tf_in *in, const unsigned char **data, tf_error *err);
/* The chunk tf_in_chunk handed out last, when it is a window of the file
 * mapped into memory (a plain regular file past its first chunk, mapping
 * on: tf_in_map_inputs), given to the caller: it stays mapped, past the
 * next calls and tf_in_close, until tf_in_window_free(base, *len) (from any
 * thread); NULL when that chunk is not such a window (read(2), gzip). */
const unsigned char *tf_in_take_window(tf_in *in, size_t *len);
void tf_in_window_free(const unsigned char *base, size_t len);
/* Peeks the first n bytes without consuming (n <= 4096); returns bytes available. */
ptrdiff_t tf_in_peek(tf_in *in, const void **data, size_t n, tf_error *err);
bool tf_in_is_gzip(const tf_in *in);
/* After the end of input: the gzip data was cut (no end marker). */
bool tf_in_truncated(const tf_in *in);
/* The whole (decompressed) input of path into *buf (malloc'd, the
 * caller frees it) and *len: for the formats read whole (pprof, XPlane,
 * the XLA memory profile).  A gzip stream cut short is an error (a part of
 * one cannot be used); out of memory says "holding the WHAT".  0 or a
 * negative TF_E* with err filled. */
int tf_in_read_all(const char *path, const char *what, unsigned char **buf, size_t *len, tf_error *err);
/* Decompressed bytes consumed so far. */
uint64_t tf_in_offset(const tf_in *in);
const char *tf_in_path(const tf_in *in);
/* The gzip inflater of this build, with its version: "ISA-L igzip 2.30.0"
 * (libisal found at build time) or "zlib 1.2.13". */
const char *tf_inflater(void);
/* Compressed (on-disk) size if known, else -1. */
int64_t tf_in_file_size(const tf_in *in);
/* From now on, a plain regular file opened is read past its first chunk
 * through 2 MiB windows of the page cache mapped into memory instead of
 * copied by read(2) (off by default).  A program that turns it on must
 * deal with SIGBUS: touching a window of a file that another program cut
 * short raises it (tracefold's main.c catches it and exits 3). */
void tf_in_map_inputs(bool on);

/* Reads the first up to n bytes of path (decompressed if gzip) into buf.
 * Returns bytes read or negative TF_E*. */
ptrdiff_t tf_file_head(const char *path, void *buf, size_t n, tf_error *err);
/* The same; *whole (if non-NULL): the bytes read are all of the file (fewer
 * than n, and not cut short by the end of a truncated gzip stream). */
ptrdiff_t tf_file_head_whole(const char *path, void *buf, size_t n, bool *whole, tf_error *err);

/* Lines of an input, streamed (lines.c): each without its '\n' (a '\r'
 * before it stays), with the (decompressed) byte offset where it starts;
 * a line carried across chunks ends in a NUL.  A line longer than
 * max_bytes is TF_EFORMAT at its offset ("line N: longer than M MiB (not
 * WHAT?)").  The reader reports, the caller decides: after the last line,
 * `unterminated` says it had no '\n', and tf_in_truncated(l->in) that the
 * gzip stream was cut short. */
typedef struct tf_lines {
	tf_in *in;
	const char *path, *what;  /* what: the format, for the long-line message */
	const char *chunk;        /* the current chunk, and how far it was read */
	size_t len, at;
	char *carry;              /* a line that runs across chunks */
	size_t ncarry, capcarry, max_bytes;
	uint64_t chunk_off;       /* offset of the current chunk */
	uint64_t line;            /* 1-based number of the line returned last */
	bool eof;
	bool unterminated;        /* the line returned last ended without '\n' (the last) */
} tf_lines;
int tf_lines_open(tf_lines *l, const char *path, const char *what, size_t max_bytes, tf_error *err);
/* 1 and the next line in *s, *n (valid until the next call) and its
 * offset in *off; 0 at the end; negative TF_E* with err filled. */
int tf_lines_next(tf_lines *l, const char **s, size_t *n, uint64_t *off, tf_error *err);
void tf_lines_close(tf_lines *l);

typedef struct tf_out tf_out;
/* path "-" = stdout.  gzip: compress with zlib (level 6, deterministic header
 * with no name and mtime 0).  A file is written to a temporary file in the
 * same directory (".NAME.XXXXXX"), fsynced and renamed over path by
 * tf_out_close when every write succeeded; on failure, or tf_out_abort, the
 * temporary is removed and whatever was at path is untouched.  Devices and
 * pipes (/dev/null, a FIFO) are written directly. */
int tf_out_open(tf_out **out, const char *path, bool gzip, tf_error *err);
int tf_out_write(tf_out *o, const void *buf, size_t n);
int tf_out_printf(tf_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tf_out_puts(tf_out *o, const char *s);
/* Flushes and closes; returns TF_EIO if any write or the close failed (a full
 * disk is an error).  Always frees o. */
int tf_out_close(tf_out *o, tf_error *err);
/* After a failed write: err as "cannot write 'PATH'" with the errno of the
 * first failure (its text follows: "No space left on device").  TF_EIO. */
int tf_out_error(const tf_out *o, tf_error *err);
/* Discards the output: the temporary file is removed, path is untouched.
 * NULL-safe; frees o. */
void tf_out_abort(tf_out *o);
/* What the timeline writers share: tf_out_open, gzip when path ends in
 * ".gz"; and at the end, tf_out_close when every write succeeded (rc 0),
 * else tf_out_abort and rc as "cannot write 'PATH': REASON". */
int tf_out_open_named(tf_out **out, const char *path, tf_error *err);
int tf_out_finish(tf_out *o, int rc, tf_error *err);
/* n bytes as the whole of the file path, written aside and renamed as
 * tf_out_open does (no gzip): 0, or the TF_E* of the failure naming path
 * (read_all.c). */
int tf_out_write_file(const char *path, const void *buf, size_t n, tf_error *err);

#endif
