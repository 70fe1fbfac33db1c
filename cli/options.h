/* SPDX-License-Identifier: MIT */
/*
 * options: a command's options declared once, in a table with their help
 * text, as git's parse-options declares them.  One table drives the
 * parser (opt_parse()), `COMMAND --help`, the usage a usage error prints,
 * the did-you-mean for a misspelt option and the shell completion
 * (`bugcoder __complete`, cli/complete.c).
 *
 * A command's options go into a struct of its own; each entry names its
 * member with offsetof(), so the tables are static data the completion
 * reads without running a command.  Positional arguments are entries too
 * (OPT_ARG): documented in --help and completed, not parsed.
 *
 * Options are long ("--name") or one letter ("-o"); "--name value" and
 * "--name=value" both work, a one-letter option takes "-o value" only;
 * options may stand anywhere among the arguments; "--" ends them.
 */
#ifndef BUGCODER_OPTIONS_H
#define BUGCODER_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

struct cli;

enum opt_kind {
	OPT_KIND_END = 0,
	OPT_KIND_FLAG,		/* no value: the int at `off` counts it */
	OPT_KIND_STRING,	/* a value: the const char * at `off` */
	OPT_KIND_LIST,		/* repeatable: the struct opt_list at `off` */
	OPT_KIND_INT,		/* a whole number: the long at `off` */
	OPT_KIND_ARG,		/* a positional argument, documented and
				   completed, not parsed */
	OPT_KIND_GLOBAL,	/* a global option (--as) as this command
				   uses it: documented only */
	OPT_KIND_DOC,		/* an entry of --help only ("list [--all]") */
};

/* What a value or an argument is: what the completion offers for it. */
enum opt_value {
	OPT_V_TEXT = 0,		/* anything: nothing is offered */
	OPT_V_WORDS,		/* one of the |-separated words of argh */
	OPT_V_FILE,		/* a file (the shell offers them) */
	OPT_V_ITEM,		/* an item of the study */
	OPT_V_ITEMS,		/* items, comma-separated */
	OPT_V_DIM,		/* a dimension of the codebook */
	OPT_V_DIMS,		/* dimensions, comma-separated */
	OPT_V_DIM_CODE,		/* DIM=CODE[,CODE] */
	OPT_V_MEMBER,
	OPT_V_MEMBERS,		/* comma-separated */
	OPT_V_ROUND,
};

struct option {
	enum opt_kind kind;
	char short_name;	/* 'o' for "-o", or 0 */
	const char *long_name;	/* "items" for "--items"; an argument's
				   "ITEM" */
	size_t off;		/* the value's place in the options struct */
	const char *argh;	/* the value's placeholder: "FILE",
				   "text|json|csv" */
	enum opt_value value;
	const char *help;	/* wrapped where it is shown; NULL: not
				   documented (an argument the usage line
				   explains) */
	const char *sub;	/* an argument of this subcommand only, or
				   NULL */
};

/* The values of a repeatable option, in the order given; free(v). */
struct opt_list {
	const char **v;
	size_t nr;
};

/* Entries of a table; `st` is the command's options struct, whose
 * `field` gets the value (its type checked at compile time). */
#define OPT_OFF_(st, field, probe) \
	(offsetof(st, field) + 0 * sizeof(((st *)0)->field = (probe)))
#define OPT_FLAG(s, l, st, field, h) \
	{ OPT_KIND_FLAG, (s), (l), OPT_OFF_(st, field, 1), NULL, OPT_V_TEXT, \
	  (h), NULL }
#define OPT_STRING(s, l, st, field, a, v, h) \
	{ OPT_KIND_STRING, (s), (l), \
	  OPT_OFF_(st, field, (const char *)0), (a), (v), (h), NULL }
#define OPT_LIST(s, l, st, field, a, v, h) \
	{ OPT_KIND_LIST, (s), (l), \
	  OPT_OFF_(st, field, (struct opt_list){ 0 }), (a), (v), (h), NULL }
#define OPT_INT(s, l, st, field, a, h) \
	{ OPT_KIND_INT, (s), (l), OPT_OFF_(st, field, 0L), (a), OPT_V_TEXT, \
	  (h), NULL }
#define OPT_ARG(name, sub, v, h) \
	{ OPT_KIND_ARG, 0, (name), 0, NULL, (v), (h), (sub) }
/* an argument that is one of the |-separated `words` */
#define OPT_ARG_WORDS(name, sub, words, h) \
	{ OPT_KIND_ARG, 0, (name), 0, (words), OPT_V_WORDS, (h), (sub) }
#define OPT_GLOBAL(l, a, h) \
	{ OPT_KIND_GLOBAL, 0, (l), 0, (a), OPT_V_TEXT, (h), NULL }
#define OPT_DOC(label, h) \
	{ OPT_KIND_DOC, 0, (label), 0, NULL, OPT_V_TEXT, (h), NULL }
#define OPT_END() { OPT_KIND_END, 0, NULL, 0, NULL, OPT_V_TEXT, NULL, NULL }

struct command {
	const char *name;
	int (*fn)(struct cli *c, int argc, char **argv);
	const char *summary;	/* its line in `bugcoder --help` */
	/* The usage line(s), "bugcoder NAME ..." each, '\n' between; the
	 * options' placeholders written out. */
	const char *usage;
	const struct option *opts;	/* NULL: not converted yet */
	const char *const *subs;	/* subcommands, NULL-terminated */
	const char *notes;	/* --help's text after the options, or
				   NULL; lines indented by the caller */
	const char *examples;	/* "bugcoder NAME ...", '\n' between */
	const char *intro;	/* --help's paragraph after the usage, as
				   it is printed, or NULL */
};

/* Every command, in the order `bugcoder --help` lists them. */
extern const struct command *const commands[];
extern const size_t nr_commands;
/* The global options (--study, --as, --help, --version). */
extern const struct option global_opts[];

/* The command called `name`, or NULL. */
const struct command *command_find(const char *name);
/* The option of table `o` called name[0..len) ("--items", "-o"), or
 * NULL. */
const struct option *opt_find(const struct option *o, const char *name,
			      size_t len);

/* Parse argv[1..argc) against cmd->opts into `opts`, the command's
 * options struct (zeroed by the caller).  Positional arguments go to
 * pos[] (at least argc entries), their count to *npos.  Returns 0, 1 when
 * --help was printed, or -1 after printing a usage error; lists are
 * allocated even then (opt_list_release()). */
int opt_parse(const struct command *cmd, int argc, char **argv, void *opts,
	      const char **pos, int *npos);
/* opt_parse()'s -1 and 1 as the command's exit code (2, 0). */
#define opt_parse_exit(rc) ((rc) > 0 ? 0 : 2)
void opt_list_release(struct opt_list *l);

/* cmd's --help without its leading "usage: ": usage lines, arguments
 * and options with their help, the notes, the examples; what
 * cli_usage_error() and cli_help() take.  Built once, kept for the
 * process. */
const char *opt_usage(const struct command *cmd);

#endif
