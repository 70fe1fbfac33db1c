/* SPDX-License-Identifier: MIT */
/*
 * package_files: the files of the replication package, from the tables
 * and reports to codes.csv, analysis.R, figures/ and README.txt, in the
 * order package.h lists them (the manifests, written after them, are in
 * package_manifest.c).
 */
#include "exports/package_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/study/consensus.h"
#include "core/study/machine.h"
#include "core/study/records.h"
#include "core/base/version.h"
#include "exports/agree_report.h"
#include "exports/audit_out.h"
#include "exports/csv_out.h"
#include "exports/export.h"
#include "exports/figures.h"
#include "exports/json_out.h"
#include "exports/selection.h"
#include "exports/summary.h"

typedef int (*table_fn)(struct store *, const struct actor *,
			struct export_opts *, FILE *, struct err *);

static int write_table(struct pkg *p, const char *name, struct store *st,
		       const struct actor *a, const struct codebook *cb,
		       table_fn fn, struct package_opts *po, struct err *e)
{
	struct export_opts o = EXPORT_OPTS_INIT;
	FILE *f = pkg_open_file(p, name, e);
	int rc;

	if (!f)
		return -1;
	o.flags = po->flags;
	o.round = po->round;
	o.stop = po->stop;
	rc = fn ? fn(st, a, &o, f, e) : export_agreed(st, a, cb, &o, f, e);
	if (pkg_close_file(p, f, rc == 0, e) < 0)
		return -1;
	p->files[p->nr - 1].rows = (long long)o.rows;
	return 0;
}

struct answers_out {
	FILE *f;
	struct export_opts *o;
	struct buf line;
};

static int answer_line(const struct machine_answer_row *r, void *data)
{
	struct answers_out *ao = data;
	struct json_out j;

	buf_reset(&ao->line);
	jsonw_begin(&j, &ao->line);
	jsonw_str(&j, "item", r->item);
	jsonw_str(&j, "machine", r->machine);
	jsonw_str(&j, "command", r->command);
	jsonw_str(&j, "model", r->model);
	jsonw_str(&j, "note", r->note);
	jsonw_str(&j, "codebook_version", r->codebook_version);
	jsonw_str(&j, "input_sha256", r->input_sha256);
	jsonw_str(&j, "answer_sha256", r->answer_sha256);
	jsonw_int(&j, "duration_ms", r->duration_ms);
	jsonw_str(&j, "answered_at", r->answered_at);
	jsonw_str(&j, "answer", r->answer);
	jsonw_end(&j);
	if (fwrite(ao->line.ptr, 1, ao->line.len, ao->f) != ao->line.len)
		return -1;
	ao->o->rows++;
	return 0;
}

/* The machine coders' answers with their provenance, as a table_fn. */
static int export_machine_answers(struct store *st, const struct actor *a,
				  struct export_opts *o, FILE *f,
				  struct err *e)
{
	struct answers_out ao = { f, o, BUF_INIT };
	int rc = machine_answers_each(st, a, o->round, answer_line, &ao, e);

	buf_release(&ao.line);
	if (rc > 0 || (rc == 0 && ferror(f)))
		return err_set(e, ERR_IO, "writing machine-answers.jsonl "
			       "failed");
	return rc;
}

/* The audit log the actor may read, as a table_fn. */
static int export_audit(struct store *st, const struct actor *a,
			struct export_opts *o, FILE *f, struct err *e)
{
	long long n = audit_out_write(st, a, NULL, AUDIT_CSV, f, e);

	if (n < 0)
		return -1;
	o->rows = (size_t)n;
	return 0;
}

/* A version string made safe for a file name. */
static void file_safe(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_addch(b, (strchr("._-+", *s) || (*s >= '0' && *s <= '9') ||
			      (*s >= 'a' && *s <= 'z') ||
			      (*s >= 'A' && *s <= 'Z')) ? *s : '_');
}

/* write_codebooks()'s row callback */
struct codebooks_out {
	struct pkg *p;
	struct buf name;
	int n;
};

static int codebook_out(const struct codebook_row *r, void *data,
			struct err *e)
{
	struct codebooks_out *c = data;

	buf_reset(&c->name);
	buf_addf(&c->name, "codebooks/%d-", ++c->n);
	file_safe(&c->name, r->version ? r->version : "");
	buf_addstr(&c->name, ".json");
	if (pkg_write_text(c->p, c->name.ptr, r->json, r->len, e) < 0)
		return -1;
	if (r->current &&
	    pkg_write_text(c->p, "codebook.json", r->json, r->len, e) < 0)
		return -1;
	return 0;
}

