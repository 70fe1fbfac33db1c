/* SPDX-License-Identifier: MIT */
/*
 * diff: a unified diff (git's `diff --git` output, or a bare patch as the
 * GitHub file list gives) parsed into files, hunks and lines.
 *
 * Parsing is one pass over the text and never copies it: every line is an
 * (offset, length) into the caller's text, which must outlive the struct.
 * This keeps a 200,000-line diff cheap: about 3 bytes per line.
 * Malformed input never fails: lines that fit no rule are kept as
 * DIFF_OTHER, so the screen can still show them.
 */
#ifndef BUGCODER_DIFF_H
#define BUGCODER_DIFF_H

#include <stddef.h>
#include <stdint.h>

enum diff_kind {
	DIFF_OTHER,	/* anything else, e.g. text before the first file */
	DIFF_FILE,	/* "diff --git a/x b/y" */
	DIFF_META,	/* index, mode, rename, similarity, ---, +++, binary */
	DIFF_HUNK,	/* "@@ -a,b +c,d @@ ..." */
	DIFF_CONTEXT,	/* " ..." */
	DIFF_ADD,	/* "+..." */
	DIFF_DEL,	/* "-..." */
	DIFF_NOEOL,	/* "\ No newline at end of file" */
};

/* A line as diff_line_at() gives it. */
struct diff_line {
	size_t off;		/* into the text */
	size_t len;		/* bytes, without the newline and any CR; cut
				 * at DIFF_LINE_MAX for display */
	int kind;		/* enum diff_kind */
	int cr;			/* a CR ended it (not counted in len) */
};

#define DIFF_LINE_MAX 0xFFFFFFu
#define DIFF_TEXT_MAX 0xFFFFFFFFu	/* 4 GiB; SQLite holds 1 GiB */

struct diff_file {
	char *old_path, *new_path;	/* owned; "/dev/null" for adds/deletes;
					 * NULL when the diff does not say
					 * (a bare patch) */
	size_t first_line;	/* index of its DIFF_FILE line (or of its
				 * "--- " line, or first hunk) */
	size_t nr_lines;	/* lines belonging to this file */
	int additions, deletions;
	int binary;		/* "Binary files ... differ" */
};

/*
 * The line index is about 3 bytes a line: a line's stride (bytes from its
 * start to the next line's) and its kind, with the offset of every
 * DIFF_BLOCK-th line; a line's offset is its block's plus the strides
 * before it in the block.  A stride too long for 16 bits is kept aside
 * in `longs`.  Read it with diff_line_at().
 */
#define DIFF_BLOCK 64

struct diff_long {
	size_t line;
	uint32_t stride;
};

struct diff {
	uint16_t *stride;	/* DIFF_STRIDE_LONG: see longs */
	uint8_t *kind;		/* enum diff_kind, with DIFF_KIND_* flags */
	uint32_t *block_off;	/* offset of line k * DIFF_BLOCK */
	size_t nr_lines, alloc_lines;
	struct diff_long *longs;	/* in line order */
	size_t nr_longs, alloc_longs;
	struct diff_file *files;
	size_t nr_files, alloc_files;
	size_t *hunks;		/* line index of every DIFF_HUNK line */
	size_t nr_hunks, alloc_hunks;
	int additions, deletions;	/* totals over all files */
	int crlf;		/* its own lines end in CRLF (its first file
				 * or hunk header does): a CR ending a line
				 * is the diff's, not the file's */
};

#define DIFF_INIT { 0 }

/* Parse text[0..len) into `d`, which is overwritten (so it must not hold
 * an unreleased parse).  Never fails.  The lines point into `text`, which
 * must outlive `d`.  Release with diff_release(). */
void diff_parse(struct diff *d, const char *text, size_t len);
/* Read bytes [off, off + n) of a text; the pointer stays valid until
 * the next call.  NULL when the text cannot be read. */
typedef const char *(*diff_read_fn)(void *arg, size_t off, size_t n);

/* diff_parse() of a text of `len` bytes that is read piece by piece
 * through `rd`, holding only a window of it: line offsets index the
 * text as `rd` sees it.  A read failure ends the parse early. */
void diff_parse_read(struct diff *d, diff_read_fn rd, void *arg, size_t len);

/* Line i (< d->nr_lines) of a parsed diff: its offset is worked out
 * from its block's, up to DIFF_BLOCK - 1 strides. */
struct diff_line diff_line_at(const struct diff *d, size_t i);
/* Line i + 1, given line i as diff_line_at() (or this) gave it: in
 * constant time, for a pass over many lines in order. */
struct diff_line diff_line_next(const struct diff *d, size_t i,
				const struct diff_line *prev);
/* Does line l of the file (context, added or removed) end in a CR of
 * the file's own - a CRLF line of a diff whose lines end in LF?  (A
 * change from CRLF to LF differs in that CR alone.) */
int diff_line_file_cr(const struct diff *d, const struct diff_line *l);

/* Free what diff_parse() allocated.  Accepts NULL. */
void diff_release(struct diff *d);

/* Count added and deleted lines and files of a diff without keeping the
 * parse (for effort figures); the same rules as diff_parse().  Any of the
 * out pointers may be NULL. */
void diff_count(const char *text, size_t len, int *additions,
		int *deletions, int *files);

/* Index of the first hunk (or file) line after / before line `from`, or
 * `from` itself when there is none.  Binary search over d->hunks. */
size_t diff_next_hunk(const struct diff *d, size_t from);
size_t diff_prev_hunk(const struct diff *d, size_t from);
size_t diff_next_file(const struct diff *d, size_t from);
size_t diff_prev_file(const struct diff *d, size_t from);

/*
 * Changes inside a line, for a removed line and the added line it pairs
 * with (as git's diff-highlight and delta pair them): both lines are cut
 * into words (runs of letters, digits, '_' and non-ASCII bytes), runs of
 * blanks, and single punctuation bytes; the common leading and trailing
 * words are set aside, and the longest common subsequence of the words
 * between them (when there are at most DIFF_WORDS_MAX on each side; else
 * all of them count as changed) leaves the changed words.  Neighbouring
 * changed words joined by blanks make one range.  Ranges never split a
 * UTF-8 character.
 */
struct diff_range {
	size_t start, end;	/* bytes [start, end) */
};

struct diff_ranges {
	struct diff_range *v;
	size_t nr, alloc;
};

#define DIFF_RANGES_INIT { NULL, 0, 0 }
#define DIFF_WORDS_MAX 200

/* Compare old line a[0..alen) with new line b[0..blen) (without their
 * sigils) and store the changed ranges of each in ra and rb (overwritten;
 * their memory is reused).  Returns 1 when the lines have enough in
 * common for marks to help (at least a third of their non-blank bytes,
 * or equal lines), 0 when they differ throughout (ra and rb left empty
 * then).  Linear in the lengths but for the DIFF_WORDS_MAX^2 middle. */
int diff_intraline(const char *a, size_t alen, const char *b, size_t blen,
		   struct diff_ranges *ra, struct diff_ranges *rb);
/* Free what diff_intraline() stored.  Accepts NULL. */
void diff_ranges_release(struct diff_ranges *r);

#endif
