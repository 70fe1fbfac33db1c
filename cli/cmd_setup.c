/* SPDX-License-Identifier: MIT */
/*
 * The set-up commands: init, member, codebook, import.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "exports/codebook_out.h"
#include "core/base/buf.h"
#include "core/study/import.h"
#include "core/base/priv.h"
#include "core/study/study.h"
#include "core/base/text.h"

struct init_opts {
	const char *codebook, *title;
};

static const struct option init_opts[] = {
	OPT_STRING(0, "codebook", struct init_opts, codebook, "FILE|NAME",
		   OPT_V_FILE,
		   "the codebook: a JSON file, or the name of a bundled one "
		   "(e.g. llm-framework-bugs)"),
	OPT_STRING(0, "title", struct init_opts, title, "TEXT", OPT_V_TEXT,
		   "the study's title"),
	OPT_END()
};

const struct command init_command = {
	"init", cmd_init, "create a study; you become its owner",
	"bugcoder [--study FILE] init [--codebook FILE|NAME] [--title TEXT]",
	init_opts, NULL, NULL,
	"bugcoder init --codebook llm-framework-bugs --title \"LLM bugs\"",
	NULL
};

CMD(init)
{
	const char *usage = opt_usage(&init_command);
	struct init_opts o = { 0 };
	const char *codebook, *title;
	char *path = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int npos, rc;

	rc = opt_parse(&init_command, argc, argv, &o, pos, &npos);
	codebook = o.codebook;
	title = o.title;
	if (rc == 0 && npos)
		rc = -(cli_usage_error(usage, "unexpected argument %s",
				       pos[0]) != 0);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (codebook) {
		path = cli_find_codebook(c, codebook);
		if (!path)
			return err_exit_code(c->err.code);
	}
	if (c->study_privileged) {
		/* created with the group, which is then given up before the
		 * codebook is read; the keeper removes the study again if
		 * the rest fails */
		if ((rc = cli_create_privileged(c))) {
			free(path);
			return rc;
		}
		rc = study_init(&c->st, title, path, &c->err);
		if (rc < 0) {
			store_close(&c->st);
			c->st_open = 0;
		}
		priv_keeper_end(rc < 0);
	} else {
		rc = study_create_in(&c->st, c->study_path, 0, title, path,
				     &c->err);
	}
	free(path);
	if (rc < 0)
		return cli_fail(c);
	c->st_open = 1;
	{
		char *me = member_os_user();

		printf("created study %s; %s is its owner\n", c->study_path,
		       me);
		free(me);
	}
	if (codebook) {
		struct codebook cb = CODEBOOK_INIT;

		if (study_codebook(&c->st, &cb, NULL, &c->err) == 0) {
			printf("codebook %s ", cb.name);
			cli_print_safe(stdout, cb.version);
			printf(": %zu %s\n", cb.nr_dims,
			       text_plural((long long)cb.nr_dims, "dimension",
					   "dimensions"));
		}
		codebook_release(&cb);
	}
	return 0;
}

static int print_member(const char *name, const char *role,
			const char *added_at, void *data)
{
	cli_print_safe(stdout, name);
	printf("%*s %-12s %s\n", (int)(strlen(name) < 20 ? 20 - strlen(name) :
	       0), "", role, added_at);
	return 0;
}

static int member_list(struct cli *c)
{
	if (member_each(&c->st, print_member, NULL, &c->err) < 0)
		return cli_fail(c);
	return 0;
}

struct member_opts {
	const char *role;
};

static const char *const member_subs[] = { "add", "list", "remove", NULL };

static const struct option member_opts[] = {
	OPT_ARG("USER", "add", OPT_V_TEXT, "an OS account on this machine"),
	OPT_ARG("USER", "remove", OPT_V_MEMBER, NULL),
	OPT_STRING(0, "role", struct member_opts, role,
		   "owner|annotator|adjudicator|machine", OPT_V_WORDS,
		   "owner, annotator (codes items) or adjudicator (resolves "
		   "disagreements, decides proposed codes)"),
	OPT_END()
};

const struct command member_command = {
	"member", cmd_member, "add, list or remove members",
	"bugcoder member add USER --role owner|annotator|adjudicator|"
	"machine | list | remove USER",
	member_opts, member_subs, NULL,
	"bugcoder member add alice --role annotator",
	NULL
};

