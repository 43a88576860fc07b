/* outdir.h - a folder output written aside and swapped in whole on success
 * (src/io/outdir.c), as tf_out does for a file (io.h).
 *
 * A writer of a folder (an OTF2 archive, the Parquet event tables) writes
 * into tf_outdir_tmp(): a fresh temporary folder beside the output,
 * ".NAME.XXXXXX".  tf_outdir_commit swaps it with the output in one rename
 * (renameat2 RENAME_EXCHANGE; where the file system has none, the old one
 * is renamed aside first and put back if the second rename fails) and
 * removes the old one; tf_outdir_abort removes the temporary folder and
 * leaves the output as it was.
 *
 * What may be replaced is checked when the folder is opened, before any
 * input is read: nothing, an empty folder, or a folder every entry of
 * which is of the writer's kind (tf_dir_kind.ours).  Symbolic links inside
 * the output are never followed, never of a writer's kind and never
 * removed; the output path itself may be a link to a folder, which is then
 * the output (as for a file).  A folder holding anything else is refused,
 * unless TF_OUTDIR_FORCE: the writer's entries (tf_dir_kind.names) are then
 * swapped one by one and everything else in the folder is kept.  Nothing
 * is ever removed that the kind does not claim. */
#ifndef TRACEFOLD_OUTDIR_H
#define TRACEFOLD_OUTDIR_H

#include <stdbool.h>
#include "err.h"

/* What a folder writer writes. */
typedef struct tf_dir_kind {
	const char *what;               /* "an OTF2 archive", for messages */
	const char *const *names;       /* the entries it makes at the top, NULL-terminated */
	/* Whether the entry at rel (a path under the folder, '/' between its
	 * parts: "slices/rank=0/part-0.parquet") is one it writes: a regular
	 * file (is_dir false) or a folder.  Links and devices never are. */
	bool (*ours)(const char *rel, bool is_dir);
} tf_dir_kind;

enum { TF_OUTDIR_FORCE = 1 };

typedef struct tf_outdir tf_outdir;

/* Checks path (trailing '/' ignored) and makes the temporary folder.
 * TF_EIO "cannot write 'PATH': ..." when the folder cannot be replaced (a
 * file, a folder of other things without TF_OUTDIR_FORCE, a link inside
 * where an entry of the kind would go) or the temporary one cannot be
 * made; nothing is touched then. */
int tf_outdir_open(tf_outdir **out, const char *path, const tf_dir_kind *kind, unsigned flags, tf_error *err);
/* A handle on a temporary folder another process opened (a distributed
 * run: process 0 opens and commits, the others write their parts into
 * its tmp): commit and abort only free it. */
int tf_outdir_join(tf_outdir **out, const char *path, const char *tmp, tf_error *err);
/* The folder to write into. */
const char *tf_outdir_tmp(const tf_outdir *d);
/* Swaps the written folder in and frees d.  When the old output could not
 * be removed in full (something that is not of the kind appeared in it),
 * what is left is named in note (when not NULL), and the commit still
 * succeeded. */
int tf_outdir_commit(tf_outdir *d, char *note, size_t note_len, tf_error *err);
/* Removes the temporary folder and frees d (NULL-safe). */
void tf_outdir_abort(tf_outdir *d);

#endif
