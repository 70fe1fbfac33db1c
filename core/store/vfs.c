/* SPDX-License-Identifier: MIT */
/*
 * vfs: see vfs.h.
 *
 * Every method forwards to the default VFS; the wrapper file keeps the
 * default VFS's file right after itself.  Limitations: the -shm is made
 * from the study's path as SQLite's unix VFS names it ("<study>-shm"),
 * so a build of SQLite that names it otherwise only loses the one-step
 * creation, not correctness.
 */
#define _GNU_SOURCE		/* O_TMPFILE */
#include "core/store/vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"

struct vfs_file {
	sqlite3_file base;	/* pMethods: our methods or NULL */
	const char *db_path;	/* the study's path (SQLite keeps it valid
				   until xClose); NULL for other files */
	int privileged;		/* raise around file-creating calls */
	int shm_made;		/* the -shm has been seen to exist */
	int counted;		/* a study or its -wal: reads are counted */
	sqlite3_file *real;	/* the default VFS's file, after us */
};

static long long nr_reads;	/* vfs_reads() */

long long vfs_reads(void)
{
	return nr_reads;
}

static sqlite3_vfs *real_vfs;
static char *allowed;		/* the study the privileged VFS opens */
static size_t allowed_len;

void vfs_allow(const char *path)
{
	free(allowed);
	allowed = path ? xstrdup(path) : NULL;
	allowed_len = path ? strlen(path) : 0;
}

/* Is `name` the allowed study (main_db) or one of its own companions? */
static int is_allowed(const char *name, int main_db)
{
	static const char *const companion[] = { "-wal", "-shm", "-journal" };
	size_t i;

	if (!allowed || !name || strncmp(name, allowed, allowed_len))
		return 0;
	if (!name[allowed_len])
		return 1;
	if (main_db)
		return 0;
	for (i = 0; i < 3; i++)
		if (!strcmp(name + allowed_len, companion[i]))
			return 1;
	return 0;
}

/* The study itself, checked with the group raised just before SQLite
 * opens it: a regular file (not a link, not a second name of another
 * study), of the install's group. */
static int study_file_ok(const char *name)
{
	struct stat sb;

	if (lstat(name, &sb) < 0)
		return errno == ENOENT;	/* SQLite says "cannot open" */
	return S_ISREG(sb.st_mode) && sb.st_nlink == 1 &&
	       sb.st_gid == priv_group();
}

#define REAL(f) (((struct vfs_file *)(f))->real)

static int priv_of(sqlite3_vfs *v)
{
	return v->pAppData != NULL;
}

void vfs_describe(struct buf *out, const struct stat *sb)
{
	struct passwd *pw = getpwuid(sb->st_uid);
	struct group *gr = getgrgid(sb->st_gid);

	if (pw)
		buf_addf(out, "owner %s", pw->pw_name);
	else
		buf_addf(out, "owner uid %u", (unsigned)sb->st_uid);
	if (gr)
		buf_addf(out, ", group %s", gr->gr_name);
	else
		buf_addf(out, ", group gid %u", (unsigned)sb->st_gid);
	buf_addf(out, ", mode %04o", (unsigned)(sb->st_mode & 07777));
}

/*
 * Make `path` (a -wal, -shm or journal of `db_path`) exist with the
 * study's group and mode, without ever showing it under its name with
 * anything else.  Errors are left to SQLite's own open, which reports
 * them; this only does what it can.
 */
static void make_companion(const char *path, const char *db_path)
{
	struct stat db, sb;
	struct buf dir = BUF_INIT, tmp = BUF_INIT;
	const char *slash;
	int fd = -1, anon = 0;
	char proc[64];

	if (lstat(path, &sb) == 0 || errno != ENOENT)
		return;
	if (stat(db_path, &db) < 0)
		return;
	slash = strrchr(path, '/');
	if (slash)
		buf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	else
		buf_addstr(&dir, ".");
#ifdef O_TMPFILE
	fd = open(dir.ptr, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		anon = 1;
#endif
	if (fd < 0) {
		buf_addf(&tmp, "%s.tmpXXXXXX", path);
		fd = mkostemp(tmp.ptr, O_CLOEXEC);
		if (fd < 0)
			goto out;
	}
	if (fstat(fd, &sb) < 0)
		goto out;
	/* the group first: fchown() may clear the mode's set-id bits */
	if (sb.st_gid != db.st_gid && fchown(fd, (uid_t)-1, db.st_gid) < 0)
		goto out;	/* not in the study's group: SQLite's way */
	if (fchmod(fd, db.st_mode & 0666) < 0)
		goto out;
	if (anon) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, path,
			   AT_SYMLINK_FOLLOW) < 0) {
			/* another process made it first, or we may not:
			 * SQLite's own open reports what matters */
		}
	} else {
		if (link(tmp.ptr, path) < 0) {
			/* EEXIST: another process won */
		}
	}