static int write_codebooks(struct pkg *p, struct store *st, struct err *e)
{
	struct codebooks_out c = { p, BUF_INIT, 0 };
	char *sub;
	int ret;

	sub = pkg_join(p->tmp, "codebooks");
	if (mkdir(sub, 0700) < 0 || chmod(sub, p->dir_mode) < 0) {
		err_set(e, ERR_IO, "%s: %s", sub, strerror(errno));
		free(sub);
		return -1;
	}
	free(sub);
	p->has_subdir = 1;
	ret = records_codebooks(st, codebook_out, &c, e);
	buf_release(&c.name);
	return ret;
}

static int write_agreement(struct pkg *p, struct store *st,
			   const struct actor *a, const struct codebook *cb,
			   const char *round, struct err *e)
{
	struct buf b = BUF_INIT;
	int ret = -1;

	if (report_agreement(st, a, cb, round, NULL, REPORT_TEXT, NULL, &b,
			     e) < 0 ||
	    pkg_write_text(p, "agreement.txt", b.ptr, b.len, e) < 0)
		goto out;
	buf_reset(&b);
	if (report_agreement(st, a, cb, round, NULL, REPORT_JSON, NULL, &b,
			     e) < 0 ||
	    pkg_write_text(p, "agreement.json", b.ptr, b.len, e) < 0)
		goto out;
	if (!round) {
		buf_reset(&b);
		if (report_agreement_by_round(st, a, cb, NULL, REPORT_TEXT,
					      NULL, &b, e) < 0 ||
		    pkg_write_text(p, "agreement-by-round.txt", b.ptr, b.len,
				   e) < 0)
			goto out;
		buf_reset(&b);
		if (report_agreement_by_round(st, a, cb, NULL, REPORT_JSON,
					      NULL, &b, e) < 0 ||
		    pkg_write_text(p, "agreement-by-round.json", b.ptr, b.len,
				   e) < 0)
			goto out;
	}
	ret = 0;
out:
	buf_release(&b);
	return ret;
}

/* The codes of the current codebook, one row each, for analysis.R
 * (base R reads no JSON). */
static int write_codes(struct pkg *p, const struct codebook *cb,
		       unsigned flags, struct err *e)
{
	static const char *const head[] = {
		"dimension", "select", "code", "name", "group", "distributed",
		NULL,
	};
	struct csv_out w;
	FILE *f = pkg_open_file(p, "codes.csv", e);
	size_t d, i, rows = 0;
	int rc;

	if (!f)
		return -1;
	csvw_init(&w, f, (flags & EXPORT_NO_GUARD) ? 0 : CSV_GUARD);
	csvw_header(&w, head);
	rc = csvw_end(&w);
	for (d = 0; d < cb->nr_dims && !rc; d++)
		for (i = 0; i < cb->dims[d].nr_codes && !rc; i++) {
			const struct code *c = &cb->dims[d].codes[i];

			csvw_key(&w, cb->dims[d].key);
			csvw_key(&w, cb->dims[d].select_many ? "many" : "one");
			csvw_key(&w, c->key);
			csvw_text(&w, c->name ? c->name : "");
			if (c->group)
				csvw_text(&w, c->group);
			else
				csvw_null(&w);
			csvw_bool(&w, c->distributed);
			rc = csvw_end(&w);
			rows++;
		}
	csvw_release(&w);
	if (pkg_close_file(p, f, rc == 0, e) < 0)
		return -1;
	p->files[p->nr - 1].rows = (long long)rows;
	return 0;
}

/* Which round each item is in: round,item. */
static int write_round_items(struct pkg *p, struct store *st,
			     const struct actor *a, const struct codebook *cb,
			     const char *round, struct err *e)
{
	static const char *const head[] = { "round", "item", NULL };
	struct consensus_iter it;
	struct csv_out w;
	struct buf name = BUF_INIT;
	FILE *f = pkg_open_file(p, "round-items.csv", e);
	size_t rows = 0;
	int rc, bad = 0;

	if (!f)
		return -1;
	csvw_init(&w, f, 0);
	csvw_header(&w, head);
	bad = csvw_end(&w) != 0;
	if (consensus_open(&it, st, a, cb, round, e) < 0) {
		consensus_close(&it);
		csvw_release(&w);
		pkg_close_file(p, f, 0, e);
		return -1;
	}
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		if (!it.item.round)
			continue;
		buf_reset(&name);
		buf_addf(&name, "%s#%lld", it.item.repo ? it.item.repo : "",
			 it.item.number);
		csvw_key(&w, it.item.round);
		csvw_key(&w, name.ptr);
		bad |= csvw_end(&w) != 0;
		rows++;
	}
	consensus_close(&it);
	csvw_release(&w);
	buf_release(&name);
	if (pkg_close_file(p, f, rc == 0 && !bad, e) < 0 || rc < 0)
		return -1;
	p->files[p->nr - 1].rows = (long long)rows;
	return 0;
}

