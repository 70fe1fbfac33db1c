/* SPDX-License-Identifier: MIT */
/*
 * diff: see diff.h.
 *
 * One pass, one line at a time, through a small state machine:
 *
 *   OUTSIDE  before the first file: everything is DIFF_OTHER, except a
 *            "diff " line, a "---"/"+++" pair or a hunk header, which
 *            start a file (the last one without a header: a bare patch);
 *   HEADER   after a file's first line and before its first hunk: its
 *            extended header lines are DIFF_META, and give the paths,
 *            rename, new/deleted and binary facts;
 *   HUNK     inside a hunk: the counts of the "@@ -a,b +c,d @@" header say
 *            how many old and new lines are still due, so a line "---x"
 *            there is a deletion while old lines remain and a header once
 *            they are used up; a line that cannot belong to the hunk ends
 *            it early (a truncated or hand-edited patch);
 *   BODY     after a hunk: a new hunk, a new file, "\ No newline" or
 *            DIFF_OTHER (such as the "-- " signature of git format-patch).
 *
 * Paths: git's "a/" and "b/" prefixes are removed; C-quoted names
 * ("\"a/t\\303\\251st\"") are unquoted; "rename from/to", "copy from/to"
 * and the "---"/"+++" lines override what the "diff --git" line suggests,
 * which is ambiguous when names hold spaces.
 *
 * Limitations: combined diffs ("diff --cc", "@@@" hunks) are kept but their
 * hunks are not understood (DIFF_META/DIFF_OTHER lines); the base85 data of
 * a "GIT binary patch" is DIFF_META.
 */
#include "core/base/diff.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"

enum parse_state {
	P_OUTSIDE,
	P_HEADER,
	P_HUNK,
	P_BODY,
};

struct parser {
	struct diff *d;		/* NULL when only counting */
	enum parse_state state;
	unsigned long old_left;	/* old lines still due in this hunk */
	unsigned long new_left;	/* new lines still due in this hunk */
	int git;		/* this file began with "diff --git" */
	int seen_old;		/* this file has had its "--- " line */
	int files, additions, deletions;
	int ends_known;		/* a header told how the diff's lines end */
};

/* The first file or hunk header tells how the diff's own lines end. */
static void note_ends(struct parser *p, int kind, int cr)
{
	if (p->ends_known || (kind != DIFF_FILE && kind != DIFF_META &&
			      kind != DIFF_HUNK))
		return;
	p->ends_known = 1;
	if (p->d)
		p->d->crlf = cr;
}

#define STARTS(s, n, lit) \
	((n) >= sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

static struct diff_file *cur_file(struct parser *p)
{
	if (!p->d || !p->d->nr_files)
		return NULL;
	return &p->d->files[p->d->nr_files - 1];
}

static void end_file(struct diff *d, size_t upto)
{
	struct diff_file *f;

	if (!d->nr_files)
		return;
	f = &d->files[d->nr_files - 1];
	f->nr_lines = upto - f->first_line;
}

static void start_file(struct parser *p, size_t line, int git)
{
	struct diff *d = p->d;

	p->files++;
	p->git = git;
	p->seen_old = 0;
	p->state = P_HEADER;
	if (!d)
		return;
	end_file(d, line);
	ALLOC_GROW(d->files, d->nr_files + 1, d->alloc_files);
	memset(&d->files[d->nr_files], 0, sizeof(*d->files));
	d->files[d->nr_files].first_line = line;
	d->nr_files++;
}

static void set_path(char **dst, char *src)
{
	free(*dst);
	*dst = src;
}

/*
 * Read one path from s[0..n): a C-quoted string as git writes names with
 * unusual bytes, or else the text up to the first TAB (classic diffs put a
 * timestamp there).  Stores the end of what was read in *end.  Returns an
 * owned string.
 */
static char *read_path(const char *s, size_t n, size_t *end)
{
	static const char esc_from[] = "abfnrtv\"\\";
	static const char esc_to[] = "\a\b\f\n\r\t\v\"\\";
	struct buf b = BUF_INIT;
	const char *e;
	size_t i;

	if (!n || s[0] != '"') {
		const char *tab = memchr(s, '\t', n);

		i = tab ? (size_t)(tab - s) : n;
		if (end)
			*end = i;
		return xstrndup(s, i);
	}
	for (i = 1; i < n && s[i] != '"'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c != '\\' || i + 1 >= n) {
			buf_addch(&b, c);
			continue;
		}
		c = (unsigned char)s[++i];
		if (c >= '0' && c <= '7') {
			unsigned v = 0, k = 0;

			while (k++ < 3 && i < n && s[i] >= '0' && s[i] <= '7')
				v = v * 8 + (unsigned)(s[i++] - '0');
			i--;
			buf_addch(&b, (int)(v & 0xff));
		} else if (c && (e = strchr(esc_from, c))) {
			buf_addch(&b, esc_to[e - esc_from]);
		} else {
			buf_addch(&b, c);
		}
	}
	if (end)
		*end = i < n ? i + 1 : n;
	return buf_detach(&b, NULL);
}