out:
	if (tmp.len)
		unlink(tmp.ptr);
	if (fd >= 0)
		close(fd);
	buf_release(&tmp);
	buf_release(&dir);
}

/* ---- file methods ---------------------------------------------------- */

static int f_close(sqlite3_file *f)
{
	struct vfs_file *vf = (struct vfs_file *)f;
	int rc;

	if (vf->privileged)
		priv_raise();
	rc = vf->real->pMethods->xClose(vf->real);
	if (vf->privileged)
		priv_lower();
	return rc;
}

static int f_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	if (((struct vfs_file *)f)->counted)
		nr_reads++;
	return REAL(f)->pMethods->xRead(REAL(f), p, n, off);
}

static int f_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	return REAL(f)->pMethods->xWrite(REAL(f), p, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int f_lock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xLock(REAL(f), lock);
}

static int f_unlock(sqlite3_file *f, int lock)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), lock);
}

static int f_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int f_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int f_device(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int f_shm_map(sqlite3_file *f, int pg, int pgsz, int extend,
		     void volatile **pp)
{
	struct vfs_file *vf = (struct vfs_file *)f;
	int rc;

	if (vf->privileged)
		priv_raise();
	if (!vf->shm_made && vf->db_path) {
		struct buf shm = BUF_INIT;

		buf_addf(&shm, "%s-shm", vf->db_path);
		make_companion(shm.ptr, vf->db_path);
		buf_release(&shm);
		vf->shm_made = 1;
	}
	rc = vf->real->pMethods->xShmMap(vf->real, pg, pgsz, extend, pp);
	if (vf->privileged)
		priv_lower();
	return rc;
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int f_shm_unmap(sqlite3_file *f, int delete_flag)
{
	struct vfs_file *vf = (struct vfs_file *)f;
	int rc;

	if (vf->privileged)
		priv_raise();
	rc = vf->real->pMethods->xShmUnmap(vf->real, delete_flag);
	if (vf->privileged)
		priv_lower();
	vf->shm_made = 0;
	return rc;
}

static int f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	return REAL(f)->pMethods->xFetch(REAL(f), off, n, pp);
}

static int f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), off, p);
}

static const sqlite3_io_methods file_methods = {
	.iVersion = 3,
	.xClose = f_close,
	.xRead = f_read,
	.xWrite = f_write,
	.xTruncate = f_truncate,
	.xSync = f_sync,
	.xFileSize = f_size,
	.xLock = f_lock,
	.xUnlock = f_unlock,
	.xCheckReservedLock = f_reserved,
	.xFileControl = f_control,
	.xSectorSize = f_sector,
	.xDeviceCharacteristics = f_device,
	.xShmMap = f_shm_map,
	.xShmLock = f_shm_lock,
	.xShmBarrier = f_shm_barrier,
	.xShmUnmap = f_shm_unmap,
	.xFetch = f_fetch,
	.xUnfetch = f_unfetch,
};

/* ---- VFS methods ----------------------------------------------------- */

#define STUDY_FILES (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | \
		     SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL)

static int v_open(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f,
		  int flags, int *out_flags)
{
	struct vfs_file *vf = (struct vfs_file *)f;
	int study = name && (flags & STUDY_FILES);
	int rc;

	memset(vf, 0, sizeof(*vf));
	vf->real = (sqlite3_file *)(vf + 1);
	if (priv_of(v)) {
		/* the privileged layer opens one study and its own files */
		if (!study || !is_allowed(name, flags & SQLITE_OPEN_MAIN_DB))
			return SQLITE_PERM;
		if (priv_raise() < 0)
			return SQLITE_PERM;
		if ((flags & SQLITE_OPEN_MAIN_DB) && !study_file_ok(name)) {
			priv_lower();
			return SQLITE_PERM;
		}
		priv_lower();
		vf->privileged = 1;
	}
	if (study && (flags & SQLITE_OPEN_MAIN_DB))
		vf->db_path = name;
	vf->counted = (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) != 0;
	if (vf->privileged)
		priv_raise();
	if (study && !(flags & SQLITE_OPEN_MAIN_DB) &&
	    (flags & SQLITE_OPEN_CREATE))
		make_companion(name, sqlite3_filename_database(name));
	rc = real_vfs->xOpen(real_vfs, name, vf->real, flags, out_flags);
	if (vf->privileged)
		priv_lower();
	vf->base.pMethods = vf->real->pMethods ? &file_methods : NULL;
	return rc;
}

