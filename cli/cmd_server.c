/* SPDX-License-Identifier: MIT */
/*
 * cmd_server: the commands of a shared study server - `audit` (read and
 * verify the hash-chained audit log), `backup` (a consistent copy through
 * SQLite's backup API) and `doctor` (is this installation and study set
 * up so that blinding and sharing hold?).
 */
#define _GNU_SOURCE		/* getresgid */
#include "cli/cli.h"
#include "cli/options.h"

#include <dirent.h>
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

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/base/priv.h"
#include "core/study/replay.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "core/store/vfs.h"
#include "exports/atomic.h"
#include "exports/audit_out.h"
#include "tui/ui.h"
#include "core/study/auditlog.h"

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

static int audit_verify_cmd(struct cli *c, const char *head)
{
	struct replay_check chk;
	int ret;

	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (replay_verify(&c->st, &c->actor, head, &chk, &c->err) < 0)
		return cli_fail(c);
	if (chk.failed == REPLAY_CHAIN) {
		fprintf(stderr, "bugcoder: %s: audit log: ", c->study_path);
		cli_print_safe(stderr, chk.what);
		fprintf(stderr, "\n");
		return 1;
	}
	printf("audit log: %lld row%s, the chain holds; head %s\n",
	       chk.chain.rows, chk.chain.rows == 1 ? "" : "s",
	       chk.head[0] ? chk.head : "(none: the log is empty)");
	if (chk.failed) {
		static const char *const part[] = {
			[REPLAY_HEAD] = "audit log",
			[REPLAY_SCHEMA] = "schema",
			[REPLAY_STATE] = "state",
		};

		fprintf(stderr, "bugcoder: %s: %s: ", c->study_path,
			part[chk.failed]);
		cli_print_safe(stderr, chk.what);
		fprintf(stderr, "\n");
		return 1;
	}
	if (head)
		printf("head %.12s...: row %lld of %lld, so the log still "
		       "begins with the log it pinned\n", head, chk.pinned_id,
		       chk.head_id);
	printf("schema: version %d, %d tables, indexes and triggers as "
	       "bugcoder makes them\n", chk.schema_version,
	       chk.schema_objects);
	printf("state: as replaying the log gives it");
	if (chk.told_all) {
		printf(" (%lld rows replayed", chk.replayed);
		if (chk.baseline_id)
			printf(" after the baseline of row %lld",
			       chk.baseline_id);
		printf(", %lld rows of state compared)", chk.compared);
	} else if (chk.baseline_id) {
		printf(" (from the baseline of row %lld)", chk.baseline_id);
	}
	printf("\n");
	return 0;
}

struct audit_opts {
	const char *item, *member, *format, *output, *mode, *head;
};

static const char *const audit_subs[] = { "verify", NULL };

static const struct option audit_opts[] = {
	OPT_STRING(0, "item", struct audit_opts, item, "ITEM", OPT_V_ITEM,
		   "only the rows about ITEM (owner/repo#N or its URL; repo#N "
		   "or N when only one item has that name)"),
	OPT_STRING(0, "member", struct audit_opts, member, "M", OPT_V_MEMBER,
		   "only the rows by member M or done for M"),
	OPT_STRING(0, "format", struct audit_opts, format, "text|csv|jsonl",
		   OPT_V_WORDS,
		   "text (default), csv or jsonl (one JSON object a line); csv "
		   "and jsonl add each row's detail (JSON: what the replay "
		   "needs), the owner's only"),
	OPT_STRING('o', NULL, struct audit_opts, output, "FILE", OPT_V_FILE,
		   "write to FILE (replaced whole, or not at all) instead of "
		   "standard output; mode 600 (you only)"),
	OPT_STRING(0, "mode", struct audit_opts, mode, "MODE", OPT_V_TEXT,
		   "widen the mode of FILE on purpose, e.g. 640"),
	OPT_DOC("verify",
		"check the study: the log's hash chain, the schema (tables, "
		"indexes, triggers) against the one bugcoder makes, and the "
		"state (members, rounds, labels, submissions, evidence, memos, "
		"resolutions, codebook versions ...) against a replay of the "
		"log; prints the log's head hash, or names the first thing "
		"that differs (exit 1)"),
	OPT_STRING(0, "head", struct audit_opts, head, "HASH", OPT_V_TEXT,
		   "with verify: also check that the log still begins with the "
		   "log whose head HASH was (a head printed earlier, or a "
		   "package's manifest.json audit_head): a rewritten history "
		   "or another study is caught"),
	OPT_END()
};

