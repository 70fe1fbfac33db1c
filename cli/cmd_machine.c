/* SPDX-License-Identifier: MIT */
/*
 * machine-code: let a machine coder (a command that speaks the JSON of
 * core/machine.h) code the items assigned to it.
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
#include "core/buf.h"
#include "core/item.h"
#include "core/limits.h"
#include "core/machine.h"
#include "core/round.h"
#include "core/sha256.h"
#include "core/text.h"

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

CMD(machine_code)
{
	const char *usage = opt_usage(&machine_code_command);
	struct machine_code_opts o;
	const char *command, *round, *items;
	const char *limit_s, *timeout_s, *model, *note;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct codebook cb = CODEBOOK_INIT;
	struct round_info ri;
	struct actor m = ACTOR_INIT;
	struct sigaction sa, old_int, old_term;
	long long *named = NULL, *todo = NULL, start;
	size_t nr_named = 0, nr_todo = 0, i, done = 0, failed = 0;
	long limit = 0, timeout = 120;
	int npos, rc, ret = 0, tty = isatty(STDERR_FILENO), sig_set = 0;
	enum role role;

	memset(&ri, 0, sizeof(ri));
	memset(&o, 0, sizeof(o));
	rc = opt_parse(&machine_code_command, argc, argv, &o, pos, &npos);
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	command = o.command;
	round = o.round;
	items = o.items;
	limit_s = o.limit;
	timeout_s = o.timeout;
	model = o.model;
	note = o.note;
	if (npos != 1 || !command || !*command) {
		ret = cli_usage_error(usage, "machine-code needs NAME and "
				      "--command CMD");
		goto out;
	}
	if (limit_s && parse_count(limit_s, 1000000000L, &limit) < 0) {
		ret = cli_usage_error(usage, "--limit %s: not a positive "
				      "number", limit_s);
		goto out;
	}
	if (timeout_s && parse_count(timeout_s, 86400L, &timeout) < 0) {
		ret = cli_usage_error(usage, "--timeout %s: not a number of "
				      "seconds (1 to 86400)", timeout_s);
		goto out;
	}
	if (limit_text("--note", note, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	if (actor_require(&c->actor, ROLES(ROLE_OWNER), "machine-code",
			  &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (member_find(&c->st, pos[0], &m.member_id, &role, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (role != ROLE_MACHINE) {
		err_set(&c->err, ERR_INPUT, "%s is %s %s, not a machine coder "
			"(bugcoder member add NAME --role machine)", pos[0],
			role == ROLE_ADJUDICATOR || role == ROLE_OWNER ||
			role == ROLE_ANNOTATOR ? "an" : "a", role_name(role));
		ret = cli_fail(c);
		goto out;
	}
	m.name = xstrdup(pos[0]);
	m.os_user = xstrdup(c->actor.os_user);
	m.role = ROLE_MACHINE;
	m.acting_for = 1;
	if ((ret = cli_codebook(c, &cb)))
		goto out;
	if (round && round_get(&c->st, round, &ri, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (items) {
		char *copy;
		size_t n;
		const char **parts = cli_split_commas(items, &n, &copy);

		named = xcalloc(n ? n : 1, sizeof(*named));
		for (i = 0; i < n; i++) {
			named[i] = item_find(&c->st, parts[i], &c->err);
			if (named[i] < 0) {
				err_prefix(&c->err, "--items");
				free(parts);
				free(copy);
				ret = cli_fail(c);
				goto out;
			}
		}
		nr_named = n;
		free(parts);
		free(copy);
		if (!n) {
			ret = cli_usage_error(usage, "--items: no item named");
			goto out;
		}
	}
	if (machine_todo(&c->st, m.member_id, round ? ri.id : 0, named,
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

	/* Ctrl-C stops between two items (and kills a running command):
	 * what was stored stays */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sig_set = 1;
	start = wall_ms();
	for (i = 0; i < nr_todo && !stop_flag; i++) {
		struct buf in = BUF_INIT;
		struct machine_result r = MACHINE_RESULT_INIT;
		struct machine_answer ans = MACHINE_ANSWER_INIT;
		struct machine_prov p;
		struct err e = ERR_INIT;

		if (tty)
			progress(done, failed, nr_todo, wall_ms() - start);
		memset(&p, 0, sizeof(p));
		if (machine_input(&c->st, &cb, todo[i], &in, &c->err) < 0) {
			buf_release(&in);
			ret = cli_fail(c);
			goto out;
		}
		if (machine_run(command, in.ptr, in.len, (int)timeout * 1000,
				&stop_flag, &r, &e) < 0) {
			if (e.code != ERR_INTERRUPTED) {
				report_failure(c, todo[i], e.msg);
				failed++;
			}
			goto next;
		}
		if (machine_parse(&cb, r.out.ptr ? r.out.ptr : "", r.out.len,
				  &ans, &e) < 0) {
			report_failure(c, todo[i], e.msg);
			failed++;
			goto next;
		}
		p.command = command;
		p.model = model ? model : ans.model;
		p.note = note;
		sha_hex(in.ptr, in.len, p.input_sha);
		sha_hex(r.out.ptr ? r.out.ptr : "", r.out.len, p.answer_sha);
		p.ms = r.ms;
		if (machine_store(&c->st, &c->actor, &m, &cb, todo[i], &ans,
				  r.out.ptr ? r.out.ptr : "", r.out.len, &p,
				  &e) < 0) {
			if (e.code == ERR_DB || e.code == ERR_BUSY) {
				c->err = e;
				machine_answer_release(&ans);
				machine_result_release(&r);
				buf_release(&in);
				if (tty)
					fprintf(stderr, "\r\033[K");
				ret = cli_fail(c);
				goto out;
			}
			report_failure(c, todo[i], e.msg);
			failed++;
			goto next;
		}
		done++;
next:
		machine_answer_release(&ans);
		machine_result_release(&r);
		buf_release(&in);
	}
	if (tty)
		fprintf(stderr, "\r\033[K");
	printf("%s: %zu coded, %zu failed%s\n", m.name, done, failed,
	       failed ? " (a later run tries them again)" : "");
	if (stop_flag) {
		fprintf(stderr, "bugcoder: machine-code: stopped; the %zu "
			"answers stored are kept\n", done);
		ret = 1;
	} else if (failed) {
		ret = 1;
	}
out:
	if (sig_set) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	free(named);
	free(todo);
	actor_release(&m);
	round_info_release(&ri);
	codebook_release(&cb);
	free(pos);
	return ret;
}
