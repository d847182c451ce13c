/* SPDX-License-Identifier: MIT */
/* The model's vocabulary: state names as stored, a rollout's default options, its counts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "controller/model/model.h"

static const char *const rnode_names[RNODE_STATE_MAX] = {
        [RNODE_PLANNED] = "planned",
        [RNODE_APPLYING] = "applying",
        [RNODE_PENDING] = "pending",
        [RNODE_COMMITTED] = "committed",
        [RNODE_FAILED] = "failed",
        [RNODE_UNREACHABLE] = "unreachable",
        [RNODE_ROLLED_BACK] = "rolled_back",
        [RNODE_REVERTED] = "reverted",
        [RNODE_SKIPPED] = "skipped",
        [RNODE_CANCELLED] = "cancelled",
        [RNODE_UNKNOWN] = "unknown",
        [RNODE_RESTORED] = "restored",
        [RNODE_ALREADY_THERE] = "already_there",
        [RNODE_REFUSED] = "refused",
};

static const char *const rollout_names[ROLLOUT_STATE_MAX] = {
        [ROLLOUT_RUNNING] = "running",
        [ROLLOUT_COMPLETED] = "completed",
        [ROLLOUT_HALTED] = "halted",
        [ROLLOUT_PENDING] = "pending",
        [ROLLOUT_ABORTED] = "aborted",
};

static const char *const rwave_names[RWAVE_STATE_MAX] = {
        [RWAVE_PLANNED] = "planned",
        [RWAVE_APPLYING] = "applying",
        [RWAVE_PASSED] = "passed",
        [RWAVE_DONE] = "done",
        [RWAVE_HALTED] = "halted",
};

void rollout_opts_defaults(struct rollout_opts *o)
{
        *o = (struct rollout_opts) {
                .canary = 1,
                .wave_size = { .value = 25, .pct = true },
                .max_unavailable = { .value = 0, .pct = false },
                .confirm_timeout_s = 120,
                .halt_scope = ROLLOUT_HALT_WAVE,
                .fabric_neighbours = -1,
                .max_regression_pct = -1,
        };
}

static int from_name(const char *const *names, int n, const char *s)
{
        for (int i = 0; i < n; i++)
                if (streq(names[i], s))
                        return i;
        return -EINVAL;
}

const char *rnode_state_name(enum rnode_state s)
{
        return s < RNODE_STATE_MAX ? rnode_names[s] : "unknown";
}

int rnode_state_from_name(const char *s)
{
        return from_name(rnode_names, RNODE_STATE_MAX, s);
}

const char *rollout_state_name(enum rollout_state s)
{
        return s < ROLLOUT_STATE_MAX ? rollout_names[s] : "unknown";
}

int rollout_state_from_name(const char *s)
{
        return from_name(rollout_names, ROLLOUT_STATE_MAX, s);
}

const char *rwave_state_name(enum rwave_state s)
{
        return s < RWAVE_STATE_MAX ? rwave_names[s] : "unknown";
}

int rwave_state_from_name(const char *s)
{
        return from_name(rwave_names, RWAVE_STATE_MAX, s);
}

bool rnode_state_final(enum rnode_state s)
{
        return s != RNODE_PLANNED && s != RNODE_APPLYING && s != RNODE_PENDING;
}

void rollout_rec_count_states(const struct rollout_rec *r, unsigned counts[RNODE_STATE_MAX])
{
        memset(counts, 0, sizeof(unsigned) * RNODE_STATE_MAX);
        for (unsigned i = 0; i < r->n_nodes; i++)
                counts[r->nodes[i].state]++;
}

void rollout_rec_free(struct rollout_rec *r)
{
        if (!r)
                return;
        free(r->policy_doc);
        free(r->args);
        free(r->nodes);
        free(r->waves);
        free(r);
}
