/* SPDX-License-Identifier: MIT */
/*
 * The command line both programs share: a table per subcommand (its arguments,
 * what it does, every flag it takes, its exit codes), from which `--help` is
 * printed, unknown subcommands and flags get a "did you mean", and the bash
 * completion is checked (tests/integration/completion.sh reads the same tables
 * through `--help`). The parsing stays with each subcommand; what it cannot
 * place it hands to cli_unknown().
 *
 *   static const struct cli_flag apply_flags[] = {
 *           { "--confirm-timeout", "S", "leave the change pending and restore it after S seconds" },
 *           { 0 },
 *   };
 *   static const struct cli_command commands[] = {
 *           { "apply", "POLICY", "apply a policy as one transaction", NULL, apply_flags, NULL },
 *           { 0 },
 *   };
 *
 * Also: the closest of a set of names by edit distance (policies/json/jsonv.c uses it
 * for unknown keys), and the y/N question asked on a terminal before a change.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "common/util.h"

struct cli_flag {
        const char *name;               /* "--peer" */
        const char *arg;                /* "ADDR:PORT"; NULL: a switch that takes no value */
        const char *help;               /* one line */
        const char *alias;              /* another spelling that means the same ("--label"), or NULL */
};

struct cli_command {
        const char *name;               /* NULL ends a table */
        const char *args;               /* "POLICY", "[ID]", or NULL */
        const char *summary;            /* the program's list; NULL: hidden (not listed, no help) */
        const char *text;               /* --help: what it does, lines of at most 80 columns; or NULL */
        const struct cli_flag *flags;   /* ended by { 0 }; NULL: none */
        const char *exits;              /* --help: the exit codes; NULL: the program's */
};

/* The table's entry named name, or NULL. */
const struct cli_command *cli_find(const struct cli_command *table, const char *name);

/*
 * Does argv[0..argc) ask for help (--help or -h before a "--")? Subcommands print
 * their help before anything else is opened: help touches nothing.
 */
bool cli_help_wanted(int argc, char *const *argv);

/*
 * A subcommand's help on f: "usage: PROG [COMMON] NAME ARGS [FLAGS]", its text,
 * every flag (aliases included), the common flags, the exit codes.
 */
void cli_help(FILE *f, const char *prog, const char *common_usage, const struct cli_command *c,
              const struct cli_flag *common, const char *exits);

/* The subcommands' list for the program's own help ("  NAME  SUMMARY"). */
void cli_list(FILE *f, const struct cli_command *table);

/* The flag named arg ("--x" or "--x=V"; aliases too) of c, or of common; NULL when neither has it. */
const struct cli_flag *cli_flag_of(const struct cli_command *c, const struct cli_flag *common, const char *arg);

/*
 * "PROG: unknown command 'aply'; did you mean 'apply'? see 'PROG --help'" on
 * stderr, the suggestion only when one is close.
 */
void cli_unknown_command(const char *prog, const struct cli_command *table, const char *word);

/*
 * "PROG CMD: unknown option '--conifg'; did you mean '--config'? see 'PROG CMD --help'"
 * (or "unexpected argument 'x'" for a word that is no option); always returns -EINVAL.
 */
int cli_unknown(const char *prog, const struct cli_command *c, const struct cli_flag *common, const char *arg);

/* ---- the closest name ---- */

/* Optimal string alignment distance (a swap of two neighbours counts one), capped at 255. */
unsigned cli_edit_distance(const char *a, const char *b);

struct cli_suggest {
        const char *word;
        const char *best;
        unsigned dist;
};

void cli_suggest_init(struct cli_suggest *s, const char *word);
void cli_suggest_offer(struct cli_suggest *s, const char *candidate);
/* The closest candidate offered when it is close enough to be a typo (NULL: none is). */
const char *cli_suggest_best(const struct cli_suggest *s);

/* ---- asking before a change ---- */

/*
 * Ask "QUESTION [y/N] " on stderr and read the answer from stdin, only when stdin
 * is a terminal and yes is not set: true for "y" or "yes" (any case). Without a
 * terminal (a script, a pipe, CI) or with --yes nothing is asked: true.
 */
bool cli_confirm(bool yes, const char *fmt, ...) _printf_(2, 3);
