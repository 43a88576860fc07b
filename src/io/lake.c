/* lake.c - a store of runs: one run's tables moved into the lake under its
 * lock (lake.h).  Only what this file made is ever removed: the run's
 * temporary folder (with the old run's tables swapped into it by a
 * replace); a link in the lake is never followed (the run folders are
 * looked at with AT_SYMLINK_NOFOLLOW, the temporary folder removed with
 * nftw FTW_PHYS). */
#define _GNU_SOURCE /* renameat2 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracefold/lake.h"

#define MAX_TABLES 32
#define KEYS_FILE ".tracefold-lake"
#define LOCK_FILE ".tracefold.lock"

struct tf_lake {
	char *dir, *run, *keys, *tmp;
	bool replace;
	bool made;           /* the lake folder was made by this run: removed if it fails (when empty) */
};

int tf_lake_name_check(const char *s, tf_error *err)
{
	size_t n = strlen(s);
	const char *why = NULL;
	if (!n)
		why = "it is empty";
	else if (n > 100)
		why = "it is longer than 100 characters";
	else if (!isalpha((unsigned char)s[0]) || (unsigned char)s[0] >= 0x80)
		why = "it does not start with a letter";
	else if (strstr(s, ".."))
		why = "it holds '..'";
	else if (!strcasecmp(s, "inf") || !strcasecmp(s, "infinity") || !strcasecmp(s, "epoch"))
		why = "DuckDB reads it as a date in a Hive folder name";
	else if (!strcasecmp(s, "null"))
		why = "DuckDB reads it as NULL in a Hive folder name";
	for (size_t i = 0; !why && i < n; i++)
		if ((unsigned char)s[i] >= 0x80 || !(isalnum((unsigned char)s[i]) || strchr("._-", s[i])))
			why = "it holds a character other than a letter, a digit, '.', '_' or '-'";
	if (why)
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "--run '%.200s' is not a run name: %s (a run name is "
				    "a letter, then letters, digits, '.', '_' or '-'; docs/schema.md)", s, why);
	return 0;
}

static void lake_free(tf_lake *l)
{
	if (!l)
		return;
	free(l->dir);
	free(l->run);
	free(l->keys);
	free(l->tmp);
	free(l);
}

/* Which table of the lake already holds run: its name into which, or
 * false.  Hidden entries (ours: '.') are not tables. */
static bool run_in(const char *dir, const char *run, char *which, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *e; !found && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char p[PATH_MAX];
		struct stat sb;
		snprintf(p, sizeof(p), "%s/run=%s", e->d_name, run);
		if (fstatat(dirfd(d), p, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			found = true;
			snprintf(which, n, "%s", e->d_name);
		}
	}
	closedir(d);
	return found;
}

/* The lake's partition keys (KEYS_FILE) into keys; false when it has none
 * yet. */
static bool lake_keys(const char *dir, char *keys, size_t n)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/" KEYS_FILE, dir);
	FILE *f = fopen(p, "r");
	if (!f)
		return false;
	char line[256] = "";
	bool ok = fgets(line, sizeof(line), f) && !strncmp(line, "partition=", 10);
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(keys, n, "%s", ok ? line + 10 : "?");
	return true;
}

/* The checks of open and commit: the run not there (or replace), the keys
 * the lake's. */
static int check(const tf_lake *l, tf_error *err)
{
	char which[NAME_MAX + 1], keys[256];
	if (!l->replace && run_in(l->dir, l->run, which, sizeof(which)))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "the lake '%s' already has a run '%s' ('%s/run=%s'): "
				    "choose another name, or --replace to replace it", l->dir, l->run, which, l->run);
	if (lake_keys(l->dir, keys, sizeof(keys)) && strcmp(keys, l->keys))
		return tf_error_set(err, TF_EUSAGE, NULL, -1, -1, "the lake '%s' is partitioned by %s, and this run by "
				    "%s: DuckDB reads the files of one table only when their Hive keys are the same "
				    "(--partition %s, or another lake)", l->dir, keys, l->keys, keys);
	return 0;
}