CMD(member)
{
	const char *usage = opt_usage(&member_command);
	struct member_opts o = { 0 };
	const char *role;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int npos, rc, ret = 0;

	rc = opt_parse(&member_command, argc, argv, &o, pos, &npos);
	role = o.role;
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (!npos) {
		ret = cli_usage_error(usage, "member: add, list or remove?");
		goto out;
	}
	if (!strcmp(pos[0], "list")) {
		if (npos != 1) {
			ret = cli_usage_error(usage, "member list takes no "
					      "arguments");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		ret = member_list(c);
	} else if (!strcmp(pos[0], "add")) {
		enum role r;

		if (npos != 2 || !role) {
			ret = cli_usage_error(usage, "member add needs USER "
					      "and --role ROLE");
			goto out;
		}
		r = role_parse(role);
		if (r == ROLE_NONE) {
			ret = cli_usage_error(usage, "--role %s: not a role "
					      "(owner, annotator, adjudicator, "
					      "machine)",
					      role);
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		if (member_add(&c->st, &c->actor, pos[1], r, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		printf("%s is now %s %s\n", pos[1], r == ROLE_MACHINE ? "a" :
		       "an", role_name(r));
	} else if (!strcmp(pos[0], "remove")) {
		if (npos != 2) {
			ret = cli_usage_error(usage, "member remove needs "
					      "USER");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		if (member_remove(&c->st, &c->actor, pos[1], &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		printf("%s removed (their labels stay in the study)\n",
		       pos[1]);
	} else {
		ret = cli_usage_error(usage, "member %s: unknown action",
				      pos[0]);
	}
out:
	free(pos);
	return ret;
}

static void print_wrapped(const char *label, const char *text, int indent)
{
	struct buf safe = BUF_INIT;
	struct text_lines lines = TEXT_LINES_INIT;
	size_t i;

	if (!text || !*text)
		return;
	text_sanitize(&safe, text, strlen(text), 8, TEXT_KEEP_NL);
	text_wrap(&lines, safe.ptr, safe.len, 72 - indent);
	for (i = 0; i < lines.nr; i++)
		printf("%*s%-9s %.*s\n", indent, "", i ? "" : label,
		       (int)lines.v[i].len, safe.ptr + lines.v[i].off);
	text_lines_release(&lines);
	buf_release(&safe);
}

static void show_codebook(const struct codebook *cb)
{
	size_t i, j;

	/* keys are plain words (codebook_valid_key); every other string of
	 * a codebook may hold escapes (\u001b is valid JSON) */
	printf("%s ", cb->name);
	cli_print_safe(stdout, cb->version);
	if (cb->title) {
		printf(" - ");
		cli_print_safe(stdout, cb->title);
	}
	printf("\n");
	print_wrapped("", cb->description, 0);
	for (i = 0; i < cb->nr_dims; i++) {
		const struct dimension *d = &cb->dims[i];

		printf("\n%s (", d->key);
		cli_print_safe(stdout, d->name);
		printf("): select %s%s, %zu codes\n",
		       d->select_many ? "many" : "one",
		       d->required ? ", required" : "", d->nr_codes);
		print_wrapped("", d->question, 2);
		for (j = 0; j < d->nr_codes; j++) {
			const struct code *k = &d->codes[j];

			printf("  %2zu %-28s ", j + 1, k->key);
			cli_print_safe(stdout, k->name);
			if (k->group) {
				printf("  [");
				cli_print_safe(stdout, k->group);
				printf("]");
			}
			printf("\n");
			print_wrapped("", k->definition, 5);
			print_wrapped("include:", k->include, 5);
			print_wrapped("exclude:", k->exclude, 5);
		}
	}
}

struct codebook_opts {
	struct opt_list map, split;
	const char *format, *version;
};

static const char *const codebook_subs[] = {
	"check", "show", "update", "revert", NULL
};

static const struct option codebook_opts[] = {
	OPT_STRING(0, "format", struct codebook_opts, format,
		   "text|markdown|latex|json", OPT_V_WORDS,
		   "show: text (default), markdown, latex (a fragment for "
		   "\\input) or json, for a paper's appendix"),
	OPT_STRING(0, "version", struct codebook_opts, version, "V",
		   OPT_V_TEXT,
		   "show: the study's codebook version V rather than the "
		   "current one"),
	OPT_ARG("FILE", NULL, OPT_V_FILE,
		"a codebook JSON file, or the name of a bundled one "
		"(llm-framework-bugs, dl-framework-bugs)"),
	OPT_LIST(0, "map", struct codebook_opts, map, "DIM:OLD=NEW",
		 OPT_V_TEXT,
		 "move the labels and resolutions of code OLD of dimension "
		 "DIM to code NEW of the new codebook (OLD=NEW when OLD names "
		 "a code of one dimension only); e.g. --map "
		 "root_cause:configuration_error=misconfig.  With the current "
		 "codebook's own file, only the maps are applied: that mends "
		 "labels whose code it lacks."),
	OPT_LIST(0, "split", struct codebook_opts, split,
		 "DIM:OLD=NEW1,NEW2", OPT_V_TEXT,
		 "the new codebook splits code OLD into NEW1 and NEW2 (it has "
		 "them, and not OLD): every label on OLD goes back to its "
		 "coder to recode between them (shown with the old code); a "
		 "resolution on OLD is taken back; closed rounds keep their "
		 "figures"),
	OPT_ARG("revert VERSION", "revert", OPT_V_TEXT,
		"make an earlier version current again (e.g. revert 1.0); "
		"proposals accepted since are open again, their labels back "
		"on other; labels on other codes it lacks need --map."),
	OPT_END()
};

const struct command codebook_command = {
	"codebook", cmd_codebook, "check, show or update the codebook",
	"bugcoder codebook check FILE | "
	"show [FILE] [--format text|markdown|latex|json] [--version V] | "
	"update FILE [--map DIM:OLD=NEW ...] "
	"[--split DIM:OLD=NEW1,NEW2 ...] | "
	"revert VERSION [--map DIM:OLD=NEW ...]",
	codebook_opts, codebook_subs, NULL,
	"bugcoder codebook update v2.json --map "
	"root_cause:configuration_error=misconfig\n"
	"       bugcoder codebook update v3.json --split "
	"root_cause:api_misuse=api_call_error,api_contract_change",
	NULL
};

/* codebook check FILE */
static int codebook_check_cmd(struct cli *c, const char *path)
{
	struct codebook cb = CODEBOOK_INIT;
	size_t i, n = 0;

	if (codebook_load_file(&cb, path, &c->err) < 0)
		return cli_fail(c);
	for (i = 0; i < cb.nr_dims; i++)
		n += cb.dims[i].nr_codes;
	printf("%s: ok: %s ", path, cb.name);
	cli_print_safe(stdout, cb.version);
	printf(", %zu %s, %zu %s\n", cb.nr_dims,
	       text_plural((long long)cb.nr_dims, "dimension", "dimensions"),
	       n, text_plural((long long)n, "code", "codes"));
	codebook_release(&cb);
	return 0;
}

/* codebook show [FILE] [--format F] [--version V] */
static int codebook_show_cmd(struct cli *c, const struct codebook_opts *o,
			     const char **pos, int npos)
{
	const char *usage = opt_usage(&codebook_command);
	const char *format = o->format;
	struct codebook cb = CODEBOOK_INIT;
	struct buf b = BUF_INIT;
	int ret = 0;

	if (format && strcmp(format, "text") && strcmp(format, "markdown") &&
	    strcmp(format, "md") && strcmp(format, "latex") &&
	    strcmp(format, "json"))
		return cli_usage_error(usage, "--format %s: text, markdown, "
				       "latex or json", format);
	if (o->version && npos != 1)
		return cli_usage_error(usage, "--version reads the study's "
				       "codebooks, not FILE");
	if (npos > 2)
		return cli_usage_error(usage, "codebook show takes at most one "
				       "FILE");
	if (o->version) {
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		if (study_codebook_version(&c->st, o->version, &cb,
					   &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
	} else if (npos == 2) {
		if (codebook_load_file(&cb, pos[1], &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
	} else if ((ret = cli_open(c, CLI_MEMBER)) ||
		   (ret = cli_codebook(c, &cb))) {
		goto out;
	}
	if (!format || !strcmp(format, "text")) {
		show_codebook(&cb);
	} else {
		codebook_write(&cb, !strcmp(format, "json") ? CODEBOOK_JSON :
			       !strcmp(format, "latex") ? CODEBOOK_LATEX :
			       CODEBOOK_MARKDOWN, &b);
		fwrite(b.ptr, 1, b.len, stdout);
	}
out:
	buf_release(&b);
	codebook_release(&cb);
	return ret;
}

CMD(codebook)
{
	const char *usage = opt_usage(&codebook_command);
	struct codebook_opts o = { { NULL, 0 }, { NULL, 0 }, NULL, NULL };
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	char *file = NULL;
	int npos, rc, ret = 0;

	rc = opt_parse(&codebook_command, argc, argv, &o, pos, &npos);
	if (rc) {
		ret = opt_parse_exit(rc);
		goto out;
	}
	if (!npos) {
		ret = cli_usage_error(usage, "codebook: check, show, update or "
				      "revert?");
		goto out;
	}
	/* FILE may name a bundled codebook */
	if (npos == 2 && (!strcmp(pos[0], "check") ||
			  !strcmp(pos[0], "show") ||
			  !strcmp(pos[0], "update"))) {
		file = cli_find_codebook(c, pos[1]);
		if (!file) {
			ret = err_exit_code(c->err.code);
			goto out;
		}
		pos[1] = file;
	}
	if (!strcmp(pos[0], "show")) {
		ret = codebook_show_cmd(c, &o, pos, npos);
	} else if (strcmp(pos[0], "check") && strcmp(pos[0], "update") &&
		   strcmp(pos[0], "revert")) {
		ret = cli_usage_error(usage, "codebook %s: unknown action",
				      pos[0]);
	} else if (npos != 2) {
		ret = cli_usage_error(usage, "codebook %s needs %s", pos[0],
				      strcmp(pos[0], "revert") ? "FILE" :
				      "VERSION");
	} else if (!strcmp(pos[0], "check")) {
		ret = codebook_check_cmd(c, pos[1]);
	} else if (!(ret = cli_open(c, CLI_MEMBER))) {
		ret = !strcmp(pos[0], "update") ?
		      cli_codebook_update(c, pos[1], o.map.v, o.map.nr,
					  o.split.v, o.split.nr) :
		      cli_codebook_revert(c, pos[1], o.map.v, o.map.nr);
	}
out:
	free(file);
	opt_list_release(&o.map);
	opt_list_release(&o.split);
	free(pos);
	return ret;
}

struct import_cmd_opts {
	struct opt_list column;
};

static const struct option import_cmd_opts[] = {
	OPT_ARG("FILE", NULL, OPT_V_FILE,
		"JSON Lines in the item format (repo, number, title, ...), or "
		"what the GitHub API returns for issues; a CSV of known bugs "
		"(*.csv, *.tsv: url, issue, pr, repo, number, title ... "
		"columns); or a list of issue and pull request URLs (then run "
		"`bugcoder fetch --missing`).  The files go in together or not "
		"at all, and an item imported again is updated"),
	OPT_LIST(0, "column", struct import_cmd_opts, column, "NAME=HEADER",
		 OPT_V_TEXT,
		 "read column NAME (url, issue, pr, repo, number, title, ...) "
		 "from a CSV header HEADER"),
	OPT_END()
};

const struct command import_command = {
	"import", cmd_import, "import items from JSON Lines or GitHub JSON",
	"bugcoder import FILE... [--column NAME=HEADER ...]",
	import_cmd_opts, NULL, NULL,
	"bugcoder import tests/sample/items.jsonl",
	NULL
};

/* What went in from each of the `n` files, and how many items are left
 * to fetch. */
static void import_said(const char **files, int n,
			const struct import_stats *stats)
{
	struct buf report = BUF_INIT;
	int i, missing = 0;

	for (i = 0; i < n; i++) {
		const struct import_stats *st = &stats[i];

		buf_addf(&report, "%s: %d added, %d updated", files[i],
			 st->added, st->updated);
		if (st->skipped)
			buf_addf(&report, ", %d pull requests skipped",
				 st->skipped);
		if (st->missing || st->kept) {
			buf_addf(&report, " (%d to fetch", st->missing);
			if (st->kept)
				buf_addf(&report, "; %d already in the study "
					 "with their content, left as they "
					 "are", st->kept);
			buf_addstr(&report, ")\n");
			missing += st->missing;
		} else {
			buf_addf(&report, " (%d %s, %d %s)\n", st->comments,
				 text_plural(st->comments, "comment",
					     "comments"), st->fixes,
				 text_plural(st->fixes, "fix", "fixes"));
		}
	}
	fputs(report.ptr, stdout);
	if (missing)
		printf("%d item%s to fetch: bugcoder fetch --missing\n",
		       missing, missing == 1 ? "" : "s");
	buf_release(&report);
}

CMD(import)
{
	const char *usage = opt_usage(&import_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct import_cmd_opts o = { { NULL, 0 } };
	const char **columns;
	size_t nr_columns;
	struct import_opts io;
	struct import_stats *stats = NULL;
	int npos, rc, ret = 0;

	rc = opt_parse(&import_command, argc, argv, &o, pos, &npos);
	columns = o.column.v;
	nr_columns = o.column.nr;
	if (rc) {
		free(pos);
		free(columns);
		return opt_parse_exit(rc);
	}
	if (!npos) {
		free(pos);
		free(columns);
		return cli_usage_error(usage, "import needs at least one FILE");
	}
	io.columns = columns;
	io.nr_columns = nr_columns;
	if ((ret = cli_open(c, CLI_MEMBER))) {
		free(pos);
		free(columns);
		return ret;
	}
	/* all the files go in together: a bad file leaves the study as it
	 * was, the files before it included; they are read and checked
	 * before the write lock is taken */
	stats = xcalloc((size_t)npos + 1, sizeof(*stats));
	if (import_files(&c->st, &c->actor, pos, (size_t)npos, &io, stats,
			 &c->err) < 0) {
		if (npos == 1)
			ret = cli_fail_also(c, "nothing imported from this "
					    "file");
		else
			ret = cli_fail_also(c, "nothing imported: the %d "
					    "files go in together or not at "
					    "all", npos);
		goto out;
	}
	import_said(pos, npos, stats);
out:
	free(stats);
	free(pos);
	free(columns);
	return ret;
}
