/*
 * cmd_server: the commands of a shared study server - `audit` (read and
 * verify the hash-chained audit log), `backup` (a consistent copy through
 * SQLite's backup API) and `doctor` (is this installation and study set
 * up so that blinding and sharing hold?).
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <langinfo.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/audit.h"
#include "core/buf.h"
#include "core/item.h"
#include "core/priv.h"
#include "core/vfs.h"
#include "exports/atomic.h"
#include "exports/audit_out.h"
#include "tui/ui.h"

/* ---- audit ----------------------------------------------------------- */

static int print_row(const struct audit_row *r, void *data)
{
	FILE *out = data;

	fprintf(out, "%6lld %s ", r->id, r->at ? r->at : "");
	cli_print_safe(out, r->actor ? r->actor : "?");
	if (r->for_member) {
		fprintf(out, " for ");
		cli_print_safe(out, r->for_member);
	}
	fprintf(out, " %s", r->action ? r->action : "?");
	if (r->item) {
		fprintf(out, " ");
		cli_print_safe(out, r->item);
	}
	if (r->dimension) {
		fprintf(out, " ");
		cli_print_safe(out, r->dimension);
	}
	if (r->old || r->new_value) {
		fprintf(out, ": ");
		cli_print_safe(out, r->old ? r->old : "-");
		fprintf(out, " -> ");
		cli_print_safe(out, r->new_value ? r->new_value : "-");
	}
	fprintf(out, "\n");
	return ferror(out) ? 1 : 0;
}

static int audit_verify_cmd(struct cli *c)
{
	struct audit_check chk;
	int ret;

	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (audit_verify(&c->st, &chk, &c->err) < 0)
		return cli_fail(c);
	if (chk.bad_id) {
		fprintf(stderr, "bugcoder: %s: audit log: row %lld does not "
			"fit the chain: %s\n", c->study_path, chk.bad_id,
			chk.reason);
		return 1;
	}
	printf("audit log: %lld row%s, the chain holds\n", chk.rows,
	       chk.rows == 1 ? "" : "s");
	return 0;
}