/* The options of the package's report: the codebook's first two
 * dimensions crossed, per stage, effort per phase (when there are
 * such dimensions). */
static void package_summary_opts(struct summary_opts *o,
				 const struct codebook *cb,
				 const struct package_opts *po)
{
	o->round = po->round;
	o->include_pending = (po->flags & EXPORT_PENDING) != 0;
	if (cb->nr_dims >= 2 && codebook_dim(cb, "stage") &&
	    strcmp(cb->dims[0].key, "stage") && strcmp(cb->dims[1].key,
						       "stage"))
		o->by = "stage";
	if (codebook_dim(cb, "phase"))
		o->effort_by = "phase";
}

static void r_string(struct buf *b, const char *s)
{
	if (!s) {
		buf_addstr(b, "NA");
		return;
	}
	buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_addch(b, '\\');
		buf_addch(b, *s);
	}
	buf_addch(b, '"');
}

extern const char analysis_r[];

/* analysis.R with the report's options filled in. */
static int write_analysis(struct pkg *p, const struct codebook *cb,
			  const struct summary_opts *o, struct err *e)
{
	struct buf b = BUF_INIT, v = BUF_INIT;
	const char *s = analysis_r, *at;
	int ret;

	while ((at = strchr(s, '@'))) {
		const char *end = strchr(at + 1, '@');
		size_t len;

		if (!end)
			break;
		buf_add(&b, s, (size_t)(at - s));
		len = (size_t)(end - at - 1);
		buf_reset(&v);
		if (len == 5 && !strncmp(at + 1, "SMALL", 5))
			buf_addf(&v, "%ld", o->small);
		else if (len == 9 && !strncmp(at + 1, "HARD_DAYS", 9))
			buf_addf(&v, "%.17g", o->hard_days);
		else if (len == 13 && !strncmp(at + 1, "HARD_COMMENTS", 13))
			buf_addf(&v, "%ld", o->hard_comments);
		else if (len == 5 && !strncmp(at + 1, "CROSS", 5)) {
			r_string(&v, cb->nr_dims >= 2 ? cb->dims[0].key : NULL);
			buf_addstr(&v, ", ");
			r_string(&v, cb->nr_dims >= 2 ? cb->dims[1].key : NULL);
		} else if (len == 2 && !strncmp(at + 1, "BY", 2))
			r_string(&v, o->by);
		else if (len == 9 && !strncmp(at + 1, "EFFORT_BY", 9))
			r_string(&v, o->effort_by);
		else if (len == 7 && !strncmp(at + 1, "PENDING", 7))
			buf_addstr(&v, o->include_pending ? "TRUE" : "FALSE");
		else if (len == 4 && !strncmp(at + 1, "BOOT", 4))
			buf_addf(&v, "%d", AGREE_BOOT_DEFAULT);
		else if (len == 4 && !strncmp(at + 1, "SEED", 4))
			buf_addf(&v, "%llu", (unsigned long long)
				 AGREE_SEED_DEFAULT);
		else {
			buf_addch(&b, '@');
			s = at + 1;
			continue;
		}
		buf_add(&b, v.ptr, v.len);
		s = end + 1;
	}
	buf_addstr(&b, s);
	ret = pkg_write_text(p, "analysis.R", b.ptr, b.len, e);
	buf_release(&b);
	buf_release(&v);
	return ret;
}

