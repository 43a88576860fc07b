/* outdir.c - a folder output written aside and swapped in whole on success
 * (outdir.h).
 *
 * Every walk goes through file descriptors opened with O_NOFOLLOW and
 * looks at entries with fstatat(AT_SYMLINK_NOFOLLOW): a symbolic link
 * inside an output is an entry of its own, never the folder or file it
 * points to, so nothing outside the output is read as part of it or
 * removed.  Removal takes only what the writer's kind claims
 * (tf_dir_kind.ours); the temporary folder, which only tracefold wrote,
 * is removed whole (a link in it is unlinked, its target untouched). */
#define _GNU_SOURCE /* renameat2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracefold/outdir.h"

#define MAX_DEPTH 8      /* deeper than any kind writes: not ours */

struct tf_outdir {
	char *path;          /* as named, for messages */
	char *target;        /* the folder replaced: path, or where its link points */
	char *tmp;           /* written into */
	const tf_dir_kind *kind;
	bool existed;        /* target was a folder when opened */
	bool merge;          /* TF_OUTDIR_FORCE on a folder of other things: tmp is inside target */
	bool joined;         /* another process's tmp: never committed or removed here */
};

static bool is_name(const tf_dir_kind *k, const char *name)
{
	for (const char *const *n = k->names; *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

/* Whether every entry under the folder dfd (whose path under the output is
 * rel) is the kind's; the first that is not goes to bad. */
static bool tree_ours(int dfd, const char *rel, int depth, const tf_dir_kind *k, char *bad, size_t n)
{
	DIR *dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		snprintf(bad, n, "'%.3000s' (%s)", rel, strerror(errno));
		return false;
	}
	bool ok = true;
	for (struct dirent *e; ok && (e = readdir(dir));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name);
		struct stat sb;
		if (fstatat(dirfd(dir), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			ok = false;
		} else if (S_ISDIR(sb.st_mode)) {
			ok = depth < MAX_DEPTH && k->ours(sub, true);
			int fd = ok ? openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : -1;
			if (ok && (fd < 0 || !tree_ours(fd, sub, depth + 1, k, bad, n)))
				return closedir(dir), false;
		} else {
			ok = S_ISREG(sb.st_mode) && k->ours(sub, false);
		}
		if (!ok)
			snprintf(bad, n, "'%.3000s'%s", sub, S_ISLNK(sb.st_mode) ? " (a symbolic link)" : "");
	}
	closedir(dir);
	return ok;
}

/* Whether the top entry name of the folder dfd is the kind's, whole. */
static bool entry_ours(int dfd, const char *name, const tf_dir_kind *k, char *bad, size_t n)
{
	struct stat sb;
	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT;
	bool dir = S_ISDIR(sb.st_mode);
	if ((!dir && !S_ISREG(sb.st_mode)) || !k->ours(name, dir)) {
		snprintf(bad, n, "'%.3000s'%s", name, S_ISLNK(sb.st_mode) ? " (a symbolic link)" : "");
		return false;
	}
	if (!dir)
		return true;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(bad, n, "'%.3000s' (%s)", name, strerror(errno));
		return false;
	}
	return tree_ours(fd, name, 1, k, bad, n);
}

/* Removes what is under the folder dfd (path under the output: rel), then
 * nothing else: only the kind's entries, or everything when k is NULL.
 * The first entry left goes to left; false if any was left. */
static bool rm_under(int dfd, const char *rel, int depth, const tf_dir_kind *k, char *left, size_t n)
{
	DIR *dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return false;
	}
	bool all = true;
	for (struct dirent *e; (e = readdir(dir));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
		struct stat sb;
		bool gone = false;
		if (fstatat(dirfd(dir), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
			bool d = S_ISDIR(sb.st_mode);
			bool mine = !k ? true : (d || S_ISREG(sb.st_mode)) && k->ours(sub, d);
			if (mine && d && depth < MAX_DEPTH) {
				int fd = openat(dirfd(dir), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
				gone = fd >= 0 && rm_under(fd, sub, depth + 1, k, left, n) &&
				       unlinkat(dirfd(dir), e->d_name, AT_REMOVEDIR) == 0;
			} else if (mine && !d) {
				gone = unlinkat(dirfd(dir), e->d_name, 0) == 0;
			}
		}
		if (!gone && all) {
			all = false;
			if (!left[0])
				snprintf(left, n, "%s", sub);
		}
	}
	closedir(dir);
	return all;
}

/* Removes the folder at path (its entries as rm_under); true if it is gone. */
static bool rm_folder(const char *path, const tf_dir_kind *k, char *left, size_t n)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT;
	return rm_under(fd, "", 0, k, left, n) && rmdir(path) == 0;
}

