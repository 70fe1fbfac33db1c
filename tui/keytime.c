/* SPDX-License-Identifier: MIT */
/*
 * keytime: key timing (see keytime.h).
 */
#include "tui/keytime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/buf.h"
#include "tui/keymap.h"

struct key_time {
	int key;
	double us;
};

static struct {
	char *path;		/* NULL: not timing */
	struct key_time *v;
	size_t nr, alloc;
	struct timespec t0;	/* when the key being timed was taken */
	int key;
	int running;
} bench;

void keytime_start(int key)
{
	if (!bench.path)
		return;
	bench.key = key;
	bench.running = 1;
	clock_gettime(CLOCK_MONOTONIC, &bench.t0);
}

void keytime_stop(void)
{
	struct timespec t1;

	if (!bench.running)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	bench.running = 0;
	ALLOC_GROW(bench.v, bench.nr + 1, bench.alloc);
	bench.v[bench.nr].key = bench.key;
	bench.v[bench.nr].us = (double)(t1.tv_sec - bench.t0.tv_sec) * 1e6 +
			       (double)(t1.tv_nsec - bench.t0.tv_nsec) / 1e3;
	bench.nr++;
}

void keytime_write(void)
{
	FILE *f;
	size_t i;

	if (bench.path && (f = fopen(bench.path, "w"))) {
		for (i = 0; i < bench.nr; i++) {
			char kn[32];

			fprintf(f, "%s\t%.1f\n", keyname_of(bench.v[i].key, kn),
				bench.v[i].us);
		}
		fclose(f);
	}
	free(bench.path);
	free(bench.v);
	memset(&bench, 0, sizeof(bench));
}


void keytime_begin(const char *path)
{
	free(bench.path);
	bench.path = path ? xstrdup(path) : NULL;
	bench.nr = 0;
}
