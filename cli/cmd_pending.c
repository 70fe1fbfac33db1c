/* SPDX-License-Identifier: MIT */
/*
 * Commands of DESIGN.md that this build does not have yet.  Each says so
 * plainly and fails; the real command, once written, replaces the weak
 * definition here.
 */
#include <stdio.h>

#include "cli/cli.h"

#define PENDING(name) \
	__attribute__((weak)) CMD(name) \
	{ \
		(void)c; \
		(void)argc; \
		(void)argv; \
		fprintf(stderr, "bugcoder: %s: not available in this " \
			"version yet\n", #name); \
		return 1; \
	}

PENDING(fetch)
PENDING(code)
PENDING(label)
PENDING(labels)
PENDING(round)
PENDING(agree)
PENDING(adjudicate)
PENDING(resolve)
PENDING(export)
PENDING(report)
PENDING(proposals)

__attribute__((weak)) int cli_codebook_update(struct cli *c, const char *path,
					      const char **maps, size_t nr,
					      const char **splits,
					      size_t nr_splits)
{
	(void)c;
	(void)path;
	(void)maps;
	(void)nr;
	(void)splits;
	(void)nr_splits;
	fprintf(stderr, "bugcoder: codebook update: not available in this "
		"version yet\n");
	return 1;
}
