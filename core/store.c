/*
 * store: the study file.  See store.h.
 *
 * Limitations: one process writes at a time (SQLite's rule); others wait
 * up to the busy timeout and then get ERR_BUSY, which the CLI reports as a
 * transient failure (exit 3).
 */
#include "core/store.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/schema.sql.h"

#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
#define BUSY_TIMEOUT_MS 8000

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

static int perm_error(struct err *e, const char *path, const char *op,
		      const char *perm)
{
	struct buf b = BUF_INIT;

	describe_owner(path, &b);
	err_set(e, ERR_PERM, "%s: cannot %s: no %s permission (%s)", path, op,
		perm, b.ptr);
	buf_release(&b);
	return -1;
}

static int can(const char *path, int mode)
{
	return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0;
}

/* The directory a study is in, owned. */
static char *dir_of(const char *path)
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
static int explain_access(const char *path, int write, struct err *e)
{
	struct buf side = BUF_INIT;
	char *dir = dir_of(path);
	int ret = 0;
	const char *sfx[] = { "-wal", "-shm" };
	size_t i;

	if (!can(dir, X_OK)) {
		buf_addf(&side, "reach %s in it", path);
		ret = perm_error(e, dir, side.ptr, "search (x)");
		goto out;
	}
	if (!can(path, R_OK)) {
		ret = perm_error(e, path, "read the study", "read");
		goto out;
	}
	if (write && !can(path, W_OK)) {
		ret = perm_error(e, path, "write the study", "write");
		goto out;
	}
	/* WAL mode keeps two files next to the study */
	for (i = 0; i < 2; i++) {
		buf_reset(&side);
		buf_addf(&side, "%s%s", path, sfx[i]);
		if (access(side.ptr, F_OK) == 0) {
			if (!can(side.ptr, R_OK | W_OK)) {
				ret = perm_error(e, side.ptr, "open the study's "
						 "journal", "read and write");
				goto out;
			}
		} else if (!can(dir, W_OK)) {
			struct buf op = BUF_INIT;

			buf_addf(&op, "create %s (the study's journal) in it",
				 side.ptr);
			ret = perm_error(e, dir, op.ptr, "write");
			buf_release(&op);
			goto out;
		}
	}
out:
	buf_release(&side);
	free(dir);
	return ret;
}

int store_error(struct store *st, struct err *e, const char *what)
{
	int rc = sqlite3_errcode(st->db);
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? ERR_BUSY :
		   ERR_DB;

	if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN ||
	     rc == SQLITE_PERM) && st->path &&
	    explain_access(st->path, rc == SQLITE_READONLY, e) < 0)
		return -1;	/* the message says what it could not do */
	if (code == ERR_BUSY)
		return err_set(e, code, "%s: the study is busy (another "
			       "bugcoder is writing); try again", what);
	return err_set(e, code, "%s: %s", what, sqlite3_errmsg(st->db));
}

int store_exec(struct store *st, const char *sql, struct err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = sqlite3_errcode(st->db);

		if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN ||
		     rc == SQLITE_PERM) && st->path &&
		    explain_access(st->path, rc == SQLITE_READONLY, e) < 0) {
			sqlite3_free(msg);
			return -1;
		}
		err_set(e, (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ?
			ERR_BUSY : ERR_DB, "%s: %s", st->path ? st->path :
			"study", msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *store_prepare(struct store *st, const char *sql, struct err *e)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_error(st, e, "preparing a query");
		return NULL;
	}
	return s;
}

int store_bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
}

static int user_version(struct store *st, int *v, struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "PRAGMA user_version", e);

	if (!s)
		return -1;
	if (sqlite3_step(s) != SQLITE_ROW) {
		sqlite3_finalize(s);
		return store_error(st, e, "reading the schema version");
	}
	*v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return 0;
}

