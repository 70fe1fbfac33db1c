/* SPDX-License-Identifier: MIT */
/*
 * package: see package.h.
 */
#include "exports/package.h"

#include "core/study/access.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/machine.h"
#include "core/study/records.h"
#include "exports/agree_report.h"
#include "exports/atomic.h"
#include "exports/csv_out.h"
#include "core/study/consensus.h"
#include "exports/audit_out.h"
#include "exports/export.h"
#include "exports/figures.h"
#include "exports/json_out.h"
#include "exports/selection.h"
#include "exports/summary.h"
#include "core/base/sha256.h"
#include "core/base/version.h"


struct file {
	char *path;		/* relative to the package */
	long long rows;		/* data rows of a table; -1 otherwise */
	long long size;
	char sha[SHA256_HEX_LEN + 1];
};

struct pkg {
	char *tmp;		/* the temporary directory, owned */
	int lock_fd;		/* tmp opened and flock()ed while we build */
	struct file *files;
	size_t nr, alloc;
	int has_subdir;		/* made tmp/codebooks */
	mode_t file_mode;	/* of every file; private unless --mode */
	mode_t dir_mode;	/* of tmp and its subdirectories */
	int has_figures;	/* made tmp/figures */
};

static char *join(const char *dir, const char *name)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

/* Refuse a DIR that exists and is not an empty directory. */
static int check_target(const char *dir, struct err *e)
{
	struct stat sb;
	struct dirent *d;
	DIR *dh;

	if (stat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	}
	if (!S_ISDIR(sb.st_mode))
		return err_set(e, ERR_INPUT, "%s exists and is not a "
			       "directory", dir);
	dh = opendir(dir);
	if (!dh)
		return err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	while ((d = readdir(dh)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			closedir(dh);
			return err_set(e, ERR_INPUT, "%s is not empty; the "
				       "package needs a new or empty "
				       "directory", dir);
		}
	closedir(dh);
	return 0;
}

/*
 * Leftovers.  The package is built in "PARENT/.bugcoder-pkg.XXXXXX",
 * which the builder holds an exclusive flock() on (on the directory
 * itself) until it is renamed into place.  A builder killed outright
 * (kill -9, a power cut) leaves the directory behind but not the lock:
 * the kernel drops it with the process.  So every run first sweeps
 * PARENT: a ".bugcoder-pkg." directory of ours that nobody holds locked
 * is a dead build, and is removed; one still locked is another run at
 * work, and is left alone.
 */
#define TMP_PREFIX ".bugcoder-pkg."

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* The directory part of `dir` (".", when it has none), owned. */
static char *parent_of(const char *dir)
{
	size_t len = strlen(dir), i, cut = 0;
	int slash = 0;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (i = 0; i < len; i++)
		if (dir[i] == '/') {
			cut = i;
			slash = 1;
		}
	if (!slash)
		return xstrdup(".");
	return cut ? xstrndup(dir, cut) : xstrdup("/");
}

static void sweep_leftovers(const char *parent)
{
	struct dirent *d;
	DIR *dh = opendir(parent);

	if (!dh)
		return;
	while ((d = readdir(dh))) {
		struct stat sb;
		char *path;
		int fd;

		if (strncmp(d->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    strlen(d->d_name) != strlen(TMP_PREFIX) + 6)
			continue;
		path = join(parent, d->d_name);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode) &&
		    sb.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0)
			nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
		if (fd >= 0)
			close(fd);
		free(path);
	}
	closedir(dh);
}

