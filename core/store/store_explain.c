/* SPDX-License-Identifier: MIT */
/*
 * store_explain: why a study cannot be opened, created or written, in
 * words: the file, the operation, the permission missing, the file's
 * mode and owners and who is asking; what is at a path init will not
 * create a study on.  For store_open() and the statements (store.c).
 */
#include "core/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/store/store_int.h"
#include "core/store/vfs.h"

/*
 * Permission problems name the file, the operation and the permission
 * that is missing, with the file's mode and owners and who is asking
 * ("unable to open database file" says none of it).  Permissions are
 * checked with the effective ids, as the kernel checks them (a setgid
 * install opens studies through its group).
 */
static void describe_owner(const char *path, struct buf *out)
{
	struct stat sb;
	struct passwd *pw;
	struct group *gr;
	char mode[10];
	int i;

	if (stat(path, &sb) < 0)
		return;
	for (i = 0; i < 9; i++)
		mode[i] = (sb.st_mode & (0400 >> i)) ? "rwx"[i % 3] : '-';
	mode[9] = '\0';
	pw = getpwuid(sb.st_uid);
	if (pw)
		buf_addf(out, "%s %s", mode, pw->pw_name);
	else
		buf_addf(out, "%s %lu", mode, (unsigned long)sb.st_uid);
	gr = getgrgid(sb.st_gid);
	if (gr)
		buf_addf(out, ":%s", gr->gr_name);
	else
		buf_addf(out, ":%lu", (unsigned long)sb.st_gid);
	pw = getpwuid(geteuid());
	if (pw)
		buf_addf(out, "; you are %s", pw->pw_name);
}

/* Where the file system holding `path` (which exists) is mounted: the
 * longest mount point of /proc/self/mountinfo above its real path (a
 * bind mount shares its device with what it shows, so devices cannot
 * tell); `path` itself when that cannot be read. */
static void mount_point(const char *path, struct buf *out)
{
	char *real = realpath(path, NULL), *line = NULL;
	struct buf best = BUF_INIT, mp = BUF_INIT;
	size_t cap = 0;
	FILE *f = real ? fopen("/proc/self/mountinfo", "re") : NULL;

	while (f && getline(&line, &cap, f) > 0) {
		const char *p = line;
		int field;

		/* the 5th field, with spaces and the like as \ooo */
		for (field = 1; field < 5 && p; field++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (!p)
			continue;
		buf_reset(&mp);
		for (; *p && *p != ' ' && *p != '\n'; p++) {
			if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' &&
			    p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
			    p[3] <= '7') {
				buf_addch(&mp, (p[1] - '0') << 6 |
					  (p[2] - '0') << 3 | (p[3] - '0'));
				p += 3;
			} else {
				buf_addch(&mp, *p);
			}
		}
		if (mp.len >= best.len &&
		    !strncmp(real, mp.ptr, mp.len) &&
		    (mp.len == 1 || real[mp.len] == '/' || !real[mp.len]))
			buf_set(&best, mp.ptr);
	}
	if (f)
		fclose(f);
	buf_addstr(out, best.len ? best.ptr : path);
	free(line);
	free(real);
	buf_release(&best);
	buf_release(&mp);
}

int store_perm_error(struct err *e, const char *path, const char *op,
		     const char *perm)
{
	struct buf b = BUF_INIT;
	struct statvfs vfs;

	/* no permission would help: the file system takes no writes */
	if (strstr(perm, "write") && statvfs(path, &vfs) == 0 &&
	    (vfs.f_flag & ST_RDONLY)) {
		mount_point(path, &b);
		err_set(e, ERR_IO, "%s: cannot %s: the file system is mounted "
			"read-only (at %s); copy the study to a writable place, "
			"or ask for the mount to be made writable", path, op,
			b.ptr);
		buf_release(&b);
		return -1;
	}
	describe_owner(path, &b);
	err_set(e, ERR_PERM, "%s: cannot %s: no %s permission (%s)", path, op,
		perm, b.ptr);
	buf_release(&b);
	return -1;
}

int store_can(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0;
}

/* The directory a study is in, owned. */
char *store_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* When opening or writing `path` failed: the permission that is
 * missing, if one is; 0 when permissions do not explain it. */
int store_explain_access(const char *path, int write, struct err *e)
{
	struct buf side = BUF_INIT;
	char *dir = store_dir_of(path);
	int ret = 0;
	const char *sfx[] = { "-wal", "-shm" };
	size_t i;

	if (!store_can(dir, X_OK)) {
		buf_addf(&side, "reach %s in it", path);
		ret = store_perm_error(e, dir, side.ptr, "search (x)");
		goto out;
	}
	if (!store_can(path, R_OK)) {
		ret = store_perm_error(e, path, "read the study", "read");
		goto out;
	}
	if (write && !store_can(path, W_OK)) {
		ret = store_perm_error(e, path, "write the study", "write");
		goto out;
	}
	/* WAL mode keeps two files next to the study */
	for (i = 0; i < 2; i++) {
		buf_reset(&side);
		buf_addf(&side, "%s%s", path, sfx[i]);
		if (access(side.ptr, F_OK) == 0) {
			if (!store_can(side.ptr, R_OK | W_OK)) {
				ret = store_perm_error(e, side.ptr,
						       "open the study's "
						       "journal",
						       "read and write");
				goto out;
			}
		} else if (!store_can(dir, W_OK)) {
			struct buf op = BUF_INIT;

			buf_addf(&op, "create %s (the study's journal) in it",
				 side.ptr);
			ret = store_perm_error(e, dir, op.ptr, "write");
			buf_release(&op);
			goto out;
		}
	}
out:
	buf_release(&side);
	free(dir);
	return ret;
}