static int write_report(struct pkg *p, struct store *st,
			const struct actor *a, const struct codebook *cb,
			const struct package_opts *po, struct err *e)
{
	struct summary_opts o = SUMMARY_OPTS_INIT;
	struct buf b = BUF_INIT;
	int ret = -1;

	package_summary_opts(&o, cb, po);
	o.format = SUMMARY_MARKDOWN;
	if (summary_write(st, a, cb, &o, &b, e) < 0 ||
	    pkg_write_text(p, "report.md", b.ptr, b.len, e) < 0)
		goto out;
	buf_reset(&b);
	o.format = SUMMARY_JSON;
	if (summary_write(st, a, cb, &o, &b, e) < 0 ||
	    pkg_write_text(p, "report.json", b.ptr, b.len, e) < 0 ||
	    write_analysis(p, cb, &o, e) < 0)
		goto out;
	ret = 0;
out:
	buf_release(&b);
	return ret;
}

/* The command that redraws figures/ from the study, owned. */
static char *redraw_command(const struct codebook *cb,
			    const struct package_opts *po)
{
	struct summary_opts o = SUMMARY_OPTS_INIT;
	struct buf b = BUF_INIT;

	package_summary_opts(&o, cb, po);
	buf_addstr(&b, "bugcoder report --figures figures/");
	if (o.round)
		buf_addf(&b, " --round %s", o.round);
	if (o.include_pending)
		buf_addstr(&b, " --include-pending");
	if (o.by)
		buf_addf(&b, " --by %s", o.by);
	if (o.effort_by)
		buf_addf(&b, " --effort-by %s", o.effort_by);
	return buf_detach(&b, NULL);
}

/* figures/: the report's figures as PDF, their data as CSV and
 * figures.json, drawn with the options of report.json. */
static int write_figures(struct pkg *p, struct store *st,
			 const struct actor *a, const struct codebook *cb,
			 const struct package_opts *po, struct err *e)
{
	struct figures_opts fo = FIGURES_OPTS_INIT;
	struct figure_files files = FIGURE_FILES_INIT;
	struct buf name = BUF_INIT;
	char *sub;
	size_t i;
	int ret = -1;

	fo.format = FIGURE_PDF;
	package_summary_opts(&fo.report, cb, po);
	if (figures_build(st, a, cb, &fo, &files, e) < 0)
		goto out;
	sub = pkg_join(p->tmp, "figures");
	if (mkdir(sub, 0700) < 0 || chmod(sub, p->dir_mode) < 0) {
		err_set(e, ERR_IO, "%s: %s", sub, strerror(errno));
		free(sub);
		goto out;
	}
	free(sub);
	p->has_figures = 1;
	for (i = 0; i < files.nr; i++) {
		buf_reset(&name);
		buf_addf(&name, "figures/%s", files.v[i].name);
		if (pkg_write_text(p, name.ptr, files.v[i].data.ptr,
				   files.v[i].data.len, e) < 0)
			goto out;
	}
	ret = 0;
out:
	figure_files_release(&files);
	buf_release(&name);
	return ret;
}

