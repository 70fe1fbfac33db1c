/* SPDX-License-Identifier: MIT */
/*
 * export and report: the agreed data leaving the program.
 *
 * Files named with -o are written atomically (exports/atomic.h): an
 * export that fails or is interrupted (SIGINT, SIGTERM, SIGHUP) leaves
 * the old file, or none, and no temporary behind.  Without -o, or with
 * "-o -", the data goes to stdout.
 */
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "exports/atomic.h"
#include "exports/export.h"
#include "exports/figures.h"
#include "exports/package.h"
#include "exports/summary.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Turn SIGINT, SIGTERM and SIGHUP into a request to stop cleanly. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

enum what {
	WHAT_AGREED,
	WHAT_RAW,
	WHAT_RESOLUTIONS,
	WHAT_ROUNDS,
	WHAT_MEMOS,
	WHAT_AUDIT,
};

static int run_export(struct cli *c, enum what what,
		      const struct codebook *cb, struct export_opts *o,
		      FILE *out)
{
	switch (what) {
	case WHAT_RAW:
		return export_raw(&c->st, &c->actor, o, out, &c->err);
	case WHAT_RESOLUTIONS:
		return export_resolutions(&c->st, &c->actor, o, out, &c->err);
	case WHAT_ROUNDS:
		return export_rounds(&c->st, &c->actor, o, out, &c->err);
	case WHAT_MEMOS:
		return export_memos(&c->st, &c->actor, o, out, &c->err);
	case WHAT_AUDIT:
		return export_audit_log(&c->st, &c->actor, o, out, &c->err);
	default:
		return export_agreed(&c->st, &c->actor, cb, o, out, &c->err);
	}
}

static int to_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

/* `path` with its directory resolved, owned; NULL when that fails. */
static char *resolved(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real;
	struct buf b = BUF_INIT;

	dir = slash ? xstrndup(path, slash == path ? 1 :
			       (size_t)(slash - path)) : xstrdup(".");
	real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return NULL;
	buf_addf(&b, "%s/%s", real, slash ? slash + 1 : path);
	free(real);
	return buf_detach(&b, NULL);
}

/*
 * Does -o name the study, or one of SQLite's files beside it?  The export
 * is renamed over its target at the end, so `export -o study.db` used to
 * replace the whole study by a CSV file.  Refused, with `e` filled.
 */
static int refuse_study(struct cli *c, const char *output, struct err *e)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	struct stat so, ss;
	char *ro, *rs;
	size_t i;
	int same = 0;

	if (stat(output, &so) == 0 && stat(c->study_path, &ss) == 0 &&
	    so.st_dev == ss.st_dev && so.st_ino == ss.st_ino)
		same = 1;
	ro = resolved(output);
	rs = resolved(c->study_path);
	for (i = 0; !same && ro && rs && i < 4; i++) {
		size_t n = strlen(rs);

		same = !strncmp(ro, rs, n) && !strcmp(ro + n, suffix[i]);
	}
	free(ro);
	free(rs);
	if (same)
		return err_set(e, ERR_INPUT, "-o %s: that is the study itself "
			       "(%s); name another file", output,
			       c->study_path);
	return 0;
}

struct export_cmd_opts {
	const char *format, *package, *round, *output, *mode;
	int raw, resolutions, rounds, pending, noguard, memos, audit;
};

