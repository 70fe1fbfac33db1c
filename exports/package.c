/* SPDX-License-Identifier: MIT */
/*
 * package: see package.h.  The directory and its files' bookkeeping are
 * in package_dir.c, the files in package_files.c, the manifests in
 * package_manifest.c (package_int.h).
 */
#include "exports/package.h"

#include "core/study/access.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exports/atomic.h"
#include "exports/export.h"
#include "exports/package_int.h"

/* The package complete in p->tmp: synced, renamed to `dir` (p->tmp is
 * then NULL), the rename synced.  Returns 0, or -1 with `e` filled. */
static int publish(struct pkg *p, const char *dir, struct err *e)
{
	if (p->has_subdir) {
		char *sub = pkg_join(p->tmp, "codebooks");
		int rc = atomic_sync_dir(sub, e);

		free(sub);
		if (rc < 0)
			return -1;
	}
	if (p->has_figures) {
		char *sub = pkg_join(p->tmp, "figures");
		int rc = atomic_sync_dir(sub, e);

		free(sub);
		if (rc < 0)
			return -1;
	}
	if (atomic_sync_dir(p->tmp, e) < 0)
		return -1;
	if (rename(p->tmp, dir) < 0) {
		err_set(e, ERR_IO, "%s: %s", dir, errno == ENOTEMPTY ||
			errno == EEXIST ? "is not empty; the package needs a "
			"new or empty directory" : strerror(errno));
		return -1;
	}
	free(p->tmp);
	p->tmp = NULL;
	return atomic_sync_parent(dir, e);
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
	if (pkg_check_target(dir, e) < 0)
		return -1;
	/* the full check first: no package is made from a damaged study */
	if (store_verify(st, 0, e) < 0)
		return err_prefix(e, "%s: no package written", dir);
	if (pkg_make_tmpdir(&p, dir, e) < 0)
		return -1;
	/* one snapshot for every file, though annotators keep working */
	if (store_read_begin(st, e) < 0)
		goto out;
	in_savepoint = 1;
	store_now(now);
	if (pkg_write_files(&p, st, a, cb, now, o, e) < 0 ||
	    pkg_write_manifest_json(&p, st, a, cb, now, o, e) < 0 ||
	    pkg_write_manifest(&p, e) < 0 ||
	    pkg_interrupted(o, e) < 0)
		goto out;
	if (publish(&p, dir, e) < 0)
		goto out;
	o->nr_files = (int)p.nr;
	ret = 0;
out:
	if (in_savepoint)
		store_read_end(st);
	if (ret < 0)
		pkg_remove_tmp(&p);
	pkg_release(&p);
	return ret;
}