/* Drop git's "a/" or "b/" from an owned path, in place. */
static char *strip_prefix(char *path, char which)
{
	if (path[0] == which && path[1] == '/')
		memmove(path, path + 2, strlen(path + 2) + 1);
	return path;
}

/*
 * "diff --git a/x b/y": the only unambiguous reading of unquoted names with
 * spaces is the one where both halves name the same file, so try that
 * first, then fall back to splitting at " b/".  Later header lines correct
 * renames.
 */
static void parse_git_line(struct diff_file *f, const char *s, size_t n)
{
	size_t end, k;
	const char *b;

	if (n && s[0] == '"') {
		f->old_path = strip_prefix(read_path(s, n, &end), 'a');
		if (end < n && s[end] == ' ')
			end++;
		f->new_path = strip_prefix(read_path(s + end, n - end, NULL),
					   'b');
		return;
	}
	if (n % 2 == 1) {
		k = n / 2;
		if (s[k] == ' ' && STARTS(s, n, "a/") &&
		    STARTS(s + k + 1, n - k - 1, "b/") &&
		    !memcmp(s + 2, s + k + 3, k - 2)) {
			f->old_path = xstrndup(s + 2, k - 2);
			f->new_path = xstrndup(s + 2, k - 2);
			return;
		}
	}
	b = NULL;
	for (k = 0; k + 3 <= n; k++) {
		if (s[k] == ' ' && (s[k + 1] == 'b' || s[k + 1] == '"') &&
		    (s[k + 1] == '"' || s[k + 2] == '/')) {
			b = s + k;
			break;
		}
	}
	if (!b) {
		const char *sp = memchr(s, ' ', n);

		f->old_path = strip_prefix(xstrndup(s, sp ? (size_t)(sp - s)
						    : n), 'a');
		f->new_path = xstrdup(f->old_path);
		return;
	}
	f->old_path = strip_prefix(xstrndup(s, (size_t)(b - s)), 'a');
	f->new_path = strip_prefix(read_path(b + 1, n - (size_t)(b + 1 - s),
					     NULL), 'b');
}

/* Parse a decimal number at s[*i], saturating; returns -1 if none. */
static int parse_num(const char *s, size_t n, size_t *i, unsigned long *v)
{
	size_t start = *i;

	*v = 0;
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		if (*v < ULONG_MAX / 10)
			*v = *v * 10 + (unsigned long)(s[*i] - '0');
		(*i)++;
	}
	return *i > start ? 0 : -1;
}

/* One "-a[,b]" or "+c[,d]" range of a hunk header; b defaults to 1. */
static int parse_range(const char *s, size_t n, size_t *i, char sign,
		       unsigned long *count)
{
	unsigned long start;

	if (*i >= n || s[*i] != sign)
		return -1;
	(*i)++;
	if (parse_num(s, n, i, &start) < 0)
		return -1;
	*count = 1;
	if (*i < n && s[*i] == ',') {
		(*i)++;
		if (parse_num(s, n, i, count) < 0)
			return -1;
	}
	return 0;
}

/* "@@ -a,b +c,d @@ context": store the line counts; -1 if malformed. */
static int parse_hunk_header(const char *s, size_t n, unsigned long *old_nr,
			     unsigned long *new_nr)
{
	size_t i = 3;

	if (parse_range(s, n, &i, '-', old_nr) < 0)
		return -1;
	if (i >= n || s[i++] != ' ')
		return -1;
	if (parse_range(s, n, &i, '+', new_nr) < 0)
		return -1;
	if (!STARTS(s + i, n - i, " @@"))
		return -1;
	return 0;
}

