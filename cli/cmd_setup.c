/* SPDX-License-Identifier: MIT */
/*
 * The set-up commands: init, member, codebook, import.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "exports/codebook_out.h"
#include "core/buf.h"
#include "core/import.h"
#include "core/priv.h"
#include "core/study.h"
#include "core/text.h"

CMD(init)
{
	static const char usage[] =
		"bugcoder [--study FILE] init [--codebook FILE|NAME] "
		"[--title TEXT]\n"
		"\n"
		"  --codebook FILE|NAME  the codebook: a JSON file, or the name "
		"of a\n"
		"                        bundled one (e.g. llm-framework-bugs)\n"
		"  --title TEXT          the study's title\n"
		"\n"
		"  e.g. bugcoder init --codebook llm-framework-bugs --title "
		"\"LLM bugs\"";
	const char *codebook = NULL, *title = NULL;
	char *path = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--codebook", 1, &codebook, NULL, NULL, NULL },
		{ "--title", 1, &title, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	int npos, rc;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
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

CMD(member)
{
	static const char usage[] =
		"bugcoder member add USER --role owner|annotator|adjudicator|"
		"machine | list | remove USER\n"
		"\n"
		"  USER         an OS account on this machine\n"
		"  --role ROLE  owner, annotator (codes items) or adjudicator "
		"(resolves\n"
		"               disagreements, decides proposed codes)\n"
		"\n"
		"  e.g. bugcoder member add alice --role annotator";
	const char *role = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--role", 1, &role, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
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

CMD(codebook)
{
	static const char usage[] =
		"bugcoder codebook check FILE | "
		"show [FILE] [--format text|markdown|latex|json] [--version V] | "
		"update FILE [--map DIM:OLD=NEW ...] "
		"[--split DIM:OLD=NEW1,NEW2 ...] | "
		"revert VERSION [--map DIM:OLD=NEW ...]\n"
		"\n"
		"  --format F         show: text (default), markdown, latex (a "
		"fragment\n"
		"                     for \\input) or json, for a paper's "
		"appendix\n"
		"  --version V        show: the study's codebook version V "
		"rather than\n"
		"                     the current one\n"
		"  FILE               a codebook JSON file, or the name of a "
		"bundled one\n"
		"                     (llm-framework-bugs, dl-framework-bugs)\n"
		"  --map DIM:OLD=NEW  move the labels and resolutions of code "
		"OLD of\n"
		"                     dimension DIM to code NEW of the new "
		"codebook\n"
		"                     (OLD=NEW when OLD names a code of one "
		"dimension only);\n"
		"                     e.g. --map root_cause:configuration_error"
		"=misconfig.\n"
		"                     With the current codebook's own file, "
		"only the maps\n"
		"                     are applied: that mends labels whose "
		"code it lacks.\n"
		"  --split DIM:OLD=NEW1,NEW2\n"
		"                     the new codebook splits code OLD into "
		"NEW1 and NEW2\n"
		"                     (it has them, and not OLD): every label "
		"on OLD goes\n"
		"                     back to its coder to recode between them "
		"(shown with\n"
		"                     the old code); a resolution on OLD is "
		"taken back;\n"
		"                     closed rounds keep their figures\n"
		"  revert VERSION     make an earlier version current again "
		"(e.g. revert 1.0);\n"
		"                     proposals accepted since are open again, "
		"their labels\n"
		"                     back on other; labels on other codes it "
		"lacks need --map.\n"
		"\n"
		"  e.g. bugcoder codebook update v2.json --map "
		"root_cause:configuration_error=misconfig\n"
		"       bugcoder codebook update v3.json --split "
		"root_cause:api_misuse=api_call_error,api_contract_change";
	const char **maps = NULL, **splits = NULL;
	size_t nr_maps = 0, nr_splits = 0;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char *format = NULL, *version = NULL;
	const struct cli_opt opts[] = {
		{ "--map", 1, NULL, NULL, &maps, &nr_maps },
		{ "--split", 1, NULL, NULL, &splits, &nr_splits },
		{ "--format", 1, &format, NULL, NULL, NULL },
		{ "--version", 1, &version, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	char *file = NULL;
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		ret = rc > 0 ? 0 : 2;
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
	if (!strcmp(pos[0], "check")) {
		size_t i, n = 0;

		if (npos != 2) {
			ret = cli_usage_error(usage, "codebook check needs "
					      "FILE");
			goto out;
		}
		if (codebook_load_file(&cb, pos[1], &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		for (i = 0; i < cb.nr_dims; i++)
			n += cb.dims[i].nr_codes;
		printf("%s: ok: %s ", pos[1], cb.name);
		cli_print_safe(stdout, cb.version);
		printf(", %zu %s, %zu %s\n", cb.nr_dims,
		       text_plural((long long)cb.nr_dims, "dimension",
				   "dimensions"), n,
		       text_plural((long long)n, "code", "codes"));
	} else if (!strcmp(pos[0], "show")) {
		if (format && strcmp(format, "text") &&
		    strcmp(format, "markdown") && strcmp(format, "md") &&
		    strcmp(format, "latex") && strcmp(format, "json")) {
			ret = cli_usage_error(usage, "--format %s: text, "
					      "markdown, latex or json",
					      format);
			goto out;
		}
		if (version && npos != 1) {
			ret = cli_usage_error(usage, "--version reads the "
					      "study's codebooks, not FILE");
			goto out;
		}
		if (version) {
			if ((ret = cli_open(c, CLI_MEMBER)))
				goto out;
			if (study_codebook_version(&c->st, version, &cb,
						   &c->err) < 0) {
				ret = cli_fail(c);
				goto out;
			}
		} else if (npos == 2) {
			if (codebook_load_file(&cb, pos[1], &c->err) < 0) {
				ret = cli_fail(c);
				goto out;
			}
		} else if (npos == 1) {
			if ((ret = cli_open(c, CLI_MEMBER)) ||
			    (ret = cli_codebook(c,
								&cb)))
				goto out;
		} else {
			ret = cli_usage_error(usage, "codebook show takes at "
					      "most one FILE");
			goto out;
		}
		if (!format || !strcmp(format, "text")) {
			show_codebook(&cb);
		} else {
			struct buf b = BUF_INIT;

			codebook_write(&cb, !strcmp(format, "json") ?
				       CODEBOOK_JSON : !strcmp(format, "latex") ?
				       CODEBOOK_LATEX : CODEBOOK_MARKDOWN, &b);
			fwrite(b.ptr, 1, b.len, stdout);
			buf_release(&b);
		}
	} else if (!strcmp(pos[0], "update")) {
		if (npos != 2) {
			ret = cli_usage_error(usage, "codebook update needs "
					      "FILE");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		ret = cli_codebook_update(c, pos[1], maps, nr_maps, splits,
					  nr_splits);
	} else if (!strcmp(pos[0], "revert")) {
		if (npos != 2) {
			ret = cli_usage_error(usage, "codebook revert needs "
					      "VERSION");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		ret = cli_codebook_revert(c, pos[1], maps, nr_maps);
	} else {
		ret = cli_usage_error(usage, "codebook %s: unknown action",
				      pos[0]);
	}
out:
	codebook_release(&cb);
	free(file);
	free(maps);
	free(splits);
	free(pos);
	return ret;
}

CMD(import)
{
	static const char usage[] =
		"bugcoder import FILE... [--column NAME=HEADER ...]\n"
		"\n"
		"  FILE  JSON Lines in the item format (repo, number, title, "
		"...), or what\n"
		"        the GitHub API returns for issues; a CSV of known bugs "
		"(*.csv,\n"
		"        *.tsv: url, issue, pr, repo, number, title ... "
		"columns); or a list\n"
		"        of issue and pull request URLs (then run `bugcoder "
		"fetch --missing`).\n"
		"        The files go in together or not at all, and an item "
		"imported again\n"
		"        is updated\n"
		"  --column NAME=HEADER\n"
		"        read column NAME (url, issue, pr, repo, number, title, "
		"...) from\n"
		"        a CSV header HEADER\n"
		"\n"
		"  e.g. bugcoder import tests/sample/items.jsonl";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char **columns = NULL;
	size_t nr_columns = 0;
	const struct cli_opt opts[] = {
		{ "--column", 1, NULL, NULL, &columns, &nr_columns },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct import_opts io;
	struct import_stats *stats = NULL;
	int missing = 0;
	struct buf report = BUF_INIT;
	int npos, rc, i, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		free(columns);
		return rc > 0 ? 0 : 2;
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
	for (i = 0; i < npos; i++) {
		const struct import_stats *st = &stats[i];

		buf_addf(&report, "%s: %d added, %d updated", pos[i],
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
out:
	buf_release(&report);
	free(stats);
	free(pos);
	free(columns);
	return ret;
}
