/*
 * priv: the group privilege of a server install.
 *
 * A server install (`make install-server`) makes the binary setgid to a
 * group that owns the study directory; members are not in that group, so
 * they reach a study only through bugcoder.  The privilege is used for one
 * thing: opening study files (the study and its -wal, -shm and journal)
 * inside that directory.  priv_init() runs first in main(): it records the
 * real and the effective group, lowers the effective group to the real one
 * at once (the saved set-group-ID keeps the privilege for priv_raise()),
 * and turns core dumps off.  Everything else the program opens - inputs,
 * outputs, the editor's file - is therefore opened as the user.
 *
 * Children (the editor) drop the privilege for good with
 * priv_drop_for_good() and start from priv_clean_env().  Test and
 * benchmark hooks (BUGCODER_NOW, BUGCODER_KEYS, ...) are read through
 * priv_hook_env(), which ignores them when the program runs with a
 * privilege it was not started with.
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

#include "core/err.h"

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

/* In a child about to exec: set real, effective and saved group to the
 * real group, so nothing run from here can raise it again.  Returns 0 or
 * -1 (errno). */
int priv_drop_for_good(void);
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

/* The server install's settings, or NULL for a personal install (no
 * server.conf beside the binary).  The file must belong to root and be
 * writable by nobody else, or it is ignored. */
struct server_conf {
	char *studydir;		/* owned; absolute, no trailing slash */
	char *group;		/* owned; the group name, may be NULL */
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
