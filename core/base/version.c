/* SPDX-License-Identifier: MIT */
/*
 * version: see version.h.
 */
#include "core/base/version.h"

/* BUGCODER_COMMIT, written by make (the Makefile's BUILD-VERSION); a
 * compile outside make's rules (a syntax check, a fuzz target) goes
 * without */
#if defined(__has_include)
#if __has_include("BUILD-VERSION")
#include "BUILD-VERSION"
#endif
#endif
#ifndef BUGCODER_COMMIT
#define BUGCODER_COMMIT "unknown"
#endif

#ifndef BUGCODER_VERSION
#define BUGCODER_VERSION "unknown"
#endif

const char *bugcoder_version(void)
{
	return BUGCODER_VERSION;
}

const char *bugcoder_commit(void)
{
	return BUGCODER_COMMIT;
}

const char *bugcoder_version_line(void)
{
	return "bugcoder " BUGCODER_VERSION " (commit " BUGCODER_COMMIT ")";
}
