/* SPDX-License-Identifier: MIT */
#include "state.h"
#include "util.h"

static const char *const field_names[STATE_FIELD_MAX] = {
        [STATE_FIELD_MTU] = "mtu",
        [STATE_FIELD_TRUST] = "trust",
        [STATE_FIELD_DSCP_MAP] = "dscp_to_priority",
        [STATE_FIELD_PFC] = "pfc",
        [STATE_FIELD_ETS] = "ets",
        [STATE_FIELD_ECN] = "ecn",
        [STATE_FIELD_HOST_ECN] = "host_ecn",
};

static const char *const trust_names[STATE_TRUST_MAX] = {
        [STATE_TRUST_PCP] = "pcp",
        [STATE_TRUST_DSCP] = "dscp",
};

static const char *const tsa_names[STATE_TSA_MAX] = {
        [STATE_TSA_STRICT] = "strict",
        [STATE_TSA_ETS] = "ets",
        [STATE_TSA_VENDOR] = "vendor",
};

void state_init(struct state *s)
{
        memset(s, 0, sizeof(*s));
        memset(s->dscp_prio, STATE_DSCP_UNMAPPED, sizeof(s->dscp_prio));
}

const char *state_field_name(enum state_field f)
{
        return (unsigned)f < STATE_FIELD_MAX ? field_names[f] : NULL;
}

int state_field_from_name(const char *name)
{
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (streq(field_names[f], name))
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
