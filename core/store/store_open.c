/* SPDX-License-Identifier: MIT */
/*
 * store_open: the study's connection opened (the file checked, SQLite
 * opened on it, refused when it holds no study, configured, migrated to
 * this program's schema), its write-ahead log checkpointed, and closed.
 */
#include "core/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/store/schema.sql.h"
#include "core/store/store_int.h"
#include "core/store/vfs.h"

#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))

static int user_version(struct store *st, int *v, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "PRAGMA user_version", e);

	if (!s)
		return -1;
	if (store_step_rc(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return store_error(st, e, "reading the schema version");
	}
	*v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return 0;
}

static int migrate(struct store *st, store_upgrade_fn upgrade,
		   struct err *e)
{
	char sql[64];
	int v, from;

	if (user_version(st, &v, e) < 0)
		return -1;
	if (v > (int)NR_MIGRATIONS)
		return err_set(e, ERR_INPUT, "%s: study schema version %d is "
			       "newer than this bugcoder understands (%d); "
			       "upgrade bugcoder", st->path, v,
			       (int)NR_MIGRATIONS);
	if (v == (int)NR_MIGRATIONS)
		return 0;
	if (st->readonly)
		return err_set(e, ERR_INPUT, "%s: the study needs an upgrade "
			       "(schema version %d to %d) that cannot be "
			       "written here; run bugcoder where it can write "
			       "the study", st->path, v, (int)NR_MIGRATIONS);
	if (store_begin(st, e) < 0)
		return -1;
	/* re-read inside the write lock: another process may have won */
	if (user_version(st, &v, e) < 0)
		goto fail;
	from = v;
	for (; v < (int)NR_MIGRATIONS; v++) {
		if (store_exec(st, migrations[v], e) < 0) {
			err_prefix(e, "migrating the study to version %d",
				   v + 1);
			goto fail;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		if (store_exec(st, sql, e) < 0)
			goto fail;
	}
	/* the data the new schema holds, filled by the layers above */
	if (upgrade) {
		if (upgrade(st, from, e) < 0)
			goto fail;
	} else if (from > 0) {
		err_set(e, ERR_INPUT, "%s: the study needs an upgrade this "
			"program cannot make here; open it with bugcoder",
			st->path);
		goto fail;
	}
	return store_commit(st, e);
fail:
	store_rollback(st);
	return -1;
}

static int configure(struct store *st, int readonly, struct err *e)
{
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(st->db, 0);
	if (store_exec(st, "PRAGMA foreign_keys = ON", e) < 0)
		return -1;
	/* no schema tricks from whoever else wrote the file: triggers and
	 * views call no function that is not innocuous, and the schema
	 * cannot be written around SQLite's own checks */
	if (store_exec(st, "PRAGMA trusted_schema = OFF", e) < 0)
		return -1;
	if (sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) !=
	    SQLITE_OK)
		return err_set(e, ERR_DB, "%s: cannot turn SQLite's defensive "
			       "mode on", st->path);
	/* every page read is checked a little more (its cells lie inside
	 * it): a damaged page is reported, not read as data */
	if (store_exec(st, "PRAGMA cell_size_check = ON", e) < 0)
		return -1;
	/* nothing of a server study in temporary files the user could
	 * reach */
	if ((st->flags & STORE_PRIVILEGED) &&
	    store_exec(st, "PRAGMA temp_store = MEMORY", e) < 0)
		return -1;
	if (!readonly && store_exec(st, "PRAGMA journal_mode = WAL", e) < 0)
		return -1;
	/* WAL with synchronous=NORMAL can lose the last transactions on
	 * power loss; FULL keeps "saved" honest. */
	if (store_exec(st, "PRAGMA synchronous = FULL", e) < 0)
		return -1;
	return 0;
}

/* Check a study named in STUDYDIR before it is opened with the group
 * privilege: a regular file (not a link someone planted) of that group,
 * with one name. */
static int check_privileged(const char *path, struct stat *sb,
			    struct err *e)
{
	struct buf d = BUF_INIT;
	int ret = -1;

	if (S_ISLNK(sb->st_mode)) {
		err_set(e, ERR_INPUT, "%s: a symbolic link, not a study; "
			"refused (studies in the study directory are plain "
			"files: remove the link)", path);
		goto out;
	}
	if (!S_ISREG(sb->st_mode)) {
		err_set(e, ERR_INPUT, "%s: not a regular file; refused", path);
		goto out;
	}
	/* SQLite keeps a -wal and -shm per name: two names of one file are
	 * two writers that do not see each other's locks */
	if (sb->st_nlink != 1) {
		err_set(e, ERR_INPUT, "%s: a hard link (the file has %lu "
			"names); refused: a study has one name, or two writers "
			"corrupt it (the administrator removes the other name)",
			path, (unsigned long)sb->st_nlink);
		goto out;
	}
	if (sb->st_gid != priv_group()) {
		struct group *gr = getgrgid(priv_group());

		vfs_describe(&d, sb);
		err_set(e, ERR_INPUT, "%s: belongs to another group than the "
			"install's (%s), refused; the administrator can "
			"`chgrp %s` it", path, d.ptr, gr ? gr->gr_name : "?");
		goto out;
	}
	ret = 0;
out:
	buf_release(&d);
	return ret;
}

