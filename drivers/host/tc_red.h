/* SPDX-License-Identifier: MIT */
/*
 * RED parameters for one ECN queue, computed the way iproute2's tc computes them
 * (tc/q_red.c red_parse_opt, tc/tc_red.c tc_red_eval_*), from what a policy says:
 * min/max threshold in bytes and a marking probability in percent.
 *
 *   avpkt      1000 bytes (the value tc-red(8) recommends)
 *   burst      (2 * min + max) / (3 * avpkt), tc's default, raised to min / avpkt + 1
 *              where tc's default is too small (tc then fails and suggests that value)
 *   Wlog       tc_red_eval_ewma(min, burst, avpkt) (1 when min is below one avpkt: then
 *              no burst converges and tc fails), lowered until the kernel accepts it:
 *              fls(max) + Wlog < 32 (include/net/red.h red_check_params), and until the
 *              idle damping table can be computed
 *   Plog       tc_red_eval_P(min, max, p); informational, the kernel uses max_P
 *   max_P      p * 2^32 truncated as tc does; 100% = 0xffffffff (tc's double-to-u32 of
 *              2^32 is undefined, x86 gives 0 and the kernel then derives max_P from Plog)
 *   Scell_log  tc_red_eval_idle_damping(Wlog, avpkt, rate, stab), psched ticks of 64 ns
 *              (/proc/net/psched of every kernel since 2.6.3x); a transmit time below one
 *              tick counts as one (tc would divide by zero)
 *   limit      4 * max, at least 64 KiB: the hard bound of the queue (mlxsw ignores it)
 *   flags      TC_RED_ECN when marking is on
 *
 * Read back, the kernel returns min and max exactly (qth >> Wlog of what it stored as
 * qth << Wlog) and max_P as given, so tc_red_pct(max_P) is the percent asked for.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TC_RED_AVPKT 1000u
#define TC_RED_LIMIT_MIN (64u * 1024)
#define TC_RED_STAB_SIZE 256
#define TC_RED_TICKS_PER_US 15.625      /* 1 psched tick = 64 ns */

struct tc_red_params {
        uint32_t limit;
        uint32_t qth_min;
        uint32_t qth_max;
        uint8_t wlog;
        uint8_t plog;
        uint8_t scell_log;
        uint8_t stab[TC_RED_STAB_SIZE];
        uint32_t max_p;
        uint32_t flags;                 /* TC_RED_ECN or 0 */
};

/*
 * Parameters for min <= max bytes (1 .. 2^26), pct 1..100, the port's rate in
 * bytes per second (idle damping). -EINVAL when the inputs are out of range.
 */
int tc_red_eval(uint32_t min_bytes, uint32_t max_bytes, unsigned pct, bool ecn, uint64_t rate_Bps,
                struct tc_red_params *ret);

/* The steps on their own (tests compare them with tc's arithmetic). -1 when there is none. */
int tc_red_eval_ewma(uint32_t qmin, uint32_t burst, uint32_t avpkt);
int tc_red_eval_p(uint32_t qmin, uint32_t qmax, double prob);
int tc_red_eval_idle_damping(int wlog, uint32_t avpkt, uint64_t rate_Bps, uint8_t *stab);

/* pct <-> max_P: 100% is 0xffffffff; tc_red_pct rounds to the nearest percent, so it gives
 * back every pct that tc_red_max_p encoded (they lie 1% = 42949672 apart). */
uint32_t tc_red_max_p(unsigned pct);
unsigned tc_red_pct(uint32_t max_p);
