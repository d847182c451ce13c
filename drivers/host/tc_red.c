/* SPDX-License-Identifier: MIT */
/* RED parameters from bytes and a percentage, with tc's arithmetic (see tc_red.h). */
#include <errno.h>
#include <linux/pkt_sched.h>
#include <math.h>
#include <string.h>

#include "drivers/host/tc_red.h"

#define ECN_BYTES_MAX (64u * 1024 * 1024)

/* Plog: the smallest i with prob / (qmax - qmin) * 2^i > 1. */
int tc_red_eval_p(uint32_t qmin, uint32_t qmax, double prob)
{
        int i;

        if (qmax <= qmin)
                return -1;
        prob /= (double)(qmax - qmin);
        for (i = 0; i < 32; i++) {
                if (prob > 1.0)
                        break;
                prob *= 2;
        }
        return i >= 32 ? -1 : i;
}

/* Wlog: the first W = 2^-wlog with burst + 1 - qmin/avpkt <= (1 - (1-W)^burst) / W. */
int tc_red_eval_ewma(uint32_t qmin, uint32_t burst, uint32_t avpkt)
{
        double w = 0.5, a = (double)burst + 1 - (double)qmin / avpkt;

        if (a < 1.0)
                return -1;
        for (int wlog = 1; wlog < 32; wlog++, w /= 2)
                if (a <= (1 - pow(1 - w, burst)) / w)
                        return wlog;
        return -1;
}

/* tc_calc_xmittime: microseconds truncated, then ticks truncated, as tc does. */
static double xmit_ticks(uint64_t rate_Bps, uint32_t size)
{
        unsigned us = (unsigned)(1000000.0 * ((double)size / (double)rate_Bps));
        unsigned ticks = (unsigned)(us * TC_RED_TICKS_PER_US);

        return ticks ? ticks : 1;
}

/* stab[t >> Scell_log] = -log(1 - W) * t / xmit_time, at most 31. */
int tc_red_eval_idle_damping(int wlog, uint32_t avpkt, uint64_t rate_Bps, uint8_t *stab)
{
        double lw = -log(1.0 - 1.0 / (double)(1u << wlog)) / xmit_ticks(rate_Bps, avpkt);
        double maxtime = 31 / lw;
        int clog;

        for (clog = 0; clog < 32; clog++)
                if (maxtime / (double)(1ull << clog) < 512)
                        break;
        if (clog >= 32)
                return -1;
        stab[0] = 0;
        for (int i = 1; i < 255; i++) {
                double x = (double)((uint64_t)i << clog) * lw;

                stab[i] = x >= 31 ? 31 : (uint8_t)x;
        }
        stab[255] = 31;
        return clog;
}

/* tc's p * 2^32 truncated; 100% (2^32 does not fit) is the largest u32. */
uint32_t tc_red_max_p(unsigned pct)
{
        if (pct >= 100)
                return UINT32_MAX;
        return (uint32_t)((double)pct / 100.0 * 4294967296.0);
}

unsigned tc_red_pct(uint32_t max_p)
{
        return (unsigned)llround((double)max_p * 100.0 / 4294967296.0);
}

static int fls32(uint32_t x)
{
        return x ? 32 - __builtin_clz(x) : 0;
}

int tc_red_eval(uint32_t min_bytes, uint32_t max_bytes, unsigned pct, bool ecn, uint64_t rate_Bps,
                struct tc_red_params *ret)
{
        struct tc_red_params p = { .qth_min = min_bytes, .qth_max = max_bytes };
        uint32_t burst;
        int wlog, plog, clog;

        if (!min_bytes || min_bytes > max_bytes || max_bytes > ECN_BYTES_MAX || !pct || pct > 100 || !rate_Bps)
                return -EINVAL;
        burst = (2 * min_bytes + max_bytes) / (3 * TC_RED_AVPKT);
        if ((double)burst + 1 - (double)min_bytes / TC_RED_AVPKT < 1.0)
                burst = min_bytes / TC_RED_AVPKT + 1;
        wlog = tc_red_eval_ewma(min_bytes, burst, TC_RED_AVPKT);
        if (wlog < 0)
                wlog = 1;       /* min below one average packet: no burst converges, follow the queue */
        if (fls32(max_bytes) + wlog >= 32)
                wlog = 31 - fls32(max_bytes);
        plog = tc_red_eval_p(min_bytes, max_bytes > min_bytes ? max_bytes : min_bytes + 1, pct / 100.0);
        while ((clog = tc_red_eval_idle_damping(wlog, TC_RED_AVPKT, rate_Bps, p.stab)) < 0 && wlog > 1)
                wlog--;
        if (clog < 0)
                return -EINVAL;
        p.wlog = (uint8_t)wlog;
        p.plog = (uint8_t)(plog < 0 ? 31 : plog);
        p.scell_log = (uint8_t)clog;
        p.max_p = tc_red_max_p(pct);
        p.limit = max_bytes > TC_RED_LIMIT_MIN / 4 ? max_bytes * 4 : TC_RED_LIMIT_MIN;
        p.flags = ecn ? TC_RED_ECN : 0;
        *ret = p;
        return 0;
}
