/* SPDX-License-Identifier: MIT */
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
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/audit.h"
#include "core/buf.h"
#include "core/partial.h"
#include "core/priv.h"
#include "core/replay.h"
#include "core/schema.sql.h"
#include "core/vfs.h"

#define NR_MIGRATIONS (sizeof(migrations) / sizeof(migrations[0]))
#define BUSY_TIMEOUT_MS 8000
#define DAILY_CHECK_SECONDS (24 * 60 * 60)
#define CHECKED_AT_KEY "integrity_checked_at"

/* A statement of store_cached(). */
struct store_stmt {
	const char *sql;	/* the key: a string constant's address */
	sqlite3_stmt *s;
};

/*
 * Figures for tests and the benchmark (BUGCODER_STATS=FILE, a hook:
 * ignored by a setgid program): every store_close() appends one line,
 * "reads R pages P prepares N lock_max S lock_total T", R the reads the
 * process made from studies and their -wal (vfs_reads()), P the study's
 * size in pages, N the statements prepared, S and T the longest and the
 * total time in seconds this connection held the write lock.
 */
static long long nr_prepares;
static double lock_max, lock_total;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The write lock was let go (commit or rollback of the outermost
 * transaction). */
static void lock_released(struct store *st)
{
	double held;

	st->audit_known = 0;
	if (st->lock_since <= 0)
		return;
	held = now_seconds() - st->lock_since;
	st->lock_since = 0;
	lock_total += held;
	if (held > lock_max)
		lock_max = held;
}

static void note_check(struct store *st);

static void write_stats(struct store *st)
{
	const char *path = priv_hook_env("BUGCODER_STATS");
	sqlite3_stmt *s;
	long long pages = 0;
	FILE *f;

	if (!path || !*path)
		return;
	if (sqlite3_prepare_v2(st->db, "PRAGMA page_count", -1, &s, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			pages = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "reads %lld pages %lld prepares %lld lock_max %.6f "
		"lock_total %.6f\n", vfs_reads(), pages, nr_prepares, lock_max,
		lock_total);
	fclose(f);
}

/*
 * The time of the transaction in progress: every row one transaction
 * writes carries the same time as its audit rows, so that the state can
 * be checked against the log's replay to the second (core/replay.h).
 * Set when the first store of the process begins a transaction, cleared
 * when the last one ends.
 */
static int tx_open;
static char tx_now[32];

static void tx_started(void)
{
	if (tx_open++ == 0) {
		tx_now[0] = '\0';
		store_now(tx_now);
	}
}

static void tx_ended(void)
{
	if (tx_open > 0 && --tx_open == 0)
		tx_now[0] = '\0';
}

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

static int perm_error(struct err *e, const char *path, const char *op,
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

/* SQLite found a page it read damaged (or the file is no database). */
static int is_damage(int rc)
{
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

int store_damaged(struct store *st)
{
	return st->db && is_damage(sqlite3_errcode(st->db));
}

/* The one message for a damaged study: why, whether anything was
 * written (`writing`: a write the caller gives up), and what to do. */
static int damage_msg(struct store *st, struct err *e, const char *why,
		      int writing)
{
	return err_set(e, ERR_DB, "%s: the study is damaged (%.300s)%s: "
		       "restore it from a backup (`bugcoder doctor` runs the "
		       "full check)", st->path ? st->path : "study", why,
		       writing ? "; nothing was written" : "");
}

static int damaged_error(struct store *st, struct err *e, const char *what,
			 const char *msg)
{
	struct buf why = BUF_INIT;

	buf_addf(&why, "%s: %s", what, msg);
	/* a study found damaged as it is opened: whatever the command was
	 * to do, it did nothing */
	damage_msg(st, e, why.ptr, st->depth > 0 || st->will_write ||
		   !st->commits);
	buf_release(&why);
	return -1;
}

int store_damage(struct store *st, struct err *e, const char *why)
{
	damage_msg(st, e, why, st->depth > 0 || st->will_write ||
		   !st->commits);
	return -1;
}

int store_error(struct store *st, struct err *e, const char *what)
{
	int rc = sqlite3_errcode(st->db);
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? ERR_BUSY :
		   ERR_DB;

	if (is_damage(rc))
		return damaged_error(st, e, what, sqlite3_errmsg(st->db));
	if ((rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN ||
	     rc == SQLITE_PERM) && st->path &&
	    explain_access(st->path, rc == SQLITE_READONLY, e) < 0)
		return -1;	/* the message says what it could not do */
	if (code == ERR_BUSY)
		return err_set(e, code, "%s: the study is busy (another "
			       "bugcoder is writing); try again", what);
	return err_set(e, code, "%s: %s", what, sqlite3_errmsg(st->db));
}

int store_step(struct store *st, sqlite3_stmt *s, const char *what,
	       struct err *e)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return store_error(st, e, what);
}

int store_step_done(struct store *st, sqlite3_stmt *s, const char *what,
		    struct err *e)
{
	int rc = store_step(st, s, what, e);

	if (rc > 0)
		return err_set(e, ERR_DB, "%s: the statement returned a row "
			       "where none was due", what);
	return rc;
}

void store_small_cache(struct store *st)
{
	store_exec(st, "PRAGMA cache_size = -512", NULL);
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
		if (is_damage(rc)) {
			damaged_error(st, e, "running a statement", msg ? msg :
				      sqlite3_errmsg(st->db));
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

	nr_prepares++;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_error(st, e, "preparing a query");
		return NULL;
	}
	return s;
}

sqlite3_stmt *store_cached(struct store *st, const char *sql, struct err *e)
{
	struct store_stmt *c;
	size_t i;

	for (i = 0; i < st->nr_cache; i++) {
		c = &st->cache[i];
		if (c->sql != sql)
			continue;
		if (sqlite3_stmt_busy(c->s)) {
			err_set(e, ERR_DB, "a cached statement is still in "
				"use: %.60s", sql);
			return NULL;
		}
		sqlite3_reset(c->s);
		sqlite3_clear_bindings(c->s);
		return c->s;
	}
	nr_prepares++;
	ALLOC_GROW(st->cache, st->nr_cache + 1, st->alloc_cache);
	c = &st->cache[st->nr_cache];
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &c->s, NULL) != SQLITE_OK) {
		store_error(st, e, "preparing a query");
		return NULL;
	}
	c->sql = sql;
	st->nr_cache++;
	return c->s;
}

