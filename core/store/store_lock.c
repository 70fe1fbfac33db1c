/* SPDX-License-Identifier: MIT */
/*
 * store_lock: who holds a study's write lock (the process, its user and
 * how long it has run), whether a study is in use, and whether it was
 * left uncleanly by a process that stopped while it had it open.
 */
#include "core/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/store/store_int.h"

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
int store_stopped_uncleanly(const char *path, unsigned flags)
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