/* A URI naming `path` for sqlite3_open_v2() with `query` appended. */
static void path_uri(struct buf *out, const char *path, const char *query)
{
	const char *p;

	buf_addstr(out, "file:");
	for (p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			buf_addf(out, "%%%02X", (unsigned char)*p);
		else
			buf_addch(out, *p);
	}
	buf_addf(out, "?%s", query);
}

/* Could the study be read without its -shm, as an immutable file?  Only
 * when no -wal holds anything that would then be missed. */
static int can_read_immutable(const char *path, unsigned flags)
{
	struct buf wal = BUF_INIT;
	struct stat sb;
	int rc;

	buf_addf(&wal, "%s-wal", path);
	if (flags & STORE_PRIVILEGED)
		priv_raise();
	rc = stat(wal.ptr, &sb);
	if (flags & STORE_PRIVILEGED)
		priv_lower();
	buf_release(&wal);
	return rc < 0 ? errno == ENOENT : sb.st_size == 0;
}

/* A name SQLite will never read as a URI: SQLite takes "file:..." as
 * one when URIs are on (they are off, see vfs_register(), and this holds
 * even if something turned them on again). */
const char *store_plain_name(const char *path, struct buf *tmp)
{
	if (strncasecmp(path, "file:", 5))
		return path;
	buf_reset(tmp);
	buf_addf(tmp, "./%s", path);
	return tmp->ptr;
}

static int sqlite_open(struct store *st, const char *path, unsigned flags,
		       int immutable)
{
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	const char *vfs = (flags & STORE_PRIVILEGED) ? VFS_PRIVILEGED :
			  VFS_PLAIN;
	struct buf uri = BUF_INIT;
	int rc;

	if ((flags & STORE_READONLY) || immutable)
		oflags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	if (immutable) {
		path_uri(&uri, path, "immutable=1");
		rc = sqlite3_open_v2(uri.ptr, &st->db,
				     oflags | SQLITE_OPEN_URI, vfs);
	} else {
		rc = sqlite3_open_v2(store_plain_name(path, &uri), &st->db,
				     oflags, vfs);
	}
	buf_release(&uri);
	return rc;
}

/* `path` with its directory resolved (no link, ".", ".." in it), owned;
 * the name SQLite gives the study once open.  NULL with `e` filled. */
static char *canonical_study(const char *path, struct err *e)
{
	char *dir = store_dir_of(path), *real;
	const char *slash = strrchr(path, '/');
	struct buf b = BUF_INIT;

	real = realpath(dir, NULL);
	if (!real) {
		err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	buf_addf(&b, "%s/%s", strcmp(real, "/") ? real : "",
		 slash ? slash + 1 : path);
	free(real);
	free(dir);
	return buf_detach(&b, NULL);
}

/* Keep a descriptor of the study's -shm, for asking who holds the write
 * lock (store_lock_holder()).  Opened read-only, never closed before the
 * connection is (closing any descriptor of a file drops the process's
 * locks on it, SQLite's included). */
static void open_shm_fd(struct store *st, const char *path)
{
	struct buf shm = BUF_INIT;

	if (st->readonly || !strcmp(path, ":memory:"))
		return;
	buf_addf(&shm, "%s-shm", path);
	if (st->flags & STORE_PRIVILEGED)
		priv_raise();
	st->shm_fd = open(shm.ptr, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (st->flags & STORE_PRIVILEGED)
		priv_lower();
	buf_release(&shm);
}

/* The study's file made (STORE_CREATE), with the group privilege taken
 * when `privileged` (and let go here).  0, or -1 with `e` filled. */
static int create_file(const char *path, int privileged, struct err *e)
{
	int fd, rc;
	mode_t old;

	old = umask(0);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		  O_NOFOLLOW, 0660);
	umask(old);
	rc = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	if (privileged)
		priv_lower();
	if (rc == EEXIST || rc == EISDIR) {
		struct buf what = BUF_INIT;

		store_what_is_there(path, &what);
		err_set(e, ERR_IO, "%s: cannot create a study here: "
			"%s", path, what.ptr);
		buf_release(&what);
		return -1;
	}
	if (rc == EACCES && !privileged) {
		char *dir = store_dir_of(path);
		struct buf op = BUF_INIT;

		buf_addf(&op, "create %s in it", path);
		store_perm_error(e, dir, op.ptr, "write");
		buf_release(&op);
		free(dir);
		return -1;
	}
	if (rc) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(rc));
		return -1;
	}
	return 0;
}