static const struct option export_cmd_opts[] = {
	OPT_STRING(0, "format", struct export_cmd_opts, format, "csv|jsonl",
		   OPT_V_WORDS, "csv (default) or JSON Lines"),
	OPT_FLAG(0, "raw", struct export_cmd_opts, raw,
		 "every annotator's labels"),
	OPT_FLAG(0, "resolutions", struct export_cmd_opts, resolutions,
		 "resolutions and settle notes (kind)"),
	OPT_FLAG(0, "rounds", struct export_cmd_opts, rounds, "the rounds"),
	OPT_FLAG(0, "memos", struct export_cmd_opts, memos,
		 "memos and flags: item, annotator, memo, flags, updated_at "
		 "(blinded as raw labels)"),
	OPT_FLAG(0, "audit", struct export_cmd_opts, audit,
		 "the audit log (the owner's: every row; anyone else's: their "
		 "own actions)"),
	OPT_STRING(0, "package", struct export_cmd_opts, package, "DIR",
		   OPT_V_FILE, "a replication package with analysis.R"),
	OPT_FLAG(0, "include-pending", struct export_cmd_opts, pending,
		 "the agreed labels: items not agreed yet too (their "
		 "undecided dimensions pending)"),
	OPT_FLAG(0, "no-formula-guard", struct export_cmd_opts, noguard,
		 "CSV: write text cells that begin with =, +, -, @, TAB or CR "
		 "as they are (by default a single quote goes in front, so "
		 "that a spreadsheet does not run them as formulas)"),
	OPT_STRING(0, "round", struct export_cmd_opts, round, "R",
		   OPT_V_ROUND, "only round R's items"),
	OPT_STRING('o', "output", struct export_cmd_opts, output, "FILE",
		   OPT_V_FILE, "write to FILE rather than standard output"),
	OPT_STRING(0, "mode", struct export_cmd_opts, mode, "MODE",
		   OPT_V_TEXT,
		   "the mode of the file -o writes, or of the package's files: "
		   "600 (you only) unless you widen it on purpose, e.g. --mode "
		   "640"),
	OPT_END()
};

const struct command export_command = {
	"export", cmd_export, "export agreed labels, raw labels, resolutions",
	"bugcoder export [--format csv|jsonl] [--raw | --resolutions | "
	"--rounds | --memos | --audit | --package DIR] "
	"[--include-pending] [--no-formula-guard] [--round R] "
	"[-o FILE] [--mode MODE]",
	export_cmd_opts, NULL,
	"  Without one of --raw ... --package: the agreed labels with the\n"
	"  effort figures.  Booleans are written TRUE/FALSE (R and pandas\n"
	"  read them as logical).\n",
	"bugcoder export --memos -o memos.csv",
	NULL
};

/* The export the options ask for, checked: `o` and `*what` filled.
 * Returns 0, or the exit code of a usage error. */
static int export_check(const struct export_cmd_opts *opt, mode_t *mode,
			enum what *what, struct export_opts *o)
{
	const char *usage = opt_usage(&export_command);
	const char *format = opt->format;

	if (cli_mode(opt->mode, mode, usage))
		return 2;
	if (opt->mode && !opt->package && to_stdout(opt->output))
		return cli_usage_error(usage, "--mode is for the file -o or "
				       "the --package directory writes");
	if (!!opt->raw + !!opt->resolutions + !!opt->rounds + !!opt->memos +
	    !!opt->audit + !!opt->package > 1)
		return cli_usage_error(usage, "--raw, --resolutions, --rounds, "
				       "--memos, --audit and --package exclude "
				       "each other");
	if (format && strcmp(format, "csv") && strcmp(format, "jsonl"))
		return cli_usage_error(usage, "--format %s: csv or jsonl",
				       format);
	if (opt->package && (opt->output || (format && strcmp(format, "csv"))))
		return cli_usage_error(usage, "--package writes CSV files into "
				       "DIR; -o and --format do not apply");
	if (opt->pending && (opt->raw || opt->resolutions || opt->rounds ||
			     opt->memos || opt->audit))
		return cli_usage_error(usage, "--include-pending is for the "
				       "agreed labels");
	*what = opt->raw ? WHAT_RAW : opt->resolutions ? WHAT_RESOLUTIONS :
		opt->rounds ? WHAT_ROUNDS : opt->memos ? WHAT_MEMOS :
		opt->audit ? WHAT_AUDIT : WHAT_AGREED;
	o->format = format && !strcmp(format, "jsonl") ? EXPORT_JSONL :
		    EXPORT_CSV;
	o->flags = (opt->pending ? EXPORT_PENDING : 0) |
		   (opt->noguard ? EXPORT_NO_GUARD : 0);
	o->round = opt->round;
	o->stop = &stop_requested;
	return 0;
}