void store_done(sqlite3_stmt *s)
{
	if (s)
		sqlite3_reset(s);
}

int store_bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
}

int store_bind_static(sqlite3_stmt *s, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
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
	/* rows written before the audit log was chained (or by a program
	 * that did not chain them) get their hashes now */
	if (audit_chain_fill(st, e) < 0)
		goto fail;
	/* a study older than the replay of its log: what it holds now is
	 * where the replay starts (a new study starts from nothing) */
	if (from > 0 && from < REPLAY_SINCE_VERSION &&
	    replay_baseline(st, from, e) < 0)
		goto fail;
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
static int open_error(const char *path, unsigned flags, const char *why,
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
static void unreachable_error(const char *path, struct err *e)
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
	char *dir = dir_of(path), *real;
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

static int stopped_uncleanly(const char *path, unsigned flags);

int store_open(struct store *st, const char *path, unsigned flags,
	       struct err *e)
{
	int privileged = (flags & STORE_PRIVILEGED) != 0;
	const char *open_path = path;
	char *canonical = NULL;
	struct stat sb;
	int rc;

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
		int fd;
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

			what_is_there(path, &what);
			err_set(e, ERR_IO, "%s: cannot create a study here: "
				"%s", path, what.ptr);
			buf_release(&what);
			goto fail;
		}
		if (rc == EACCES && !privileged) {
			char *dir = dir_of(path);
			struct buf op = BUF_INIT;

			buf_addf(&op, "create %s in it", path);
			perm_error(e, dir, op.ptr, "write");
			buf_release(&op);
			free(dir);
			goto fail;
		}
		if (rc) {
			err_set(e, ERR_IO, "%s: %s", path, strerror(rc));
			goto fail;
		}
	} else {
		rc = privileged ? lstat(path, &sb) : stat(path, &sb);
		rc = rc < 0 ? errno : 0;
		if (privileged)
			priv_lower();
		if (rc == EACCES && !privileged) {
			char *dir = dir_of(path);
			struct buf op = BUF_INIT;

			buf_addf(&op, "reach %s in it", path);
			perm_error(e, dir, op.ptr, "search (x)");
			buf_release(&op);
			free(dir);
			goto fail;
		}
		if (rc == EACCES) {
			unreachable_error(path, e);
			goto fail;
		}
		if (rc) {
			err_set(e, rc == ENOENT ? ERR_NOTFOUND : ERR_IO,
				"%s: %s", path, rc == ENOENT ?
				"no study here (create one with `bugcoder "
				"init`, or name it with --study FILE)" :
				strerror(rc));
			goto fail;
		}
		if (privileged && check_privileged(path, &sb, e) < 0)
			goto fail;
		if (S_ISDIR(sb.st_mode)) {
			err_set(e, ERR_INPUT, "%s: a directory, not a study "
				"(name the study file, e.g. --study "
				"%s/bugcoder.db)", path, path);
			goto fail;
		}
		/* the user's own rights, for a study they open directly */
		if (!privileged && !can(path, R_OK)) {
			perm_error(e, path, "read the study", "read");
			goto fail;
		}
	}
	/* found before SQLite opens it (and recovers its -wal): checked
	 * in full before the first write */
	if (!(flags & (STORE_CREATE | STORE_READONLY)))
		st->unclean = stopped_uncleanly(path, flags);
	if (privileged) {
		/* the privileged layer opens this one file and its own, by
		 * the name SQLite will give them */
		if (!(canonical = canonical_study(path, e)))
			goto fail_created;
		vfs_allow(canonical);
		open_path = canonical;
	}
	if (sqlite_open(st, open_path, flags, 0) != SQLITE_OK) {
		if (privileged || explain_access(path, 0, e) == 0)
			open_error(path, flags, st->db ?
				   sqlite3_errmsg(st->db) : "cannot open", e);
		goto fail_created;
	}
	/* Only a study is opened: an empty file, or another program's
	 * SQLite database (schema version 0), is refused before anything
	 * is written to it, rather than turned into a study without an
	 * owner.  A file that is not SQLite fails here too. */
	if (!(flags & STORE_CREATE)) {
		int v;

		sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
		if (user_version(st, &v, e) < 0) {
			int code = sqlite3_errcode(st->db);

			if (code == SQLITE_NOTADB) {
				/* whole pages: maybe a study whose first
				 * page is damaged */
				int pages = sb.st_size >= 512 &&
					    sb.st_size % 512 == 0;

				err_set(e, ERR_INPUT, "%s: not a bugcoder "
					"study: a file of %lld bytes that is "
					"not an SQLite database (name the "
					"study's file with --study%s)", path,
					(long long)sb.st_size, pages ?
					"; a study whose first page is "
					"damaged reads so too: restore it "
					"from a backup" : "");
				goto fail_created;
			}
			if ((code != SQLITE_CANTOPEN &&
			     code != SQLITE_READONLY &&
			     code != SQLITE_IOERR) ||
			    !can_read_immutable(path, flags)) {
				if (code == SQLITE_CANTOPEN ||
				    code == SQLITE_READONLY ||
				    code == SQLITE_PERM)
					open_error(path, flags,
						   sqlite3_errmsg(st->db), e);
				goto fail_created;
			}
			/* a read-only directory or a full disk: read the
			 * file as it is */
			sqlite3_close_v2(st->db);
			st->db = NULL;
			if (sqlite_open(st, open_path, flags, 1) !=
			    SQLITE_OK) {
				open_error(path, flags, st->db ?
					   sqlite3_errmsg(st->db) :
					   "cannot open", e);
				goto fail_created;
			}
			st->readonly = 1;
			sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
			if (user_version(st, &v, e) < 0)
				goto fail_created;
		}
		if (v == 0) {
			err_set(e, ERR_INPUT, "%s: not a bugcoder study (%s)",
				path, sb.st_size ? "an SQLite database without "
				"a study in it" : "an empty file");
			goto fail_created;
		}
	}
	if (flags & STORE_READONLY)
		st->readonly = 1;
	if (configure(st, st->readonly, e) < 0)
		goto fail_created;
	if (migrate(st, e) < 0)
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
	if (configure(st, 1, e) < 0 || migrate(st, e) < 0) {
		store_close(st);
		return -1;
	}
	return 0;
}

