/* SPDX-License-Identifier: MIT */
/*
 * Progress of a long operation (a rollout wave, probe runs, a collection of N
 * items) on stderr, for programs (agent/, controller/); library code reports
 * through callbacks and never prints. Three modes:
 *   PROGRESS_TTY    stderr is a terminal: one status line, redrawn in place
 *                   ("\r" + erase to end of line), cut to the terminal's width,
 *                   ended with a newline by progress_end;
 *   PROGRESS_LINES  plain lines: one when the operation begins, one per item;
 *   PROGRESS_OFF    nothing (--quiet, --output json, or no terminal where plain
 *                   lines are not wanted).
 * Escape codes are written only in PROGRESS_TTY. Data stays on stdout.
 *
 *   struct progress p;
 *   progress_init(&p, progress_mode_for(STDERR_FILENO, quiet, json, true), stderr);
 *   progress_begin(&p, "collect", n, "item", "%s", host);   "collect: host: 0/12 items done"
 *   progress_note(&p, "%u MiB", mib);                        shown from the next call on
 *   progress_item(&p, false, "%s: ok", name);               tty: "collect: host: 1/12 items done, 4 MiB"
 *                                                            lines: "collect: dcb: ok"
 *   progress_end(&p);
 *
 * A log message (common/log.c) first clears a live line, so the two never mix.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "common/util.h"

enum progress_mode { PROGRESS_OFF, PROGRESS_LINES, PROGRESS_TTY, PROGRESS_MODE_MAX };

struct progress {
        enum progress_mode mode;
        FILE *out;
        char tag[32];                   /* what runs: "apply", "probe"; prefixes every line */
        char label[128];                /* which part of it: "wave 2/5", "10.0.0.2:18515 (tcp)" */
        char unit[24];                  /* what is counted: "node", "run", "item" */
        char note[128];                 /* a running summary shown on the status line */
        unsigned total, done, failed;
        unsigned columns;               /* terminal width (PROGRESS_TTY) */
};

/*
 * The mode for stderr (fd): PROGRESS_TTY when fd is a terminal (and TERM is not
 * "dumb"), unless quiet or json; else PROGRESS_LINES when lines are wanted and
 * neither quiet nor json; else PROGRESS_OFF.
 */
enum progress_mode progress_mode_for(int fd, bool quiet, bool json, bool lines);

void progress_init(struct progress *p, enum progress_mode mode, FILE *out);

/* Start counting total units of tag: a status line (tty) or "TAG: LABEL: N UNITs" (lines). */
void progress_begin(struct progress *p, const char *tag, unsigned total, const char *unit,
                    const char *label_fmt, ...) _printf_(5, 6);

/* One unit done (failed or not): redraw (tty) or print "TAG: TEXT" (lines). */
void progress_item(struct progress *p, bool failed, const char *fmt, ...) _printf_(3, 4);

/* Set the running summary at the end of the status line, shown from the next
 * progress_item or progress_end on (tty only; plain lines do not show it). */
void progress_note(struct progress *p, const char *fmt, ...) _printf_(2, 3);

/* The operation is over: draw the final status line and end it with a newline (tty). */
void progress_end(struct progress *p);

/* Erase the live status line, if one is drawn, before something else is written to
 * stderr (the next progress call draws it again). Called by common/log.c. */
void progress_clear_line(void);