/* --package DIR: the replication package.  Returns the exit code. */
static int export_package(struct cli *c, const struct codebook *cb,
			  const char *dir, const struct export_opts *o,
			  mode_t mode)
{
	struct package_opts po = PACKAGE_OPTS_INIT;

	po.flags = o->flags;
	po.round = o->round;
	po.mode = mode;
	po.stop = &stop_requested;
	if (package_write(&c->st, &c->actor, cb, dir, &po, &c->err) < 0)
		return cli_fail(c);
	printf("%s: replication package of %d files; check it with "
	       "`cd %s && sha256sum -c MANIFEST`\n", dir, po.nr_files, dir);
	return 0;
}

/* The export to a terminal: collected, then shown with no escape
 * sequence from an issue title (text is exported as stored).  Returns
 * the exit code. */
static int export_to_terminal(struct cli *c, enum what what,
			      const struct codebook *cb,
			      struct export_opts *o)
{
	char *shown = NULL;
	size_t shown_len = 0;
	FILE *out = open_memstream(&shown, &shown_len);
	int rc;

	if (!out) {
		err_set(&c->err, ERR_IO, "cannot buffer the export");
		return cli_fail(c);
	}
	rc = run_export(c, what, cb, o, out);
	fclose(out);
	if (rc == 0 && shown)
		cli_print_safe(stdout, shown);
	free(shown);
	return rc < 0 ? cli_fail(c) : 0;
}

/* The export into the file `output`, written atomically with `mode`:
 * an export that fails or is stopped leaves the old file, or none.
 * Returns the exit code. */
static int export_to_file(struct cli *c, enum what what,
			  const struct codebook *cb, struct export_opts *o,
			  const char *output, mode_t mode)
{
	struct atomic_file af = ATOMIC_FILE_INIT;

	if (refuse_study(c, output, &c->err) < 0 ||
	    atomic_open_mode(&af, output, mode, &c->err) < 0)
		return cli_fail(c);
	if (run_export(c, what, cb, o, af.f) < 0) {
		atomic_abort(&af);
		err_prefix(&c->err, "%s not written", output);
		return cli_fail(c);
	}
	if (atomic_commit(&af, &c->err) < 0) {
		atomic_abort(&af);
		return cli_fail(c);
	}
	printf("%s: %zu row%s\n", output, o->rows, o->rows == 1 ? "" : "s");
	return 0;
}