const struct command audit_command = {
	"audit", cmd_audit, "read or verify the audit log",
	"bugcoder audit [--item ITEM] [--member M] [--format text|csv|jsonl] "
	"[-o FILE] [--mode MODE]\n"
	"       bugcoder audit verify [--head HASH]",
	audit_opts, audit_subs, NULL,
	"bugcoder audit --member alice --format csv -o alice-audit.csv\n"
	"       bugcoder audit --item microsoft/DeepSpeed#4187\n"
	"       bugcoder audit verify",
	"The audit log, oldest first: the owner reads every row, anyone "
	"else\n"
	"their own actions (by them, or by the owner for them)."
};

CMD(audit)
{
	const char *usage = opt_usage(&audit_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct audit_opts o;
	const char *item, *member, *format, *output, *mode_arg, *head;
	mode_t mode;
	struct audit_filter f = { 0, NULL };
	struct atomic_file af;
	int npos, rc, ret = 0, out_open = 0;

	af.fd = -1;
	memset(&o, 0, sizeof(o));
	o.format = "text";
	rc = opt_parse(&audit_command, argc, argv, &o, pos, &npos);
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	item = o.item;
	member = o.member;
	format = o.format;
	output = o.output;
	mode_arg = o.mode;
	head = o.head;
	if (npos == 1 && !strcmp(pos[0], "verify")) {
		free(pos);
		if (item || member || output || mode_arg ||
		    strcmp(format, "text"))
			return cli_usage_error(usage, "audit verify takes no "
					       "options but --head HASH");
		return audit_verify_cmd(c, head);
	}
	free(pos);
	if (npos)
		return cli_usage_error(usage, "unknown audit subcommand");
	if (head)
		return cli_usage_error(usage, "--head goes with audit verify");
	if (cli_mode(mode_arg, &mode, usage))
		return 2;
	if (mode_arg && !output)
		return cli_usage_error(usage, "--mode is for the file -o "
				       "writes");
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
		/* opened as the user (the group was given up), private
		 * unless --mode says otherwise */
		if (atomic_open_mode(&af, output, mode, &c->err) < 0)
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
		rc = audit_out_write(&c->st, &c->actor, &f, !strcmp(format, "csv") ?
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

static const struct option backup_opts[] = {
	OPT_ARG("FILE", NULL, OPT_V_FILE,
		"where the copy goes: a new file (an existing one is refused), "
		"created readable and writable by you only (mode 0600); "
		"written under a hidden name beside it and renamed when whole, "
		"so a killed backup leaves nothing under FILE"),
	OPT_END()
};

const struct command backup_command = {
	"backup", cmd_backup, "write a consistent copy of the study",
	"bugcoder backup FILE",
	backup_opts, NULL, NULL,
	"bugcoder backup llm-2024-05-01.db",
	"The owner's consistent copy of the study, made while others keep\n"
	"working (SQLite's online backup)."
};

CMD(backup)
{
	const char *usage = opt_usage(&backup_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char *path;
	int npos, rc, ret;

	rc = opt_parse(&backup_command, argc, argv, NULL, pos, &npos);
	path = npos == 1 ? pos[0] : NULL;
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
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

static void doctor_install(struct doctor *d, const struct server_conf *conf)
{
	char tmp[32], exe[4096];
	struct stat sb;
	struct buf desc = BUF_INIT;
	ssize_t n;
	gid_t r, e, sv;

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
			else if (!priv_is_setgid() && getgid() != sb.st_gid &&
				 getuid() != 0)
				line(d, "FAIL", "binary %s (%s): runs without "
				     "its group (a nosuid mount?)", exe,
				     desc.ptr);
			else
				line(d, "ok", "binary %s (%s)", exe, desc.ptr);
		}
	}
	/* this process gave the group up once its study was open */
	if (getresgid(&r, &e, &sv) == 0 && priv_dropped())
		line(d, "ok", "group privilege given up for good once the "
		     "study was open (real, effective and saved group: %s)",
		     group_name(e, tmp, sizeof(tmp)));
	else
		line(d, "FAIL", "this process still holds the group "
		     "privilege: blinding does not hold");
	if (conf->creators && *conf->creators)
		line(d, "ok", "who may create studies in %s: root and %s "
		     "(server.conf)", conf->studydir, conf->creators);
	else
		line(d, "ok", "who may create studies in %s: root only "
		     "(server.conf has no `creators` line)", conf->studydir);
	buf_setlen(&desc, 0);
	/* the directory itself: its parent is open to everyone */
	if (lstat(conf->studydir, &sb) < 0) {
		line(d, "FAIL", "study directory %s: %s", conf->studydir,
		     strerror(errno));
	} else {
		vfs_describe(&desc, &sb);
		if (!S_ISDIR(sb.st_mode) || sb.st_gid != priv_group() ||
		    sb.st_uid != 0 || (sb.st_mode & 07) ||
		    !(sb.st_mode & S_ISGID) || (sb.st_mode & 070) != 070)
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

/* The study's files: taken with the group by cli_preopen() for a study
 * in STUDYDIR, with the user's rights here for one opened by path. */
static void study_files(struct cli *c)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	struct buf p = BUF_INIT;
	int i;

	if (c->study_privileged)
		return;
	for (i = 0; i < 3; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s%s", c->study_path, suffix[i]);
		c->pre_errno[i] = lstat(p.ptr, &c->pre_sb[i]) < 0 ? errno : 0;
	}
	buf_release(&p);
}

static void doctor_files(struct doctor *d, struct cli *c)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	const struct stat *db = &c->pre_sb[0];
	char tmp[32];
	size_t i;
	int use_priv = c->study_privileged;

	study_files(c);
	if (c->pre_errno[0]) {
		line(d, "FAIL", "study %s: %s", c->study_path,
		     strerror(c->pre_errno[0]));
		return;
	}
	for (i = 0; i < 3; i++) {
		const struct stat *sb = &c->pre_sb[i];
		struct buf p = BUF_INIT, desc = BUF_INIT;

		if (c->pre_errno[i])
			continue;
		buf_addf(&p, "%s%s", c->study_path, suffix[i]);
		vfs_describe(&desc, sb);
		if (S_ISLNK(sb->st_mode))
			line(d, "FAIL", "%s is a symbolic link", p.ptr);
		else if (sb->st_mode & 07)
			line(d, "FAIL", "%s (%s): readable or writable by "
			     "everyone: `chmod o-rwx`", p.ptr, desc.ptr);
		else if (use_priv && sb->st_gid != priv_group())
			line(d, "FAIL", "%s (%s): not in the install's group "
			     "%s", p.ptr, desc.ptr,
			     group_name(priv_group(), tmp, sizeof(tmp)));
		else if (i && (sb->st_gid != db->st_gid ||
			       (sb->st_mode & 0777) != (db->st_mode & 0777)))
			line(d, "FAIL", "%s (%s): group or mode differ from "
			     "the study's; others may be locked out", p.ptr,
			     desc.ptr);
		else if ((sb->st_mode & 060) != 060)
			line(d, "warn", "%s (%s): not group-readable and "
			     "-writable, so no one else can share it", p.ptr,
			     desc.ptr);
		else
			line(d, "ok", "%s (%s)", p.ptr, desc.ptr);
		buf_release(&desc);
		buf_release(&p);
	}
}

static void doctor_access(struct doctor *d, struct cli *c,
			  const struct server_conf *conf)
{
	struct buf wal = BUF_INIT;

	if (!conf) {
		line(d, "note", "you can open the study without bugcoder "
		     "(a personal install)");
		return;
	}
	if (getuid() == 0) {
		line(d, "note", "you are root: root reads every study "
		     "directly");
		return;
	}
	buf_addf(&wal, "%s-wal", c->study_path);
	if (user_can_open(c->study_path) || user_can_open(wal.ptr))
		line(d, "FAIL", "you could open %s without bugcoder: "
		     "blinding does not hold", c->study_path);
	else
		line(d, "ok", "you cannot open the study without bugcoder");
	buf_release(&wal);
}

static void doctor_lock(struct doctor *d, struct cli *c)
{
	struct store_holder h;
	struct buf b = BUF_INIT;
	int rc = store_lock_holder(&c->st, &h);

	if (rc > 0) {
		store_holder_describe(&h, &b);
		line(d, "warn", "write lock: held by %s; others' writes wait "
		     "for it", b.ptr);
	} else if (rc == 0) {
		line(d, "ok", "write lock: free");
	}
	buf_release(&b);
}

/* The study part: for its members only. */
static void doctor_study(struct doctor *d, struct cli *c,
			 const struct server_conf *conf)
{
	struct replay_check chk;
	struct err e = ERR_INIT;
	int rc;

	if (c->preopen_failed) {
		line(d, "FAIL", "%s", c->preopen_err.msg);
		return;
	}
	if (!c->st_open) {
		if (study_open(&c->st, c->study_path, 0, &e) < 0) {
			line(d, "FAIL", "%s", e.msg);
			return;
		}
		c->st_open = 1;
	}
	if (member_resolve(&c->st, c->as, &c->actor, &e) < 0) {
		line(d, "note", "study %s: %s; its checks are for its "
		     "members", c->study_path, e.msg);
		return;
	}
	c->have_actor = 2;
	doctor_files(d, c);
	doctor_access(d, c, conf);
	if (store_verify(&c->st, 0, &e) < 0)
		line(d, "FAIL", "%s", e.msg);
	else
		line(d, "ok", "integrity check passed");
	/* the full check of `audit verify`: the chain, then the schema
	 * and the state against the log's replay */
	rc = replay_verify(&c->st, &c->actor, NULL, &chk, &e);
	if (rc < 0)
		line(d, "FAIL", "%s", e.msg);
	else if (chk.failed == REPLAY_CHAIN)
		line(d, "FAIL", "audit log: row %lld does not fit the chain "
		     "(%s)", chk.chain.bad_id, chk.chain.reason);
	else
		line(d, "ok", "audit log: %lld rows, the chain holds",
		     chk.chain.rows);
	if (chk.failed == REPLAY_SCHEMA || chk.failed == REPLAY_STATE)
		line(d, "FAIL", "%s: %s (`bugcoder audit verify`)",
		     chk.failed == REPLAY_SCHEMA ? "schema" : "state",
		     chk.what);
	else if (!rc && !chk.failed)
		line(d, "ok", "schema and state: as bugcoder makes them and "
		     "as the audit log's replay gives them");
	doctor_lock(d, c);
}

/* `doctor --studies`: root's list of every study in STUDYDIR. */
static int doctor_studies(struct cli *c, const struct server_conf *conf)
{
	struct dirent **names = NULL;
	int i, n, ret = 0;

	if (!conf)
		return cli_usage_error("bugcoder doctor --studies", "--studies "
				       "lists a server install's study "
				       "directory, and this install has none");
	if (getuid() != 0) {
		err_set(&c->err, ERR_PERM, "only root lists every study in %s",
			conf->studydir);
		return cli_fail(c);
	}
	n = scandir(conf->studydir, &names, NULL, alphasort);
	if (n < 0) {
		err_set(&c->err, ERR_IO, "%s: %s", conf->studydir,
			strerror(errno));
		return cli_fail(c);
	}
	printf("%-24s %-16s %10s %8s %6s  %s\n", "STUDY", "OWNER", "BYTES",
	       "ITEMS", "MEMBERS", "LAST ACTIVITY");
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		struct buf path = BUF_INIT, wal = BUF_INIT;
		struct study_facts f;
		struct store st;
		struct stat sb, wb;
		struct err e = ERR_INIT;
		long long bytes;

		if (len < 4 || strcmp(name + len - 3, ".db") || name[0] == '.')
			goto next;
		buf_addf(&path, "%s/%s", conf->studydir, name);
		buf_addf(&wal, "%s-wal", path.ptr);
		if (lstat(path.ptr, &sb) < 0 || !S_ISREG(sb.st_mode))
			goto next;
		bytes = (long long)sb.st_size;
		if (lstat(wal.ptr, &wb) == 0)
			bytes += (long long)wb.st_size;
		cli_print_safe(stdout, name);
		printf("%*s", len < 24 ? (int)(24 - len) : 0, "");
		if (study_open(&st, path.ptr, STORE_READONLY, &e) < 0 ||
		    study_facts_read(&st, &f, &e) < 0) {
			printf(" %-16s %10lld  (cannot be read: ", "?", bytes);
			cli_print_safe(stdout, e.msg);
			printf(")\n");
			store_close(&st);
			ret = 1;
			goto next;
		}
		printf(" ");
		cli_print_safe(stdout, *f.owners ? f.owners : "(none)");
		printf("%*s %10lld %8lld %6lld  %s\n",
		       (int)(strlen(*f.owners ? f.owners : "(none)") < 16 ?
			     16 - strlen(*f.owners ? f.owners : "(none)") : 0),
		       "", bytes, f.items, f.members,
		       *f.last_activity ? f.last_activity : "-");
		study_facts_release(&f);
		store_close(&st);
next:
		buf_release(&path);
		buf_release(&wal);
		free(names[i]);
	}
	free(names);
	return ret;
}

/* `doctor --remove-study NAME`: root removes a study nobody has open. */
static int doctor_remove(struct cli *c, const struct server_conf *conf,
			 const char *name)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	struct store_holder h;
	struct buf b = BUF_INIT;
	char *path = NULL;
	int privileged, i, rc;

	if (!conf)
		return cli_usage_error("bugcoder doctor --remove-study NAME",
				       "--remove-study removes a study of a "
				       "server install, and this install has "
				       "none");
	if (getuid() != 0) {
		err_set(&c->err, ERR_PERM, "only root removes a study from %s",
			conf->studydir);
		return cli_fail(c);
	}
	if (strchr(name, '/') || priv_study_path(name, &path, &privileged,
						 &c->err) < 0) {
		if (!path)
			err_set(&c->err, ERR_USAGE, "--remove-study %s: name a "
				"study in %s (as --study does), not a path",
				name, conf->studydir);
		free(path);
		return cli_fail(c);
	}
	rc = store_in_use(path, &h);
	if (rc != 0) {
		if (rc > 0) {
			store_holder_describe(&h, &b);
			err_set(&c->err, ERR_BUSY, "%s: open in %s; nothing "
				"removed: stop it first", path, b.ptr);
		} else {
			err_set(&c->err, ERR_IO, "%s: cannot tell whether "
				"anyone has it open (%s); nothing removed",
				path, strerror(errno));
		}
		buf_release(&b);
		free(path);
		return cli_fail(c);
	}
	if (access(path, F_OK) < 0) {
		err_set(&c->err, ERR_NOTFOUND, "%s: %s", path,
			strerror(errno));
		free(path);
		return cli_fail(c);
	}
	for (i = 0; i < 3; i++) {
		buf_reset(&b);
		buf_addf(&b, "%s%s", path, suffix[i]);
		if (unlink(b.ptr) == 0)
			printf("removed %s\n", b.ptr);
		else if (errno != ENOENT) {
			err_set(&c->err, ERR_IO, "%s: %s", b.ptr,
				strerror(errno));
			buf_release(&b);
			free(path);
			return cli_fail(c);
		}
	}
	buf_release(&b);
	free(path);
	return 0;
}

static void doctor_env(struct doctor *d)
{
	const char *codeset = nl_langinfo(CODESET);
	const char *term = getenv("TERM");
	const char *home = getenv("HOME");
	struct err te = ERR_INIT;
	mode_t mask = umask(0);
	struct stat sb;

	umask(mask);
	if (!(mask & 004))
		line(d, "warn", "umask %03o lets everyone read the files you "
		     "create: bugcoder's exports, reports and backups are "
		     "0600 whatever it is, but other files are not (set "
		     "`umask 077` or 027 in your shell's profile)",
		     (unsigned)mask);
	else
		line(d, "ok", "umask %03o (study files get the study's group "
		     "and mode whatever it is)", (unsigned)mask);
	if (home && *home && stat(home, &sb) == 0 && (sb.st_mode & 004))
		line(d, "warn", "your home directory %s (mode %04o) is "
		     "readable by everyone: whatever you keep there that is "
		     "not 0600 can be read (`chmod o-rwx %s`)", home,
		     (unsigned)(sb.st_mode & 07777), home);
	else if (home && *home)
		line(d, "ok", "home directory %s is closed to others", home);
	if (codeset && (!strcmp(codeset, "UTF-8") || !strcmp(codeset, "utf8")))
		line(d, "ok", "locale %s", codeset);
	else
		line(d, "warn", "locale %s is not UTF-8: wide characters show "
		     "as '?' (set LANG=C.UTF-8)", codeset ? codeset : "?");
	if (ui_term_check(term, &te) == 0)
		line(d, "ok", "TERM %s", term);
	else
		line(d, "warn", "%s", te.msg);
}

struct doctor_opts {
	const char *remove;
	int studies;
};

static const struct option doctor_opts[] = {
	OPT_FLAG(0, "studies", struct doctor_opts, studies,
		 "(root) every study in the study directory, with its owner, "
		 "size, items, members and last activity"),
	OPT_STRING(0, "remove-study", struct doctor_opts, remove, "NAME",
		   OPT_V_TEXT,
		   "(root) remove study NAME, its -wal and -shm, when no "
		   "process has it open"),
	OPT_END()
};

const struct command doctor_command = {
	"doctor", cmd_doctor, "check the installation and the study",
	"bugcoder doctor [--studies | --remove-study NAME]",
	doctor_opts, NULL, NULL,
	"bugcoder doctor",
	"Check the installation and the study, one line each (ok, warn, "
	"FAIL or\n"
	"note): the server install's binary, that the group privilege was "
	"given up,\n"
	"who may create studies, the study directory; for a member, the "
	"study\n"
	"file's owner, group and mode, whether you could open it without\n"
	"bugcoder, its integrity, the audit log's chain, the schema and the "
	"state\n"
	"against the log's replay (as `audit verify`), who holds the write "
	"lock;\n"
	"then umask, home directory, locale and TERM.  Exit 1 if any line is "
	"FAIL."
};

CMD(doctor)
{
	const char *usage = opt_usage(&doctor_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct doctor_opts o = { NULL, 0 };
	const char *remove;
	int studies;
	const struct server_conf *conf = priv_server_conf();
	struct doctor d = { 0 };
	int npos, rc;

	rc = opt_parse(&doctor_command, argc, argv, &o, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	remove = o.remove;
	studies = o.studies;
	if (npos)
		return cli_usage_error(usage, "doctor takes no arguments");
	if (studies && remove)
		return cli_usage_error(usage, "--studies or --remove-study, "
				       "not both");
	if (studies)
		return doctor_studies(c, conf);
	if (remove)
		return doctor_remove(c, conf, remove);
	doctor_install(&d, conf);
	doctor_study(&d, c, conf);
	doctor_env(&d);
	return d.failed ? 1 : 0;
}
