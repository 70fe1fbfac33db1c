/* SPDX-License-Identifier: MIT */
/*
 * priv: see priv.h.
 *
 * Limitations: single-threaded use only (the effective group is a
 * property of the process); the server.conf lookup needs /proc.
 */
#define _GNU_SOURCE		/* setresgid */
#include "core/base/priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/buf.h"

extern char **environ;

static struct {
	gid_t rgid, egid;	/* real and privileged group at start */
	int setgid;		/* egid != rgid at start */
	int dropped;		/* priv_drop_for_good() done: no way back */
	int depth;		/* nesting of priv_raise() */
	pid_t keeper;		/* see priv_keeper_start(), or 0 */
	int keeper_fd;		/* its pipe's write end */
	int conf_read;
	struct server_conf conf;
	int have_conf;
} priv;

/*
 * No core file, and no ptrace or /proc/PID/fd by the user: a process that
 * has opened a study holds its descriptors.  The kernel sets the flag
 * back to fs.suid_dumpable at every change of the effective group (1 there
 * would let the user trace us), so this follows each one.
 */
static void no_dump(void)
{
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int priv_init(struct err *e)
{
	struct rlimit rl = { 0, 0 };

	priv.rgid = getgid();
	priv.egid = getegid();
	priv.setgid = priv.rgid != priv.egid;
	setrlimit(RLIMIT_CORE, &rl);
	no_dump();
	if (priv.setgid && setegid(priv.rgid) < 0)
		return err_set(e, ERR_IO, "cannot lower the group privilege: "
			       "%s", strerror(errno));
	no_dump();
	return 0;
}

int priv_is_setgid(void)
{
	return priv.setgid;
}

gid_t priv_group(void)
{
	return priv.setgid ? priv.egid : getegid();
}

gid_t priv_real_group(void)
{
	return priv.setgid ? priv.rgid : getgid();
}

int priv_raise(void)
{
	if (!priv.setgid)
		return 0;
	if (priv.dropped) {
		errno = EPERM;
		return -1;
	}
	if (priv.depth++)
		return 0;
	if (setegid(priv.egid) < 0) {
		priv.depth = 0;
		return -1;
	}
	no_dump();
	return 0;
}

int priv_lower(void)
{
	int saved = errno;

	if (!priv.setgid || priv.dropped || priv.depth <= 0)
		return 0;
	if (--priv.depth)
		return 0;
	if (setegid(priv.rgid) < 0)
		abort();	/* never go on with a privilege we meant to drop */
	no_dump();
	errno = saved;
	return 0;
}

int priv_drop_for_good(void)
{
	gid_t g = priv.setgid ? priv.rgid : getgid();
	gid_t r, e, s;

	if (setresgid(g, g, g) < 0)
		return -1;
	no_dump();
	if (getresgid(&r, &e, &s) < 0 || r != g || e != g || s != g)
		return -1;
	/* still able to raise: refuse to go on (root can always) */
	if (priv.setgid && geteuid() != 0 && setegid(priv.egid) == 0) {
		errno = EPERM;
		return -1;
	}
	priv.dropped = 1;
	priv.depth = 0;
	return 0;
}

int priv_dropped(void)
{
	gid_t r, e, s;

	if (getresgid(&r, &e, &s) < 0)
		return 0;
	return r == e && e == s && (!priv.setgid || e == priv.rgid);
}

void priv_clean_env(void)
{
	size_t i = 0;

	while (environ && environ[i]) {
		if (!strncmp(environ[i], "BUGCODER_", 9)) {
			char name[128];
			const char *eq = strchr(environ[i], '=');
			size_t len = eq ? (size_t)(eq - environ[i]) :
				     strlen(environ[i]);

			if (len < sizeof(name)) {
				memcpy(name, environ[i], len);
				name[len] = '\0';
				unsetenv(name);
				continue;
			}
		}
		i++;
	}
}

void priv_close_fds(int from)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

	if (close_range((unsigned)from, ~0U, 0) == 0)
		return;
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = from; fd < max; fd++)
		close(fd);
}

const char *priv_hook_env(const char *name)
{
	/* AT_SECURE: started setuid, setgid or with file capabilities,
	 * whether or not the privilege is still held */
	if (priv.setgid || getegid() != getgid() || geteuid() != getuid() ||
	    getauxval(AT_SECURE))
		return NULL;
	return getenv(name);
}

