/* SPDX-License-Identifier: MIT */
/*
 * package_dir: where the replication package is built: the target
 * checked, the hidden temporary directory beside it (locked while we
 * build, dead ones swept), and each file opened, registered, synced and
 * hashed, or removed with the rest on an error.
 */
#include "exports/package_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/sha256.h"

char *pkg_join(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

/* Refuse a DIR that exists and is not an empty directory. */
int pkg_check_target(const char *dir, struct err *e)
{
	struct stat sb;
	struct dirent *d;
	DIR *dh;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return err_set(e, ERR_INPUT, "%s exists and is not a "
			       "directory", dir);
	dh = opendir(dir);
	if (!dh)
		return err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dh)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			closedir(dh);
			return err_set(e, ERR_INPUT, "%s is not empty; the "
				       "package needs a new or empty "
				       "directory", dir);
		}
	closedir(dh);
	return 0;
}

/*
 * Leftovers.  The package is built in "PARENT/.bugcoder-pkg.XXXXXX",
 * which the builder holds an exclusive flock() on (on the directory
 * itself) until it is renamed into place.  A builder killed outright
 * (kill -9, a power cut) leaves the directory behind but not the lock:
 * the kernel drops it with the process.  So every run first sweeps
 * PARENT: a ".bugcoder-pkg." directory of ours that nobody holds locked
 * is a dead build, and is removed; one still locked is another run at
 * work, and is left alone.
 */
#define TMP_PREFIX ".bugcoder-pkg."

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* The directory part of `dir` (".", when it has none), owned. */
static char *parent_of(const char *dir)
{
	size_t len = strlen(dir), i, cut = 0;
	int slash = 0;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (i = 0; i < len; i++)
		if (dir[i] == '/') {
			cut = i;
			slash = 1;
		}
	if (!slash)
		return xstrdup(".");
	return cut ? xstrndup(dir, cut) : xstrdup("/");
}

static void sweep_leftovers(const char *parent)
{
	struct dirent *d;
	DIR *dh = opendir(parent);

	if (!dh)
		return;
	while ((d = readdir(dh))) {
		struct stat sb;
		char *path;
		int fd;

		if (strncmp(d->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    strlen(d->d_name) != strlen(TMP_PREFIX) + 6)
			continue;
		path = pkg_join(parent, d->d_name);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    sb.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0)
			nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
		if (fd >= 0)
			close(fd);
		free(path);
	}
	closedir(dh);
}

int pkg_make_tmpdir(struct pkg *p, const char *dir, struct err *e)
{
	char *parent = parent_of(dir);
	sweep_leftovers(parent);
	p->tmp = pkg_join(parent, TMP_PREFIX "XXXXXX");
	free(parent);
	if (!mkdtemp(p->tmp)) {
		err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
		free(p->tmp);
		p->tmp = NULL;
		return -1;
	}
	p->lock_fd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lock_fd < 0 || flock(p->lock_fd, LOCK_EX) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->tmp, strerror(errno));
		rmdir(p->tmp);
		free(p->tmp);
		p->tmp = NULL;
		return -1;
	}
	/* mkdtemp() made it 0700; wider only when asked */
	if (chmod(p->tmp, p->dir_mode) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove what we made in the temporary directory, then it. */
void pkg_remove_tmp(struct pkg *p)
{
	size_t i;

	if (!p->tmp)
		return;
	for (i = 0; i < p->nr; i++) {
		char *f = pkg_join(p->tmp, p->files[i].path);

		unlink(f);
		free(f);
	}
	if (p->has_subdir) {
		char *sub = pkg_join(p->tmp, "codebooks");

		rmdir(sub);
		free(sub);
	}
	if (p->has_figures) {
		char *sub = pkg_join(p->tmp, "figures");

		rmdir(sub);
		free(sub);
	}
	rmdir(p->tmp);
}

void pkg_release(struct pkg *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->files[i].path);
	free(p->files);
	free(p->tmp);
	if (p->lock_fd >= 0)
		close(p->lock_fd);
}

/* Open tmp/name for writing and register it (so it is cleaned up). */
FILE *pkg_open_file(struct pkg *p, const char *name, struct err *e)
{
	char *path = pkg_join(p->tmp, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		      O_NOFOLLOW, 0600);
	FILE *f = NULL;
	struct file *fl;

	/* the mode asked for, whatever the umask */
	if (fd < 0 || fchmod(fd, p->file_mode) < 0 ||
	    !(f = fdopen(fd, "w"))) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	free(path);
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ALLOC_GROW(p->files, p->nr + 1, p->alloc);
	fl = &p->files[p->nr++];
	memset(fl, 0, sizeof(*fl));
	fl->path = xstrdup(name);
	fl->rows = -1;
	return f;
}

/* Flush, sync and close the last registered file; hash it. */
int pkg_close_file(struct pkg *p, FILE *f, int ok, struct err *e)
{
	struct file *fl = &p->files[p->nr - 1];
	char *path = pkg_join(p->tmp, fl->path);
	int bad;

	errno = 0;
	bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0;
	bad |= fclose(f) != 0;
	if (ok && bad)
		err_set(e, ERR_IO, "writing %s: %s", path, errno ?
			strerror(errno) : "write error");
	if (ok && !bad && sha256_file(path, fl->sha, &fl->size, e) < 0)
		bad = 1;
	free(path);
	return ok && !bad ? 0 : -1;
}

int pkg_write_text(struct pkg *p, const char *name, const char *text,
		   size_t len, struct err *e)
{
	FILE *f = pkg_open_file(p, name, e);
	int ok;

	if (!f)
		return -1;
	ok = fwrite(text, 1, len, f) == len;
	if (pkg_close_file(p, f, 1, e) < 0)
		return -1;
	if (!ok)
		return err_set(e, ERR_IO, "writing %s failed", name);
	return 0;
}