static int migrate(struct store *st, struct err *e)
{
	char sql[64];
	int v;

	if (user_version(st, &v, e) < 0)
		return -1;
	if (v > (int)NR_MIGRATIONS)
		return err_set(e, ERR_INPUT, "%s: study schema version %d is "
			       "newer than this bugcoder understands (%d); "
			       "upgrade bugcoder", st->path, v,
			       (int)NR_MIGRATIONS);
	if (v == (int)NR_MIGRATIONS)
		return 0;
	if (store_begin(st, e) < 0)
		return -1;
	/* re-read inside the write lock: another process may have won */
	if (user_version(st, &v, e) < 0)
		goto fail;
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
	if (!readonly && store_exec(st, "PRAGMA journal_mode = WAL", e) < 0)
		return -1;
	/* WAL with synchronous=NORMAL can lose the last transactions on
	 * power loss; FULL keeps "saved" honest. */
	if (store_exec(st, "PRAGMA synchronous = FULL", e) < 0)
		return -1;
	return 0;
}

/* What is at `path`, for init, which will not create a study there. */
static void what_is_there(const char *path, struct buf *out)
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

int store_open(struct store *st, const char *path, unsigned flags,
	       struct err *e)
{
	int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	struct stat sb;

	memset(st, 0, sizeof(*st));
	st->path = xstrdup(path);
	if (flags & STORE_CREATE) {
		int fd;
		mode_t old;

		old = umask(0);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0660);
		umask(old);
		if (fd < 0) {
			int err = errno;

			if (err == EEXIST || err == EISDIR) {
				struct buf what = BUF_INIT;

				what_is_there(path, &what);
				err_set(e, ERR_IO, "%s: cannot create a study "
					"here: %s", path, what.ptr);
				buf_release(&what);
			} else if (err == EACCES) {
				char *dir = dir_of(path);
				struct buf op = BUF_INIT;

				buf_addf(&op, "create %s in it", path);
				perm_error(e, dir, op.ptr, "write");
				buf_release(&op);
				free(dir);
			} else {
				err_set(e, ERR_IO, "%s: %s", path,
					strerror(err));
			}
			goto fail;
		}
		close(fd);
	} else if (stat(path, &sb) < 0) {
		if (errno == EACCES) {
			char *dir = dir_of(path);
			struct buf op = BUF_INIT;

			buf_addf(&op, "reach %s in it", path);
			perm_error(e, dir, op.ptr, "search (x)");
			buf_release(&op);
			free(dir);
			goto fail;
		}
		err_set(e, errno == ENOENT ? ERR_NOTFOUND : ERR_IO,
			"%s: %s", path, errno == ENOENT ?
			"no study here (create one with `bugcoder init`, or "
			"name it with --study FILE)" : strerror(errno));
		goto fail;
	} else if (S_ISDIR(sb.st_mode)) {
		err_set(e, ERR_INPUT, "%s: a directory, not a study (name the "
			"study file, e.g. --study %s/bugcoder.db)", path, path);
		goto fail;
	} else if (!can(path, R_OK)) {
		perm_error(e, path, "read the study", "read");
		goto fail;
	}
	if (flags & STORE_READONLY)
		oflags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &st->db, oflags, NULL) != SQLITE_OK) {
		if (explain_access(path, 0, e) == 0)
			err_set(e, ERR_IO, "%s: %s", path, st->db ?
				sqlite3_errmsg(st->db) : "cannot open");
		goto fail_created;
	}
	/* Only a study is opened: an empty file, or another program's
	 * SQLite database (schema version 0), is refused before anything
	 * is written to it, rather than turned into a study without an
	 * owner.  A file that is not SQLite fails here too. */
	if (!(flags & STORE_CREATE)) {
		int v;

		sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
		if (user_version(st, &v, e) < 0)
			goto fail_created;
		if (v == 0) {
			err_set(e, ERR_INPUT, "%s: not a bugcoder study (%s)",
				path, sb.st_size ? "an SQLite database without "
				"a study in it" : "an empty file");
			goto fail_created;
		}
	}
	if (configure(st, flags & STORE_READONLY, e) < 0)
		goto fail_created;
	if (migrate(st, e) < 0)
		goto fail_created;
	return 0;
fail_created:
	if (flags & STORE_CREATE)
		unlink(path);
fail:
	store_close(st);
	return -1;
}