int priv_input_ok(int fd)
{
	struct stat sb;

	if (!priv.setgid)
		return 0;
	if (fstat(fd, &sb) < 0)
		return -1;
	if (sb.st_gid == priv.egid) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Parse `key = value` lines; '#' starts a comment line (and, in the
 * creators line, a comment after the names). */
static void read_conf(FILE *f)
{
	char line[PATH_MAX + 64];

	while (fgets(line, sizeof(line), f)) {
		char *eq, *key, *val;

		key = trim(line);
		if (!*key || *key == '#' || !(eq = strchr(key, '=')))
			continue;
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		if (!strcmp(key, "studydir") && val[0] == '/') {
			size_t n = strlen(val);

			while (n > 1 && val[n - 1] == '/')
				val[--n] = '\0';
			free(priv.conf.studydir);
			priv.conf.studydir = xstrdup(val);
		} else if (!strcmp(key, "group") && *val) {
			free(priv.conf.group);
			priv.conf.group = xstrdup(val);
		} else if (!strcmp(key, "creators")) {
			/* no account name holds a '#': what follows one is
			 * a note, and names nobody */
			char *hash = strchr(val, '#');

			if (hash) {
				*hash = '\0';
				val = trim(val);
			}
			free(priv.conf.creators);
			priv.conf.creators = xstrdup(val);
		}
	}
}

const struct server_conf *priv_server_conf(void)
{
	char exe[PATH_MAX], *slash;
	struct buf path = BUF_INIT;
	struct stat sb;
	ssize_t n;
	FILE *f;

	if (priv.conf_read)
		return priv.have_conf ? &priv.conf : NULL;
	priv.conf_read = 1;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	buf_addf(&path, "%s/../share/bugcoder/server.conf", exe);
	f = fopen(path.ptr, "re");
	buf_release(&path);
	if (!f)
		return NULL;
	/* trusted only if nobody but root could have written it */
	if (fstat(fileno(f), &sb) < 0 || sb.st_uid != 0 ||
	    (sb.st_mode & 022) || !S_ISREG(sb.st_mode)) {
		fclose(f);
		return NULL;
	}
	read_conf(f);
	fclose(f);
	if (!priv.conf.studydir)
		return NULL;
	priv.have_conf = 1;
	return &priv.conf;
}

int priv_may_create(const char *user)
{
	const struct server_conf *conf = priv_server_conf();
	const char *p;
	size_t n;

	if (!conf || getuid() == 0)
		return 1;
	if (!user || !*user || !conf->creators)
		return 0;
	n = strlen(user);
	for (p = conf->creators; *p; ) {
		size_t len;

		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, ", \t");
		if (len == n && !strncmp(p, user, n))
			return 1;
		p += len;
	}
	return 0;
}

/*
 * The keeper: a child forked while the group can still be raised, that
 * does nothing but wait for one byte on a pipe.  'k' (or the pipe closed
 * after a 'k') lets it exit; 'r', or the pipe closed with nothing said
 * (the parent died), makes it remove the files named at the start.  It
 * reads no input, holds no descriptor but the pipe, and ignores the
 * terminal's signals and SIGTERM so that a Ctrl-C of the command, a
 * `timeout` or a session's end (signals to the whole process group)
 * still clean up; only SIGKILL stops it before its job.
 */
int priv_keeper_start(const char *const *paths, int n, struct err *e)
{
	static const int ignored[] = {
		SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP, SIGPIPE
	};
	sigset_t block, old;
	int fds[2], i;
	pid_t pid;

	if (priv.keeper)
		return err_set(e, ERR_IO, "a keeper runs already");
	if (pipe2(fds, O_CLOEXEC) < 0)
		return err_set(e, ERR_IO, "cannot make a pipe: %s",
			       strerror(errno));
	/* blocked across the fork, so that a signal to the group sent as
	 * soon as the command goes on finds the keeper ignoring it */
	sigemptyset(&block);
	for (i = 0; i < (int)(sizeof(ignored) / sizeof(ignored[0])); i++)
		sigaddset(&block, ignored[i]);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[0]);
		close(fds[1]);
		return err_set(e, ERR_IO, "cannot fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char c = 0;
		ssize_t r;

		for (i = 0; i < (int)(sizeof(ignored) / sizeof(ignored[0]));
		     i++)
			signal(ignored[i], SIG_IGN);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[1]);
		if (dup2(fds[0], 0) < 0)
			_exit(1);
		priv_close_fds(1);
		do
			r = read(0, &c, 1);
		while (r < 0 && errno == EINTR);
		if (r == 1 && c == 'k')
			_exit(0);
		if (priv.setgid && setegid(priv.egid) < 0)
			_exit(1);
		no_dump();
		for (i = 0; i < n; i++)
			unlink(paths[i]);
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fds[0]);
	priv.keeper = pid;
	priv.keeper_fd = fds[1];
	return 0;
}

void priv_keeper_end(int remove)
{
	struct sigaction ign, old;
	char c = remove ? 'r' : 'k';
	int status;

	if (!priv.keeper)
		return;
	/* a keeper killed already (its owner may) must not take the
	 * command with it through SIGPIPE */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	if (write(priv.keeper_fd, &c, 1) != 1) {
		/* the keeper is gone already: nothing it could do now */
	}
	sigaction(SIGPIPE, &old, NULL);
	close(priv.keeper_fd);
	while (waitpid(priv.keeper, &status, 0) < 0 && errno == EINTR)
		;
	priv.keeper = 0;
	priv.keeper_fd = -1;
}

int priv_study_path(const char *name, char **path, int *privileged,
		    struct err *e)
{
	const struct server_conf *conf = priv_server_conf();
	struct buf b = BUF_INIT;
	const char *p;
	size_t n;

	*path = NULL;
	*privileged = 0;
	if (!conf || strchr(name, '/')) {
		*path = xstrdup(name);
		return 0;
	}
	if (!*name || name[0] == '.' || name[0] == '-' || strstr(name, ".."))
		return err_set(e, ERR_USAGE, "study name '%s' refused: a name "
			       "in the study directory (%s) may not start with "
			       "'.' or '-' or hold \"..\"; a path needs a "
			       "'/' (./%s)", name, conf->studydir, name);
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			return err_set(e, ERR_USAGE, "study name '%s' refused: "
				       "names are letters, digits, '.', '_' "
				       "and '-'; a path needs a '/'", name);
	n = strlen(name);
	buf_addf(&b, "%s/%s%s", conf->studydir, name,
		 n > 3 && !strcmp(name + n - 3, ".db") ? "" : ".db");
	*path = buf_detach(&b, NULL);
	*privileged = 1;
	return 0;
}