static const char readme[] =
	"Replication package written by %s on %s.\n"
	"\n"
	"FILES\n"
	"agreed-labels.csv  one row per item whose every dimension is agreed\n"
	"                   (or, with pending, every item)\n"
	"raw-labels.csv     every annotator's labels, one row per code\n"
	"                   (bugcoder labels import reads it)\n"
	"resolutions.csv    every adjudicated disagreement and settle note\n"
	"rounds.csv         the rounds (coding and screening) with their sample\n"
	"                   spec and seed\n"
	"round-items.csv    which coding round each item is in: the items\n"
	"                   every figure counts (the whole study's agreement\n"
	"                   is over them: rebuild it from raw-labels.csv)\n"
	"selection.csv      every item of the study, fetched or not, where it\n"
	"                   stands: screened in or out with its reason, its\n"
	"                   coding round, coded and agreed (the report's\n"
	"                   selection flow counts these rows)\n"
	"screening.csv      every screener's answer (include or a reason)\n"
	"memos.csv          the annotators' memos and flags\n"
	"audit.csv          the audit log: who changed what, when, for whom;\n"
	"                   each row's hash is chained on the row before\n"
	"                   (the maker's rows only, for an adjudicator)\n"
	"codes.csv          the codes of the current codebook\n"
	"machine-answers.jsonl  every answer of a machine coder: item,\n"
	"                   machine, command, model, note, codebook_version,\n"
	"                   SHA-256 of its input and of the answer, duration,\n"
	"                   time, the raw answer (agreement.* compares the\n"
	"                   machines with the annotators)\n"
	"codebook.json      the codebook the labels are coded against\n"
	"codebooks/         every codebook version the study has held\n"
	"agreement.txt      agreement statistics (Cohen's kappa and others),\n"
	"agreement.json     over every round pooled; the same as JSON\n"
	"agreement-by-round.txt, agreement-by-round.json\n"
	"                   kappa per dimension and round with its interval\n"
	"                   and the codebook version(s) the round was coded\n"
	"                   under\n"
	"report.md          the report's tables (bugcoder report), Markdown\n"
	"report.json        the same tables as JSON: {\"tables\": [{\"id\",\n"
	"                   \"title\", \"columns\", \"rows\"}]}\n"
	"analysis.R         base R only: recomputes report.json's tables from\n"
	"                   the CSV files, every column of the agreement table\n"
	"                   included (its bootstrap bounds and degenerate\n"
	"                   counts within Monte Carlo error: R draws its own\n"
	"                   resamples) (Rscript analysis.R; --csv prints\n"
	"                   every cell as table,row,column,value; --mc-band\n"
	"                   adds where other resamples may put each bound)\n"
	"figures/           the report's figures as PDF, one column of a\n"
	"                   two-column paper (8.5 cm) wide: shares per\n"
	"                   dimension and per repository, the symptom to\n"
	"                   root cause to fix pattern flow, the cross table\n"
	"                   as a heat map, effort distributions, agreement\n"
	"                   per round; NAME.csv beside each is its data, and\n"
	"                   figures/figures.json says which report table\n"
	"                   each shows.  Redraw them from the study with\n"
	"                   %s\n"
	"manifest.json      sizes, rows and SHA-256 of the files; audit_head:\n"
	"                   the audit log's newest row and its hash when the\n"
	"                   package was made (bugcoder audit verify --head\n"
	"                   HASH checks the study's log still begins so)\n"
	"MANIFEST           SHA-256 of every file: sha256sum -c MANIFEST\n"
	"\n"
	"COLUMNS\n"
	"agreed-labels.csv: item (owner/repo#number), repo, number, url,\n"
	"  title, created_at, closed_at, days_open (closed_at - created_at\n"
	"  in days, two decimals), comments (number of comments), fix_numbers\n"
	"  (the fixing pull requests, ';'-joined), additions, deletions,\n"
	"  changed_files, lines_changed (additions + deletions over the\n"
	"  fixes that count: a backport repeating another fix is left\n"
	"  out), fix_lines_changed (each fix's own lines, ';'-joined in the\n"
	"  order of fix_numbers; ?: unknown), fix_repeats (per fix, 0 or\n"
	"  the place in fix_numbers of the fix it repeats), small_fix\n"
	"  (TRUE when lines_changed <= 10), then per\n"
	"  dimension DIM (the agreed code(s), ';'-joined; empty: none) and\n"
	"  DIM_status (agreed, adjudicated or pending)\n"
	"raw-labels.csv: item, annotator (a name, or Coder N while blind),\n"
	"  dimension, code, codebook_version (the version coded under),\n"
	"  labeled_at, submitted_at (empty: not submitted), evidence (the\n"
	"  lines cited for the label, '|'-joined: diff:PATH[:old]:L1-L2,\n"
	"  issue:body:L1-L2, issue:comment:N:L1-L2, pr:N:body:L1-L2 (pull\n"
	"  request #N's description) or pr:N:comment:K:L1-L2)\n"
	"resolutions.csv: item, dimension, coder1, coder1_codes, coder2,\n"
	"  coder2_codes (as the adjudicator saw them), final (the decided\n"
	"  code(s)), rationale, cause (guideline_gap, slip, ambiguous,\n"
	"  code_missing or empty), adjudicator, resolved_at, kind (resolution;\n"
	"  or settled: an item settled without a resolution, its note in\n"
	"  rationale, its dimension and codes empty)\n"
	"rounds.csv: name, spec (how the items were chosen), seed, stratify,\n"
	"  annotators (';'-joined), items, created_at, created_by, closed_at,\n"
	"  closed_by (empty: still open), kind (code, or screen: a screening\n"
	"  round), reasons (a screening round's exclusion reasons,\n"
	"  ';'-joined)\n"
	"round-items.csv: round, item (coding rounds; the whole study's\n"
	"  agreement counts these items, each where both its annotators\n"
	"  submitted it; without rounds, every item)\n"
	"selection.csv: item, repo, fetched (FALSE: still to fetch, never\n"
	"  coded), with_fix, screening_round (empty: never screened),\n"
	"  decision (include, or the reason it was screened out; empty: not\n"
	"  decided), decided (agreed: the screeners agreed when the round\n"
	"  closed; adjudicated), rationale (an adjudicated decision's),\n"
	"  coding_round, counted (TRUE: its coding counts in the figures),\n"
	"  coded (TRUE: every assigned coder submitted it), status (coded\n"
	"  items: agreed, adjudicated, or open - a disagreement or a recode\n"
	"  left)\n"
	"screening.csv: item, round, annotator (a name, or Coder N while\n"
	"  blind), answer (include or a reason), labeled_at, submitted_at\n"
	"memos.csv: item, annotator, memo (empty: none), flags (discuss,\n"
	"  uncertain, ';'-joined; empty: none), updated_at (the latest change)\n"
	"audit.csv: id, at, actor (who acted), for_member (for whom the owner\n"
	"  acted; empty: themselves), action, item, dimension, old, new,\n"
	"  detail (JSON: what else the change was, for its replay; the\n"
	"  owner's package only), hash (SHA-256 chained on the previous row)\n"
	"codes.csv: dimension, select (one or many), code, name, group,\n"
	"  distributed (TRUE: arises only in distributed systems)\n"
	"\n"
	"CSV: RFC 4180, UTF-8 without BOM, comma separated, CRLF line ends,\n"
	"a header row; quoted where needed, line breaks inside cells kept.\n"
	"%s"
	"Empty cell = no value.  Booleans are TRUE/FALSE, which R's read.csv\n"
	"and pandas' read_csv read as logical; dates ISO 8601; several codes\n"
	"are joined by ';'.\n"
	"In R: read.csv(f, encoding = \"UTF-8\"); in pandas: read_csv(f).\n";