static int count_add(struct parser *p)
{
	struct diff_file *f = cur_file(p);

	p->additions++;
	if (f)
		f->additions++;
	return DIFF_ADD;
}

static int count_del(struct parser *p)
{
	struct diff_file *f = cur_file(p);

	p->deletions++;
	if (f)
		f->deletions++;
	return DIFF_DEL;
}

/* A line inside a hunk: its kind, or -1 if it cannot belong to it. */
static int hunk_line(struct parser *p, const char *s, size_t n)
{
	int kind;

	/* an empty line is a context line whose blank was stripped */
	switch (n ? s[0] : ' ') {
	case ' ':
		if (!p->old_left || !p->new_left)
			return -1;
		p->old_left--;
		p->new_left--;
		kind = DIFF_CONTEXT;
		break;
	case '-':
		if (!p->old_left)
			return -1;
		p->old_left--;
		kind = count_del(p);
		break;
	case '+':
		if (!p->new_left)
			return -1;
		p->new_left--;
		kind = count_add(p);
		break;
	case '\\':
		return DIFF_NOEOL;
	default:
		return -1;
	}
	if (!p->old_left && !p->new_left)
		p->state = P_BODY;
	return kind;
}

/* An extended header line of the current file. */
static void header_line(struct parser *p, const char *s, size_t n)
{
	struct diff_file *f = cur_file(p);

	if (!f)
		return;
	if (STARTS(s, n, "Binary files ") || STARTS(s, n, "GIT binary patch")) {
		static const char gone[] = " /dev/null differ";
		size_t k = sizeof(gone) - 1;

		f->binary = 1;
		if (STARTS(s, n, "Binary files /dev/null "))
			set_path(&f->old_path, xstrdup("/dev/null"));
		if (n >= k && !memcmp(s + n - k, gone, k))
			set_path(&f->new_path, xstrdup("/dev/null"));
		return;
	}
	if (STARTS(s, n, "+++ ")) {
		char *path = read_path(s + 4, n - 4, NULL);

		set_path(&f->new_path, p->git ? strip_prefix(path, 'b') : path);
	} else if (STARTS(s, n, "rename from ")) {
		set_path(&f->old_path, read_path(s + 12, n - 12, NULL));
	} else if (STARTS(s, n, "rename to ")) {
		set_path(&f->new_path, read_path(s + 10, n - 10, NULL));
	} else if (STARTS(s, n, "copy from ")) {
		set_path(&f->old_path, read_path(s + 10, n - 10, NULL));
	} else if (STARTS(s, n, "copy to ")) {
		set_path(&f->new_path, read_path(s + 8, n - 8, NULL));
	} else if (STARTS(s, n, "new file mode ")) {
		set_path(&f->old_path, xstrdup("/dev/null"));
	} else if (STARTS(s, n, "deleted file mode ")) {
		set_path(&f->new_path, xstrdup("/dev/null"));
	}
}

/*
 * Classify line `idx`, s[0..n), updating the state.  `next` (next_n bytes
 * to the end of the text) is the following line, looked at to tell a
 * "---"/"+++" file header from other text.
 */
static int classify(struct parser *p, size_t idx, const char *s, size_t n,
		    const char *next, size_t next_n)
{
	unsigned long old_nr, new_nr;
	struct diff_file *f;

	if (p->state == P_HUNK) {
		int kind = hunk_line(p, s, n);

		if (kind >= 0)
			return kind;
		p->state = P_BODY;
	}
	if (STARTS(s, n, "diff ")) {
		int git = STARTS(s, n, "diff --git ");

		start_file(p, idx, git);
		f = cur_file(p);
		if (f && git)
			parse_git_line(f, s + 11, n - 11);
		return DIFF_FILE;
	}
	if (STARTS(s, n, "@@ -") &&
	    !parse_hunk_header(s, n, &old_nr, &new_nr)) {
		if (p->state == P_OUTSIDE)
			start_file(p, idx, 0);
		if (p->d) {
			struct diff *d = p->d;

			ALLOC_GROW(d->hunks, d->nr_hunks + 1, d->alloc_hunks);
			d->hunks[d->nr_hunks++] = idx;
		}
		p->old_left = old_nr;
		p->new_left = new_nr;
		p->state = old_nr || new_nr ? P_HUNK : P_BODY;
		return DIFF_HUNK;
	}
	if (STARTS(s, n, "--- ")) {
		if (p->state != P_HEADER || p->seen_old) {
			if (!STARTS(next, next_n, "+++ "))
				goto other;
			start_file(p, idx, 0);
		}
		p->seen_old = 1;
		f = cur_file(p);
		if (f) {
			char *path = read_path(s + 4, n - 4, NULL);

			if (p->git)
				strip_prefix(path, 'a');
			set_path(&f->old_path, path);
		}
		return DIFF_META;
	}
	if (p->state == P_HEADER) {
		header_line(p, s, n);
		return DIFF_META;
	}
	if (p->state == P_BODY && n && s[0] == '\\')
		return DIFF_NOEOL;
other:
	return DIFF_OTHER;
}