static int make_tmpdir(struct pkg *p, const char *dir, struct err *e)
{
	char *parent = parent_of(dir);
	sweep_leftovers(parent);
	p->tmp = join(parent, TMP_PREFIX "XXXXXX");
	free(parent);
	if (!mkdtemp(p->tmp)) {
		err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
		free(p->tmp);
		p->tmp = NULL;
		return -1;
	}
	p->lock_fd = open(p->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lock_fd < 0 || flock(p->lock_fd, LOCK_EX) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->tmp, strerror(errno));
		rmdir(p->tmp);
		free(p->tmp);
		p->tmp = NULL;
		return -1;
	}
	/* mkdtemp() made it 0700; wider only when asked */
	if (chmod(p->tmp, p->dir_mode) < 0) {
		err_set(e, ERR_IO, "%s: %s", p->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove what we made in the temporary directory, then it. */
static void remove_tmp(struct pkg *p)
{
	size_t i;

	if (!p->tmp)
		return;
	for (i = 0; i < p->nr; i++) {
		char *f = join(p->tmp, p->files[i].path);

		unlink(f);
		free(f);
	}
	if (p->has_subdir) {
		char *sub = join(p->tmp, "codebooks");

		rmdir(sub);
		free(sub);
	}
	if (p->has_figures) {
		char *sub = join(p->tmp, "figures");

		rmdir(sub);
		free(sub);
	}
	rmdir(p->tmp);
}

static void pkg_release(struct pkg *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->files[i].path);
	free(p->files);
	free(p->tmp);
	if (p->lock_fd >= 0)
		close(p->lock_fd);
}

/* Open tmp/name for writing and register it (so it is cleaned up). */
static FILE *open_file(struct pkg *p, const char *name, struct err *e)
{
	char *path = join(p->tmp, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		      O_NOFOLLOW, 0600);
	FILE *f = NULL;
	struct file *fl;

	/* the mode asked for, whatever the umask */
	if (fd < 0 || fchmod(fd, p->file_mode) < 0 ||
	    !(f = fdopen(fd, "w"))) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	free(path);
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ALLOC_GROW(p->files, p->nr + 1, p->alloc);
	fl = &p->files[p->nr++];
	memset(fl, 0, sizeof(*fl));
	fl->path = xstrdup(name);
	fl->rows = -1;
	return f;
}

/* Flush, sync and close the last registered file; hash it. */
static int close_file(struct pkg *p, FILE *f, int ok, struct err *e)
{
	struct file *fl = &p->files[p->nr - 1];
	char *path = join(p->tmp, fl->path);
	int bad;

	errno = 0;
	bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0;
	bad |= fclose(f) != 0;
	if (ok && bad)
		err_set(e, ERR_IO, "writing %s: %s", path, errno ?
			strerror(errno) : "write error");
	if (ok && !bad && sha256_file(path, fl->sha, &fl->size, e) < 0)
		bad = 1;
	free(path);
	return ok && !bad ? 0 : -1;
}

static int write_text(struct pkg *p, const char *name, const char *text,
		      size_t len, struct err *e)
{
	FILE *f = open_file(p, name, e);
	int ok;

	if (!f)
		return -1;
	ok = fwrite(text, 1, len, f) == len;
	if (close_file(p, f, 1, e) < 0)
		return -1;
	if (!ok)
		return err_set(e, ERR_IO, "writing %s failed", name);
	return 0;
}

typedef int (*table_fn)(struct store *, const struct actor *,
			struct export_opts *, FILE *, struct err *);

static int write_table(struct pkg *p, const char *name, struct store *st,
		       const struct actor *a, const struct codebook *cb,
		       table_fn fn, struct package_opts *po, struct err *e)
{
	struct export_opts o = EXPORT_OPTS_INIT;
	FILE *f = open_file(p, name, e);
	int rc;

	if (!f)
		return -1;
	o.flags = po->flags;
	o.round = po->round;
	o.stop = po->stop;
	rc = fn ? fn(st, a, &o, f, e) : export_agreed(st, a, cb, &o, f, e);
	if (close_file(p, f, rc == 0, e) < 0)
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
	if (write_text(c->p, c->name.ptr, r->json, r->len, e) < 0)
		return -1;
	if (r->current &&
	    write_text(c->p, "codebook.json", r->json, r->len, e) < 0)
		return -1;
	return 0;
}

static int write_codebooks(struct pkg *p, struct store *st, struct err *e)
{
	struct codebooks_out c = { p, BUF_INIT, 0 };
	char *sub;
	int ret;

	sub = join(p->tmp, "codebooks");
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
	    write_text(p, "agreement.txt", b.ptr, b.len, e) < 0)
		goto out;
	buf_reset(&b);
	if (report_agreement(st, a, cb, round, NULL, REPORT_JSON, NULL, &b,
			     e) < 0 ||
	    write_text(p, "agreement.json", b.ptr, b.len, e) < 0)
		goto out;
	if (!round) {
		buf_reset(&b);
		if (report_agreement_by_round(st, a, cb, NULL, REPORT_TEXT,
					      NULL, &b, e) < 0 ||
		    write_text(p, "agreement-by-round.txt", b.ptr, b.len,
			       e) < 0)
			goto out;
		buf_reset(&b);
		if (report_agreement_by_round(st, a, cb, NULL, REPORT_JSON,
					      NULL, &b, e) < 0 ||
		    write_text(p, "agreement-by-round.json", b.ptr, b.len,
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
	FILE *f = open_file(p, "codes.csv", e);
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
	if (close_file(p, f, rc == 0, e) < 0)
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
	FILE *f = open_file(p, "round-items.csv", e);
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
		close_file(p, f, 0, e);
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
	if (close_file(p, f, rc == 0 && !bad, e) < 0 || rc < 0)
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
	ret = write_text(p, "analysis.R", b.ptr, b.len, e);
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
	    write_text(p, "report.md", b.ptr, b.len, e) < 0)
		goto out;
	buf_reset(&b);
	o.format = SUMMARY_JSON;
	if (summary_write(st, a, cb, &o, &b, e) < 0 ||
	    write_text(p, "report.json", b.ptr, b.len, e) < 0 ||
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
	sub = join(p->tmp, "figures");
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
		if (write_text(p, name.ptr, files.v[i].data.ptr,
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
	ret = write_text(p, "README.txt", b.ptr, b.len, e);
	buf_release(&b);
	free(redraw);
	return ret;
}

static int write_manifest_json(struct pkg *p, struct store *st,
			       const struct actor *a,
			       const struct codebook *cb, const char *now,
			       const struct package_opts *o, struct err *e)
{
	struct buf b = BUF_INIT;
	char *title = store_meta_get(st, "title");
	char head[SHA256_HEX_LEN + 1];
	long long head_id;
	size_t i;
	int ret;

	buf_addstr(&b, "{\n  \"generator\": ");
	json_quote(&b, bugcoder_version_line(),
		   strlen(bugcoder_version_line()));
	buf_addstr(&b, ",\n  \"bugcoder_version\": ");
	json_quote(&b, bugcoder_version(), strlen(bugcoder_version()));
	buf_addstr(&b, ",\n  \"bugcoder_commit\": ");
	json_quote(&b, bugcoder_commit(), strlen(bugcoder_commit()));
	buf_addstr(&b, ",\n  \"created_at\": ");
	json_quote(&b, now, strlen(now));
	buf_addstr(&b, ",\n  \"created_by\": ");
	json_quote(&b, a->name, strlen(a->name));
	buf_addstr(&b, ",\n  \"study_title\": ");
	if (title && *title)
		json_quote(&b, title, strlen(title));
	else
		buf_addstr(&b, "null");
	buf_addstr(&b, ",\n  \"codebook\": {\"name\": ");
	json_quote(&b, cb->name, strlen(cb->name));
	buf_addstr(&b, ", \"version\": ");
	json_quote(&b, cb->version, strlen(cb->version));
	buf_addstr(&b, "},\n  \"round\": ");
	if (o->round)
		json_quote(&b, o->round, strlen(o->round));
	else
		buf_addstr(&b, "null");
	/* the log's head as the package was made: `audit verify --head`
	 * checks that the study's log still begins with this one */
	if (audit_last(st, &head_id, head, e) < 0) {
		buf_release(&b);
		free(title);
		return -1;
	}
	buf_addstr(&b, ",\n  \"audit_head\": ");
	if (head_id)
		buf_addf(&b, "{\"row\": %lld, \"sha256\": \"%s\"}", head_id,
			 head);
	else
		buf_addstr(&b, "null");
	buf_addf(&b, ",\n  \"include_pending\": %s,\n  \"formula_guard\": "
		 "%s,\n  \"files\": [",
		 (o->flags & EXPORT_PENDING) ? "true" : "false",
		 (o->flags & EXPORT_NO_GUARD) ? "false" : "true");
	for (i = 0; i < p->nr; i++) {
		const struct file *f = &p->files[i];

		buf_addstr(&b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
		json_quote(&b, f->path, strlen(f->path));
		buf_addf(&b, ", \"bytes\": %lld, ", f->size);
		if (f->rows >= 0)
			buf_addf(&b, "\"rows\": %lld, ", f->rows);
		buf_addf(&b, "\"sha256\": \"%s\"}", f->sha);
	}
	buf_addstr(&b, "\n  ]\n}\n");
	ret = write_text(p, "manifest.json", b.ptr, b.len, e);
	buf_release(&b);
	free(title);
	return ret;
}

static int cmp_file(const void *x, const void *y)
{
	return strcmp(((const struct file *)x)->path,
		      ((const struct file *)y)->path);
}

static int write_manifest(struct pkg *p, struct err *e)
{
	struct buf b = BUF_INIT;
	struct file *sorted;
	size_t i, n = p->nr;
	int ret;

	sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, p->files, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_file);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s  %s\n", sorted[i].sha, sorted[i].path);
	free(sorted);
	ret = write_text(p, "MANIFEST", b.ptr, b.len, e);
	buf_release(&b);
	return ret;
}

static int interrupted(const struct package_opts *o, struct err *e)
{
	if (o->stop && *o->stop)
		return err_set(e, ERR_INTERRUPTED, "package interrupted; "
			       "nothing written");
	return 0;
}

int package_write(struct store *st, const struct actor *a,
		  const struct codebook *cb, const char *dir,
		  struct package_opts *o, struct err *e)
{
	struct pkg p;
	char now[32];
	int ret = -1, in_savepoint = 0;

	memset(&p, 0, sizeof(p));
	p.lock_fd = -1;
	p.file_mode = (o->mode ? o->mode : OUTPUT_MODE) & 0666;
	p.dir_mode = output_dir_mode(p.file_mode);
	o->nr_files = 0;
	if (!access_sees_all(a))
		return err_set(e, ERR_PERM, "only the owner and adjudicators "
			       "make a replication package");
	if (!*dir)
		return err_set(e, ERR_INPUT, "--package needs a directory");
	if (check_target(dir, e) < 0)
		return -1;
	/* the full check first: no package is made from a damaged study */
	if (store_verify(st, 0, e) < 0)
		return err_prefix(e, "%s: no package written", dir);
	if (make_tmpdir(&p, dir, e) < 0)
		return -1;
	/* one snapshot for every file, though annotators keep working */
	if (store_read_begin(st, e) < 0)
		goto out;
	in_savepoint = 1;
	store_now(now);
	if (write_table(&p, "agreed-labels.csv", st, a, cb, NULL, o, e) < 0 ||
	    interrupted(o, e) < 0 ||
	    write_table(&p, "raw-labels.csv", st, a, cb, export_raw, o,
			e) < 0 ||
	    interrupted(o, e) < 0 ||
	    write_table(&p, "resolutions.csv", st, a, cb, export_resolutions,
			o, e) < 0 ||
	    write_table(&p, "rounds.csv", st, a, cb, export_rounds, o,
			e) < 0 ||
	    write_table(&p, "selection.csv", st, a, cb, export_selection, o,
			e) < 0 ||
	    write_table(&p, "screening.csv", st, a, cb, export_screening, o,
			e) < 0 ||
	    write_table(&p, "audit.csv", st, a, cb, export_audit, o,
			e) < 0 ||
	    write_table(&p, "memos.csv", st, a, cb, export_memos, o,
			e) < 0 ||
	    write_table(&p, "machine-answers.jsonl", st, a, cb,
			export_machine_answers, o, e) < 0 ||
	    write_codebooks(&p, st, e) < 0 ||
	    write_agreement(&p, st, a, cb, o->round, e) < 0 ||
	    write_report(&p, st, a, cb, o, e) < 0 ||
	    write_figures(&p, st, a, cb, o, e) < 0 ||
	    write_codes(&p, cb, o->flags, e) < 0 ||
	    write_round_items(&p, st, a, cb, o->round, e) < 0 ||
	    write_readme(&p, now, cb, o, e) < 0 ||
	    write_manifest_json(&p, st, a, cb, now, o, e) < 0 ||
	    write_manifest(&p, e) < 0 ||
	    interrupted(o, e) < 0)
		goto out;
	if (p.has_subdir) {
		char *sub = join(p.tmp, "codebooks");
		int rc = atomic_sync_dir(sub, e);

		free(sub);
		if (rc < 0)
			goto out;
	}
	if (p.has_figures) {
		char *sub = join(p.tmp, "figures");
		int rc = atomic_sync_dir(sub, e);

		free(sub);
		if (rc < 0)
			goto out;
	}
	if (atomic_sync_dir(p.tmp, e) < 0)
		goto out;
	if (rename(p.tmp, dir) < 0) {
		err_set(e, ERR_IO, "%s: %s", dir, errno == ENOTEMPTY ||
			errno == EEXIST ? "is not empty; the package needs a "
			"new or empty directory" : strerror(errno));
		goto out;
	}
	free(p.tmp);
	p.tmp = NULL;
	if (atomic_sync_parent(dir, e) < 0)
		goto out;
	o->nr_files = (int)p.nr;
	ret = 0;
out:
	if (in_savepoint)
		store_read_end(st);
	if (ret < 0)
		remove_tmp(&p);
	pkg_release(&p);
	return ret;
}
