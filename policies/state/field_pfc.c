/* SPDX-License-Identifier: MIT */
/*
 * The field table's rows for the two PFC storm knobs (field.h): a switch port's PFC
 * watchdog (pfc.watchdog) and a NIC's PFC stall prevention timeout
 * (pfc.nic_stall_timeout_ms).
 *
 * Watchdog: a policy that turns it off compares only whether it runs. One that turns
 * it on compares that it runs, the priorities it covers (the policy's pfc
 * priorities) and every member the policy declares; a member it does not declare is
 * not managed and never compared, so it is never a change and never written (the
 * poll interval stays where it is unless poll_interval_ms is declared). A snapshot of
 * a port without a watchdog (off, with the members the device reported) compares
 * those too: a restore puts back the switch-wide settings and the coverage as they were.
 */
#include <stdarg.h>

#include "common/util.h"
#include "policies/state/field.h"
#include "policies/state/field_internal.h"

struct wd_member {
        uint8_t bit;
        const char *key;
};

static const struct wd_member wd_members[] = {
        { STATE_WD_DETECTION, "detection_ms" },
        { STATE_WD_RESTORATION, "restoration_ms" },
        { STATE_WD_ACTION, "action" },
        { STATE_WD_POLL, "poll_interval_ms" },
};

static const char *wd_value(char *buf, size_t size, const struct state_pfc_wd *w, uint8_t bit)
{
        switch (bit) {
        case STATE_WD_DETECTION: return fmt_u(buf, size, w->detection_ms);
        case STATE_WD_RESTORATION: return w->restoration_ms ? fmt_u(buf, size, w->restoration_ms) : "none";
        case STATE_WD_ACTION: return state_wd_action_name(w->action);
        default: return fmt_u(buf, size, w->poll_ms);
        }
}

/* Does the live side describe this member? The poll interval is switch-wide: known on a port without a watchdog. */
static bool wd_live_has(const struct state_pfc_wd *l, uint8_t bit)
{
        return (l->has & bit) && (l->enabled || bit == STATE_WD_POLL);
}

int field_diff_pfc_wd(struct diff *d, const char *prefix, const struct state *want_s, const struct state *live_s)
{
        const struct state_pfc_wd *w = &want_s->pfc_wd, *l = &live_s->pfc_wd;
        char key[DIFF_KEY_MAX], a[24], b[24];
        int r;

        bool snapshot = !w->enabled && w->has;

        if (w->enabled != l->enabled)
                r = diff_add(d, STATE_FIELD_PFC_WATCHDOG, keyf(key, prefix, "pfc.watchdog.enabled"), fmt_bool(l->enabled),
                             fmt_bool(w->enabled));
        else
                r = 0;
        if (!w->enabled && !snapshot)
                return r;
        if (r >= 0)
                r = diff_opt(d, STATE_FIELD_PFC_WATCHDOG, keyf(key, prefix, "pfc.watchdog.priorities"),
                             l->enabled || snapshot, fmt_bits(a, sizeof(a), l->prios), fmt_bits(b, sizeof(b), w->prios));
        for (size_t i = 0; i < ARRAY_SIZE(wd_members) && r >= 0; i++) {
                uint8_t bit = wd_members[i].bit;

                if (w->has & bit)
                        r = diff_opt(d, STATE_FIELD_PFC_WATCHDOG, keyf(key, prefix, "pfc.watchdog.%s", wd_members[i].key),
                                     snapshot ? (l->has & bit) != 0 : wd_live_has(l, bit),
                                     wd_value(a, sizeof(a), l, bit), wd_value(b, sizeof(b), w, bit));
        }
        return r;
}

void field_copy_pfc_wd(struct state *to, const struct state *from)
{
        to->pfc_wd = from->pfc_wd;
}

static int wd_problem(struct field_problem *ret, const char *member, const char *fmt, ...) _printf_(3, 4);
static int wd_problem(struct field_problem *ret, const char *member, const char *fmt, ...)
{
        va_list ap;

        snprintf(ret->member, sizeof(ret->member), "%s", member);
        ret->index = -1;
        va_start(ap, fmt);
        vsnprintf(ret->msg, sizeof(ret->msg), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/*
 * A watchdog that runs covers priorities (the policy's pfc priorities), and it looks at
 * a queue once per poll: it cannot find a storm, or its end, in less than one poll
 * (SONiC's sonic-pfcwd.yang: detection_time and restoration_time must be >=
 * POLL_INTERVAL; NVUE: detection is robustness x polling-interval).
 */
int field_check_pfc_wd(const struct state *s, struct field_problem *ret)
{
        const struct state_pfc_wd *w = &s->pfc_wd;

        if (!w->enabled)
                return 0;
        if (!w->prios)
                return wd_problem(ret, "", "the watchdog covers the pfc priorities and pfc.priorities is empty; "
                                  "give the lossless priorities, or \"enabled\": false");
        if ((w->has & STATE_WD_POLL) && (w->has & STATE_WD_DETECTION) && w->poll_ms > w->detection_ms)
                return wd_problem(ret, "poll_interval_ms", "poll_interval_ms %u is longer than detection_ms %u: the "
                                  "watchdog looks once per poll", w->poll_ms, w->detection_ms);
        if ((w->has & STATE_WD_POLL) && (w->has & STATE_WD_RESTORATION) && w->poll_ms > w->restoration_ms)
                return wd_problem(ret, "poll_interval_ms", "poll_interval_ms %u is longer than restoration_ms %u: the "
                                  "watchdog looks once per poll", w->poll_ms, w->restoration_ms);
        return 0;
}

/* ---- pfc.nic_stall_timeout_ms ---- */

static const char *stall_value(char *buf, size_t size, uint16_t ms)
{
        return ms == STATE_NIC_STALL_AUTO ? "auto" : fmt_u(buf, size, ms);
}

/* "auto" is met by the value the device reads back for it (mlx5: 100 ms; GET never returns 0xffff). */
static bool stall_equal(const struct state *want, const struct state *live)
{
        if (want->nic_stall_ms == STATE_NIC_STALL_AUTO)
                return live->nic_stall_auto_ms && live->nic_stall_ms == live->nic_stall_auto_ms;
        return want->nic_stall_ms == live->nic_stall_ms;
}

int field_diff_nic_stall(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX], a[24], b[24];

        if (stall_equal(want, live))
                return 0;
        return diff_add(d, STATE_FIELD_NIC_STALL, keyf(key, prefix, "pfc.nic_stall_timeout_ms"),
                        stall_value(a, sizeof(a), live->nic_stall_ms), stall_value(b, sizeof(b), want->nic_stall_ms));
}

void field_copy_nic_stall(struct state *to, const struct state *from)
{
        to->nic_stall_ms = from->nic_stall_ms;
        to->nic_stall_auto_ms = from->nic_stall_auto_ms;
}