/*
 * Drive the parser over the text.  With p->d set, every line is stored;
 * without it, only the counts are kept.
 */
/* Flags beside the kind in diff->kind[]. */
#define DIFF_KIND_MASK 0x0f
#define DIFF_KIND_CR 0x10	/* the line ended in "\r" (not counted in len) */
#define DIFF_KIND_NL 0x20	/* a newline followed the line */
#define DIFF_STRIDE_LONG 0xffffu

/* Room for `nr` lines in the index. */
static void index_grow(struct diff *d, size_t nr)
{
	size_t blocks;

	if (nr <= d->alloc_lines)
		return;
	if (nr < d->alloc_lines * 3 / 2)
		nr = d->alloc_lines * 3 / 2;
	if (nr < 64)
		nr = 64;
	blocks = nr / DIFF_BLOCK + 1;
	d->stride = xrealloc(d->stride, nr * sizeof(*d->stride));
	d->kind = xrealloc(d->kind, nr);
	d->block_off = xrealloc(d->block_off, blocks * sizeof(*d->block_off));
	d->alloc_lines = nr;
}

/* Append the line at `off`: `raw` bytes before its newline (`nl` says
 * whether there is one), the last of them a CR when `cr`. */
static void add_line(struct diff *d, size_t off, size_t raw, int nl, int cr,
		     int kind)
{
	size_t i = d->nr_lines, stride = raw + (nl ? 1 : 0);

	index_grow(d, i + 1);
	if (i % DIFF_BLOCK == 0)
		d->block_off[i / DIFF_BLOCK] = (uint32_t)off;
	if (stride >= DIFF_STRIDE_LONG) {
		ALLOC_GROW(d->longs, d->nr_longs + 1, d->alloc_longs);
		d->longs[d->nr_longs].line = i;
		d->longs[d->nr_longs++].stride = (uint32_t)stride;
		d->stride[i] = DIFF_STRIDE_LONG;
	} else {
		d->stride[i] = (uint16_t)stride;
	}
	d->kind[i] = (uint8_t)(kind | (cr ? DIFF_KIND_CR : 0) |
			       (nl ? DIFF_KIND_NL : 0));
	d->nr_lines++;
}

static size_t stride_of(const struct diff *d, size_t i)
{
	size_t lo = 0, hi = d->nr_longs;

	if (d->stride[i] != DIFF_STRIDE_LONG)
		return d->stride[i];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->longs[mid].line < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_longs && d->longs[lo].line == i ?
		d->longs[lo].stride : DIFF_STRIDE_LONG;
}

/* Line i's length and kind from its stride and flags, at `off`. */
static struct diff_line line_from(const struct diff *d, size_t i, size_t off)
{
	struct diff_line l = { 0, 0, DIFF_OTHER, 0 };
	size_t stride = stride_of(d, i), len;
	uint8_t f = d->kind[i];

	l.off = off;
	len = stride - !!(f & DIFF_KIND_NL) - !!(f & DIFF_KIND_CR);
	l.len = len > DIFF_LINE_MAX ? DIFF_LINE_MAX : len;
	l.kind = f & DIFF_KIND_MASK;
	l.cr = !!(f & DIFF_KIND_CR);
	return l;
}

int diff_line_file_cr(const struct diff *d, const struct diff_line *l)
{
	return l->cr && !d->crlf && (l->kind == DIFF_CONTEXT ||
				     l->kind == DIFF_ADD ||
				     l->kind == DIFF_DEL);
}