/* A checkpoint that never waits: PASSIVE, then with `truncate` an empty
 * -wal when everything could be copied and nobody else reads. */
static void checkpoint(struct store *st, int truncate)
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
	checkpoint(st, 1);
}

/* store_check(), saying "nothing was written" when `writing`. */
static int check_pages(struct store *st, int full, int writing,
		       struct err *e)
{
	sqlite3_stmt *s;
	struct buf msg = BUF_INIT, why = BUF_INIT;
	int rc, n = 0, ret = 0;

	s = store_prepare(st, full ? "PRAGMA integrity_check(20)" :
			  "PRAGMA quick_check(20)", e);
	if (!s) {
		/* a file too damaged to prepare on is damaged */
		buf_addf(&why, "checking the study: %s",
			 sqlite3_errmsg(st->db));
		ret = damage_msg(st, e, why.ptr, writing);
		goto out;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		if (t && !strcmp(t, "ok"))
			continue;
		if (n++ < 1)
			buf_addstr(&msg, t ? t : "?");
	}
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
		ret = store_error(st, e, "checking the study");
	} else if (rc != SQLITE_DONE) {
		buf_addf(&why, "checking the study: %s",
			 sqlite3_errmsg(st->db));
		ret = damage_msg(st, e, why.ptr, writing);
	} else if (n) {
		buf_addf(&why, "%s%s", msg.ptr, n > 1 ? ", and more" : "");
		ret = damage_msg(st, e, why.ptr, writing);
	}
