/* lake.h - a store of runs (src/io/lake.c): the event tables of many runs
 * in one folder, DIR/<table>/run=NAME/..., committed one run at a time
 * (docs/schema.md, "The lake: several runs").
 *
 * A run is written into a fresh temporary folder inside the lake,
 * DIR/.tracefold-run.XXXXXX, laid out as one run's tables
 * (<table>/rank=R/part-0.parquet, runs/part-0.parquet).  tf_lake_commit
 * then takes an exclusive flock on DIR/.tracefold.lock and renames each
 * top folder <table> of it to DIR/<table>/run=NAME, the runs table last;
 * if a rename fails, the ones done are renamed back and the lake is as it
 * was.  With replace, an existing DIR/<table>/run=NAME is exchanged with
 * the new one (renameat2 RENAME_EXCHANGE, else renamed aside and back on
 * failure) and removed after every table was swapped; the old run's
 * tables the new one does not have are moved out too.
 *
 * The lake's partition keys below run= (rank, rank/step or rank/time) are
 * the same for every run, since DuckDB refuses to read files with
 * different Hive keys as one table: the first run records them in
 * DIR/.tracefold-lake ("partition=rank,step\n") and a run with other keys
 * is refused. */
#ifndef TRACEFOLD_LAKE_H
#define TRACEFOLD_LAKE_H

#include <stdbool.h>
#include "err.h"

typedef struct tf_lake tf_lake;

/* Whether name may name a run: 1 to 100 characters, a letter first, then
 * letters, digits, '.', '_' and '-', no "..", and not one DuckDB's Hive
 * parsing reads as a date (inf, infinity, epoch, in any case).  TF_EUSAGE
 * saying why. */
int tf_lake_name_check(const char *name, tf_error *err);

/* Makes the lake folder dir when missing (not its parents), checks that
 * run is not in it (TF_EUSAGE unless replace) and that its partition keys
 * (keys: "rank", "rank,step", "rank,time") are the lake's, and makes the
 * temporary folder.  Nothing in the lake is changed on failure. */
int tf_lake_open(tf_lake **out, const char *dir, const char *run, const char *keys, bool replace, tf_error *err);
/* The folder to write the run's tables into. */
const char *tf_lake_tmp(const tf_lake *l);
/* Moves the run in under the lake's lock (the checks of open made again)
 * and frees l.  On failure the lake is as it was and the temporary folder
 * removed. */
int tf_lake_commit(tf_lake *l, tf_error *err);
/* Removes the temporary folder and frees l (NULL-safe). */
void tf_lake_abort(tf_lake *l);

#endif