static int fail(tf_error *err, const char *path, const char *fmt, const char *what)
{
	errno = 0; /* the message says it */
	char msg[PATH_MAX + 200];
	snprintf(msg, sizeof(msg), fmt, what);
	return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': %s", path, msg);
}

static void outdir_free(tf_outdir *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->target);
	free(d->tmp);
	free(d);
}

/* Where the folder's entries stand: whether it may be replaced whole
 * (*merge false), only the kind's entries swapped (*merge true, with
 * TF_OUTDIR_FORCE), or not at all (an error). */
static int check_existing(tf_outdir *d, unsigned flags, tf_error *err)
{
	int fd = open(d->target, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", d->path);
	DIR *dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", d->path);
	}
	char bad[PATH_MAX] = "", other[PATH_MAX] = "";
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(dir));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!is_name(d->kind, e->d_name)) {
			if (!other[0])
				snprintf(other, sizeof(other), "%s", e->d_name);
		} else if (!entry_ours(dirfd(dir), e->d_name, d->kind, bad, sizeof(bad))) {
			rc = fail(err, d->path, "it holds %s, which tracefold did not write: it is kept (choose "
				  "another folder)", bad);
		}
	}
	closedir(dir);
	if (!rc && other[0] && !(flags & TF_OUTDIR_FORCE))
		rc = fail(err, d->path, "it holds '%s', which tracefold did not write: it is kept (choose another "
			  "folder, or --force to write beside what is there)", other);
	d->merge = other[0] != 0;
	return rc;
}

int tf_outdir_open(tf_outdir **out, const char *path, const tf_dir_kind *kind, unsigned flags, tf_error *err)
{
	*out = NULL;
	tf_outdir *d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path))) {
		outdir_free(d);
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	d->kind = kind;
	for (size_t n = strlen(d->path); n > 1 && d->path[n - 1] == '/';)
		d->path[--n] = '\0';
	struct stat sb;
	int rc = 0;
	if (lstat(d->path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		d->target = realpath(d->path, NULL); /* the output is where the link points */
		if (!d->target)
			rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': it is a symbolic link to "
					  "nothing", d->path);
	} else {
		d->target = strdup(d->path);
		if (!d->target)
			rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	mode_t mode = 0;
	if (!rc && stat(d->target, &sb) == 0) {
		mode = sb.st_mode;
		if (!S_ISDIR(sb.st_mode))
			rc = fail(err, d->path, "it is a file, not a folder%s", "");
		else if (!(rc = check_existing(d, flags, err)))
			d->existed = true;
	} else if (!rc && errno != ENOENT) {
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", d->path);
	}
	if (!rc) {
		const char *slash = strrchr(d->target, '/');
		size_t n = strlen(d->target) + 32;
		if (!(d->tmp = malloc(n)))
			rc = tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
		else if (d->merge)
			snprintf(d->tmp, n, "%s/.tracefold.XXXXXX", d->target);
		else
			snprintf(d->tmp, n, "%.*s.%s.XXXXXX", slash ? (int)(slash - d->target + 1) : 0, d->target,
				 slash ? slash + 1 : d->target);
		if (!rc && !mkdtemp(d->tmp)) {
			free(d->tmp);
			d->tmp = NULL;
			rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': cannot make a temporary "
					  "folder beside it", d->path);
		}
		if (!rc && !d->merge) { /* the folder it replaces keeps its mode; a new one what mkdir gives */
			mode_t um = umask(0);
			umask(um);
			(void)chmod(d->tmp, d->existed ? mode & 07777 : 0777 & ~um);
		}
	}
	if (rc) {
		outdir_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int tf_outdir_join(tf_outdir **out, const char *path, const char *tmp, tf_error *err)
{
	tf_outdir *d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path)) || !(d->tmp = strdup(tmp))) {
		outdir_free(d);
		*out = NULL;
		return tf_error_set(err, TF_ENOMEM, NULL, -1, -1, "out of memory");
	}
	d->joined = true;
	*out = d;
	return 0;
}

