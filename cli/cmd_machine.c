/* SPDX-License-Identifier: MIT */
/*
 * machine-code: let a machine coder (a command that speaks the JSON of
 * core/study/machine.h) code the items assigned to it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/base/limits.h"
#include "core/study/machine.h"
#include "core/study/round.h"
#include "core/base/sha256.h"
#include "core/base/text.h"

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void sha_hex(const char *p, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 c;
	unsigned char d[SHA256_LEN];

	sha256_init(&c);
	sha256_update(&c, p, len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
}

static int parse_count(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Report an item left uncoded: its name and why, on one line, made safe
 * (the reason may quote the command's own output). */
static void report_failure(struct cli *c, long long id, const char *why)
{
	struct item it;
	struct err ignore = ERR_INIT;
	struct buf safe = BUF_INIT;
	char *name = NULL;

	memset(&it, 0, sizeof(it));
	if (item_load_flags(&c->st, id, &it, ITEM_LOAD_NO_DIFF, &ignore) == 0)
		name = item_name(it.repo, it.number);
	text_sanitize(&safe, why, strlen(why), 1, 0);
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);	/* over the progress line */
	fprintf(stderr, "bugcoder: machine-code: ");
	if (name)
		fprintf(stderr, "%s: ", name);
	else
		fprintf(stderr, "item %lld: ", id);
	fprintf(stderr, "%s (left uncoded)\n", safe.ptr ? safe.ptr : "");
	buf_release(&safe);
	free(name);
	item_release(&it);
}

static void progress(size_t done, size_t failed, size_t total,
		     long long ms)
{
	double rate = ms > 0 ? (double)(done + failed) * 60000.0 / ms : 0;

	fprintf(stderr, "\r\033[K%zu/%zu: %zu coded, %zu failed, %.1f "
		"items/min", done + failed, total, done, failed, rate);
	fflush(stderr);
}

static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct machine_code_opts {
	const char *command, *round, *items, *limit, *timeout, *model, *note;
};

static const struct option machine_code_opts[] = {
	OPT_ARG("NAME", NULL, OPT_V_MEMBER, "a member with role machine"),
	OPT_STRING(0, "command", struct machine_code_opts, command, "CMD",
		   OPT_V_TEXT,
		   "run through /bin/sh -c once per item: one JSON document on "
		   "its stdin, one JSON answer on its stdout (see README)"),
	OPT_STRING(0, "round", struct machine_code_opts, round, "R",
		   OPT_V_ROUND, "only the items of round R"),
	OPT_STRING(0, "items", struct machine_code_opts, items, "SPEC",
		   OPT_V_ITEMS, "only these items (comma-separated names)"),
	OPT_STRING(0, "limit", struct machine_code_opts, limit, "N",
		   OPT_V_TEXT, "code at most N items"),
	OPT_STRING(0, "timeout", struct machine_code_opts, timeout, "S",
		   OPT_V_TEXT, "seconds an answer may take (default 120)"),
	OPT_STRING(0, "model", struct machine_code_opts, model, "TEXT",
		   OPT_V_TEXT, "the model and version, kept with each answer"),
	OPT_STRING(0, "note", struct machine_code_opts, note, "TEXT",
		   OPT_V_TEXT,
		   "e.g. the prompt's version, kept with each answer (at most "
		   "64 KiB, as an answer's rationale)"),
	OPT_END()
};

const struct command machine_code_command = {
	"machine-code", cmd_machine_code,
	"let a machine coder (a command) code its items",
	"bugcoder machine-code NAME --command CMD [--round R] [--items SPEC]\n"
	"       [--limit N] [--timeout S] [--model TEXT] [--note TEXT]",
	machine_code_opts, NULL, NULL,
	"bugcoder machine-code gpt --command ./ask-model.sh --round r1",
	NULL
};