CMD(audit)
{
	static const char usage[] =
		"bugcoder audit [--item ITEM] [--member M] [--format "
		"text|csv|jsonl] [-o FILE]\n"
		"       bugcoder audit verify\n"
		"\n"
		"The audit log, oldest first: the owner reads every row, "
		"anyone else\n"
		"their own actions (by them, or by the owner for them).\n"
		"\n"
		"  --item ITEM      only the rows about ITEM (owner/repo#N or "
		"its URL;\n"
		"                   repo#N or N when only one item has that "
		"name)\n"
		"  --member M       only the rows by member M or done for M\n"
		"  --format F       text (default), csv or jsonl (one JSON "
		"object a line)\n"
		"  -o FILE          write to FILE (replaced whole, or not at "
		"all) instead\n"
		"                   of standard output\n"
		"  verify           check the log's hash chain; names the "
		"first row that\n"
		"                   does not fit (exit 1)\n"
		"\n"
		"  e.g. bugcoder audit --member alice --format csv -o "
		"alice-audit.csv\n"
		"       bugcoder audit --item microsoft/DeepSpeed#4187\n"
		"       bugcoder audit verify";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char *item = NULL, *member = NULL, *format = "text";
	const char *output = NULL;
	const struct cli_opt opts[] = {
		{ "--item", 1, &item, NULL, NULL, NULL },
		{ "--member", 1, &member, NULL, NULL, NULL },
		{ "--format", 1, &format, NULL, NULL, NULL },
		{ "-o", 1, &output, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct audit_filter f = { 0, NULL };
	struct atomic_file af;
	int npos, rc, ret = 0, out_open = 0;

	af.fd = -1;
	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (npos == 1 && !strcmp(pos[0], "verify")) {
		free(pos);
		if (item || member || output || strcmp(format, "text"))
			return cli_usage_error(usage, "audit verify takes no "
					       "options");
		return audit_verify_cmd(c);
	}
	free(pos);
	if (npos)
		return cli_usage_error(usage, "unknown audit subcommand");
	if (strcmp(format, "text") && strcmp(format, "csv") &&
	    strcmp(format, "jsonl"))
		return cli_usage_error(usage, "--format is text, csv or "
				       "jsonl, not %s", format);
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (item && (f.item_id = item_find(&c->st, item, &c->err)) < 0)
		return cli_fail(c);
	f.member = member;
	if (output) {
		/* opened as the user: the group privilege is never raised
		 * outside the study directory */
		if (atomic_open(&af, output, &c->err) < 0)
			return cli_fail(c);
		out_open = 1;
	}
	if (!strcmp(format, "text")) {
		rc = audit_list(&c->st, &c->actor, &f, print_row, out_open ?
				af.f : stdout, &c->err);
		if (rc > 0)
			err_set(&c->err, ERR_IO, "writing: %s",
				strerror(errno));
	} else {
		rc = audit_write(&c->st, &c->actor, &f, !strcmp(format, "csv") ?
				 AUDIT_CSV : AUDIT_JSONL, out_open ? af.f :
				 stdout, &c->err) < 0 ? -1 : 0;
	}
	if (rc) {
		if (out_open)
			atomic_abort(&af);
		return cli_fail(c);
	}
	if (out_open && atomic_commit(&af, &c->err) < 0)
		return cli_fail(c);
	return 0;
}

/* ---- backup ---------------------------------------------------------- */

CMD(backup)
{
	static const char usage[] =
		"bugcoder backup FILE\n"
		"\n"
		"The owner's consistent copy of the study, made while others "
		"keep\n"
		"working (SQLite's online backup).\n"
		"\n"
		"  FILE  where the copy goes: a new file (an existing one is "
		"refused),\n"
		"        created readable and writable by you only (mode "
		"0600); written\n"
		"        under a hidden name beside it and renamed when whole, "
		"so a\n"
		"        killed backup leaves nothing under FILE\n"
		"\n"
		"  e.g. bugcoder backup llm-2024-05-01.db";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	const char *path;
	int npos, rc, ret;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	path = npos == 1 ? pos[0] : NULL;
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (!path)
		return cli_usage_error(usage, "backup needs one FILE");
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (c->actor.role != ROLE_OWNER) {
		err_set(&c->err, ERR_PERM, "only the owner makes a backup "
			"(it holds every member's labels)");
		return cli_fail(c);
	}
	if (store_backup(&c->st, path, &c->err) < 0)
		return cli_fail(c);
	printf("%s: a copy of %s, readable by you only\n", path,
	       c->study_path);
	return 0;
}

/* ---- doctor ---------------------------------------------------------- */

struct doctor {
	int failed;
};

static void line(struct doctor *d, const char *verdict, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

/* One line: "ok", "warn", "FAIL" (counts toward exit 1) or "note". */
static void line(struct doctor *d, const char *verdict, const char *fmt,
		 ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (!strcmp(verdict, "FAIL"))
		d->failed = 1;
	printf("%-4s  ", verdict);
	cli_print_safe(stdout, b.ptr);
	printf("\n");
	buf_release(&b);
}

static const char *group_name(gid_t g, char *tmp, size_t n)
{
	struct group *gr = getgrgid(g);

	if (gr)
		return gr->gr_name;
	snprintf(tmp, n, "gid %u", (unsigned)g);
	return tmp;
}

/* stat() with the group privilege (files in STUDYDIR). */
static int priv_stat(const char *path, struct stat *sb, int use_priv)
{
	int rc;

	if (use_priv)
		priv_raise();
	rc = lstat(path, sb);
	if (use_priv)
		priv_lower();
	return rc;
}

static void doctor_install(struct doctor *d, const struct server_conf *conf)
{
	char tmp[32], exe[4096];
	struct stat sb;
	struct buf desc = BUF_INIT;
	ssize_t n;

	if (!conf) {
		line(d, "note", "install: personal (no server.conf beside the "
		     "binary); blinding is kept by bugcoder, not by the "
		     "operating system: anyone who can write the study can "
		     "read it with sqlite3");
		return;
	}
	line(d, "ok", "install: server; study directory %s, group %s",
	     conf->studydir, conf->group ? conf->group : "?");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (stat(exe, &sb) == 0) {
			vfs_describe(&desc, &sb);
			if (!(sb.st_mode & S_ISGID) || sb.st_uid != 0 ||
			    (sb.st_mode & 022))
				line(d, "FAIL", "binary %s (%s): must be setgid, "
				     "owned by root, writable by root only "
				     "(make install-server)", exe, desc.ptr);
			else if (!priv_is_setgid() && getgid() != sb.st_gid)
				line(d, "FAIL", "binary %s (%s): runs without "
				     "its group (a nosuid mount?)", exe,
				     desc.ptr);
			else
				line(d, "ok", "binary %s (%s)", exe, desc.ptr);
		}
	}
	buf_setlen(&desc, 0);
	if (stat(conf->studydir, &sb) < 0) {
		/* a member cannot even look: that is right */
		if (errno == EACCES)
			line(d, "ok", "study directory %s: closed to you",
			     conf->studydir);
		else if (priv_stat(conf->studydir, &sb, 1) < 0)
			line(d, "FAIL", "study directory %s: %s",
			     conf->studydir, strerror(errno));
	}
	if (priv_stat(conf->studydir, &sb, 1) == 0) {
		vfs_describe(&desc, &sb);
		if (!S_ISDIR(sb.st_mode) || sb.st_gid != priv_group() ||
		    (sb.st_mode & 07) || !(sb.st_mode & S_ISGID) ||
		    (sb.st_mode & 070) != 070)
			line(d, "FAIL", "study directory %s (%s): should be "
			     "owned by root and group %s, mode 2770",
			     conf->studydir, desc.ptr,
			     group_name(priv_group(), tmp, sizeof(tmp)));
		else
			line(d, "ok", "study directory %s (%s)",
			     conf->studydir, desc.ptr);
	}
	buf_release(&desc);
}

/* Could the calling user open `path` without bugcoder? */
static int user_can_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static void doctor_study(struct doctor *d, struct cli *c,
			 const struct server_conf *conf)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	char tmp[32];
	struct stat db, sb;
	size_t i;
	int use_priv = c->study_privileged;

	if (priv_stat(c->study_path, &db, use_priv) < 0) {
		line(d, "FAIL", "study %s: %s", c->study_path,
		     strerror(errno));
		return;
	}
	for (i = 0; i < 3; i++) {
		struct buf p = BUF_INIT, desc = BUF_INIT;

		buf_addf(&p, "%s%s", c->study_path, suffix[i]);
		if (priv_stat(p.ptr, &sb, use_priv) < 0) {
			buf_release(&p);
			continue;
		}
		vfs_describe(&desc, &sb);
		if (S_ISLNK(sb.st_mode))
			line(d, "FAIL", "%s is a symbolic link", p.ptr);
		else if (sb.st_mode & 07)
			line(d, "FAIL", "%s (%s): readable or writable by "
			     "everyone: `chmod o-rwx`", p.ptr, desc.ptr);
		else if (use_priv && sb.st_gid != priv_group())
			line(d, "FAIL", "%s (%s): not in the install's group "
			     "%s", p.ptr, desc.ptr,
			     group_name(priv_group(), tmp, sizeof(tmp)));
		else if (i && (sb.st_gid != db.st_gid ||
			       (sb.st_mode & 0777) != (db.st_mode & 0777)))
			line(d, "FAIL", "%s (%s): group or mode differ from "
			     "the study's; others may be locked out", p.ptr,
			     desc.ptr);
		else if ((sb.st_mode & 060) != 060)
			line(d, "warn", "%s (%s): not group-readable and "
			     "-writable, so no one else can share it", p.ptr,
			     desc.ptr);
		else
			line(d, "ok", "%s (%s)", p.ptr, desc.ptr);
		buf_release(&desc);
		buf_release(&p);
	}
	if (!conf) {
		line(d, "note", "you can open the study without bugcoder "
		     "(a personal install)");
	} else if (getuid() == 0) {
		line(d, "note", "you are root: root reads every study "
		     "directly");
	} else {
		struct buf wal = BUF_INIT;

		buf_addf(&wal, "%s-wal", c->study_path);
		if (user_can_open(c->study_path) || user_can_open(wal.ptr))
			line(d, "FAIL", "you could open %s without bugcoder: "
			     "blinding does not hold", c->study_path);
		else
			line(d, "ok", "you cannot open the study without "
			     "bugcoder");
		buf_release(&wal);
	}
}

static void doctor_env(struct doctor *d)
{
	const char *codeset = nl_langinfo(CODESET);
	const char *term = getenv("TERM");
	mode_t mask = umask(0);

	umask(mask);
	line(d, "ok", "umask %03o (study files get the study's group and "
	     "mode whatever it is)", (unsigned)mask);
	if (codeset && (!strcmp(codeset, "UTF-8") || !strcmp(codeset, "utf8")))
		line(d, "ok", "locale %s", codeset);
	else
		line(d, "warn", "locale %s is not UTF-8: wide characters show "
		     "as '?' (set LANG=C.UTF-8)", codeset ? codeset : "?");
	if (term && ui_term_known(term))
		line(d, "ok", "TERM %s", term);
	else
		line(d, "warn", "TERM %s is not in the terminfo database: the "
		     "screen will not start", term && *term ? term : "(unset)");
}

CMD(doctor)
{
	static const char usage[] =
		"bugcoder doctor\n"
		"\n"
		"Check the installation and the study, one line each (ok, "
		"warn, FAIL or\n"
		"note): the server install's binary and study directory, the "
		"study\n"
		"file's owner, group and mode, whether you could open it "
		"without\n"
		"bugcoder, its integrity, the audit log's chain, umask, "
		"locale and TERM.\n"
		"Exit 1 if any line is FAIL.  No options.\n"
		"\n"
		"  e.g. bugcoder doctor";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	const struct server_conf *conf = priv_server_conf();
	struct doctor d = { 0 };
	struct audit_check chk;
	int npos, rc;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (npos)
		return cli_usage_error(usage, "doctor takes no arguments");
	doctor_install(&d, conf);
	doctor_study(&d, c, conf);
	if (store_open(&c->st, c->study_path, c->study_privileged ?
		       STORE_PRIVILEGED : 0, &c->err) < 0) {
		line(&d, "FAIL", "%s", c->err.msg);
	} else {
		c->st_open = 1;
		if (store_check(&c->st, 1, &c->err) < 0)
			line(&d, "FAIL", "%s", c->err.msg);
		else
			line(&d, "ok", "integrity check passed");
		if (audit_verify(&c->st, &chk, &c->err) < 0)
			line(&d, "FAIL", "%s", c->err.msg);
		else if (chk.bad_id)
			line(&d, "FAIL", "audit log: row %lld does not fit "
			     "the chain (%s)", chk.bad_id, chk.reason);
		else
			line(&d, "ok", "audit log: %lld rows, the chain holds",
			     chk.rows);
	}
	doctor_env(&d);
	return d.failed ? 1 : 0;
}