out:
	sqlite3_finalize(s);
	buf_release(&msg);
	buf_release(&why);
	return ret;
}

int store_check(struct store *st, int full, struct err *e)
{
	return check_pages(st, full, 0, e);
}

/* integrity_check on the copy `db`: 0, -1 with `problem` saying what is
 * wrong, or -2 when the check could not run through (interrupted, out of
 * memory, an I/O error) with `problem` saying why. */
static int copy_check(sqlite3 *db, struct buf *problem)
{
	sqlite3_stmt *s;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(20)", -1, &s,
			       NULL) != SQLITE_OK) {
		buf_addstr(problem, sqlite3_errmsg(db));
		return is_damage(sqlite3_errcode(db)) ? -1 : -2;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);

		if (t && !strcmp(t, "ok"))
			continue;
		if (n++ == 0)
			buf_addstr(problem, t ? t : "?");
	}
	if (rc != SQLITE_DONE && !n)
		buf_addstr(problem, sqlite3_errmsg(db));
	sqlite3_finalize(s);
	if (n > 1)
		buf_addstr(problem, ", and more");
	if (!n && rc != SQLITE_DONE && !is_damage(rc))
		return -2;	/* not run through: says nothing of damage */
	return rc == SQLITE_DONE && !n ? 0 : -1;
}

