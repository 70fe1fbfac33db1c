/* SPDX-License-Identifier: MIT */
/*
 * keytime: time the screen's frames from outside its code.
 *
 * Preloaded (LD_PRELOAD) into `bugcoder code` running a key script on the
 * virtual screen (BUGCODER_KEYS, BUGCODER_NO_DISPLAY), it wraps curses'
 * doupdate() and writes to $KEYTIME_OUT, at exit, the time between one
 * doupdate() returning and the next, in microseconds, one line each: the
 * wall-clock time, then the CPU time of the thread (which other processes
 * on a busy machine do not inflate).  The
 * screen's loop is draw, doupdate, next key, handle it, draw, doupdate
 * ...; with keys from a script the wait for a key is nil, so each
 * interval is the time from a key to its finished frame.
 *
 * Used only while the screen has no timing hook of its own
 * (BUGCODER_BENCH); bench.py builds it with `cc -shared`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int doupdate(void);
static int (*real_doupdate)(void);
static double *stamps;		/* wall, cpu, wall, cpu ... */
static size_t nr, alloc;

static double now_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int doupdate(void)
{
	int r;

	if (!real_doupdate)
		real_doupdate = (int (*)(void))dlsym(RTLD_NEXT, "doupdate");
	if (!real_doupdate)
		return -1;
	r = real_doupdate();
	if (nr + 2 > alloc) {
		size_t n = alloc ? alloc * 2 : 2048;
		double *p = realloc(stamps, n * sizeof(*p));

		if (!p)
			return r;
		stamps = p;
		alloc = n;
	}
	stamps[nr++] = now_us(CLOCK_MONOTONIC);
	stamps[nr++] = now_us(CLOCK_THREAD_CPUTIME_ID);
	return r;
}

__attribute__((destructor)) static void keytime_dump(void)
{
	const char *path = getenv("KEYTIME_OUT");
	FILE *f;
	size_t i;

	if (!path || !*path || (f = fopen(path, "w")) == NULL)
		return;
	for (i = 2; i + 1 < nr; i += 2)
		fprintf(f, "%.1f %.1f\n", stamps[i] - stamps[i - 2],
			stamps[i + 1] - stamps[i - 1]);
	fclose(f);
}
