/* SPDX-License-Identifier: MIT */
/*
 * cli: the command line face of bugcoder.  One function per subcommand,
 * each `int cmd_NAME(struct cli *c, int argc, char **argv)` returning the
 * process exit code (0 ok, 1 user-fixable failure, 2 usage, 3 transient).
 * argv[0] is the command's name; the global options (--study, --as) have
 * been taken out already, wherever they stood.
 */
#ifndef BUGCODER_CLI_H
#define BUGCODER_CLI_H

#include <stdio.h>
#include <sys/stat.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/member.h"
#include "core/store/store.h"

struct cli {
	const char *study_path;	/* the study's file: --study or
				   $BUGCODER_STUDY as a path or resolved
				   in STUDYDIR (see priv.h), else
				   ./bugcoder.db */
	char *study_owned;	/* what study_path points to, if owned */
	int study_privileged;	/* in the server install's STUDYDIR */
	const char *as;		/* --as USER or NULL */
	struct store st;
	int st_open;
	int preopen_failed;	/* main() tried to open a server study */
	struct err preopen_err;	/* before the drop, and this is why not */
	struct stat pre_sb[3];	/* cli_preopen(): lstat() of the study, */
	int pre_errno[3];	/* its -wal and -shm (0, or the errno),
				   taken with the group for `doctor` */
	int have_actor;		/* cli_open() worked out c->actor: 1, or
				   2 when it had to be a member */
	struct actor actor;
	struct err err;
};

enum cli_open_flags {
	CLI_MEMBER = 1 << 0,	/* the actor must be a member */
	CLI_READONLY = 1 << 1,
};

/* Open the study and work out the actor.  On failure prints the error
 * and returns the exit code; 0 on success.  A study in the server's
 * STUDYDIR is opened by main() before the group is given up
 * (cli_preopen()); this then only works out the actor, or reports why
 * that open failed. */
int cli_open(struct cli *c, unsigned flags);
/* main(): open the server study `c` names, with the group, before it is
 * given up for good.  A failure is kept for cli_open() to report (a
 * command that needs no study runs all the same). */
void cli_preopen(struct cli *c);
/* Give the group privilege up for good (real, effective and saved group
 * all the user's own); 0, or an exit code after saying why not. */
int cli_drop_privilege(struct cli *c);
/* `init` in STUDYDIR: refuse unless server.conf lets the user create
 * studies, create the study with the group, start the keeper that
 * removes it again if the rest of init fails (priv_keeper_start()), and
 * give the group up.  0, or an exit code after saying why not. */
int cli_create_privileged(struct cli *c);
/* Load the study's current codebook, or print why not.  Returns 0 or an
 * exit code. */
int cli_codebook(struct cli *c, struct codebook *cb);

/* The codebook file for --codebook NAME (or a FILE argument): the path
 * as given when it names a file, else the bundled codebook NAME, looked
 * for where `make install` puts them (BIN/../share/bugcoder/codebooks,
 * BIN being the directory of the running program), then in the source
 * tree's codebooks/ when the program runs from its build tree.  Owned;
 * NULL after printing why (c->err holds it). */
char *cli_find_codebook(struct cli *c, const char *name);

/* Print "bugcoder: <msg>" for c->err (or `e`) and return its exit
 * code. */
int cli_fail(struct cli *c);
int cli_fail_err(const struct err *e);
/* cli_fail(), with "; " and what follows from `fmt` after the message, on
 * the same line: "bugcoder: FILE:3: ...; nothing imported from this
 * file". */
int cli_fail_also(struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print a one-line usage error and the command's usage; returns 2. */
int cli_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* --mode MODE of an output (NULL: not given) into *mode: private,
 * OUTPUT_MODE, by default; an octal mode of read and write bits with at
 * least 600 widens it on purpose.  Returns 0, or 2 after a usage
 * error. */
int cli_mode(const char *arg, mode_t *mode, const char *usage);
/* Print the usage text to stdout (for --help); returns 0. */
int cli_help(const char *usage);

/* The long option among names[0..n) (and the global --study, --as and
 * --help) that the mistyped long option arg[0..len) is closest to, as
 * suggest.h judges it; NULL when none is close or arg is no long
 * option.  Borrowed. */
const char *cli_near_option(const char *arg, size_t len,
			    const char *const *names, size_t n);

/* Print untrusted text to a terminal or pipe, made safe (controls and
 * escapes made visible) when `out` is a terminal; as is otherwise. */
void cli_print_safe(FILE *out, const char *s);

/* Split "a,b,,c" into its non-empty parts; they point into *copy, which
 * the caller frees with the returned array. */
const char **cli_split_commas(const char *s, size_t *nr, char **copy);

/* One DIM=CODE[,CODE] argument, split. */
struct dim_codes {
	char *dim;		/* owned */
	const char **codes;	/* into `copy` */
	size_t nr;
	char *copy;
};

/* Are pos[from..npos) all DIM=CODE arguments?  0, or prints a usage
 * error naming the first that is not and returns 2. */
int cli_check_dim_args(const char **pos, int from, int npos,
		       const char *usage);
void cli_dim_codes(const char *arg, struct dim_codes *dc);
void cli_dim_codes_release(struct dim_codes *dc);

/* codebook update FILE / codebook revert VERSION, with their --map
 * (and, for update, --split) arguments (cmd_evolve.c); exit codes. */
int cli_codebook_update(struct cli *c, const char *path, const char **maps,
			size_t nr_maps, const char **splits,
			size_t nr_splits);
int cli_codebook_revert(struct cli *c, const char *version,
			const char **maps, size_t nr_maps);

/* `bugcoder __complete WORD... CUR`: print the completions of CUR, one
 * a line (complete.c); argv holds WORD... CUR.  Returns 0. */
int cli_complete(int argc, char **argv);

#define CMD(name) int cmd_##name(struct cli *c, int argc, char **argv)
/* A command with its options table (options.h) also has
 * `const struct command NAME_command`, defined next to its function. */
struct command;
#define CMD_TABLE(name) extern const struct command name##_command
CMD(init);
CMD_TABLE(init);
CMD(study);
CMD_TABLE(study);
CMD(member);
CMD_TABLE(member);
CMD(machine_code);
CMD_TABLE(machine_code);
CMD(disagreements);
CMD_TABLE(disagreements);
CMD(codebook);
CMD_TABLE(codebook);
CMD(import);
CMD_TABLE(import);
CMD(items);
CMD_TABLE(items);
CMD(status);
CMD_TABLE(status);
CMD(fetch);
CMD_TABLE(fetch);
CMD(code);
CMD_TABLE(code);
CMD(label);
CMD_TABLE(label);
CMD(labels);
CMD_TABLE(labels);
CMD(evidence);
CMD_TABLE(evidence);
CMD(round);
CMD_TABLE(round);
CMD(agree);
CMD_TABLE(agree);
CMD(adjudicate);
CMD_TABLE(adjudicate);
CMD(resolve);
CMD_TABLE(resolve);
CMD(export);
CMD_TABLE(export);
CMD(report);
CMD_TABLE(report);
CMD(proposals);
CMD_TABLE(proposals);
CMD(audit);
CMD_TABLE(audit);
CMD(backup);
CMD_TABLE(backup);
CMD(doctor);
CMD_TABLE(doctor);

#endif
