/* SPDX-License-Identifier: MIT */
/*
 * version: which bugcoder this is - its release and the commit it was
 * built from, for `bugcoder --version` and for what it writes (the
 * replication package's manifest) to say what made it.
 *
 * The commit comes from the build: git's HEAD when the tree is a clone
 * ("-dirty" appended when the build had changes that are not committed),
 * else the commit `git archive` wrote into core/base/version.commit for a
 * tarball, else "unknown".
 */
#ifndef BUGCODER_VERSION_H
#define BUGCODER_VERSION_H

/* The release, as "0.1.0".  Static; never NULL. */
const char *bugcoder_version(void);

/* The commit: an abbreviated hash, possibly ending in "-dirty", or
 * "unknown".  Static; never NULL. */
const char *bugcoder_commit(void);

/* "bugcoder 0.1.0 (commit 1a2b3c4d5e6f)".  Static; never NULL. */
const char *bugcoder_version_line(void);

#endif
