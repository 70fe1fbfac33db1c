/* SPDX-License-Identifier: MIT */
/*
 * priv: the group privilege of a server install.
 *
 * A server install (`make install-server`) makes the binary setgid to a
 * group that owns the study directory; members are not in that group, so
 * they reach a study only through bugcoder.  The privilege is used for one
 * narrow step: opening the study named in that directory, with its -wal
 * and -shm.  priv_init() runs first in main(): it records the real and
 * the effective group, lowers the effective group to the real one at
 * once, and turns core dumps off.  main() then opens the study (a name in
 * STUDYDIR) with the group raised only inside the privileged file layer
 * (vfs.h), which opens that study's files and nothing else, and then
 * gives the group up for good with priv_drop_for_good(): real, effective
 * and saved group all the user's own.  Only then does the program read
 * any configuration, terminfo, keys file, codebook, input file or item
 * text, or start the screen.  A study opened by path drops the group
 * before anything.  What the process still holds after the drop are the
 * open study's descriptors (the study, its -wal and -shm), which SQLite
 * keeps open for the life of the connection.
 *
 * Children (the editor, machine coders) start from priv_clean_env() and
 * close every descriptor but their own.  Test and benchmark hooks
 * (BUGCODER_NOW, BUGCODER_KEYS, ...) are read through priv_hook_env(),
 * which ignores them whenever the binary ran with a group it was not
 * started with.
 *
 * A personal install is not setgid: every call here is then a no-op
 * (apart from core dumps, which stay off too).
 *
 * The server install's settings (STUDYDIR, GROUP) are read from a file
 * installed beside the binary, ../share/bugcoder/server.conf relative to
 * the running executable; see priv_server_conf().
 */
#ifndef BUGCODER_PRIV_H
#define BUGCODER_PRIV_H

#include <sys/types.h>

#include "core/base/err.h"

/* Record the ids, lower the effective group, turn core dumps off.
 * Returns 0, or -1 with `e` filled when the ids cannot be set (the
 * program must then stop). */
int priv_init(struct err *e);

/* Does the program run with a group it was not started with (a setgid
 * binary run by someone outside that group)? */
int priv_is_setgid(void);
/* The privileged group (the binary's group) and the user's real group. */
gid_t priv_group(void);
gid_t priv_real_group(void);

/* Raise the effective group to the privileged one / lower it back.
 * Calls nest; no-ops without a privilege.  Returns 0 or -1 (errno). */
int priv_raise(void);
int priv_lower(void);

/* Set real, effective and saved group to the real group, so nothing run
 * from here can raise it again: done by main() once the study is open
 * (see below), and in every child about to exec.  Later priv_raise()
 * calls fail with EPERM.  Returns 0 or -1 (the privilege may still be
 * there: the caller must stop). */
int priv_drop_for_good(void);
/* Are real, effective and saved group all the user's own? */
int priv_dropped(void);

/* May `user` create a study in STUDYDIR?  Root may; anyone else only
 * when named on server.conf's `creators = NAME,NAME` line.  1 without a
 * server install. */
int priv_may_create(const char *user);

/* Before the drop: fork a child that keeps the group for one job only,
 * removing `paths` (n of them; copied by the fork) if the command fails
 * after the drop (`init` in STUDYDIR parses its codebook without the
 * group, and must not leave a half-made study behind).  It reads nothing
 * but one byte from a pipe, and ignores the signals that end a command
 * (a terminal's, SIGTERM): only SIGKILL stops it before its job.
 * Returns 0 or -1 with `e` filled. */
int priv_keeper_start(const char *const *paths, int n, struct err *e);
/* Tell the keeper to remove its files (`remove`) or to leave them, and
 * wait for it.  No-op without a keeper. */
void priv_keeper_end(int remove);
/* In a child about to exec: remove the program's own hooks and settings
 * (BUGCODER_*) from the environment. */
void priv_clean_env(void);

/* In a child about to exec: close every descriptor from `from` up. */
void priv_close_fds(int from);

/* getenv() for test and benchmark hooks (every BUGCODER_* variable but
 * BUGCODER_STUDY): NULL whenever the program holds or was started with
 * a privilege it was not given by its caller (setgid or setuid, file
 * capabilities), whatever the environment says.  Borrowed.  The hooks
 * are read through this one guard only: `make check-layering` fails on
 * a getenv() of one elsewhere. */
const char *priv_hook_env(const char *name);

/* May the open file `fd`, a file the user named as input, be read?  On a
 * server install never a file of the install's group: every such file
 * is a study's own (the study, its -wal, -shm or journal), and a process
 * that has a study open reaches them through /proc/self/fd/N with the
 * rights of their owner (the study's creator; whoever first opened the
 * study, for the -wal and -shm).  Returns 0, or -1 with errno EACCES. */
int priv_input_ok(int fd);

/* The server install's settings, or NULL for a personal install (no
 * server.conf beside the binary).  The file must belong to root and be
 * writable by nobody else, or it is ignored. */
struct server_conf {
	char *studydir;		/* owned; absolute, no trailing slash */
	char *group;		/* owned; the group name, may be NULL */
	char *creators;		/* owned; `creators = a,b`, may be NULL:
				   who besides root may create studies */
};
const struct server_conf *priv_server_conf(void);

/* Where the study `name` (from --study or BUGCODER_STUDY) is.  On a
 * server install a plain name (no '/') is a study in STUDYDIR: "llm" is
 * STUDYDIR/llm.db, opened with the privilege (*privileged set); a name
 * with "..", a leading '.' or characters other than letters, digits,
 * '.', '_' and '-' is refused.  Anything with a '/' is a path, as on a
 * personal install, where every name is a path.  Returns 0 with *path
 * owned by the caller, or -1 with `e` filled (ERR_USAGE). */
int priv_study_path(const char *name, char **path, int *privileged,
		    struct err *e);

#endif