int store_open_memory(struct store *st, struct err *e)
{
	memset(st, 0, sizeof(*st));
	st->path = xstrdup(":memory:");
	if (sqlite3_open(":memory:", &st->db) != SQLITE_OK) {
		err_set(e, ERR_DB, "cannot open an in-memory database");
		store_close(st);
		return -1;
	}
	if (configure(st, 1, e) < 0 || migrate(st, e) < 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->db) {
		if (st->depth)
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close_v2(st->db);
	}
	free(st->path);
	memset(st, 0, sizeof(*st));
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

/*
 * Tests make a race between two processes deterministic with
 * BUGCODER_TEST_BEGIN_GATE=PATH: the outermost store_begin() creates
 * PATH.waiting, then waits (at most a minute) until PATH exists before it
 * takes the write lock.  Whatever the process read before that is then
 * read before whatever the test does meanwhile.
 */
static void test_begin_gate(void)
{
	const char *gate = getenv("BUGCODER_TEST_BEGIN_GATE");
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct buf waiting = BUF_INIT;
	FILE *f;
	int i;

	if (!gate || !*gate)
		return;
	buf_addf(&waiting, "%s.waiting", gate);
	f = fopen(waiting.ptr, "w");
	if (f)
		fclose(f);
	buf_release(&waiting);
	for (i = 0; i < 6000 && access(gate, F_OK); i++)
		nanosleep(&ts, NULL);
}

int store_begin(struct store *st, struct err *e)
{
	struct store_reader *r;

	if (st->depth++)
		return 0;
	test_begin_gate();
	for (r = st->readers; r; r = r->next)
		r->release(r);
	if (store_exec(st, "BEGIN IMMEDIATE", e) < 0) {
		st->depth = 0;
		if (e && e->code == ERR_BUSY)
			err_set(e, ERR_BUSY, "%s: the study is busy (another "
				"bugcoder is writing); try again", st->path);
		return -1;
	}
	return 0;
}

int store_commit(struct store *st, struct err *e)
{
	if (st->depth <= 0)
		return 0;
	if (--st->depth)
		return 0;
	if (store_exec(st, "COMMIT", e) < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

void store_rollback(struct store *st)
{
	if (st->depth <= 0)
		return;
	st->depth = 0;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

void store_busy_timeout(struct store *st, int ms)
{
	if (st->db)
		sqlite3_busy_timeout(st->db, ms < 0 ? BUSY_TIMEOUT_MS : ms);
}

int store_changed(struct store *st, struct err *e)
{
	struct store_reader *r;
	sqlite3_stmt *s;
	long long v;
	int rc, changed;

	if (st->depth)
		return 0;	/* inside our own transaction */
	for (r = st->readers; r; r = r->next)
		r->release(r);
	s = store_prepare(st, "PRAGMA data_version", e);
	if (!s)
		return -1;
	rc = sqlite3_step(s);
	v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return store_error(st, e, "checking for changes");
	changed = st->have_data_version && v != st->data_version;
	st->data_version = v;
	st->have_data_version = 1;
	return changed;
}

char *store_meta_get(struct store *st, const char *key)
{
	sqlite3_stmt *s;
	char *v = NULL;

	s = store_prepare(st, "SELECT value FROM meta WHERE key = ?", NULL);
	if (!s)
		return NULL;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

int store_meta_set(struct store *st, const char *key, const char *value,
		   struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "INSERT INTO meta (key, value) VALUES (?, ?) "
			  "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			  e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(st, e, "saving a setting");
	return 0;
}

void store_now(char out[32])
{
	const char *fixed = getenv("BUGCODER_NOW");
	time_t t;
	struct tm tm;

	if (fixed && *fixed) {
		snprintf(out, 32, "%s", fixed);
		return;
	}
	t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int store_audit(struct store *st, const char *actor, const char *for_member,
		const char *action, long long item_id, const char *dimension,
		const char *old_value, const char *new_value, struct err *e)
{
	sqlite3_stmt *s;
	char now[32];
	int rc;

	s = store_prepare(st, "INSERT INTO audit (at, actor, for_member, "
			  "action, item_id, dimension, old, new) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		return -1;
	store_now(now);
	sqlite3_bind_text(s, 1, now, -1, SQLITE_TRANSIENT);
	store_bind_text(s, 2, actor);
	store_bind_text(s, 3, for_member);
	store_bind_text(s, 4, action);
	if (item_id)
		sqlite3_bind_int64(s, 5, item_id);
	else
		sqlite3_bind_null(s, 5);
	store_bind_text(s, 6, dimension);
	store_bind_text(s, 7, old_value);
	store_bind_text(s, 8, new_value);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_error(st, e, "writing the audit log");
	return 0;
}