CMD(export)
{
	struct export_cmd_opts opt;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct export_opts o = EXPORT_OPTS_INIT;
	struct codebook cb = CODEBOOK_INIT;
	enum what what = WHAT_AGREED;
	mode_t mode;
	int npos, rc, ret;

	memset(&opt, 0, sizeof(opt));
	rc = opt_parse(&export_command, argc, argv, &opt, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	if (npos)
		return cli_usage_error(opt_usage(&export_command),
				       "unexpected argument");
	if ((ret = export_check(&opt, &mode, &what, &o)))
		return ret;
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	catch_signals();
	if (opt.package) {
		ret = export_package(c, &cb, opt.package, &o, mode);
	} else if (to_stdout(opt.output) && isatty(STDOUT_FILENO)) {
		ret = export_to_terminal(c, what, &cb, &o);
	} else if (to_stdout(opt.output)) {
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
		ret = run_export(c, what, &cb, &o, stdout) < 0 ? cli_fail(c) : 0;
	} else {
		ret = export_to_file(c, what, &cb, &o, opt.output, mode);
	}
out:
	codebook_release(&cb);
	return ret;
}

static int utf8_terminal(void)
{
	const char *cs = nl_langinfo(CODESET);

	return isatty(STDOUT_FILENO) && cs && (!strcmp(cs, "UTF-8") ||
					       !strcmp(cs, "utf8"));
}

/* Write the figures into directory `dir` (made when missing), each file
 * whole or not at all; prints what was written. */
static int write_figures(struct cli *c, const struct codebook *cb,
			 const char *dir, const struct figures_opts *fo,
			 mode_t mode)
{
	struct figure_files files = FIGURE_FILES_INIT;
	struct buf path = BUF_INIT;
	size_t i, n = 0;
	int ret = 0;

	/* private, as every output: 0700 whatever the umask, unless
	 * --mode widens it; a directory that is there is left as it is */
	if (mkdir(dir, 0700) == 0) {
		if (chmod(dir, output_dir_mode(mode)) < 0) {
			err_set(&c->err, ERR_IO, "--figures %s: %s", dir,
				strerror(errno));
			return cli_fail(c);
		}
	} else if (errno != EEXIST) {
		err_set(&c->err, ERR_IO, "--figures %s: %s", dir,
			strerror(errno));
		return cli_fail(c);
	}
	if (figures_build(&c->st, &c->actor, cb, fo, &files, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	for (i = 0; i < files.nr; i++) {
		struct atomic_file af = ATOMIC_FILE_INIT;
		const struct figure_file *f = &files.v[i];

		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, f->name);
		if (refuse_study(c, path.ptr, &c->err) < 0 ||
		    atomic_open_mode(&af, path.ptr, mode, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		fwrite(f->data.ptr, 1, f->data.len, af.f);
		if (atomic_commit(&af, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		n += strcmp(f->name + strlen(f->name) - 4, ".csv") &&
		     strcmp(f->name, "figures.json");
	}
	printf("%zu figure%s written to %s (figures.json indexes them, with "
	       "their data as CSV)\n", n, n == 1 ? "" : "s", dir);
out:
	figure_files_release(&files);
	buf_release(&path);
	return ret;
}

struct report_opts {
	const char *format, *round, *cross, *output, *by, *effort_by;
	const char *small, *hard, *mode, *figures, *figure_format;
	int pending;
};

static const struct option report_opts[] = {
	OPT_STRING(0, "format", struct report_opts, format,
		   "text|markdown|latex|json", OPT_V_WORDS,
		   "text (default), markdown, latex (a fragment for \\input) "
		   "or json: the same numbers"),
	OPT_STRING(0, "round", struct report_opts, round, "R", OPT_V_ROUND,
		   "only the items of round R"),
	OPT_FLAG(0, "include-pending", struct report_opts, pending,
		 "count items not agreed yet too (undecided dimensions under "
		 "(pending)); by default only agreed or adjudicated items "
		 "count"),
	OPT_STRING(0, "cross", struct report_opts, cross, "DIM1,DIM2",
		   OPT_V_DIMS,
		   "the cross table's dimensions (default: the codebook's "
		   "first two), with row and column shares"),
	OPT_STRING(0, "by", struct report_opts, by, "DIM3", OPT_V_DIM,
		   "one cross table per code of DIM3"),
	OPT_STRING(0, "small", struct report_opts, small, "N", OPT_V_TEXT,
		   "small fixes change at most N lines (10)"),
	OPT_STRING(0, "hard", struct report_opts, hard, "DAYS,COMMENTS",
		   OPT_V_TEXT,
		   "hard bugs: open more than DAYS days with at least COMMENTS "
		   "comments (30,10)"),
	OPT_STRING(0, "effort-by", struct report_opts, effort_by, "DIM",
		   OPT_V_DIM, "effort figures per code of DIM too"),
	OPT_STRING('o', "output", struct report_opts, output, "FILE",
		   OPT_V_FILE,
		   "write the report to FILE, mode 600 (you only) unless "
		   "--mode MODE widens it (the figures' files too, and 700 "
		   "their DIR)"),
	OPT_STRING(0, "mode", struct report_opts, mode, "MODE", OPT_V_TEXT,
		   "the mode of what -o or --figures writes, e.g. 640"),
	OPT_STRING(0, "figures", struct report_opts, figures, "DIR",
		   OPT_V_FILE,
		   "draw the paper's figures into DIR instead (made if "
		   "missing): shares per dimension (and per repository), the "
		   "symptom -> root cause -> fix pattern flow (one per code of "
		   "--by too), the cross table as a heat map, effort "
		   "distributions, agreement per round; figures.json indexes "
		   "them with their data"),
	OPT_STRING(0, "figure-format", struct report_opts, figure_format,
		   "pdf|svg|png", OPT_V_WORDS,
		   "pdf (default), svg or png (300 dpi)"),
	OPT_END()
};

const struct command report_command = {
	"report", cmd_report, "summary of the agreed data",
	"bugcoder report [--format text|markdown|latex|json] "
	"[--round R] [--include-pending] [--cross DIM1,DIM2] [--by DIM3] "
	"[--small N] [--hard DAYS,COMMENTS] [--effort-by DIM] [-o FILE] "
	"[--mode MODE]\n"
	"       bugcoder report --figures DIR [--figure-format pdf|svg|png] "
	"[--round R]\n"
	"                       [--include-pending] [--cross DIM1,DIM2] "
	"[--by DIM3] [--small N] [--mode MODE]",
	report_opts, NULL, NULL,
	"bugcoder report --cross symptom,root_cause --by stage "
	"--format markdown\n"
	"       bugcoder report --figures figs/ --by stage --small 10",
	NULL
};

/* --figures and --figure-format, checked against the rest: `fo` filled.
 * Returns 0, or the exit code of a usage error. */
static int report_check_figures(const struct report_opts *opt,
				struct figures_opts *fo)
{
	const char *usage = opt_usage(&report_command);
	const char *ff = opt->figure_format;

	if (opt->figures && (opt->format || opt->output))
		return cli_usage_error(usage, "--figures draws the figures; "
				       "--format and -o are for the tables");
	if (ff && !opt->figures)
		return cli_usage_error(usage, "--figure-format goes with "
				       "--figures DIR");
	if (opt->figures && !*opt->figures)
		return cli_usage_error(usage, "--figures needs a directory");
	if (!ff || !strcmp(ff, "pdf"))
		fo->format = FIGURE_PDF;
	else if (!strcmp(ff, "svg"))
		fo->format = FIGURE_SVG;
	else if (!strcmp(ff, "png"))
		fo->format = FIGURE_PNG;
	else
		return cli_usage_error(usage, "--figure-format %s: pdf, svg or "
				       "png", ff);
	return 0;
}

/* --small LINES and --hard DAYS,COMMENTS into `o`.  Returns 0, or the
 * exit code of a usage error. */
static int report_check_thresholds(const struct report_opts *opt,
				   struct summary_opts *o)
{
	const char *usage = opt_usage(&report_command);
	const char *small = opt->small, *hard = opt->hard;
	char *end;

	if (small) {
		errno = 0;
		o->small = strtol(small, &end, 10);
		if (errno || end == small || *end || o->small < 0)
			return cli_usage_error(usage, "--small %s: a number of "
					       "lines, 0 or more", small);
	}
	if (hard) {
		errno = 0;
		o->hard_days = strtod(hard, &end);
		if (errno || end == hard || *end != ',' || o->hard_days < 0 ||
		    o->hard_days != o->hard_days)
			return cli_usage_error(usage, "--hard %s: DAYS,COMMENTS, "
					       "for example 30,10", hard);
		small = end + 1;
		o->hard_comments = strtol(small, &end, 10);
		if (errno || end == small || *end || o->hard_comments < 0)
			return cli_usage_error(usage, "--hard %s: DAYS,COMMENTS, "
					       "for example 30,10", hard);
	}
	return 0;
}

/* The report's options, checked: `o` and `fo` filled, --cross split
 * into *cross_copy (the caller frees it).  Returns 0, or the exit code
 * of a usage error. */
static int report_check(const struct report_opts *opt, mode_t *mode,
			struct summary_opts *o, struct figures_opts *fo,
			char **cross_copy)
{
	const char *usage = opt_usage(&report_command);
	const char *format = opt->format, *cross = opt->cross;
	int ret;

	if (cli_mode(opt->mode, mode, usage))
		return 2;
	if (opt->mode && to_stdout(opt->output) && !opt->figures)
		return cli_usage_error(usage, "--mode is for the file -o "
				       "writes, or the --figures files");
	if ((ret = report_check_figures(opt, fo)))
		return ret;
	if (!format || !strcmp(format, "text"))
		o->format = SUMMARY_TEXT;
	else if (!strcmp(format, "markdown") || !strcmp(format, "md"))
		o->format = SUMMARY_MARKDOWN;
	else if (!strcmp(format, "latex") || !strcmp(format, "tex"))
		o->format = SUMMARY_LATEX;
	else if (!strcmp(format, "json"))
		o->format = SUMMARY_JSON;
	else
		return cli_usage_error(usage, "--format %s: text, markdown, "
				       "latex or json", format);
	o->round = opt->round;
	o->by = opt->by;
	o->effort_by = opt->effort_by;
	o->include_pending = opt->pending > 0;
	if ((ret = report_check_thresholds(opt, o)))
		return ret;
	if (cross) {
		char *comma;

		*cross_copy = xstrdup(cross);
		comma = strchr(*cross_copy, ',');
		if (!comma || !comma[1] || comma == *cross_copy ||
		    strchr(comma + 1, ','))
			return cli_usage_error(usage, "--cross %s: two "
					       "dimensions, DIM1,DIM2", cross);
		*comma = '\0';
		o->cross[0] = *cross_copy;
		o->cross[1] = comma + 1;
	}
	o->unicode = to_stdout(opt->output) && utf8_terminal();
	return 0;
}

/* The report's text to standard output, or into `output` written
 * atomically with `mode`.  Returns the exit code. */
static int report_put(struct cli *c, const struct buf *text,
		      const char *output, mode_t mode)
{
	struct atomic_file af = ATOMIC_FILE_INIT;
	int ret = 0;

	if (to_stdout(output)) {
		fwrite(text->ptr, 1, text->len, stdout);
		if (fflush(stdout) != 0) {
			err_set(&c->err, ERR_IO, "writing the report failed");
			return cli_fail(c);
		}
		return 0;
	}
	if (refuse_study(c, output, &c->err) < 0 ||
	    atomic_open_mode(&af, output, mode, &c->err) < 0)
		return cli_fail(c);
	fwrite(text->ptr, 1, text->len, af.f);
	if (atomic_commit(&af, &c->err) < 0)
		ret = cli_fail(c);
	atomic_abort(&af);
	return ret;
}

CMD(report)
{
	struct report_opts opt;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct summary_opts o = SUMMARY_OPTS_INIT;
	struct figures_opts fo = FIGURES_OPTS_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct buf text = BUF_INIT;
	char *cross_copy = NULL;
	mode_t mode;
	int npos, rc, ret;

	memset(&opt, 0, sizeof(opt));
	rc = opt_parse(&report_command, argc, argv, &opt, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	if (npos)
		return cli_usage_error(opt_usage(&report_command),
				       "unexpected argument");
	if ((ret = report_check(&opt, &mode, &o, &fo, &cross_copy)))
		goto out;
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (opt.figures) {
		fo.report = o;
		ret = write_figures(c, &cb, opt.figures, &fo, mode);
	} else if (summary_write(&c->st, &c->actor, &cb, &o, &text,
				 &c->err) < 0) {
		ret = cli_fail(c);
	} else {
		ret = report_put(c, &text, opt.output, mode);
	}
out:
	codebook_release(&cb);
	buf_release(&text);
	free(cross_copy);
	return ret;
}
