/* SPDX-License-Identifier: MIT */
/*
 * t_priv: the keeper that removes a half-made study, and the process
 * never dumpable (core/base/priv.h).
 *
 * Run without a privilege (the test binary is not setgid), the keeper
 * does the same job with the caller's rights, so what it leaves or
 * removes, and how it meets signals, can be checked here.  Each test
 * runs the command's side in a child of its own process group, as a
 * shell runs a command.
 */
#define _GNU_SOURCE		/* setresgid */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/priv.h"

static char dir[] = "/tmp/t_priv.XXXXXX";
static char paths[2][64];

/* (Re)create the two files the keeper is given. */
static void make_files(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		int fd = open(paths[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);

		assert_true(fd >= 0);
		close(fd);
	}
}

static int setup(void **state)
{
	int i;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < 2; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/s.db%s", dir,
			 i ? "-wal" : "");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(paths[0]);
	unlink(paths[1]);
	rmdir(dir);
	return 0;
}

static int gone(const char *path)
{
	return access(path, F_OK) < 0 && errno == ENOENT;
}

/* Wait (at most 5 s) until both files are gone; 1 when they are. */
static int both_gone(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 500; i++) {
		if (gone(paths[0]) && gone(paths[1]))
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The command's side, in a child leading its own process group: start
 * the keeper, tell the test it runs, then wait to be killed or end as
 * `how` says.  Returns the child's pid once the keeper runs. */
enum how { WAIT, END_KEEP, END_REMOVE, KEEPER_KILLED_THEN_END };

static pid_t command(enum how how)
{
	const char *const p[2] = { paths[0], paths[1] };
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct err e = ERR_INIT;

		close(fds[0]);
		setpgid(0, 0);
		if (priv_keeper_start(p, 2, &e) < 0)
			_exit(10);
		if (how == KEEPER_KILLED_THEN_END) {
			/* the keeper: the one child we have */
			FILE *f;
			char path[64];
			long child = 0;

			snprintf(path, sizeof(path),
				 "/proc/self/task/%ld/children",
				 (long)getpid());
			f = fopen(path, "r");
			if (!f || fscanf(f, "%ld", &child) != 1)
				_exit(11);
			fclose(f);
			kill((pid_t)child, SIGKILL);
			waitpid((pid_t)child, NULL, 0);
			if (write(fds[1], "x", 1) != 1)
				_exit(12);
			priv_keeper_end(0);
			_exit(0);
		}
		if (write(fds[1], "x", 1) != 1)
			_exit(12);
		if (how == END_KEEP || how == END_REMOVE) {
			priv_keeper_end(how == END_REMOVE);
			_exit(0);
		}
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid > 0) {
		char c;

		setpgid(pid, pid);	/* either side may win the race */
		if (read(fds[0], &c, 1) != 1) {
			close(fds[0]);
			return -1;
		}
	}
	close(fds[0]);
	return pid;
}

static void test_end_keeps_or_removes(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	make_files();
	pid = command(END_KEEP);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_false(gone(paths[0]));
	assert_false(gone(paths[1]));

	pid = command(END_REMOVE);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(both_gone());
}

static void test_command_killed_removes(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	make_files();
	pid = command(WAIT);
	assert_true(pid > 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(both_gone());
}

/* `timeout`, `kill -TERM -PGID` and a session's end send SIGTERM to the
 * whole group: the keeper must outlive it to do its job. */
static void test_group_terminated_removes(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	make_files();
	pid = command(WAIT);
	assert_true(pid > 0);
	assert_int_equal(kill(-pid, SIGTERM), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_true(both_gone());
}

/* The keeper killed first (its owner may): the command still ends as
 * it would, not by SIGPIPE on the keeper's pipe. */
static void test_keeper_killed_command_ends(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	make_files();
	pid = command(KEEPER_KILLED_THEN_END);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(gone(paths[0]));
}

/* No core file and no tracing, whatever fs.suid_dumpable says: the
 * kernel sets a process's dumpable flag back to fs.suid_dumpable at every
 * change of its effective group, so each of them must leave the flag off.
 * Needs root to start with two groups, as a setgid binary does. */
static void test_never_dumpable(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();
	pid = fork();
	if (pid == 0) {
		struct err e = ERR_INIT;

		/* real group nogroup, effective and saved root's: what a
		 * setgid binary starts with */
		if (setresgid(65534, 0, 0) < 0)
			_exit(20);
		if (priv_init(&e) < 0 || !priv_is_setgid())
			_exit(21);
		if (prctl(PR_GET_DUMPABLE) != 0)
			_exit(1);
		if (priv_raise() < 0 || prctl(PR_GET_DUMPABLE) != 0)
			_exit(2);
		priv_lower();
		if (prctl(PR_GET_DUMPABLE) != 0)
			_exit(3);
		if (priv_drop_for_good() < 0 || getegid() != 65534)
			_exit(22);
		if (prctl(PR_GET_DUMPABLE) != 0)
			_exit(4);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_keeps_or_removes),
		cmocka_unit_test(test_command_killed_removes),
		cmocka_unit_test(test_group_terminated_removes),
		cmocka_unit_test(test_keeper_killed_command_ends),
		cmocka_unit_test(test_never_dumpable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