/* The items --items names, into *named (*nr of them); 0, or the exit. */
static int named_items(struct cli *c, const char *usage, const char *items,
		       long long **named, size_t *nr)
{
	char *copy;
	size_t n, i;
	const char **parts = cli_split_commas(items, &n, &copy);
	int ret = 0;

	*named = xcalloc(n ? n : 1, sizeof(**named));
	for (i = 0; i < n && !ret; i++) {
		(*named)[i] = item_find(&c->st, parts[i], &c->err);
		if ((*named)[i] < 0) {
			err_prefix(&c->err, "--items");
			ret = cli_fail(c);
		}
	}
	*nr = n;
	free(parts);
	free(copy);
	if (!ret && !n)
		ret = cli_usage_error(usage, "--items: no item named");
	return ret;
}

/* The machine coder called `name`, as *m (acting for the owner); 0, or
 * the exit. */
static int machine_member(struct cli *c, const char *name, struct actor *m)
{
	enum role role;

	if (member_find(&c->st, name, &m->member_id, &role, &c->err) < 0)
		return cli_fail(c);
	if (role != ROLE_MACHINE) {
		err_set(&c->err, ERR_INPUT, "%s is %s %s, not a machine coder "
			"(bugcoder member add NAME --role machine)", name,
			role == ROLE_ADJUDICATOR || role == ROLE_OWNER ||
			role == ROLE_ANNOTATOR ? "an" : "a", role_name(role));
		return cli_fail(c);
	}
	m->name = xstrdup(name);
	m->os_user = xstrdup(c->actor.os_user);
	m->role = ROLE_MACHINE;
	m->acting_for = 1;
	return 0;
}

/* What every item's run shares. */
struct machine_job {
	struct cli *c;
	const struct codebook *cb;
	const struct actor *m;
	const char *command, *model, *note;
	long timeout;
};

/* Ask the command about `item` and store its answer: 1 stored, 0 failed
 * (said; a later run tries again), 2 stopped by Ctrl-C, -1 with c->err
 * when the study cannot be read or written. */
static int code_one(struct machine_job *j, long long item)
{
	struct cli *c = j->c;
	struct buf in = BUF_INIT;
	struct machine_result r = MACHINE_RESULT_INIT;
	struct machine_answer ans = MACHINE_ANSWER_INIT;
	struct machine_prov p;
	struct err e = ERR_INIT;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	if (machine_input(&c->st, j->cb, item, &in, &c->err) < 0) {
		ret = -1;
		goto out;
	}
	if (machine_run(j->command, in.ptr, in.len, (int)j->timeout * 1000,
			&stop_flag, &r, &e) < 0) {
		if (e.code == ERR_INTERRUPTED)
			ret = 2;
		else
			report_failure(c, item, e.msg);
		goto out;
	}
	if (machine_parse(j->cb, r.out.ptr ? r.out.ptr : "", r.out.len,
			  &ans, &e) < 0) {
		report_failure(c, item, e.msg);
		goto out;
	}
	p.command = j->command;
	p.model = j->model ? j->model : ans.model;
	p.note = j->note;
	sha_hex(in.ptr, in.len, p.input_sha);
	sha_hex(r.out.ptr ? r.out.ptr : "", r.out.len, p.answer_sha);
	p.ms = r.ms;
	if (machine_store(&c->st, &c->actor, j->m, j->cb, item, &ans,
			  r.out.ptr ? r.out.ptr : "", r.out.len, &p, &e) < 0) {
		if (e.code == ERR_DB || e.code == ERR_BUSY) {
			c->err = e;
			ret = -1;
		} else {
			report_failure(c, item, e.msg);
		}
		goto out;
	}
	ret = 1;
out:
	machine_answer_release(&ans);
	machine_result_release(&r);
	buf_release(&in);
	return ret;
}

/* Code the nr items of todo[], Ctrl-C stopping between two; 0, 1 when
 * stopped or some failed, or the exit of a study error. */