struct diff_line diff_line_at(const struct diff *d, size_t i)
{
	struct diff_line l = { 0, 0, DIFF_OTHER, 0 };
	size_t k, off;

	if (i >= d->nr_lines)
		return l;
	off = d->block_off[i / DIFF_BLOCK];
	for (k = i - i % DIFF_BLOCK; k < i; k++)
		off += stride_of(d, k);
	return line_from(d, i, off);
}

struct diff_line diff_line_next(const struct diff *d, size_t i,
				const struct diff_line *prev)
{
	struct diff_line l = { 0, 0, DIFF_OTHER, 0 };

	if (i + 1 >= d->nr_lines)
		return l;
	if ((i + 1) % DIFF_BLOCK == 0)
		return line_from(d, i + 1, d->block_off[(i + 1) / DIFF_BLOCK]);
	return line_from(d, i + 1, prev->off + stride_of(d, i));
}

static void run(struct parser *p, const char *text, size_t len)
{
	struct diff *d = p->d;
	size_t off = 0, idx = 0;

	while (off < len) {
		const char *s = text + off;
		const char *nl = memchr(s, '\n', len - off);
		size_t raw = nl ? (size_t)(nl - s) : len - off;
		size_t n = raw, next_off = off + raw + (nl ? 1 : 0);
		int kind;

		if (n && s[n - 1] == '\r')
			n--;
		kind = classify(p, idx, s, n, text + next_off, len - next_off);
		note_ends(p, kind, n < raw);
		if (d)
			add_line(d, off, raw, nl != NULL, n < raw, kind);
		idx++;
		off = next_off;
	}
	if (d)
		end_file(d, d->nr_lines);
}

void diff_parse(struct diff *d, const char *text, size_t len)
{
	struct parser p = { .d = d, .state = P_OUTSIDE };
	const char *s = text, *end = text + len;
	size_t nr = 1;

	memset(d, 0, sizeof(*d));
	if (len > DIFF_TEXT_MAX)
		len = DIFF_TEXT_MAX;	/* the index cannot address more */
	/* size the line index once: one memchr pass costs less than the
	 * reallocations it saves */
	while (s < end && (s = memchr(s, '\n', (size_t)(end - s)))) {
		nr++;
		s++;
	}
	index_grow(d, nr);
	run(&p, text, len);
	d->additions = p.additions;
	d->deletions = p.deletions;
}

/*
 * The streaming parse: the same per-line rules as run(), over text read
 * in chunks, keeping only a window of it (the line being classified and
 * the next one, which classify() looks at).
 */
#define READ_CHUNK (64 * 1024)

struct stream {
	diff_read_fn rd;
	void *arg;
	size_t len;		/* of the whole text */
	struct buf w;		/* text [w_off, w_off + w.len) */
	size_t w_off;
	size_t loaded;		/* w_off + w.len */
	int failed;
};

/* Offset of the end of the line starting at `off` (its '\n', or the end
 * of the text), reading more as needed. */
static size_t stream_eol(struct stream *st, size_t off)
{
	size_t from = off;

	for (;;) {
		const char *p = memchr(st->w.ptr + (from - st->w_off), '\n',
				       st->loaded - from);
		size_t n;
		const char *chunk;

		if (p)
			return (size_t)(p - st->w.ptr) + st->w_off;
		if (st->loaded >= st->len || st->failed)
			return st->loaded;
		from = st->loaded;
		n = st->len - st->loaded;
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		chunk = st->rd(st->arg, st->loaded, n);
		if (!chunk) {
			st->failed = 1;
			return st->loaded;
		}
		buf_add(&st->w, chunk, n);
		st->loaded += n;
	}
}

