/* SPDX-License-Identifier: MIT */
/*
 * atomic: see atomic.h.
 */
#define _GNU_SOURCE		/* O_TMPFILE */
#include "exports/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"

/* The directory part of `path` ("." when it has none), owned. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void release(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	else if (af->fd >= 0)
		close(af->fd);
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	af->f = NULL;
	af->fd = -1;
	af->anon = 0;
	af->direct = 0;
}

/* A target that must not be renamed over: 1 after opening a character
 * device or a FIFO to write into it, -1 (`e` filled) for what cannot be
 * written, 0 for a regular file, a symbolic link to one, or nothing. */
static int open_special(struct atomic_file *af, const char *path,
			struct err *e)
{
	struct stat sb;

	if (stat(path, &sb) < 0 || S_ISREG(sb.st_mode))
		return 0;
	if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
		af->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (af->fd < 0)
			return err_set(e, ERR_IO, "%s: %s", path,
				       strerror(errno));
		af->direct = 1;
		return 1;
	}
	return err_set(e, ERR_IO, "%s: %s, not a file: name a file to write",
		       path, S_ISDIR(sb.st_mode) ? "a directory" :
		       S_ISBLK(sb.st_mode) ? "a block device" :
		       "something other than a file");
}

mode_t output_dir_mode(mode_t mode)
{
	return (mode & 0666) | ((mode & 0444) >> 2) | 0700;
}

int atomic_open(struct atomic_file *af, const char *path, struct err *e)
{
	return atomic_open_mode(af, path, OUTPUT_MODE, e);
}

int atomic_open_mode(struct atomic_file *af, const char *path, mode_t mode,
		     struct err *e)
{
	char *dir = dir_of(path);
	const char *base = base_of(path);
	int ret = -1;

	af->path = xstrdup(path);
	af->tmp = NULL;
	af->f = NULL;
	af->anon = 0;
	af->direct = 0;
	af->fd = -1;
	switch (open_special(af, path, e)) {
	case 1:
		goto stream;
	case -1:
		goto out;
	}
	if (!*base) {
		err_set(e, ERR_IO, "%s: not a file name", path);
		goto out;
	}
#ifdef O_TMPFILE
	af->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (af->fd >= 0) {
		if (access("/proc/self/fd", X_OK) == 0) {
			af->anon = 1;
		} else {
			close(af->fd);
			af->fd = -1;
		}
	}
#else
	af->fd = -1;
#endif
	if (af->fd < 0) {
		struct buf t = BUF_INIT;

		buf_addf(&t, "%s/.%s.XXXXXX", dir, base);
		af->tmp = buf_detach(&t, NULL);
		af->fd = mkstemp(af->tmp);
		if (af->fd < 0) {
			err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
			free(af->tmp);
			af->tmp = NULL;
			goto out;
		}
	}
	/* the mode asked for, whatever the umask */
	if (fchmod(af->fd, mode & 0666) < 0) {
		err_set(e, ERR_IO, "%s: %s", af->tmp ? af->tmp : path,
			strerror(errno));
		goto out;
	}
stream:
	af->f = fdopen(af->fd, "w");
	if (!af->f) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	setvbuf(af->f, NULL, _IOFBF, 1 << 16);
	ret = 0;
out:
	if (ret < 0)
		atomic_abort(af);
	free(dir);
	return ret;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->tmp)
		unlink(af->tmp);
	release(af);
}

int atomic_sync_dir(const char *dir, struct err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret = 0;

	/* file systems that cannot sync a directory say EINVAL: fine */
	if (fd < 0 || (fsync(fd) < 0 && errno != EINVAL && errno != EROFS))
		ret = err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

int atomic_sync_parent(const char *path, struct err *e)
{
	char *dir = dir_of(path);
	int ret = atomic_sync_dir(dir, e);

	free(dir);
	return ret;
}

/* Give the unnamed temporary a hidden name next to the target. */
static int link_anon(struct atomic_file *af, struct err *e)
{
	char *dir = dir_of(af->path);
	char proc[64];
	int i, ret = -1;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", af->fd);
	for (i = 0; i < 100; i++) {
		struct buf t = BUF_INIT;

		buf_addf(&t, "%s/.%s.%ld.%d.tmp", dir, base_of(af->path),
			 (long)getpid(), i);
		af->tmp = buf_detach(&t, NULL);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp,
			   AT_SYMLINK_FOLLOW) == 0) {
			ret = 0;
			break;
		}
		free(af->tmp);
		af->tmp = NULL;
		if (errno != EEXIST) {
			err_set(e, ERR_IO, "%s: %s", af->path,
				strerror(errno));
			break;
		}
	}
	if (ret < 0 && i == 100)
		err_set(e, ERR_IO, "%s: no free temporary name", af->path);
	free(dir);
	return ret;
}

int atomic_commit(struct atomic_file *af, struct err *e)
{
	int bad;

	if (!af->f)
		return err_set(e, ERR_IO, "%s: not open", af->path ?
			       af->path : "file");
	errno = 0;
	bad = fflush(af->f) != 0 || ferror(af->f);
	if (af->direct) {
		/* a device or a pipe: nothing to rename, nothing to sync */
		if (fclose(af->f) != 0)
			bad = 1;
		af->f = NULL;
		af->fd = -1;
		if (bad)
			err_set(e, ERR_IO, "writing %s: %s", af->path,
				errno ? strerror(errno) : "write error");
		release(af);
		return bad ? -1 : 0;
	}
	if (bad || fsync(af->fd) < 0) {
		err_set(e, ERR_IO, "writing %s: %s", af->path,
			errno ? strerror(errno) : "write error");
		goto fail;
	}
	if (af->anon && link_anon(af, e) < 0)
		goto fail;
	bad = fclose(af->f) != 0;
	af->f = NULL;
	af->fd = -1;
	if (bad) {
		err_set(e, ERR_IO, "writing %s: %s", af->path,
			strerror(errno));
		goto fail;
	}
	if (rename(af->tmp, af->path) < 0) {
		err_set(e, ERR_IO, "%s: %s", af->path, strerror(errno));
		goto fail;
	}
	free(af->tmp);
	af->tmp = NULL;
	if (atomic_sync_parent(af->path, e) < 0) {
		release(af);
		return -1;
	}
	release(af);
	return 0;
fail:
	atomic_abort(af);
	return -1;
}
