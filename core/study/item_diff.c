/* SPDX-License-Identifier: MIT */
/*
 * item_diff: a fix's diff read in windows straight from the study
 * (struct diff_source), for the diff view and the parser, so that a huge
 * diff is never held whole.  See item.h.
 */
#include "core/study/item.h"

#include <stddef.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/diff.h"

/*
 * Diff sources.  A value longer than a page lies on a chain of overflow
 * pages that a fresh blob handle walks from its start to reach an offset;
 * an open handle remembers the chain.  So the handle stays open while the
 * diff is read (a jump to the end of a 10 MB diff is then one page read),
 * but an open handle holds a read transaction, and in WAL mode the
 * connection could not start a write from that snapshot once another
 * process has written: the store closes it before every write
 * (store_reader), and the next read opens it again.
 */
#define DIFF_WINDOW (64 * 1024)

static void release_blob(struct store_reader *r)
{
	struct diff_source *src = (struct diff_source *)
		((char *)r - offsetof(struct diff_source, reader));

	if (src->held) {
		sqlite3_blob_close(src->held);
		src->held = NULL;
	}
}

static int blob_read(struct diff_source *src, size_t off, size_t n,
		     char *dst)
{
	if (!src->held) {
		if (sqlite3_blob_open(src->st->db, "main", "fixes", "diff",
				      src->row_id, 0, &src->held) != SQLITE_OK) {
			src->held = NULL;
			return -1;
		}
		store_add_reader(src->st, &src->reader);
	}
	if (src->len == (size_t)-1)
		src->len = (size_t)sqlite3_blob_bytes(src->held);
	if (n && sqlite3_blob_read(src->held, dst, (int)n, (int)off) !=
	    SQLITE_OK) {
		/* the row changed under us: start afresh next time */
		release_blob(&src->reader);
		return -1;
	}
	return 0;
}

int diff_source_open(struct store *st, const struct fix *f,
		     struct diff_source *src, struct err *e)
{
	memset(src, 0, sizeof(*src));
	buf_init(&src->win, 0);
	src->st = st;
	src->reader.release = release_blob;
	if (f->diff) {
		src->mem = f->diff;
		src->len = f->diff_len;
		return 0;
	}
	if (!f->has_diff || !f->row_id)
		return 0;
	src->row_id = f->row_id;
	src->len = (size_t)-1;
	if (blob_read(src, 0, 0, NULL) < 0) {
		src->len = 0;
		return store_error(st, e, "opening a diff");
	}
	return 0;
}

const char *diff_source_read(struct diff_source *src, size_t off, size_t n)
{
	size_t start, len;

	if (off > src->len || n > src->len - off)
		return NULL;
	if (src->mem)
		return src->mem + off;
	if (src->win_valid && off >= src->win_off &&
	    off + n <= src->win_off + src->win.len)
		return src->win.ptr + (off - src->win_off);
	/* a window around the request: scrolling either way reuses it */
	start = off > DIFF_WINDOW / 4 ? off - DIFF_WINDOW / 4 : 0;
	len = n + (off - start) + DIFF_WINDOW;
	if (len > src->len - start)
		len = src->len - start;
	buf_setlen(&src->win, len);
	if (blob_read(src, start, len, src->win.ptr) < 0) {
		src->win_valid = 0;
		return NULL;
	}
	src->win_off = start;
	src->win_valid = 1;
	return src->win.ptr + (off - start);
}

void diff_source_close(struct diff_source *src)
{
	if (!src)
		return;
	if (src->st)
		store_remove_reader(src->st, &src->reader);
	release_blob(&src->reader);
	buf_release(&src->win);
	memset(src, 0, sizeof(*src));
}

static const char *source_reader(void *arg, size_t off, size_t n)
{
	return diff_source_read(arg, off, n);
}

void diff_parse_source(struct diff *d, struct diff_source *src)
{
	diff_parse_read(d, source_reader, src, src->len);
}