static int code_all(struct machine_job *j, const long long *todo, size_t nr)
{
	struct sigaction sa, old_int, old_term;
	size_t i, done = 0, failed = 0;
	int tty = isatty(STDERR_FILENO), ret = 0;
	long long start;

	/* Ctrl-C stops between two items (and kills a running command):
	 * what was stored stays */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	start = wall_ms();
	for (i = 0; i < nr && !stop_flag; i++) {
		int rc;

		if (tty)
			progress(done, failed, nr, wall_ms() - start);
		rc = code_one(j, todo[i]);
		if (rc < 0) {
			if (tty)
				fprintf(stderr, "\r\033[K");
			ret = cli_fail(j->c);
			goto out;
		}
		if (rc == 1)
			done++;
		else if (rc == 0)
			failed++;
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	printf("%s: %zu coded, %zu failed%s\n", j->m->name, done, failed,
	       failed ? " (a later run tries them again)" : "");
	if (stop_flag) {
		fprintf(stderr, "bugcoder: machine-code: stopped; the %zu "
			"answers stored are kept\n", done);
		ret = 1;
	} else if (failed) {
		ret = 1;
	}
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

/* machine-code's options, checked: --limit and --timeout read.  Returns
 * 0, or the exit code. */
static int machine_code_check(struct cli *c,
			      const struct machine_code_opts *o, int npos,
			      long *limit, long *timeout)
{
	const char *usage = opt_usage(&machine_code_command);

	if (npos != 1 || !o->command || !*o->command)
		return cli_usage_error(usage, "machine-code needs NAME and "
				       "--command CMD");
	if (o->limit && parse_count(o->limit, 1000000000L, limit) < 0)
		return cli_usage_error(usage, "--limit %s: not a positive "
				       "number", o->limit);
	if (o->timeout && parse_count(o->timeout, 86400L, timeout) < 0)
		return cli_usage_error(usage, "--timeout %s: not a number of "
				       "seconds (1 to 86400)", o->timeout);
	if (limit_text("--note", o->note, &c->err) < 0)
		return cli_fail(c);
	return 0;
}

CMD(machine_code)
{
	const char *usage = opt_usage(&machine_code_command);
	struct machine_code_opts o;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct codebook cb = CODEBOOK_INIT;
	struct round_info ri;
	struct actor m = ACTOR_INIT;
	struct machine_job j;
	long long *named = NULL, *todo = NULL;
	size_t nr_named = 0, nr_todo = 0;
	long limit = 0, timeout = 120;
	int npos, rc, ret = 0;

	memset(&ri, 0, sizeof(ri));
	memset(&o, 0, sizeof(o));
	rc = opt_parse(&machine_code_command, argc, argv, &o, pos, &npos);
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if ((ret = machine_code_check(c, &o, npos, &limit, &timeout)))
		goto out;
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	if (actor_require(&c->actor, ROLES(ROLE_OWNER), "machine-code",
			  &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = machine_member(c, pos[0], &m)) ||
	    (ret = cli_codebook(c, &cb)))
		goto out;
	if (o.round && round_get(&c->st, o.round, &ri, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (o.items &&
	    (ret = named_items(c, usage, o.items, &named, &nr_named)))
		goto out;
	if (machine_todo(&c->st, m.member_id, o.round ? ri.id : 0, named,
			 nr_named, &todo, &nr_todo, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (limit && nr_todo > (size_t)limit)
		nr_todo = (size_t)limit;
	if (!nr_todo) {
		printf("%s: nothing to code\n", m.name);
		goto out;
	}
	j.c = c;
	j.cb = &cb;
	j.m = &m;
	j.command = o.command;
	j.model = o.model;
	j.note = o.note;
	j.timeout = timeout;
	ret = code_all(&j, todo, nr_todo);
out:
	free(named);
	free(todo);
	actor_release(&m);
	round_info_release(&ri);
	codebook_release(&cb);
	free(pos);
	return ret;
}