int store_backup(struct store *st, const char *path, struct err *e)
{
	struct partial part = PARTIAL_INIT;
	sqlite3 *dst = NULL;
	sqlite3_backup *b = NULL;
	struct buf plain = BUF_INIT, problem = BUF_INIT;
	int rc, ret = -1;

	/* written under a temporary name (core/partial), so a backup
	 * killed mid-way leaves nothing under `path` */
	if (partial_open(&part, path, e) < 0)
		return -1;
	if (sqlite3_open_v2(store_plain_name(part.tmp, &plain), &dst,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    VFS_PLAIN) != SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, dst ? sqlite3_errmsg(dst) :
			"cannot open");
		goto out;
	}
	/* private until it is whole: no journal, no syncs but the last */
	if (sqlite3_exec(dst, "PRAGMA journal_mode = OFF; "
			 "PRAGMA synchronous = OFF", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	b = sqlite3_backup_init(dst, "main", st->db, "main");
	if (!b) {
		err_set(e, ERR_DB, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	/* in steps, so a writer waits at most one step */
	while ((rc = sqlite3_backup_step(b, 256)) == SQLITE_OK ||
	       rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		if (rc != SQLITE_OK)
			sqlite3_sleep(20);
	sqlite3_backup_finish(b);
	b = NULL;
	if (rc != SQLITE_DONE) {
		err_set(e, rc == SQLITE_FULL || rc == SQLITE_IOERR ? ERR_IO :
			ERR_DB, "%s: backup failed: %s", path,
			sqlite3_errstr(rc));
		goto out;
	}
	if (sqlite3_exec(dst, "PRAGMA journal_mode = DELETE", NULL, NULL,
			 NULL) != SQLITE_OK) {
		err_set(e, ERR_IO, "%s: %s", path, sqlite3_errmsg(dst));
		goto out;
	}
	/* the full check, on the copy just written (its pages are the
	 * study's): a damaged study gives no backup that looks sound */
	rc = copy_check(dst, &problem);
	if (rc == -2) {
		err_set(e, ERR_DB, "%s: checking the copy failed (%.300s); no "
			"copy was kept", path, problem.ptr);
		goto out;
	}
	if (rc < 0) {
		err_set(e, ERR_DB, "%s: the study is damaged (%.300s); no "
			"copy was kept: restore it from an earlier backup "
			"(`bugcoder doctor` runs the full check)", st->path,
			problem.ptr);
		goto out;
	}
	note_check(st);
	ret = 0;
out:
	if (dst && sqlite3_close(dst) != SQLITE_OK && ret == 0)
		ret = err_set(e, ERR_IO, "%s: closing the copy failed", path);
	if (ret == 0)
		ret = partial_publish(&part, e);
	else
		partial_abort(&part);
	buf_release(&plain);
	buf_release(&problem);
	return ret;
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
			tx_ended();
			lock_released(st);
		} else {
			checkpoint(st, 1);
		}
		write_stats(st);
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

/*
 * Tests make a race between two processes deterministic with
 * BUGCODER_TEST_BEGIN_GATE=PATH: the outermost store_begin() creates
 * PATH.waiting, then waits (at most a minute) until PATH exists before it
 * takes the write lock.  Whatever the process read before that is then
 * read before whatever the test does meanwhile.  A hook like the others:
 * ignored by a setgid binary (the file it creates is opened with the
 * user's rights, and a link planted at PATH.waiting could name one of
 * the study's own files through /proc/self/fd).
 */
static void test_begin_gate(void)
{
	const char *gate = priv_hook_env("BUGCODER_TEST_BEGIN_GATE");
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

/* SQLite's write lock in WAL mode: byte 120 of the -shm (the first of
 * the wal-index's lock bytes). */
#define WAL_WRITE_LOCK_BYTE 120

/* The process start time of `pid` as seconds since the epoch, or 0. */
static time_t process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* the command name may hold spaces: count fields after its ')' */
	if (!p || !(p = strrchr(buf, ')')))
		return 0;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field != 22 || sscanf(p, "%llu", &ticks) != 1)
		return 0;
	if (!(f = fopen("/proc/stat", "re")))
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	if (!btime || hz <= 0)
		return 0;
	return (time_t)(btime + ticks / (unsigned long long)hz);
}

/* Who holds a lock on byte `at` of `fd` that a write lock would meet:
 * 1 with `h` filled, 0 nobody, -1 when it cannot be told. */
static int lock_query(int fd, off_t at, struct store_holder *h)
{
	struct flock fl;
	char path[64], buf[256];
	struct passwd *pw;
	FILE *f;

	memset(h, 0, sizeof(*h));
	if (fd < 0)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = at;
	fl.l_len = 1;
	if (fcntl(fd, F_GETLK, &fl) < 0)
		return -1;
	if (fl.l_type == F_UNLCK)
		return 0;
	h->pid = fl.l_pid;
	h->uid = (uid_t)-1;
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)h->pid);
	if ((f = fopen(path, "re"))) {
		unsigned long uid;

		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "Uid: %lu", &uid) == 1) {
				h->uid = (uid_t)uid;
				break;
			}
		fclose(f);
	}
	if (h->uid != (uid_t)-1 && (pw = getpwuid(h->uid)))
		snprintf(h->user, sizeof(h->user), "%s", pw->pw_name);
	else if (h->uid != (uid_t)-1)
		snprintf(h->user, sizeof(h->user), "uid %lu",
			 (unsigned long)h->uid);
	else
		snprintf(h->user, sizeof(h->user), "someone");
	h->since = process_start(h->pid);
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)h->pid);
	if ((f = fopen(path, "re"))) {
		if (fgets(h->program, sizeof(h->program), f))
			h->program[strcspn(h->program, "\n")] = '\0';
		fclose(f);
	}
	if (!h->program[0])
		snprintf(h->program, sizeof(h->program), "bugcoder");
	return 1;
}

int store_lock_holder(struct store *st, struct store_holder *h)
{
	if (st->shm_fd <= 0) {
		memset(h, 0, sizeof(*h));
		return -1;
	}
	return lock_query(st->shm_fd, WAL_WRITE_LOCK_BYTE, h);
}

/* Every connection to a WAL study holds a shared lock on this byte of
 * the -shm (SQLite's "dead man switch") for as long as it is open. */
