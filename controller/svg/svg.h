/* SPDX-License-Identifier: MIT */
/*
 * controller/svg: the pictures nettunectl draws (doctor's lossless class per path,
 * a rollout's timeline, headroom, tune's trials) written as SVG 1.1 documents.
 *
 * A picture is self-contained (no script, no external font, image or style sheet),
 * white behind dark ink so that it prints, coloured from the Okabe-Ito palette (told
 * apart with every common colour vision deficiency) and never by colour alone: every
 * mark that a colour distinguishes also carries a word or a symbol. Each document
 * opens with <title> and <desc>, its text equivalent, and its marks carry ids and
 * data-* attributes (what tests and scripts read).
 *
 * Pure: the writer builds a string; svg_write() is the one function that touches a
 * file. May call: common/. Called by controller/cmd (ctl_doctor_svg.c, ctl_status.c,
 * ctl_headroom.c) and controller/tune (tune_plot.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/util.h"

/* Okabe & Ito, "Color Universal Design" (2008): the eight colours. */
#define SVG_BLACK "#000000"
#define SVG_ORANGE "#E69F00"
#define SVG_SKY "#56B4E9"
#define SVG_GREEN "#009E73"             /* bluish green */
#define SVG_YELLOW "#F0E442"
#define SVG_BLUE "#0072B2"
#define SVG_RED "#D55E00"               /* vermillion: what is wrong */
#define SVG_PURPLE "#CC79A7"            /* reddish purple */
#define SVG_GREY "#767676"              /* axes and grid: 4.5:1 against white */

#define SVG_TICKS_MAX 16

struct svg {
        char *buf;                      /* owned until svg_end() */
        size_t len, cap;
        bool oom;                       /* an allocation failed: svg_end() returns NULL */
};

/* The document's head: size in px, its <title> and <desc> (escaped), a white page. */
void svg_begin(struct svg *s, int width, int height, const char *title, const char *desc);
/* Raw markup, printf-style (the caller escapes what it interpolates: svg_esc()). */
void svg_put(struct svg *s, const char *fmt, ...) _printf_(2, 3);
/* Text escaped for XML character data and attribute values. */
void svg_esc(struct svg *s, const char *text);
/* <text x y ATTRS>escaped printf text</text>; attrs may be "" (font-size 12 unless it names one). */
void svg_text(struct svg *s, double x, double y, const char *attrs, const char *fmt, ...) _printf_(5, 6);
/* Close the document: the text, owned by the caller (free()); NULL when out of memory. */
char *svg_end(struct svg *s);

/*
 * Readable ticks over [lo, hi]: about `want` of them at a 1, 2 or 5 step (times a
 * power of ten), at most SVG_TICKS_MAX, into ret; their count. *ret_step: the step.
 */
unsigned svg_ticks(double lo, double hi, unsigned want, double *ret, double *ret_step);
/* A tick's label: as many decimals as the step needs, 1k/1M for large ones ("0.25", "2.5k", "40"). */
void svg_tick_label(double v, double step, char *buf, size_t size);

/* Write doc to path (created 0644, replaced). 0 or -errno. */
int svg_write(const char *path, const char *doc);
