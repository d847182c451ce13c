/* SPDX-License-Identifier: MIT */
#include "field.h"
#include "state.h"
#include "util.h"

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