void diff_parse_read(struct diff *d, diff_read_fn rd, void *arg, size_t len)
{
	struct parser p = { .d = d, .state = P_OUTSIDE };
	struct stream st = { rd, arg, len, BUF_INIT, 0, 0, 0 };
	size_t off = 0, idx = 0;

	memset(d, 0, sizeof(*d));
	if (len > DIFF_TEXT_MAX)
		st.len = len = DIFF_TEXT_MAX;	/* the index cannot address more */
	while (off < len) {
		size_t end = stream_eol(&st, off), next_off, next_end, n;
		const char *s, *next;
		int kind, nl;

		if (st.failed && off >= st.loaded)
			break;	/* a read failed: keep what was parsed */
		/* a newline is there only inside what was read: at the end of
		 * the text, or where a read failed, the line just stops */
		nl = end < st.loaded;
		next_off = nl ? end + 1 : end;
		next_end = next_off < len ? stream_eol(&st, next_off) : len;
		if (next_end > st.loaded)
			next_end = st.loaded;
		if (next_off > st.loaded)
			next_off = next_end = st.loaded;
		/* pointers only now: reading may have moved the window */
		s = st.w.ptr + (off - st.w_off);
		next = st.w.ptr + (next_off - st.w_off);
		n = end - off;
		if (n && s[n - 1] == '\r')
			n--;
		kind = classify(&p, idx, s, n, next, next_end - next_off);
		note_ends(&p, kind, n < end - off);
		add_line(d, off, end - off, nl, n < end - off, kind);
		idx++;
		off = next_off;
		/* slide the window past what is done */
		if (off - st.w_off > 4 * READ_CHUNK) {
			size_t drop = off - st.w_off;

			memmove(st.w.ptr, st.w.ptr + drop, st.w.len - drop);
			buf_setlen(&st.w, st.w.len - drop);
			st.w_off = off;
		}
	}
	end_file(d, d->nr_lines);
	d->additions = p.additions;
	d->deletions = p.deletions;
	buf_release(&st.w);
}

void diff_release(struct diff *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nr_files; i++) {
		free(d->files[i].old_path);
		free(d->files[i].new_path);
	}
	free(d->files);
	free(d->stride);
	free(d->kind);
	free(d->block_off);
	free(d->longs);
	free(d->hunks);
	memset(d, 0, sizeof(*d));
}

void diff_count(const char *text, size_t len, int *additions,
		int *deletions, int *files)
{
	struct parser p = { .d = NULL, .state = P_OUTSIDE };

	run(&p, text, len);
	if (additions)
		*additions = p.additions;
	if (deletions)
		*deletions = p.deletions;
	if (files)
		*files = p.files;
}

/* Number of entries of the sorted v[0..nr) that are <= x. */
static size_t upper_bound(const size_t *v, size_t nr, size_t x)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Number of entries of the sorted v[0..nr) that are < x. */
static size_t lower_bound(const size_t *v, size_t nr, size_t x)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t diff_next_hunk(const struct diff *d, size_t from)
{
	size_t k = upper_bound(d->hunks, d->nr_hunks, from);

	return k < d->nr_hunks ? d->hunks[k] : from;
}

size_t diff_prev_hunk(const struct diff *d, size_t from)
{
	size_t k = lower_bound(d->hunks, d->nr_hunks, from);

	return k ? d->hunks[k - 1] : from;
}

/* Same searches over the files' first lines, which are in order. */
size_t diff_next_file(const struct diff *d, size_t from)
{
	size_t lo = 0, hi = d->nr_files;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->files[mid].first_line <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_files ? d->files[lo].first_line : from;
}

size_t diff_prev_file(const struct diff *d, size_t from)
{
	size_t lo = 0, hi = d->nr_files;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->files[mid].first_line < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? d->files[lo - 1].first_line : from;
}

/* ---- changes inside a line ------------------------------------------ */

struct word {
	size_t off, len;
};

struct words {
	struct word *v;
	size_t nr, alloc;
};

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static int blank_byte(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* Cut s into words, blank runs and single punctuation bytes.  Non-ASCII
 * bytes are word bytes, so a UTF-8 character is never split. */
static void split_words(struct words *w, const char *s, size_t len)
{
	size_t i = 0;

	w->nr = 0;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t j = i + 1;

		if (word_byte(c)) {
			while (j < len && word_byte((unsigned char)s[j]))
				j++;
		} else if (blank_byte(c)) {
			while (j < len && blank_byte((unsigned char)s[j]))
				j++;
		}
		ALLOC_GROW(w->v, w->nr + 1, w->alloc);
		w->v[w->nr].off = i;
		w->v[w->nr].len = j - i;
		w->nr++;
		i = j;
	}
}

static int same_word(const char *a, const struct word *x, const char *b,
		     const struct word *y)
{
	return x->len == y->len && !memcmp(a + x->off, b + y->off, x->len);
}

static int all_blank(const char *s, const struct word *x)
{
	return blank_byte((unsigned char)s[x->off]);
}