/* The study's file found and its kind checked before SQLite opens it,
 * with the group privilege taken when `privileged` (and let go here);
 * `sb` describes it.  0, or -1 with `e` filled. */
static int check_file(const char *path, int privileged, struct stat *sb,
		      struct err *e)
{
	int rc;

	rc = privileged ? lstat(path, sb) : stat(path, sb);
	rc = rc < 0 ? errno : 0;
	if (privileged)
		priv_lower();
	if (rc == EACCES && !privileged) {
		char *dir = store_dir_of(path);
		struct buf op = BUF_INIT;

		buf_addf(&op, "reach %s in it", path);
		store_perm_error(e, dir, op.ptr, "search (x)");
		buf_release(&op);
		free(dir);
		return -1;
	}
	if (rc == EACCES) {
		store_unreachable_error(path, e);
		return -1;
	}
	if (rc) {
		err_set(e, rc == ENOENT ? ERR_NOTFOUND : ERR_IO,
			"%s: %s", path, rc == ENOENT ?
			"no study here (create one with `bugcoder "
			"init`, or name it with --study FILE)" :
			strerror(rc));
		return -1;
	}
	if (privileged && check_privileged(path, sb, e) < 0)
		return -1;
	if (S_ISDIR(sb->st_mode)) {
		err_set(e, ERR_INPUT, "%s: a directory, not a study "
			"(name the study file, e.g. --study "
			"%s/bugcoder.db)", path, path);
		return -1;
	}
	/* the user's own rights, for a study they open directly */
	if (!privileged && !store_can(path, R_OK)) {
		store_perm_error(e, path, "read the study", "read");
		return -1;
	}
	return 0;
}

/* Only a study is opened: an empty file, or another program's SQLite
 * database (schema version 0), is refused before anything is written to
 * it, rather than turned into a study without an owner.  A file that is
 * not SQLite fails here too.  0, or -1 with `e` filled. */
static int check_study(struct store *st, const char *path,
		       const char *open_path, unsigned flags,
		       const struct stat *sb, struct err *e)
{
	int v;

	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if (user_version(st, &v, e) < 0) {
		int code = sqlite3_errcode(st->db);

		if (code == SQLITE_NOTADB) {
			/* whole pages: maybe a study whose first
			 * page is damaged */
			int pages = sb->st_size >= 512 &&
				    sb->st_size % 512 == 0;

			err_set(e, ERR_INPUT, "%s: not a bugcoder "
				"study: a file of %lld bytes that is "
				"not an SQLite database (name the "
				"study's file with --study%s)", path,
				(long long)sb->st_size, pages ?
				"; a study whose first page is "
				"damaged reads so too: restore it "
				"from a backup" : "");
			return -1;
		}
		if ((code != SQLITE_CANTOPEN &&
		     code != SQLITE_READONLY &&
		     code != SQLITE_IOERR) ||
		    !can_read_immutable(path, flags)) {
			if (code == SQLITE_CANTOPEN ||
			    code == SQLITE_READONLY ||
			    code == SQLITE_PERM)
				store_open_error(path, flags,
						 sqlite3_errmsg(st->db), e);
			return -1;
		}
		/* a read-only directory or a full disk: read the
		 * file as it is */
		sqlite3_close_v2(st->db);
		st->db = NULL;
		if (sqlite_open(st, open_path, flags, 1) !=
		    SQLITE_OK) {
			store_open_error(path, flags, st->db ?
					 sqlite3_errmsg(st->db) :
					 "cannot open", e);
			return -1;
		}
		st->readonly = 1;
		sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
		if (user_version(st, &v, e) < 0)
			return -1;
	}
	if (v == 0) {
		err_set(e, ERR_INPUT, "%s: not a bugcoder study (%s)",
			path, sb->st_size ? "an SQLite database without "
			"a study in it" : "an empty file");
		return -1;
	}
	return 0;
}

