/* SPDX-License-Identifier: MIT */
/*
 * Pause bursts on a device's clock (control "burst" and "burst-tx"): PFC XOFF frames on
 * one priority at a rate for some milliseconds, and what the MAC counts of them, for
 * the drivers' ethtool statistics to show under their own names.
 *
 * How the counters move (IEEE 802.1Qbb clause 36 over IEEE 802.3 Annex 31B): a PFC frame
 * carries, per priority, a pause time in quanta of 512 bit times; a peer keeping a
 * priority paused sends XOFF with the largest time (0xffff quanta: 335.5 us at 100 Gb/s)
 * and refreshes it before it runs out, then XON (time 0) when its buffer drains. So over
 * a burst of R frames/s on a link of S b/s:
 *   - the frame counter climbs at R (mlx5 rx_prio[p]_pause "the number of pause packets
 *     received with priority p", ice rx_priority_%u_xoff, bnxt rx_pfc_ena_frames_pri%u);
 *   - the duration counter at min(1, R x 0xffff x 512 / S) of the time, in microseconds
 *     (mlx5 counters.rst rx_prio[p]_pause_duration "the duration of pause received (in
 *     microSec) ... the time the port did not send any traffic on this priority"; bnxt
 *     pfc_pri%d_rx_duration_us); ice has none;
 *   - the transition counter by one when the burst ends, the peer's XON (mlx5
 *     rx_prio[p]_pause_transition "the number of times a transition from Xoff to Xon";
 *     bnxt pfc_pri%d_rx_transitions; ice rx_priority_%u_xon counts the XON frame).
 * The values are those at the moment of the read, interpolated on the model's clock
 * (nm_now_ms): a read 10 ms into a 50 ms burst sees a fifth of it.
 */
#include <errno.h>

#include "tests/nicmodel/nicmodel.h"

#define QUANTA_MAX 0xffffull
#define QUANTUM_BITS 512ull

/* The share of the time a burst of pps frames holds the link paused (0-1). */
static double paused_share(const struct nm_dev *d, uint32_t pps)
{
        double bps = (d->speed_mbps ? d->speed_mbps : NM_SPEED_MBPS) * 1e6;
        double share = pps * (double)(QUANTA_MAX * QUANTUM_BITS) / bps;

        return share > 1 ? 1 : share;
}

/* A burst's counts over elapsed_ms of it. */
static void burst_counts(const struct nm_dev *d, uint32_t pps, uint64_t elapsed_ms, uint64_t *frames, uint64_t *us)
{
        *frames = (uint64_t)pps * elapsed_ms / 1000;
        *us = (uint64_t)(elapsed_ms * 1000 * paused_share(d, pps));
}

/* Fold a burst that ended into the totals. */
static void settle(struct nm_dev *d, unsigned dir, unsigned prio, uint64_t now)
{
        struct nm_pause *p = &d->pause;
        uint64_t frames, us;

        if (!p->pps[dir][prio] || now < p->until_ms[dir][prio])
                return;
        burst_counts(d, p->pps[dir][prio], p->until_ms[dir][prio] - p->since_ms[dir][prio], &frames, &us);
        p->frames[dir][prio] += frames;
        p->us[dir][prio] += us;
        p->transitions[dir][prio]++;
        p->pps[dir][prio] = 0;
}

int nm_pause_burst(struct nm *m, struct nm_dev *d, bool tx, unsigned prio, uint32_t pps, unsigned ms)
{
        uint64_t now = nm_now_ms();
        unsigned dir = tx;

        if (prio > 7 || !pps || !ms)
                return -EINVAL;
        settle(d, dir, prio, now);
        if (d->pause.pps[dir][prio])
                return -EBUSY;          /* one burst at a time per priority and direction */
        d->pause.pps[dir][prio] = pps;
        d->pause.since_ms[dir][prio] = now;
        d->pause.until_ms[dir][prio] = now + ms;
        nm_logf(m, "%s: %s pause burst on priority %u: %u frames/s for %u ms (paused %.0f%%)", d->name,
                tx ? "tx" : "rx", prio, pps, ms, paused_share(d, pps) * 100);
        return 0;
}

void nm_pause_now(const struct nm_dev *d, bool tx, unsigned prio, uint64_t *frames, uint64_t *us,
                  uint64_t *transitions)
{
        const struct nm_pause *p = &d->pause;
        unsigned dir = tx;
        uint64_t now = nm_now_ms(), f = 0, u = 0, t = 0;

        if (p->pps[dir][prio]) {
                uint64_t until = p->until_ms[dir][prio];

                burst_counts(d, p->pps[dir][prio], (now < until ? now : until) - p->since_ms[dir][prio], &f, &u);
                t = now >= until;
        }
        *frames = p->frames[dir][prio] + f;
        *us = p->us[dir][prio] + u;
        *transitions = p->transitions[dir][prio] + t;
}
