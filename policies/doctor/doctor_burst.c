/* SPDX-License-Identifier: MIT */
/*
 * pause_burst: a burst of pause the agent's counter sampler saw (drivers/host/sampler.h:
 * samples of counters.sample_ms at or above 1000 pause frames/s, or paused half the
 * sample), at least pause_burst_min_ms long, on a port whose pause over the whole window
 * stays under pause_storm's bound: the window's mean hides it, so pause_storm cannot
 * name it. One finding per interface, priority and direction, the longest burst its
 * evidence (twelve entries: what the watchdog is, pause_storm's and watchdog_missing's
 * evidence, is left to them).
 */
#include <math.h>
#include <time.h>

#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"

/* "12:00:01.230Z" of a wall clock instant in ms, and the date in front for the evidence. */
static void at_of(int64_t ms, char *buf, size_t size, bool date)
{
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        char s[32];

        gmtime_r(&t, &tm);
        strftime(s, sizeof(s), date ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
        snprintf(buf, size, "%s.%03dZ", s, (int)(ms % 1000));
}

/*
 * The longest burst of (kind, prio) on x that qualifies (a duration counter's before a
 * frame counter's of the same length), and how many bursts its counter saw (the frame
 * and the duration counter of one priority see the same bursts: counted once).
 */
static const struct doctor_burst *longest(const struct doctor_iface *x, unsigned kind, int prio, unsigned min_ms,
                                          unsigned *ret_n)
{
        const struct doctor_burst *best = NULL;

        *ret_n = 0;
        for (unsigned i = 0; i < x->n_bursts; i++) {
                const struct doctor_burst *b = &x->bursts[i];

                if (b->kind != kind || b->prio != prio || b->length_ms < min_ms)
                        continue;
                if (!best || b->length_ms > best->length_ms ||
                    (b->length_ms == best->length_ms && b->duration && !best->duration))
                        best = b;
        }
        for (unsigned i = 0; best && i < x->n_bursts; i++)
                *ret_n += x->bursts[i].length_ms >= min_ms && streq(x->bursts[i].name, best->name);
        return best;
}

static void burst_finding(const struct doctor_rule *rule, const struct doctor_params *p, struct doctor_report *r,
                          const struct doctor_node *n, const struct doctor_iface *x, const struct doctor_burst *b,
                          unsigned count, double mean)
{
        struct doctor_finding *f = doctor_finding_add(r, rule);
        const char *dir = b->kind == DOCTOR_PAUSE_RX ? "received" : "sent";
        char at[40], day[40], prio[32] = "the link";

        if (!f)
                return;
        at_of(b->start_ms, at, sizeof(at), false);
        at_of(b->start_ms, day, sizeof(day), true);
        if (b->prio != DOCTOR_PRIO_ANY)
                snprintf(prio, sizeof(prio), "priority %d", b->prio);
        doctor_finding_node(f, n->name);
        doctor_finding_port(f, n->name, x->name);
        if (b->duration)
                snprintf(f->summary, sizeof(f->summary), "%s paused %.0f ms of %u ms at %s on %s (pause %s; the "
                         "window's mean %.0f pause frames/s stays under the bound %.0f)", prio,
                         (double)b->count / 1000, b->length_ms, at, x->name, dir, mean, p->pause_storm_pps);
        else
                snprintf(f->summary, sizeof(f->summary), "%s: %.0f pause frames %s in %u ms at %s on %s (up to "
                         "%.0f/s; the window's mean %.0f/s stays under the bound %.0f)", prio, (double)b->count, dir,
                         b->length_ms, at, x->name, b->peak_per_s, mean, p->pause_storm_pps);
        doctor_ev_str(f, "interface", "%s", x->name);
        if (b->prio != DOCTOR_PRIO_ANY)
                doctor_ev_num(f, "priority", b->prio);
        doctor_ev_str(f, "direction", "%s", b->kind == DOCTOR_PAUSE_RX ? "rx" : "tx");
        doctor_ev_str(f, "counter", "%s", b->name);
        doctor_ev_str(f, "start", "%s", day);
        doctor_ev_num(f, "length_ms", b->length_ms);
        if (b->duration) {
                doctor_ev_num(f, "paused_ms", round((double)b->count / 100) / 10);
                doctor_ev_num(f, "paused_share_peak", round(b->peak_per_s * 1000) / 1000);
        } else {
                doctor_ev_num(f, "pause_frames", (double)b->count);
                doctor_ev_num(f, "pause_peak_per_s", round(b->peak_per_s));
        }
        doctor_ev_num(f, "window_mean_per_s", round(mean * 10) / 10);
        doctor_ev_num(f, "sample_ms", n->sample_ms);
        doctor_ev_num(f, "bursts", count);
        doctor_ev_num(f, "bound_per_s", p->pause_storm_pps);
        snprintf(f->fix, sizeof(f->fix), "a pause storm of milliseconds: find the incast or the slow receiver behind "
                 "it (ECN marking too late: ecn_threshold_low; a receiver that stalls); a PFC watchdog of 100 ms or "
                 "more does not see a burst this short");
}

void doctor_check_pause_burst(const struct doctor_rule *rule, const struct doctor_facts *f,
                              const struct doctor_params *p, struct doctor_report *r)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && k < n->n_ifs; k++) {
                        const struct doctor_iface *x = &n->ifs[k];

                        for (unsigned kind = DOCTOR_PAUSE_RX; kind <= DOCTOR_PAUSE_TX; kind++)
                                for (int prio = DOCTOR_PRIO_ANY; prio < STATE_TC_COUNT; prio++) {
                                        unsigned count;
                                        const struct doctor_burst *b = longest(x, kind, prio, p->pause_burst_min_ms,
                                                                               &count);
                                        bool known;
                                        double mean = doctor_rate_sum(&x->rates, kind, prio, &known);

                                        /* a mean at the bound is pause_storm's finding */
                                        if (b && !(known && mean >= p->pause_storm_pps))
                                                burst_finding(rule, p, r, n, x, b, count, known ? mean : 0);
                                }
                }
        }
}
