/*
 * priv: see priv.h.
 *
 * Limitations: single-threaded use only (the effective group is a
 * property of the process); the server.conf lookup needs /proc.
 */
#define _GNU_SOURCE		/* setresgid */
#include "core/priv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"

extern char **environ;

static struct {
	gid_t rgid, egid;	/* real and privileged group at start */
	int setgid;		/* egid != rgid at start */
	int depth;		/* nesting of priv_raise() */
	int conf_read;
	struct server_conf conf;
	int have_conf;
} priv;

int priv_init(struct err *e)
{
	struct rlimit rl = { 0, 0 };

	priv.rgid = getgid();
	priv.egid = getegid();
	priv.setgid = priv.rgid != priv.egid;
	/* no core file, and no ptrace or /proc/PID/fd by the user: a
	 * process that has opened a study holds its descriptors */
	setrlimit(RLIMIT_CORE, &rl);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (priv.setgid && setegid(priv.rgid) < 0)
		return err_set(e, ERR_IO, "cannot lower the group privilege: "
			       "%s", strerror(errno));
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
	if (priv.depth++)
		return 0;
	if (setegid(priv.egid) < 0) {
		priv.depth = 0;
		return -1;
	}
	return 0;
}

int priv_lower(void)
{
	int saved = errno;

	if (!priv.setgid || priv.depth <= 0)
		return 0;
	if (--priv.depth)
		return 0;
	if (setegid(priv.rgid) < 0)
		abort();	/* never go on with a privilege we meant to drop */
	errno = saved;
	return 0;
}

int priv_drop_for_good(void)
{
	gid_t g = priv.setgid ? priv.rgid : getgid();

	if (setresgid(g, g, g) < 0)
		return -1;
	if (priv.setgid && (getegid() != g || setegid(priv.egid) == 0))
		return -1;	/* still able to raise: refuse to go on */
	return 0;
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

/* Parse `key = value` lines; '#' starts a comment line. */
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