/* What is at `path`, for init, which will not create a study there. */
void store_what_is_there(const char *path, struct buf *out)
{
	unsigned char head[100];
	struct stat sb;
	ssize_t n;
	int fd;

	if (stat(path, &sb) < 0) {
		buf_addf(out, "%s", strerror(errno));
		return;
	}
	if (S_ISDIR(sb.st_mode)) {
		buf_addf(out, "it is a directory (name a study file in it, "
			 "e.g. --study %s/bugcoder.db)", path);
		return;
	}
	if (!S_ISREG(sb.st_mode)) {
		buf_addstr(out, "something other than a file is there");
		return;
	}
	if (!sb.st_size) {
		buf_addstr(out, "an empty file is there (remove it first, if "
			   "it is yours to remove)");
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, head, sizeof(head));
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		buf_addf(out, "a file you may not read is there (%s)",
			 strerror(errno));
		return;
	}
	if (n == (ssize_t)sizeof(head) &&
	    !memcmp(head, "SQLite format 3", 16)) {
		/* PRAGMA user_version: a big-endian word at offset 60 */
		unsigned long v = (unsigned long)head[60] << 24 |
				  (unsigned long)head[61] << 16 |
				  (unsigned long)head[62] << 8 | head[63];

		if (v)
			buf_addstr(out, "a bugcoder study is there already "
				   "(open it with --study, or choose another "
				   "name)");
		else
			buf_addstr(out, "an SQLite database that is not a "
				   "bugcoder study is there");
		return;
	}
	buf_addf(out, "a file of %lld bytes that is not a study is there",
		 (long long)sb.st_size);
}

/* "owner U, group G, mode M" of `path` (with the privilege of `st`). */
static void describe(struct buf *out, const char *path, unsigned flags)
{
	struct stat sb;
	int rc;

	if (flags & STORE_PRIVILEGED)
		priv_raise();
	rc = lstat(path, &sb);
	if (flags & STORE_PRIVILEGED)
		priv_lower();
	if (rc == 0)
		vfs_describe(out, &sb);
	else
		buf_addf(out, "%s", strerror(errno));
}

/* Fill `e` for a study SQLite could not open: the file, its owner, group
 * and mode, its -wal and -shm when they differ, and what to do. */
int store_open_error(const char *path, unsigned flags, const char *why,
		     struct err *e)
{
	struct buf b = BUF_INIT, side = BUF_INIT, d = BUF_INIT;
	static const char *const suffix[] = { "-wal", "-shm" };
	size_t i;

	buf_addf(&b, "%s: %s (", path, why);
	describe(&d, path, flags);
	buf_addstr(&b, d.ptr);
	buf_addstr(&b, ")");
	for (i = 0; i < 2; i++) {
		struct buf sd = BUF_INIT;

		buf_setlen(&side, 0);
		buf_addf(&side, "%s%s", path, suffix[i]);
		if (access(side.ptr, F_OK) == 0 || (flags & STORE_PRIVILEGED)) {
			describe(&sd, side.ptr, flags);
			if (strcmp(sd.ptr, d.ptr) && strcmp(sd.ptr,
			    strerror(ENOENT)))
				buf_addf(&b, "; its %s: %s", suffix[i],
					 sd.ptr);
		}
		buf_release(&sd);
	}
	if (flags & STORE_PRIVILEGED)
		buf_addstr(&b, "; the server install's study directory or "
			   "binary is not set up right: ask the administrator "
			   "to run `bugcoder doctor`");
	else
		buf_addstr(&b, "; you need read and write access to the study, "
			   "its -wal and -shm and their directory: be in the "
			   "study's group (log in again after joining it), "
			   "and give the files that group and mode 660 "
			   "(`chgrp GROUP FILE*; chmod 660 FILE*`)");
	err_set(e, ERR_IO, "%s", b.ptr);
	buf_release(&b);
	buf_release(&side);
	buf_release(&d);
	return -1;
}

/* Fill `e` for a study whose directory the user cannot enter: name the
 * directory's owner, group and mode, and what to do. */
void store_unreachable_error(const char *path, struct err *e)
{
	struct buf dir = BUF_INIT, d = BUF_INIT;
	const char *slash = strrchr(path, '/');
	const struct server_conf *conf = priv_server_conf();
	struct stat sb;

	if (slash)
		buf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	else
		buf_addstr(&dir, ".");
	if (stat(dir.ptr, &sb) == 0)
		vfs_describe(&d, &sb);
	else
		buf_addstr(&d, strerror(errno));
	if (conf && !strcmp(dir.ptr, conf->studydir))
		err_set(e, ERR_IO, "%s: %s (its directory: %s); a study in "
			"the server's study directory is named without a "
			"path: --study %.*s", path, strerror(EACCES), d.ptr,
			(int)strcspn(slash + 1, "."), slash + 1);
	else
		err_set(e, ERR_IO, "%s: %s (its directory %s: %s); you need "
			"to be in the study's group (log in again after "
			"joining it) and the directory must give that group "
			"rwx", path, strerror(EACCES), dir.ptr, d.ptr);
	buf_release(&dir);
	buf_release(&d);
}