const char *tf_outdir_tmp(const tf_outdir *d) { return d->tmp; }

/* from into to's place in one step, to's old entry then at from; false
 * with errno when the file system cannot (EINVAL, ENOSYS). */
static bool exchange(const char *from, const char *to)
{
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0;
}

/* from replaces the existing to; to's old entry is left at *old (a new
 * name beside to when the file system cannot exchange, else from). */
static bool swap_in(const char *from, const char *to, char **old)
{
	*old = NULL;
	if (exchange(from, to)) {
		*old = strdup(from); /* NULL (no memory): the old one stays there, named in no note */
		return true;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return false;
	size_t n = strlen(to) + 32;
	char *aside = malloc(n);
	if (!aside)
		return false;
	const char *slash = strrchr(to, '/');
	snprintf(aside, n, "%.*s.%s.old.XXXXXX", slash ? (int)(slash - to + 1) : 0, to, slash ? slash + 1 : to);
	int fd = mkstemp(aside); /* a free name, taken by the rename below */
	if (fd < 0 || (close(fd), unlink(aside), rename(to, aside) != 0)) {
		free(aside);
		return false;
	}
	if (rename(from, to) != 0) {
		int e = errno;
		rename(aside, to);
		free(aside);
		errno = e;
		return false;
	}
	*old = aside;
	return true;
}

/* TF_OUTDIR_FORCE into a folder of other things: each entry written
 * replaces the kind's entry of that name; the kind's entries this run did
 * not write go into tmp, removed with it. */
static int commit_merge(tf_outdir *d, tf_error *err)
{
	char from[PATH_MAX], to[PATH_MAX];
	for (const char *const *nm = d->kind->names; *nm; nm++) {
		snprintf(from, sizeof(from), "%s/%s", d->tmp, *nm);
		snprintf(to, sizeof(to), "%s/%s", d->target, *nm);
		struct stat sb;
		bool have_new = lstat(from, &sb) == 0, have_old = lstat(to, &sb) == 0;
		bool ok = true;
		if (have_new && have_old) {
			char *old = NULL;
			ok = swap_in(from, to, &old);
			if (ok && old && strcmp(old, from) && rename(old, from) != 0)
				ok = false;
			free(old);
		} else if (have_new) {
			ok = rename(from, to) == 0;
		} else if (have_old) {
			ok = rename(to, from) == 0;
		}
		if (!ok)
			return tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s': cannot move '%s' in", d->path,
					    *nm);
	}
	return 0;
}

int tf_outdir_commit(tf_outdir *d, char *note, size_t note_len, tf_error *err)
{
	if (note && note_len)
		note[0] = '\0';
	if (!d || d->joined) {
		outdir_free(d);
		return 0;
	}
	char left[PATH_MAX] = "";
	int rc = 0;
	char *old = NULL;
	if (d->merge) {
		rc = commit_merge(d, err);
		if (!rc && !rm_folder(d->tmp, d->kind, left, sizeof(left)) && note)
			snprintf(note, note_len, "'%s' (from the earlier output at '%s') was left: %s", d->tmp, d->path,
				 left[0] ? left : "it could not be removed");
	} else if (!d->existed) {
		/* a new folder; one that appeared since it was checked is not replaced */
		if (rename(d->tmp, d->target) != 0)
			rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", d->path);
	} else if (!swap_in(d->tmp, d->target, &old)) {
		rc = tf_error_set(err, TF_EIO, NULL, -1, -1, "cannot write '%s'", d->path);
	} else if (old && !rm_folder(old, d->kind, left, sizeof(left)) && note) {
		snprintf(note, note_len, "the earlier output, moved to '%s', was not removed in full: it holds '%s', "
			 "which tracefold did not write", old, left[0] ? left : "?");
	}
	free(old);
	if (rc)
		tf_outdir_abort(d);
	else
		outdir_free(d);
	return rc;
}

void tf_outdir_abort(tf_outdir *d)
{
	if (!d)
		return;
	if (!d->joined && d->tmp) {
		char left[PATH_MAX] = "";
		rm_folder(d->tmp, NULL, left, sizeof(left));
	}
	outdir_free(d);
}