#define WAL_DMS_BYTE 128

int store_in_use(const char *path, struct store_holder *h)
{
	struct buf shm = BUF_INIT;
	int fd, rc;

	buf_addf(&shm, "%s-shm", path);
	fd = open(shm.ptr, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	buf_release(&shm);
	if (fd < 0) {
		memset(h, 0, sizeof(*h));
		return errno == ENOENT ? 0 : -1;
	}
	rc = lock_query(fd, WAL_DMS_BYTE, h);
	close(fd);
	return rc;
}

/*
 * Did the last session on the study stop uncleanly?  Nobody has it open
 * (nobody holds the -shm's dead man switch) and yet its -wal holds
 * frames: the last connection did not checkpoint and empty it as
 * store_close() and SQLite's own close do (it was killed, the machine
 * crashed or lost power).  Called before this process opens the study.
 */
static int stopped_uncleanly(const char *path, unsigned flags)
{
	struct buf side = BUF_INIT;
	struct store_holder h;
	struct stat sb;
	int fd, ret = 0;

	buf_addf(&side, "%s-wal", path);
	if (flags & STORE_PRIVILEGED)
		priv_raise();
	if (stat(side.ptr, &sb) == 0 && sb.st_size > 0) {
		buf_reset(&side);
		buf_addf(&side, "%s-shm", path);
		fd = open(side.ptr, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			ret = errno == ENOENT;
		} else {
			ret = lock_query(fd, WAL_DMS_BYTE, &h) == 0;
			close(fd);
		}
	}
	if (flags & STORE_PRIVILEGED)
		priv_lower();
	buf_release(&side);
	return ret;
}

void store_holder_describe(const struct store_holder *h, struct buf *out)
{
	buf_addf(out, "%s's %s (process %ld", h->user, h->program,
		 (long)h->pid);
	if (h->since) {
		char when[32];
		struct tm tm;

		localtime_r(&h->since, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		buf_addf(out, ", running since %s", when);
	}
	buf_addstr(out, ")");
}

/* The busy message: who holds the write lock, when we can tell. */
static void busy_error(struct store *st, struct err *e)
{
	struct store_holder h;
	struct buf b = BUF_INIT;

	if (store_lock_holder(st, &h) > 0) {
		store_holder_describe(&h, &b);
		err_set(e, ERR_BUSY, "%s: the study is busy: %s holds the "
			"write lock; nothing was written: try again when it "
			"ends; %s%s can end it (`kill %ld`)", st->path, b.ptr,
			h.user, strcmp(h.user, "root") ? " or root" : "",
			(long)h.pid);
	} else {
		err_set(e, ERR_BUSY, "%s: the study is busy (another "
			"bugcoder is writing); nothing was written: try again",
			st->path);
	}
	buf_release(&b);
}

/* "2024-01-02T03:04:05Z" as seconds since the epoch, or -1. */
static long long iso_seconds(const char *s)
{
	struct tm tm;
	char z = 0;

	memset(&tm, 0, sizeof(tm));
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year,
			 &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			 &tm.tm_sec, &z) != 7 || z != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

/* Is the full check recorded at `last` (NULL: never) a day old? */
static int check_is_old(const char *last)
{
	char now[32];
	long long a, b;

	store_now(now);
	a = iso_seconds(last);
	b = iso_seconds(now);
	return a < 0 || b < 0 || b - a >= DAILY_CHECK_SECONDS;
}

/* The full check at the first write of a connection, when it is due:
 * after an unclean stop, or a day after the last one.  *record is set
 * when it ran and passed (the caller records it once it holds the write
 * lock).  0, or -1 with `e` filled. */
static int first_write_checks(struct store *st, int *record, struct err *e)
{
	char *last = NULL;
	int due = st->unclean;

	*record = 0;
	if (!due && !st->no_daily) {
		if (store_meta_read(st, CHECKED_AT_KEY, &last, e) < 0)
			return -1;
		due = check_is_old(last);
		free(last);
	}
	if (!due)
		return 0;
	if (check_pages(st, 1, 1, e) < 0)
		return -1;
	*record = 1;
	return 0;
}

/* The time of a full check that passed, in the caller's transaction. */
static int record_check(struct store *st, struct err *e)
{
	char now[32];

	store_now(now);
	return store_meta_set(st, CHECKED_AT_KEY, now, e);
}

void store_interactive(struct store *st)
{
	st->no_daily = 1;
}

/* Note a full check that passed, when the study can be written at once
 * (a busy or read-only study is checked again another time). */
static void note_check(struct store *st)
{
	struct err ignored = ERR_INIT;

	st->unclean = 0;
	if (st->readonly || st->depth || !strcmp(st->path, ":memory:"))
		return;
	store_busy_timeout(st, 0);
	if (store_exec(st, "BEGIN IMMEDIATE", &ignored) == 0) {
		if (record_check(st, &ignored) == 0)
			store_exec(st, "COMMIT", &ignored);
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	}
	store_busy_timeout(st, -1);
}

int store_verify(struct store *st, int writing, struct err *e)
{
	if (check_pages(st, 1, writing, e) < 0)
		return -1;
	note_check(st);
	return 0;
}

/* Savepoint names: one per nesting level (level 1 is the transaction). */
static void level_sql(char *sql, size_t size, const char *verb, int level)
{
	snprintf(sql, size, "%s store_level_%d", verb, level);
}

static int nested_begin(struct store *st, struct err *e)
{
	char sql[64];

	if (st->lost)
		return err_set(e, ERR_DB, "%s: the transaction was undone by an "
			       "error; nothing was written", st->path);
	level_sql(sql, sizeof(sql), "SAVEPOINT", st->depth + 1);
	if (store_exec(st, sql, e) < 0)
		return -1;
	st->depth++;
	return 0;
}

int store_begin(struct store *st, struct err *e)
{
	struct store_reader *r;
	int record = 0;

	if (st->depth > 0)
		return nested_begin(st, e);
	st->depth++;
	st->lost = 0;
	test_begin_gate();
	for (r = st->readers; r; r = r->next)
		r->release(r);
	if (st->readonly) {
		st->depth = 0;
		/* say which permission is missing, when one is */
		if (!(st->flags & STORE_PRIVILEGED) &&
		    explain_access(st->path, 1, e) < 0)
			return -1;
		return err_set(e, ERR_IO, "%s: the study can only be read here "
			       "(its directory is read-only or the disk is "
			       "full); nothing was written", st->path);
	}
	if (!st->checked && strcmp(st->path, ":memory:")) {
		/* outside the write lock (a check holds nobody up); depth
		 * stays 1, so a damage met says nothing was written */
		if (first_write_checks(st, &record, e) < 0) {
			st->depth = 0;
			return -1;
		}
		st->checked = 1;
		st->unclean = 0;
	}
	if (store_exec(st, "BEGIN IMMEDIATE", e) < 0) {
		st->depth = 0;
		/* a BEGIN that failed late may have opened the transaction
		 * all the same: never leave one behind */
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		if (e && e->code == ERR_BUSY)
			busy_error(st, e);
		return -1;
	}
	/* the time is taken once the write lock is held */
	tx_started();
	st->lock_since = now_seconds();
	st->audit_known = 0;
	if (record && record_check(st, e) < 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

int store_commit(struct store *st, struct err *e)
{
	char sql[64];

	if (st->depth <= 0)
		return 0;
	if (st->lost) {
		store_rollback(st);
		return err_set(e, ERR_DB, "%s: the transaction was undone by an "
			       "error; nothing was written", st->path);
	}
	if (st->depth > 1) {
		level_sql(sql, sizeof(sql), "RELEASE", st->depth);
		if (store_exec(st, sql, e) < 0) {
			store_rollback(st);
			return -1;
		}
		st->depth--;
		return 0;
	}
	st->depth = 0;
	tx_ended();
	if (store_exec(st, "COMMIT", e) < 0) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		lock_released(st);
		return -1;
	}
	lock_released(st);
	st->commits++;
	/* a `cp` of the study alone, or a session killed next, keeps it */
	checkpoint(st, 0);
	return 0;
}

void store_rollback(struct store *st)
{
	char sql[64];

	if (st->depth <= 0)
		return;
	/* whatever this level wrote to the audit chain is undone */
	st->audit_known = 0;
	if (st->depth > 1) {
		int level = st->depth--;

		if (st->lost)
			return;
		level_sql(sql, sizeof(sql), "ROLLBACK TO", level);
		if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK) {
			level_sql(sql, sizeof(sql), "RELEASE", level);
			sqlite3_exec(st->db, sql, NULL, NULL, NULL);
			return;
		}
		/* gone already (SQLite rolls back the whole transaction
		 * on some errors): the outer levels may only roll back */
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		st->lost = 1;
		return;
	}
	st->depth = 0;
	st->lost = 0;
	tx_ended();
	/* a ROLLBACK that fails (a lock, an interrupt) leaves the
	 * transaction open and every later write refused: try again */
	if (sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK &&
	    !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	lock_released(st);
}

int store_meta_read(struct store *st, const char *key, char **value,
		    struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*value = NULL;
	s = store_prepare(st, "SELECT value FROM meta WHERE key = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading the study's settings", e);
	if (rc > 0)
		*value = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
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
	char *v;

	if (store_meta_read(st, key, &v, NULL) < 0)
		return NULL;
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
	static time_t last = (time_t)-1;	/* what `text` shows */
	static char text[32];
	const char *fixed = priv_hook_env("BUGCODER_NOW");
	time_t t;
	struct tm tm;

	if (tx_now[0]) {
		memcpy(out, tx_now, 32);
		return;
	}
	if (fixed && *fixed) {
		snprintf(out, 32, "%s", fixed);
		return;
	}
	t = time(NULL);
	if (t != last) {
		gmtime_r(&t, &tm);
		strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
		last = t;
	}
	memcpy(out, text, sizeof(text));
}

static const char audit_insert_sql[] = "INSERT INTO audit (id, at, actor, "
	"for_member, action, item_id, dimension, old, new, hash, detail) VALUES "
	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

int store_audit_row(struct store *st, const struct audit_row *r,
		    struct err *e)
{
	sqlite3_stmt *s = store_cached(st, audit_insert_sql, e);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->at, -1, SQLITE_STATIC);
	store_bind_static(s, 3, r->actor);
	store_bind_static(s, 4, r->for_member);
	store_bind_static(s, 5, r->action);
	if (r->item_id)
		sqlite3_bind_int64(s, 6, r->item_id);
	else
		sqlite3_bind_null(s, 6);
	store_bind_static(s, 7, r->dimension);
	store_bind_static(s, 8, r->old);
	store_bind_static(s, 9, r->new_value);
	sqlite3_bind_text(s, 10, r->hash, -1, SQLITE_STATIC);
	store_bind_static(s, 11, r->detail);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		store_error(st, e, "writing the audit log");
		store_done(s);
		st->audit_known = 0;
		return -1;
	}
	store_done(s);
	st->audit_known = 1;
	st->audit_id = r->id;
	memcpy(st->audit_hash, r->hash, sizeof(st->audit_hash));
	return 0;
}

int store_audit(struct store *st, const char *actor, const char *for_member,
		const char *action, long long item_id, const char *dimension,
		const char *old_value, const char *new_value, struct err *e)
{
	return store_audit_detail(st, actor, for_member, action, item_id,
				  dimension, old_value, new_value, NULL, e);
}

int store_audit_detail(struct store *st, const char *actor,
		       const char *for_member, const char *action,
		       long long item_id, const char *dimension,
		       const char *old_value, const char *new_value,
		       const char *detail, struct err *e)
{
	struct audit_row r = {
		.actor = actor, .for_member = for_member, .action = action,
		.item_id = item_id, .dimension = dimension, .old = old_value,
		.new_value = new_value, .detail = detail,
	};
	char prev[SHA256_HEX_LEN + 1], now[32];
	int own = st->depth == 0;

	/* the chain needs the last row and the new one in one write lock */
	if (own && store_begin(st, e) < 0)
		return -1;
	/* the head of the chain is read once a transaction, then kept:
	 * rows are appended only here */
	if (st->audit_known) {
		r.id = st->audit_id;
		memcpy(prev, st->audit_hash, sizeof(prev));
	} else if (audit_last(st, &r.id, prev, e) < 0) {
		goto fail;
	}
	r.id++;
	store_now(now);
	r.at = now;
	audit_row_hash(prev, &r, r.hash);
	if (store_audit_row(st, &r, e) < 0)
		goto fail;
	if (own)
		return store_commit(st, e);
	return 0;
fail:
	st->audit_known = 0;
	if (own)
		store_rollback(st);
	return -1;
}

int store_read_begin(struct store *st, struct err *e)
{
	return store_exec(st, "SAVEPOINT read_snapshot", e);
}

void store_read_end(struct store *st)
{
	store_exec(st, "RELEASE read_snapshot", NULL);
}
