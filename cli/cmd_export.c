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

CMD(export)
{
	const char *usage = opt_usage(&export_command);
	struct export_cmd_opts opt;
	const char *format, *package, *round, *output, *mode_arg;
	mode_t mode;
	int raw, resolutions, rounds, pending, noguard, memos, audit;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct export_opts o = EXPORT_OPTS_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct codebook cb = CODEBOOK_INIT;
	enum what what = WHAT_AGREED;
	FILE *out = stdout;
	char *shown = NULL;	/* the export, when shown on a terminal */
	size_t shown_len = 0;
	int npos, rc, ret = 0, tty = 0;

	memset(&opt, 0, sizeof(opt));
	rc = opt_parse(&export_command, argc, argv, &opt, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	format = opt.format;
	package = opt.package;
	round = opt.round;
	output = opt.output;
	mode_arg = opt.mode;
	raw = opt.raw;
	resolutions = opt.resolutions;
	rounds = opt.rounds;
	pending = opt.pending;
	noguard = opt.noguard;
	memos = opt.memos;
	audit = opt.audit;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (cli_mode(mode_arg, &mode, usage))
		return 2;
	if (mode_arg && !package && to_stdout(output))
		return cli_usage_error(usage, "--mode is for the file -o or "
				       "the --package directory writes");
	if (!!raw + !!resolutions + !!rounds + !!memos + !!audit +
	    !!package > 1)
		return cli_usage_error(usage, "--raw, --resolutions, --rounds, "
				       "--memos, --audit and --package exclude "
				       "each other");
	if (format && strcmp(format, "csv") && strcmp(format, "jsonl"))
		return cli_usage_error(usage, "--format %s: csv or jsonl",
				       format);
	if (package && (output || (format && strcmp(format, "csv"))))
		return cli_usage_error(usage, "--package writes CSV files into "
				       "DIR; -o and --format do not apply");
	if (pending && (raw || resolutions || rounds || memos || audit))
		return cli_usage_error(usage, "--include-pending is for the "
				       "agreed labels");
	if (raw)
		what = WHAT_RAW;
	else if (resolutions)
		what = WHAT_RESOLUTIONS;
	else if (rounds)
		what = WHAT_ROUNDS;
	else if (memos)
		what = WHAT_MEMOS;
	else if (audit)
		what = WHAT_AUDIT;
	o.format = format && !strcmp(format, "jsonl") ? EXPORT_JSONL :
		   EXPORT_CSV;
	o.flags = (pending ? EXPORT_PENDING : 0) |
		  (noguard ? EXPORT_NO_GUARD : 0);
	o.round = round;
	o.stop = &stop_requested;

	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	catch_signals();
	if (package) {
		struct package_opts po = PACKAGE_OPTS_INIT;

		po.flags = o.flags;
		po.round = round;
		po.mode = mode;
		po.stop = &stop_requested;
		if (package_write(&c->st, &c->actor, &cb, package, &po,
				  &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		printf("%s: replication package of %d files; check it with "
		       "`cd %s && sha256sum -c MANIFEST`\n", package,
		       po.nr_files, package);
		goto out;
	}
	if (to_stdout(output) && isatty(STDOUT_FILENO)) {
		/* text is exported as stored, but a terminal gets no escape
		 * sequence from an issue title: collect, then show it safe */
		out = open_memstream(&shown, &shown_len);
		tty = out != NULL;
		if (!out) {
			err_set(&c->err, ERR_IO, "cannot buffer the export");
			ret = cli_fail(c);
			goto out;
		}
	} else if (to_stdout(output)) {
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	} else {
		if (refuse_study(c, output, &c->err) < 0 ||
		    atomic_open_mode(&af, output, mode, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		out = af.f;
	}
	rc = run_export(c, what, &cb, &o, out);
	if (tty) {
		fclose(out);
		tty = 0;
		if (rc == 0 && shown)
			cli_print_safe(stdout, shown);
	}
	if (rc < 0) {
		if (!to_stdout(output)) {
			atomic_abort(&af);
			err_prefix(&c->err, "%s not written", output);
		}
		ret = cli_fail(c);
		goto out;
	}
	if (!to_stdout(output)) {
		if (atomic_commit(&af, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		printf("%s: %zu row%s\n", output, o.rows,
		       o.rows == 1 ? "" : "s");
	}
out:
	if (tty)
		fclose(out);
	free(shown);
	atomic_abort(&af);
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

CMD(report)
{
	const char *usage = opt_usage(&report_command);
	struct report_opts opt;
	const char *format, *round, *cross, *output, *by, *effort_by;
	const char *small, *hard, *mode_arg, *figures, *figure_format;
	mode_t mode;
	int pending;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct summary_opts o = SUMMARY_OPTS_INIT;
	struct figures_opts fo = FIGURES_OPTS_INIT;
	struct atomic_file af = ATOMIC_FILE_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct buf text = BUF_INIT;
	char *cross_copy = NULL, *end;
	int npos, rc, ret = 0;

	memset(&opt, 0, sizeof(opt));
	rc = opt_parse(&report_command, argc, argv, &opt, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	format = opt.format;
	round = opt.round;
	cross = opt.cross;
	output = opt.output;
	by = opt.by;
	effort_by = opt.effort_by;
	small = opt.small;
	hard = opt.hard;
	mode_arg = opt.mode;
	figures = opt.figures;
	figure_format = opt.figure_format;
	pending = opt.pending;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (cli_mode(mode_arg, &mode, usage))
		return 2;
	if (mode_arg && to_stdout(output) && !figures)
		return cli_usage_error(usage, "--mode is for the file -o "
				       "writes, or the --figures files");
	if (figures && (format || output))
		return cli_usage_error(usage, "--figures draws the figures; "
				       "--format and -o are for the tables");
	if (figure_format && !figures)
		return cli_usage_error(usage, "--figure-format goes with "
				       "--figures DIR");
	if (figures && !*figures)
		return cli_usage_error(usage, "--figures needs a directory");
	if (!figure_format || !strcmp(figure_format, "pdf"))
		fo.format = FIGURE_PDF;
	else if (!strcmp(figure_format, "svg"))
		fo.format = FIGURE_SVG;
	else if (!strcmp(figure_format, "png"))
		fo.format = FIGURE_PNG;
	else
		return cli_usage_error(usage, "--figure-format %s: pdf, svg or "
				       "png", figure_format);
	if (!format || !strcmp(format, "text"))
		o.format = SUMMARY_TEXT;
	else if (!strcmp(format, "markdown") || !strcmp(format, "md"))
		o.format = SUMMARY_MARKDOWN;
	else if (!strcmp(format, "latex") || !strcmp(format, "tex"))
		o.format = SUMMARY_LATEX;
	else if (!strcmp(format, "json"))
		o.format = SUMMARY_JSON;
	else
		return cli_usage_error(usage, "--format %s: text, markdown, "
				       "latex or json", format);
	o.round = round;
	o.by = by;
	o.effort_by = effort_by;
	o.include_pending = pending > 0;
	if (small) {
		errno = 0;
		o.small = strtol(small, &end, 10);
		if (errno || end == small || *end || o.small < 0)
			return cli_usage_error(usage, "--small %s: a number of "
					       "lines, 0 or more", small);
	}
	if (hard) {
		errno = 0;
		o.hard_days = strtod(hard, &end);
		if (errno || end == hard || *end != ',' || o.hard_days < 0 ||
		    o.hard_days != o.hard_days)
			return cli_usage_error(usage, "--hard %s: DAYS,COMMENTS, "
					       "for example 30,10", hard);
		small = end + 1;
		o.hard_comments = strtol(small, &end, 10);
		if (errno || end == small || *end || o.hard_comments < 0)
			return cli_usage_error(usage, "--hard %s: DAYS,COMMENTS, "
					       "for example 30,10", hard);
	}
	if (cross) {
		char *comma;

		cross_copy = xstrdup(cross);
		comma = strchr(cross_copy, ',');
		if (!comma || !comma[1] || comma == cross_copy ||
		    strchr(comma + 1, ',')) {
			free(cross_copy);
			return cli_usage_error(usage, "--cross %s: two "
					       "dimensions, DIM1,DIM2", cross);
		}
		*comma = '\0';
		o.cross[0] = cross_copy;
		o.cross[1] = comma + 1;
	}
	o.unicode = to_stdout(output) && utf8_terminal();
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (figures) {
		fo.report = o;
		ret = write_figures(c, &cb, figures, &fo, mode);
		goto out;
	}
	if (summary_write(&c->st, &c->actor, &cb, &o, &text, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (to_stdout(output)) {
		fwrite(text.ptr, 1, text.len, stdout);
		if (fflush(stdout) != 0) {
			err_set(&c->err, ERR_IO, "writing the report failed");
			ret = cli_fail(c);
		}
		goto out;
	}
	if (refuse_study(c, output, &c->err) < 0 ||
	    atomic_open_mode(&af, output, mode, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	fwrite(text.ptr, 1, text.len, af.f);
	if (atomic_commit(&af, &c->err) < 0)
		ret = cli_fail(c);
out:
	atomic_abort(&af);
	codebook_release(&cb);
	buf_release(&text);
	free(cross_copy);
	return ret;
}