static int write_readme(struct pkg *p, const char *now,
			const struct codebook *cb,
			const struct package_opts *po, struct err *e)
{
	struct buf b = BUF_INIT;
	char *redraw = redraw_command(cb, po);
	unsigned flags = po->flags;
	int ret;

	buf_addf(&b, readme, bugcoder_version_line(), now, redraw,
		 (flags & EXPORT_NO_GUARD) ? "" :
		 "Text cells starting with = + - @ TAB or CR have a ' put in "
		 "front\nso spreadsheets do not run them as formulas.\n");
	ret = pkg_write_text(p, "README.txt", b.ptr, b.len, e);
	buf_release(&b);
	free(redraw);
	return ret;
}

int pkg_interrupted(const struct package_opts *o, struct err *e)
{
	if (o->stop && *o->stop)
		return err_set(e, ERR_INTERRUPTED, "package interrupted; "
			       "nothing written");
	return 0;
}

/* Every file of the package but the manifests, in order, checking for
 * an interruption after the long ones.  Returns 0, or -1 with `e`
 * filled. */
int pkg_write_files(struct pkg *p, struct store *st, const struct actor *a,
		    const struct codebook *cb, const char *now,
		    struct package_opts *o, struct err *e)
{
	if (write_table(p, "agreed-labels.csv", st, a, cb, NULL, o, e) < 0 ||
	    pkg_interrupted(o, e) < 0 ||
	    write_table(p, "raw-labels.csv", st, a, cb, export_raw, o,
			e) < 0 ||
	    pkg_interrupted(o, e) < 0 ||
	    write_table(p, "resolutions.csv", st, a, cb, export_resolutions,
			o, e) < 0 ||
	    write_table(p, "rounds.csv", st, a, cb, export_rounds, o,
			e) < 0 ||
	    write_table(p, "selection.csv", st, a, cb, export_selection, o,
			e) < 0 ||
	    write_table(p, "screening.csv", st, a, cb, export_screening, o,
			e) < 0 ||
	    write_table(p, "audit.csv", st, a, cb, export_audit, o,
			e) < 0 ||
	    write_table(p, "memos.csv", st, a, cb, export_memos, o,
			e) < 0 ||
	    write_table(p, "machine-answers.jsonl", st, a, cb,
			export_machine_answers, o, e) < 0 ||
	    write_codebooks(p, st, e) < 0 ||
	    write_agreement(p, st, a, cb, o->round, e) < 0 ||
	    write_report(p, st, a, cb, o, e) < 0 ||
	    write_figures(p, st, a, cb, o, e) < 0 ||
	    write_codes(p, cb, o->flags, e) < 0 ||
	    write_round_items(p, st, a, cb, o->round, e) < 0 ||
	    write_readme(p, now, cb, o, e) < 0)
		return -1;
	return 0;
}