/* Turn the changed words (changed[k] set) into ranges, joining changed
 * words that only blanks separate. */
static void words_to_ranges(const char *s, const struct words *w,
			    const unsigned char *changed,
			    struct diff_ranges *r)
{
	size_t k = 0;

	r->nr = 0;
	while (k < w->nr) {
		size_t end;

		if (!changed[k]) {
			k++;
			continue;
		}
		end = k;
		for (;;) {
			size_t n = end + 1;

			while (n < w->nr && !changed[n] &&
			       all_blank(s, &w->v[n]))
				n++;
			if (n < w->nr && changed[n]) {
				end = n;
				continue;
			}
			break;
		}
		ALLOC_GROW(r->v, r->nr + 1, r->alloc);
		r->v[r->nr].start = w->v[k].off;
		r->v[r->nr].end = w->v[end].off + w->v[end].len;
		r->nr++;
		k = end + 1;
	}
}

static size_t nonblank(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (!blank_byte((unsigned char)s[i]))
			n++;
	return n;
}

int diff_intraline(const char *a, size_t alen, const char *b, size_t blen,
		   struct diff_ranges *ra, struct diff_ranges *rb)
{
	struct words wa = { NULL, 0, 0 }, wb = { NULL, 0, 0 };
	unsigned char *ca = NULL, *cb = NULL;
	uint16_t *t = NULL;
	size_t pre = 0, suf = 0, n, m, i, j, kept = 0, most;
	int ret = 0;

	ra->nr = rb->nr = 0;
	split_words(&wa, a, alen);
	split_words(&wb, b, blen);
	ca = xcalloc(wa.nr + 1, 1);
	cb = xcalloc(wb.nr + 1, 1);
	while (pre < wa.nr && pre < wb.nr &&
	       same_word(a, &wa.v[pre], b, &wb.v[pre]))
		pre++;
	while (suf < wa.nr - pre && suf < wb.nr - pre &&
	       same_word(a, &wa.v[wa.nr - 1 - suf], b, &wb.v[wb.nr - 1 - suf]))
		suf++;
	n = wa.nr - pre - suf;
	m = wb.nr - pre - suf;
	if (n && m && n <= DIFF_WORDS_MAX && m <= DIFF_WORDS_MAX) {
		/* t[i][j]: the LCS of the middles' words from i and j on */
		size_t w = m + 1;

		t = xcalloc((n + 1) * w, sizeof(*t));
		for (i = n; i-- > 0;)
			for (j = m; j-- > 0;)
				t[i * w + j] = same_word(a, &wa.v[pre + i], b,
							 &wb.v[pre + j]) ?
					(uint16_t)(t[(i + 1) * w + j + 1] + 1) :
					t[(i + 1) * w + j] > t[i * w + j + 1] ?
					t[(i + 1) * w + j] : t[i * w + j + 1];
		for (i = 0; i < n; i++)
			ca[pre + i] = 1;
		for (j = 0; j < m; j++)
			cb[pre + j] = 1;
		i = j = 0;
		while (i < n && j < m) {
			if (same_word(a, &wa.v[pre + i], b, &wb.v[pre + j])) {
				ca[pre + i] = cb[pre + j] = 0;
				i++;
				j++;
			} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
				i++;
			} else {
				j++;
			}
		}
	} else {
		for (i = 0; i < n; i++)
			ca[pre + i] = 1;
		for (j = 0; j < m; j++)
			cb[pre + j] = 1;
	}
	/* worth marking?  the kept non-blank bytes against the line's */
	for (i = 0; i < wa.nr; i++)
		if (!ca[i] && !all_blank(a, &wa.v[i]))
			kept += wa.v[i].len;
	most = nonblank(a, alen) > nonblank(b, blen) ? nonblank(a, alen) :
	       nonblank(b, blen);
	if (kept * 3 < most)
		goto out;
	words_to_ranges(a, &wa, ca, ra);
	words_to_ranges(b, &wb, cb, rb);
	ret = 1;
out:
	free(t);
	free(ca);
	free(cb);
	free(wa.v);
	free(wb.v);
	return ret;
}

void diff_ranges_release(struct diff_ranges *r)
{
	if (!r)
		return;
	free(r->v);
	r->v = NULL;
	r->nr = r->alloc = 0;
}
