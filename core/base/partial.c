/* SPDX-License-Identifier: MIT */
/*
 * partial: see partial.h.
 *
 * Limitations: the lock is flock(), which on NFS is emulated with fcntl()
 * locks; a temporary made on another machine is then still seen as held
 * while its writer lives.  A temporary whose name is longer than the
 * file system allows (a target name of more than about 230 bytes) cannot
 * be made.
 */
#define _GNU_SOURCE		/* renameat2, RENAME_NOREPLACE, mkostemp */
#include "core/base/partial.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"

#define TAG ".bugcoder-tmp-"
#define TAG_LEN (sizeof(TAG) - 1)
#define RAND_LEN 6

static const char *const sides[] = { "-journal", "-wal", "-shm" };
#define NR_SIDES (sizeof(sides) / sizeof(sides[0]))

/* The directory of `path` as a name that is never a URI ("./..." when
 * relative), and its last part; both owned. */
static void split_path(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');
	struct buf d = BUF_INIT;

	if (!slash) {
		buf_addstr(&d, ".");
		*base = xstrdup(path);
	} else {
		if (path[0] != '/')
			buf_addstr(&d, "./");
		if (slash == path)
			buf_addstr(&d, "/");
		else
			buf_add(&d, path, (size_t)(slash - path));
		*base = xstrdup(slash + 1);
	}
	*dir = buf_detach(&d, NULL);
}

/* Is `name` a temporary of ours: ".NAME" TAG and RAND_LEN characters,
 * followed by `side` ("" for the temporary itself)?  Its length without
 * the side into *stem. */
static int ours(const char *name, const char *side, size_t *stem)
{
	size_t n = strlen(name), sl = strlen(side);
	const char *tag;

	if (name[0] != '.' || n < 1 + TAG_LEN + RAND_LEN + sl ||
	    strcmp(name + n - sl, side))
		return 0;
	n -= sl;
	tag = name + n - RAND_LEN - TAG_LEN;
	if (tag <= name + 1 || memcmp(tag, TAG, TAG_LEN))
		return 0;
	*stem = n;
	return 1;
}

/* Remove tmp's side files; how many there were. */
static int unlink_sides(const char *tmp)
{
	struct buf b = BUF_INIT;
	size_t i;
	int gone = 0;

	for (i = 0; i < NR_SIDES; i++) {
		buf_reset(&b);
		buf_addf(&b, "%s%s", tmp, sides[i]);
		gone += unlink(b.ptr) == 0;
	}
	buf_release(&b);
	return gone;
}

/* Is the file `fd` a regular file of the user's that nobody holds? */
static int left_over(int fd)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid())
		return 0;
	return flock(fd, LOCK_EX | LOCK_NB) == 0;
}

int partial_clean(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct buf b = BUF_INIT;
	int gone = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t stem, i;
		int fd;

		buf_reset(&b);
		buf_addf(&b, "%s/%s", dir, de->d_name);
		if (ours(de->d_name, "", &stem)) {
			fd = open(b.ptr, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
				  O_NONBLOCK);
			if (fd < 0)
				continue;
			if (left_over(fd)) {
				gone += unlink_sides(b.ptr);
				gone += unlink(b.ptr) == 0;
			}
			close(fd);
			continue;
		}
		for (i = 0; i < NR_SIDES; i++) {
			struct stat sb;

			if (!ours(de->d_name, sides[i], &stem))
				continue;
			/* a side file outlives its temporary only when the
			 * writer was killed between the two unlinks */
			buf_setlen(&b, b.len - strlen(sides[i]));
			if (lstat(b.ptr, &sb) < 0 && errno == ENOENT) {
				buf_addstr(&b, sides[i]);
				if (lstat(b.ptr, &sb) == 0 &&
				    S_ISREG(sb.st_mode) &&
				    sb.st_uid == geteuid())
					gone += unlink(b.ptr) == 0;
			}
			break;
		}
	}
	closedir(d);
	buf_release(&b);
	return gone;
}

static void release(struct partial *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->path);
	free(p->tmp);
	p->path = p->tmp = NULL;
	p->fd = -1;
}

int partial_open(struct partial *p, const char *path, struct err *e)
{
	char *dir, *base;
	struct buf b = BUF_INIT;
	struct stat sb;
	int ret = -1;

	p->path = p->tmp = NULL;
	p->fd = -1;
	split_path(path, &dir, &base);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		err_set(e, ERR_IO, "%s: not a file name", path);
		goto out;
	}
	if (lstat(path, &sb) == 0) {
		err_set(e, ERR_IO, "%s: already exists; name a new file", path);
		goto out;
	}
	if (errno != ENOENT) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	partial_clean(dir);
	buf_addf(&b, "%s/.%s" TAG "XXXXXX", dir, base);
	p->fd = mkostemp(b.ptr, O_CLOEXEC);
	if (p->fd < 0) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* nobody else has it yet: this cannot wait */
	if (flock(p->fd, LOCK_EX | LOCK_NB) < 0) {
		err_set(e, ERR_IO, "%s: %s", b.ptr, strerror(errno));
		unlink(b.ptr);
		close(p->fd);
		p->fd = -1;
		goto out;
	}
	p->path = xstrdup(path);
	p->tmp = buf_detach(&b, NULL);
	ret = 0;
out:
	buf_release(&b);
	free(dir);
	free(base);
	return ret;
}

void partial_abort(struct partial *p)
{
	if (!p || !p->tmp) {
		if (p)
			release(p);
		return;
	}
	unlink_sides(p->tmp);
	unlink(p->tmp);
	release(p);
}

/* rename(from, to) that never replaces `to`: 0, or -1 with errno. */
static int rename_new(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a file system without it: a link cannot replace either */
	if (link(from, to) < 0)
		return -1;
	unlink(from);
	return 0;
}

int partial_publish(struct partial *p, struct err *e)
{
	char *dir, *base;
	int fd;

	if (fsync(p->fd) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->path, strerror(errno));
		partial_abort(p);
		return -1;
	}
	if (rename_new(p->tmp, p->path) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->path, errno == EEXIST ?
			"already exists; name a new file" : strerror(errno));
		partial_abort(p);
		return -1;
	}
	/* the new name survives a crash once the directory is synced (a
	 * file system that cannot sync one is no error) */
	split_path(p->path, &dir, &base);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
	free(base);
	release(p);
	return 0;
}