/* Raise around a call about `name` only when it is the allowed study's
 * own file; anything else runs with the user's rights. */
static int raise_for(sqlite3_vfs *v, const char *name)
{
	return priv_of(v) && is_allowed(name, 0) && priv_raise() == 0;
}

static int v_delete(sqlite3_vfs *v, const char *name, int sync)
{
	int raised = raise_for(v, name), rc;

	if (priv_of(v) && !is_allowed(name, 0))
		return SQLITE_IOERR_DELETE;
	rc = real_vfs->xDelete(real_vfs, name, sync);
	if (raised)
		priv_lower();
	return rc;
}

static int v_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	int raised = raise_for(v, name), rc;

	rc = real_vfs->xAccess(real_vfs, name, flags, out);
	if (raised)
		priv_lower();
	return rc;
}

static int v_fullpath(sqlite3_vfs *v, const char *name, int n, char *out)
{
	int raised = raise_for(v, name), rc;

	rc = real_vfs->xFullPathname(real_vfs, name, n, out);
	if (raised)
		priv_lower();
	return rc;
}

/* no extensions are ever loaded into a study */
static void *v_dlopen(sqlite3_vfs *v, const char *name)
{
	return NULL;
}

static void v_dlerror(sqlite3_vfs *v, int n, char *msg)
{
	snprintf(msg, (size_t)n, "extensions are not loaded");
}

static void (*v_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
	return NULL;
}

static void v_dlclose(sqlite3_vfs *v, void *h)
{
}

static int v_random(sqlite3_vfs *v, int n, char *out)
{
	return real_vfs->xRandomness(real_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *v, int us)
{
	return real_vfs->xSleep(real_vfs, us);
}

static int v_time(sqlite3_vfs *v, double *out)
{
	return real_vfs->xCurrentTime(real_vfs, out);
}

static int v_lasterr(sqlite3_vfs *v, int n, char *out)
{
	return real_vfs->xGetLastError ?
	       real_vfs->xGetLastError(real_vfs, n, out) : 0;
}

static int v_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
	return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

static int privileged_tag;

static sqlite3_vfs plain_vfs = {
	.iVersion = 2,
	.zName = VFS_PLAIN,
	.xOpen = v_open,
	.xDelete = v_delete,
	.xAccess = v_access,
	.xFullPathname = v_fullpath,
	.xDlOpen = v_dlopen,
	.xDlError = v_dlerror,
	.xDlSym = v_dlsym,
	.xDlClose = v_dlclose,
	.xRandomness = v_random,
	.xSleep = v_sleep,
	.xCurrentTime = v_time,
	.xGetLastError = v_lasterr,
	.xCurrentTimeInt64 = v_time64,
};

static sqlite3_vfs privileged_vfs;

int vfs_register(void)
{
	int rc;

	if (real_vfs)
		return SQLITE_OK;
	/* No name is a URI: Debian's SQLite reads "file:...?vfs=..." as
	 * one, and a URI chooses its VFS.  This must come before SQLite
	 * initializes (sqlite3_vfs_find() does); store_plain_name() keeps
	 * names plain even if it came too late. */
	sqlite3_config(SQLITE_CONFIG_URI, 0);
	real_vfs = sqlite3_vfs_find("unix");
	if (!real_vfs)
		real_vfs = sqlite3_vfs_find(NULL);
	if (!real_vfs)
		return SQLITE_ERROR;
	plain_vfs.szOsFile = (int)sizeof(struct vfs_file) + real_vfs->szOsFile;
	plain_vfs.mxPathname = real_vfs->mxPathname;
	plain_vfs.pAppData = NULL;
	privileged_vfs = plain_vfs;
	privileged_vfs.zName = VFS_PRIVILEGED;
	privileged_vfs.pAppData = &privileged_tag;
	rc = sqlite3_vfs_register(&plain_vfs, 0);
	if (rc == SQLITE_OK)
		rc = sqlite3_vfs_register(&privileged_vfs, 0);
	if (rc != SQLITE_OK)
		real_vfs = NULL;
	return rc;
}