int store_open(struct store *st, const char *path, unsigned flags,
	       store_upgrade_fn upgrade, struct err *e)
{
	int privileged = (flags & STORE_PRIVILEGED) != 0;
	const char *open_path = path;
	char *canonical = NULL;
	struct stat sb;

	memset(st, 0, sizeof(*st));
	st->shm_fd = -1;
	st->path = xstrdup(path);
	st->flags = flags;
	/* a study made now has nothing to check before its first write */
	st->checked = (flags & STORE_CREATE) != 0;
	st->will_write = 1;
	if (vfs_register() != SQLITE_OK) {
		err_set(e, ERR_DB, "cannot set up SQLite's file access");
		goto fail;
	}
	if (privileged && priv_raise() < 0) {
		err_set(e, ERR_IO, "%s: cannot take the group privilege: %s",
			path, strerror(errno));
		goto fail;
	}
	if (flags & STORE_CREATE) {
		if (create_file(path, privileged, e) < 0)
			goto fail;
	} else if (check_file(path, privileged, &sb, e) < 0) {
		goto fail;
	}
	/* found before SQLite opens it (and recovers its -wal): checked
	 * in full before the first write */
	if (!(flags & (STORE_CREATE | STORE_READONLY)))
		st->unclean = store_stopped_uncleanly(path, flags);
	if (privileged) {
		/* the privileged layer opens this one file and its own, by
		 * the name SQLite will give them */
		if (!(canonical = canonical_study(path, e)))
			goto fail_created;
		vfs_allow(canonical);
		open_path = canonical;
	}
	if (sqlite_open(st, open_path, flags, 0) != SQLITE_OK) {
		if (privileged || store_explain_access(path, 0, e) == 0)
			store_open_error(path, flags, st->db ?
					 sqlite3_errmsg(st->db) :
					 "cannot open", e);
		goto fail_created;
	}
	if (!(flags & STORE_CREATE) &&
	    check_study(st, path, open_path, flags, &sb, e) < 0)
		goto fail_created;
	if (flags & STORE_READONLY)
		st->readonly = 1;
	if (configure(st, st->readonly, e) < 0)
		goto fail_created;
	if (migrate(st, upgrade, e) < 0)
		goto fail_created;
	open_shm_fd(st, open_path);
	free(canonical);
	st->will_write = 0;
	return 0;
fail_created:
	if (flags & STORE_CREATE) {
		if (privileged)
			priv_raise();
		unlink(path);
		if (privileged)
			priv_lower();
	}
fail:
	free(canonical);
	store_close(st);
	return -1;
}

int store_open_bare(struct store *st, struct err *e)
{
	memset(st, 0, sizeof(*st));
	st->shm_fd = -1;
	st->path = xstrdup(":memory:");
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		err_set(e, ERR_DB, "cannot open an in-memory database");
		store_close(st);
		return -1;
	}
	return 0;
}

int store_open_memory(struct store *st, struct err *e)
{
	memset(st, 0, sizeof(*st));
	st->shm_fd = -1;
	st->path = xstrdup(":memory:");
	if (sqlite3_open(":memory:", &st->db) != SQLITE_OK) {
		err_set(e, ERR_DB, "cannot open an in-memory database");
		store_close(st);
		return -1;
	}
	if (configure(st, 1, e) < 0 || migrate(st, NULL, e) < 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

/* A checkpoint that never waits: PASSIVE, then with `truncate` an empty
 * -wal when everything could be copied and nobody else reads. */
void store_wal_checkpoint(struct store *st, int truncate)
{
	int log = 0, done = 0;

	if (!st->db || st->readonly || st->depth ||
	    !strcmp(st->path, ":memory:"))
		return;
	if (sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
				      &log, &done) != SQLITE_OK)
		return;
	if (!truncate || log <= 0 || done != log)
		return;
	sqlite3_busy_timeout(st->db, 0);
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
				  NULL, NULL);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
}

void store_checkpoint(struct store *st)
{
	struct store_reader *r;

	if (!st->db || st->depth)
		return;
	/* our own open blob reads would hold the checkpoint back */
	for (r = st->readers; r; r = r->next)
		r->release(r);
	store_wal_checkpoint(st, 1);
}

void store_close(struct store *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr_cache; i++)
		sqlite3_finalize(st->cache[i].s);
	free(st->cache);
	st->cache = NULL;
	st->nr_cache = st->alloc_cache = 0;
	if (st->db) {
		if (st->depth) {
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
			store_tx_ended();
			store_lock_released(st);
		} else {
			store_wal_checkpoint(st, 1);
		}
		store_write_stats(st);
		sqlite3_close_v2(st->db);
	}
	/* after the connection: see open_shm_fd() */
	if (st->shm_fd > 0)
		close(st->shm_fd);
	free(st->path);
	memset(st, 0, sizeof(*st));
	st->shm_fd = -1;
}

void store_add_reader(struct store *st, struct store_reader *r)
{
	struct store_reader *p;

	for (p = st->readers; p; p = p->next)
		if (p == r)
			return;
	r->next = st->readers;
	st->readers = r;
}

void store_remove_reader(struct store *st, struct store_reader *r)
{
	struct store_reader **p;

	for (p = &st->readers; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			r->next = NULL;
			return;
		}
}

void store_busy_timeout(struct store *st, int ms)
{
	if (st->db)
		sqlite3_busy_timeout(st->db, ms < 0 ? BUSY_TIMEOUT_MS : ms);
}