int tf_lake_open(tf_lake **out, const char *dir, const char *run, const char *keys, bool replace, tf_error *err)
{
	*out = NULL;
	TF_TRY(tf_lake_name_check(run, err));
	tf_lake *l = calloc(1, sizeof(*l));
	size_t n = strlen(dir) + 32;
	if (!l || !(l->dir = strdup(dir)) || !(l->run = strdup(run)) || !(l->keys = strdup(keys)) ||
	    !(l->tmp = malloc(n))) {
		lake_free(l);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	l->replace = replace;
	for (size_t k = strlen(l->dir); k > 1 && l->dir[k - 1] == '/';)
		l->dir[--k] = '\0';
	struct stat sb;
	int rc = 0;
	if (mkdir(l->dir, 0777) == 0)
		l->made = true;
	else if (errno != EEXIST)
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': %s", l->dir, strerror(errno));
	else if (stat(l->dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': it is not a folder", l->dir);
	if (!rc)
		rc = check(l, err);
	snprintf(l->tmp, n, "%s/.tracefold-run.XXXXXX", l->dir);
	if (!rc && !mkdtemp(l->tmp))
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': cannot make a temporary "
				  "folder in it: %s", l->dir, strerror(errno));
	if (rc) {
		tf_lake_abort(l);
		return rc;
	}
	*out = l;
	return 0;
}

const char *tf_lake_tmp(const tf_lake *l) { return l->tmp; }

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(p);
	return 0;
}

static void rm_tree(const char *p)
{
	nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* One rename of the commit, to undo it: the table's new folder moved in
 * (MOVED), exchanged with the old one (SWAPPED, the old at tmp/NAME), the
 * old renamed aside to tmp/.old-NAME first (ASIDE), or the old one of a
 * table the new run lacks moved out to tmp/.old-NAME (OUT). */
enum { MOVED, SWAPPED, ASIDE, OUT };
typedef struct step {
	char name[NAME_MAX + 1];
	int how;
	bool made;             /* the table's folder LAKE/NAME made by this commit */
} step;

static void paths(const tf_lake *l, const char *name, char *tmp, char *dst, char *old, size_t n)
{
	snprintf(tmp, n, "%.3500s/%.255s", l->tmp, name);
	snprintf(dst, n, "%.3500s/%.255s/run=%.100s", l->dir, name, l->run);
	snprintf(old, n, "%.3500s/.old-%.255s", l->tmp, name);
}

static void undo(const tf_lake *l, const step *s, int n)
{
	char tmp[PATH_MAX], dst[PATH_MAX], old[PATH_MAX];
	for (int i = n - 1; i >= 0; i--) {
		paths(l, s[i].name, tmp, dst, old, sizeof(tmp));
		if (s[i].how == SWAPPED)
			renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_EXCHANGE);
		else if (s[i].how == MOVED)
			rename(dst, tmp);
		else if (s[i].how == ASIDE && rename(dst, tmp) == 0)
			rename(old, dst);
		else if (s[i].how == OUT)
			rename(old, dst);
		if (s[i].made) { /* the table's folder this commit made: empty again */
			snprintf(dst, sizeof(dst), "%.3500s/%.255s", l->dir, s[i].name);
			rmdir(dst);
		}
	}
}

/* The new run's table name in place: moved, or swapped with the old. */
static bool put(const tf_lake *l, const char *name, step *s)
{
	char tmp[PATH_MAX], dst[PATH_MAX], old[PATH_MAX], top[PATH_MAX];
	paths(l, name, tmp, dst, old, sizeof(tmp));
	snprintf(top, sizeof(top), "%.3500s/%.255s", l->dir, name);
	snprintf(s->name, sizeof(s->name), "%.255s", name);
	s->made = false;
	s->how = -1;
	struct stat sb;
	if (mkdir(top, 0777) == 0)
		s->made = true;
	else if (errno != EEXIST)
		return false;
	/* a table's folder is a folder of the lake: never a link out of it */
	if (lstat(top, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		errno = ENOTDIR;
		return false;
	}
	if (lstat(dst, &sb) != 0) {
		s->how = MOVED;
		return rename(tmp, dst) == 0;
	}
	s->how = SWAPPED;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_EXCHANGE) == 0)
		return true;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return false;
	s->how = ASIDE; /* no exchange on this file system: the old one aside first */
	if (rename(dst, old) != 0)
		return false;
	if (rename(tmp, dst) == 0)
		return true;
	rename(old, dst);
	return false;
}

