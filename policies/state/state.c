/* SPDX-License-Identifier: MIT */
#include "common/util.h"
#include "policies/state/field.h"
#include "policies/state/state.h"

static const char *const trust_names[STATE_TRUST_MAX] = {
        [STATE_TRUST_PCP] = "pcp",
        [STATE_TRUST_DSCP] = "dscp",
        [STATE_TRUST_NONE] = "none",
};

static const char *const tsa_names[STATE_TSA_MAX] = {
        [STATE_TSA_STRICT] = "strict",
        [STATE_TSA_ETS] = "ets",
        [STATE_TSA_VENDOR] = "vendor",
        [STATE_TSA_CBS] = "cbs",
};

static const char *const wd_action_names[STATE_WD_ACTION_MAX] = {
        [STATE_WD_DROP] = "drop",
        [STATE_WD_FORWARD] = "forward",
        [STATE_WD_ALERT] = "alert",
        [STATE_WD_ERRDISABLE] = "errdisable",
        [STATE_WD_NODROP] = "no-drop",
};

static const char *const roce_mode_names[STATE_ROCE_MODE_MAX] = {
        [STATE_ROCE_MODE_V1] = "IB/RoCE v1",
        [STATE_ROCE_MODE_V2] = "RoCE v2",
};

const char *state_roce_mode_name(enum state_roce_mode m)
{
        return (unsigned)m < STATE_ROCE_MODE_MAX ? roce_mode_names[m] : NULL;
}

int state_roce_mode_from_name(const char *name)
{
        for (int m = 1; m < STATE_ROCE_MODE_MAX; m++)
                if (streq(roce_mode_names[m], name))
                        return m;
        return -EINVAL;
}

void state_init(struct state *s)
{
        memset(s, 0, sizeof(*s));
        memset(s->dscp_prio, STATE_DSCP_UNMAPPED, sizeof(s->dscp_prio));
}

const char *state_field_name(enum state_field f)
{
        return (unsigned)f < STATE_FIELD_MAX ? field_table[f].name : NULL;
}

int state_field_from_name(const char *name)
{
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (streq(field_table[f].name, name))
                        return f;
        return -EINVAL;
}

const char *state_trust_name(enum state_trust t)
{
        return (unsigned)t < STATE_TRUST_MAX ? trust_names[t] : "unknown";
}

const char *state_tsa_name(enum state_tsa t)
{
        return (unsigned)t < STATE_TSA_MAX ? tsa_names[t] : "unknown";
}

const char *state_wd_action_name(enum state_wd_action a)
{
        return (unsigned)a < STATE_WD_ACTION_MAX ? wd_action_names[a] : "unknown";
}

int state_wd_action_from_name(const char *name)
{
        for (int a = 0; a < STATE_WD_ACTION_MAX; a++)
                if (streq(wd_action_names[a], name))
                        return a;
        return -EINVAL;
}

void state_dscp_effective(const struct state *s, uint8_t ret[STATE_DSCP_COUNT])
{
        bool any = false;

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                any |= s->dscp_prio[d] != STATE_DSCP_UNMAPPED;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                ret[d] = s->dscp_prio[d] == STATE_DSCP_UNMAPPED && s->dscp_unlisted_zero && any ? 0 : s->dscp_prio[d];
}

bool state_ets_equal(const struct state_ets *want, const struct state_ets *live)
{
        if (memcmp(want->prio_tc, live->prio_tc, sizeof(want->prio_tc)) ||
            memcmp(want->tc_tsa, live->tc_tsa, sizeof(want->tc_tsa)) || want->willing != live->willing)
                return false;
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++)
                if (want->tc_tsa[tc] == STATE_TSA_ETS && want->tc_bw_pct[tc] != live->tc_bw_pct[tc])
                        return false;
        return true;
}

static const char *const qdisc_root_names[STATE_QDISC_ROOT_MAX] = {
        [STATE_QDISC_UNKNOWN] = "unknown",
        [STATE_QDISC_DEFAULT] = "default",
        [STATE_QDISC_NETTUNE] = "nettune",
        [STATE_QDISC_FOREIGN] = "foreign",
};

const char *state_qdisc_root_name(enum state_qdisc_root r)
{
        return (unsigned)r < STATE_QDISC_ROOT_MAX ? qdisc_root_names[r] : "unknown";
}

int state_qdisc_root_from_name(const char *name)
{
        for (int r = 0; r < STATE_QDISC_ROOT_MAX; r++)
                if (streq(qdisc_root_names[r], name))
                        return r;
        return -EINVAL;
}
