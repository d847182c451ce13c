/* SPDX-License-Identifier: MIT */
/*
 * The search of `nettunectl tune`, pure: which value to try next, given the
 * verdicts so far. The values span orders of magnitude (the published ECN
 * thresholds disagree by a factor of a hundred), so both phases work on a log scale:
 *
 *   grow     from the start (the device's value, which failed) multiply by `growth`
 *            until a trial holds, or the ceiling failed too (nothing holds);
 *   bisect   between lo (the highest value that failed) and hi (the lowest that held),
 *            at their geometric mean, until hi <= lo * resolution, or the trials run out.
 *
 *   verify   hi is tried once more: a measurement on a busy fabric can hold by chance.
 *            Held again: the answer. Not: it is disproved (it counts as failed: lo),
 *            hi becomes the next value that held above it, and the search goes on
 *            (bisecting up to that one, or growing when there is none).
 *
 * When the start already holds, there is nothing to grow: the search bisects between
 * the floor and the start, to the lowest value that still holds (shorter queues); the
 * start, measured as it is, is not tried again. The answer is hi: by construction the
 * lowest of the values that held (and were not disproved).
 */
#include <math.h>
#include <stdio.h>

#include "controller/tune/tune.h"

static const char *const phase_names[TUNE_PHASE_MAX] = {
        [TUNE_PHASE_GROW] = "grow",
        [TUNE_PHASE_BISECT] = "bisect",
        [TUNE_PHASE_VERIFY] = "verify",
        [TUNE_PHASE_DONE] = "done",
};

const char *tune_phase_name(enum tune_phase p)
{
        return p < TUNE_PHASE_MAX ? phase_names[p] : "unknown";
}

static uint32_t quantize(const struct tune_search *s, double v)
{
        double q = s->o.quantum ? s->o.quantum : 1;
        double x = round(v / q) * q;

        if (x < s->o.floor)
                x = s->o.floor;
        if (x > s->o.ceiling)
                x = s->o.ceiling;
        return (uint32_t)x;
}

static void done(struct tune_search *s, const char *why)
{
        s->phase = TUNE_PHASE_DONE;
        snprintf(s->why_done, sizeof(s->why_done), "%s", why);
}

void tune_search_init(struct tune_search *s, const struct tune_search_opts *o)
{
        *s = (struct tune_search){ .o = *o };
        if (s->o.growth <= 1)
                s->o.growth = TUNE_GROWTH;
        if (s->o.resolution <= 1)
                s->o.resolution = TUNE_RESOLUTION;
        if (!s->o.floor)
                s->o.floor = 1;
        if (s->o.ceiling < s->o.floor)
                s->o.ceiling = s->o.floor;
        if (s->o.start_holds) {
                s->phase = TUNE_PHASE_BISECT;
                s->lo = s->o.floor > 1 ? s->o.floor - 1 : 0;  /* below the floor: nothing lower is tried */
                s->hi = s->o.start ? s->o.start : s->o.floor;
                s->held[s->n_held++] = s->hi;
        } else {
                s->phase = TUNE_PHASE_GROW;
                s->lo = s->o.start;
        }
}

/* The next value of the growth phase; 0 when the ceiling itself failed. */
static uint32_t next_grow(struct tune_search *s)
{
        double base = s->lo ? s->lo : s->o.floor / s->o.growth;

        if (s->lo >= s->o.ceiling) {
                done(s, "no value up to the ceiling of the search held the target");
                return 0;
        }
        return quantize(s, fmax(base * s->o.growth, s->lo + 1.0));
}

/* Bisection is over: hi once more, unless it is the start measured as it is. */
static uint32_t to_verify(struct tune_search *s, const char *why)
{
        if (s->o.start_holds && s->hi == s->o.start) {
                done(s, why);
                return 0;
        }
        s->phase = TUNE_PHASE_VERIFY;
        snprintf(s->why_done, sizeof(s->why_done), "%s", why);
        return s->hi;
}

/* The next value of the bisection; hi again (verify) when lo and hi are close enough. */
static uint32_t next_bisect(struct tune_search *s)
{
        double lo = s->lo > 0 ? s->lo : 1, mid;
        uint32_t v;

        if (s->hi <= s->o.floor || (double)s->hi <= lo * s->o.resolution)
                return to_verify(s, s->hi <= s->o.floor ? "the floor of the search held the target"
                                                        : "the lowest value that held is within the resolution "
                                                          "of one that failed");
        mid = sqrt(lo * (double)s->hi);
        v = quantize(s, mid);
        if (v <= s->lo || v >= s->hi)
                return to_verify(s, "no value between the highest that failed and the lowest that held is left to "
                                    "try");
        return v;
}

int tune_search_next(struct tune_search *s, uint32_t *ret)
{
        uint32_t v = 0;

        if (s->phase != TUNE_PHASE_DONE && s->n_trials >= s->o.max_trials)
                done(s, !s->hi ? "the trial budget is spent and no value held the target"
                        : s->verified || (s->o.start_holds && s->hi == s->o.start)
                        ? "the trial budget is spent; the lowest value that held stands"
                        : "the trial budget is spent; the lowest value that held stands, not tried again");
        if (s->phase == TUNE_PHASE_GROW)
                v = next_grow(s);
        else if (s->phase == TUNE_PHASE_BISECT)
                v = next_bisect(s);
        else if (s->phase == TUNE_PHASE_VERIFY)
                v = s->hi;
        if (!v)
                return 0;
        s->pending = v;
        s->n_trials++;
        *ret = v;
        return 1;
}

/* The lowest value that held above lo, 0 = none (values disproved are gone from the list). */
static uint32_t lowest_held_above(const struct tune_search *s, uint32_t lo)
{
        uint32_t best = 0;

        for (unsigned i = 0; i < s->n_held; i++)
                if (s->held[i] > lo && (!best || s->held[i] < best))
                        best = s->held[i];
        return best;
}

static void forget(struct tune_search *s, uint32_t value)
{
        for (unsigned i = 0; i < s->n_held; i++)
                if (s->held[i] == value)
                        s->held[i--] = s->held[--s->n_held];
}

/* The winner did not hold again: it counts as failed; the next value that held takes its place. */
static void disproved(struct tune_search *s, uint32_t value)
{
        forget(s, value);
        s->disproved = value;
        s->lo = value > s->lo ? value : s->lo;
        s->hi = lowest_held_above(s, s->lo);
        s->phase = s->hi ? TUNE_PHASE_BISECT : TUNE_PHASE_GROW;
}

void tune_search_judge(struct tune_search *s, uint32_t value, bool held)
{
        if (value != s->pending || s->phase == TUNE_PHASE_DONE)
                return;
        s->pending = 0;
        if (s->phase == TUNE_PHASE_VERIFY) {
                if (held) {
                        s->verified = true;
                        s->phase = TUNE_PHASE_DONE;
                        snprintf(s->why_done + strlen(s->why_done), sizeof(s->why_done) - strlen(s->why_done),
                                 ", and held again");
                } else {
                        disproved(s, value);
                }
                return;
        }
        if (held) {
                s->hi = value;
                s->phase = TUNE_PHASE_BISECT;
                if (s->n_held < TUNE_TRIALS_MAX)
                        s->held[s->n_held++] = value;
        } else if (value > s->lo) {
                s->lo = value;
        }
}

uint32_t tune_search_chosen(const struct tune_search *s)
{
        return s->hi;
}