static int by_name_runs_last(const void *x, const void *y)
{
	const char *a = x, *b = y;
	bool ra = !strcmp(a, "runs"), rb = !strcmp(b, "runs");
	return ra != rb ? ra - rb : strcmp(a, b);
}

/* The names of the top folders of path (not hidden), runs last. */
static int list_tables(const char *path, char (*names)[NAME_MAX + 1], int max)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat sb;
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(sb.st_mode))
			continue;
		if (n == max) {
			closedir(d);
			return -1;
		}
		snprintf(names[n++], NAME_MAX + 1, "%s", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, NAME_MAX + 1, by_name_runs_last);
	return n;
}

/* The lake's keys recorded by its first run (aside, then renamed). */
static bool write_keys(const tf_lake *l, bool *made)
{
	char keys[256], p[PATH_MAX], t[PATH_MAX];
	*made = false;
	if (lake_keys(l->dir, keys, sizeof(keys)))
		return true;
	snprintf(p, sizeof(p), "%s/" KEYS_FILE, l->dir);
	snprintf(t, sizeof(t), "%s/keys", l->tmp);
	FILE *f = fopen(t, "w");
	if (!f)
		return false;
	bool ok = fprintf(f, "partition=%s\n", l->keys) > 0;
	ok = fclose(f) == 0 && ok && rename(t, p) == 0;
	*made = ok;
	return ok;
}

/* The moves of the commit, under the lock; undone on failure. */
static int move_in(tf_lake *l, tf_error *err)
{
	char names[MAX_TABLES][NAME_MAX + 1], olds[MAX_TABLES][NAME_MAX + 1];
	step steps[2 * MAX_TABLES];
	int n = list_tables(l->tmp, names, MAX_TABLES), nold = 0, done = 0;
	if (n <= 0)
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': the run's tables are not "
				    "in '%s'", l->dir, l->tmp);
	if (l->replace && (nold = list_tables(l->dir, olds, MAX_TABLES)) < 0)
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': it has more than %d folders, "
				    "whose run '%s' --replace could not all replace; the lake is as it was", l->dir,
				    MAX_TABLES, l->run);
	bool made = false, ok = write_keys(l, &made);
	/* a replaced run's tables the new one has not: out of the lake first */
	for (int i = 0; ok && i < nold; i++) {
		char tmp[PATH_MAX], dst[PATH_MAX], old[PATH_MAX];
		struct stat sb;
		bool have = bsearch(olds[i], names, (size_t)n, NAME_MAX + 1, by_name_runs_last) != NULL;
		paths(l, olds[i], tmp, dst, old, sizeof(tmp));
		if (have || lstat(dst, &sb) != 0)
			continue;
		steps[done] = (step){ "", OUT, false };
		snprintf(steps[done].name, sizeof(steps[done].name), "%s", olds[i]);
		if (!(ok = rename(dst, old) == 0))
			break;
		done++;
	}
	for (int i = 0; ok && i < n; i++) {
		ok = put(l, names[i], &steps[done]);
		if (!ok && steps[done].made)
			steps[done].how = -1; /* nothing moved: only its folder to remove */
		if (ok || steps[done].made)
			done++;
	}
	if (ok)
		return 0;
	int e = errno;
	undo(l, steps, done);
	if (made) {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/" KEYS_FILE, l->dir);
		unlink(p);
	}
	errno = 0; /* said in the message */
	return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': cannot move the run '%s' in (%s); "
			    "the lake is as it was", l->dir, l->run, strerror(e));
}

int tf_lake_commit(tf_lake *l, tf_error *err)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/" LOCK_FILE, l->dir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	int rc = 0;
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write the lake '%s': cannot lock '%s': %s", l->dir,
				  p, strerror(errno));
	if (!rc)
		rc = check(l, err); /* another run may have come in since open */
	if (!rc)
		rc = move_in(l, err);
	rm_tree(l->tmp); /* what is left: the old run's tables, or on failure the new */
	if (fd >= 0)
		close(fd); /* the lock */
	lake_free(l);
	return rc;
}

void tf_lake_abort(tf_lake *l)
{
	if (!l)
		return;
	if (l->tmp && l->tmp[0] && access(l->tmp, F_OK) == 0)
		rm_tree(l->tmp);
	if (l->made)
		rmdir(l->dir); /* only when empty: a lake this run made */
	lake_free(l);
}
