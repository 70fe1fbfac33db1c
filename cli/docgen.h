/* SPDX-License-Identifier: MIT */
/*
 * docgen: the man page's and the README's command documentation, made
 * from the commands' option tables (options.h) so that it is written
 * once.  `bugcoder __man` prints, for every command, a block opened by
 * the marker line `.\" @SYNOPSIS NAME@` (its synopsis) and one opened
 * by `.\" @OPTIONS NAME@` (its arguments and options with their help),
 * in roff; the Makefile puts each block where tui/bugcoder.1.in has its
 * marker.  `bugcoder __readme` prints the README's command table in
 * Markdown; `make readme` puts it between README.md's markers.
 */
#ifndef BUGCODER_DOCGEN_H
#define BUGCODER_DOCGEN_H

/* `bugcoder __man`, `bugcoder __readme`: print to stdout; 0, or 1 when
 * it could not be written (argc, argv: the words after the command,
 * none expected, else 2 after a usage error). */
int cli_man(int argc, char **argv);
int cli_readme(int argc, char **argv);

#endif
