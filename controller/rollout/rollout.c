/* SPDX-License-Identifier: MIT */
/* Wave planning and failure-budget arithmetic. */
#include <limits.h>
#include <stdio.h>

#include "controller/rollout/rollout.h"

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
        };
}

int rollout_count_parse(const char *s, struct rollout_count *ret)
{
        unsigned long v;
        char *end;

        if (!s || !*s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || v > 100000)
                return -ERANGE;
        if (streq(end, "%")) {
                if (v > 100)
                        return -ERANGE;
                *ret = (struct rollout_count) { .value = (unsigned)v, .pct = true };
                return 0;
        }
        if (*end)
                return -EINVAL;
        *ret = (struct rollout_count) { .value = (unsigned)v, .pct = false };
        return 0;
}

const char *rollout_count_str(struct rollout_count c, char *buf, unsigned size)
{
        snprintf(buf, size, "%u%s", c.value, c.pct ? "%" : "");
        return buf;
}

unsigned rollout_wave_size(struct rollout_count c, unsigned n)
{
        unsigned long long v = c.pct ? ((unsigned long long)c.value * n + 99) / 100 : c.value;

        return v == 0 ? 1 : (unsigned)(v > UINT_MAX ? UINT_MAX : v);
}

unsigned rollout_budget(struct rollout_count c, unsigned n)
{
        if (c.pct)
                return (unsigned)((unsigned long long)c.value * n / 100);
        return c.value;
}

unsigned rollout_plan(const struct rollout_opts *o, unsigned n, unsigned *ret_wave)
{
        unsigned canary = o->canary < n ? o->canary : n;
        unsigned size = rollout_wave_size(o->wave_size, n);
        unsigned wave = 0, in_wave = 0;

        if (n == 0)
                return 0;
        for (unsigned i = 0; i < canary; i++)
                ret_wave[i] = 0;
        if (canary > 0 && canary < n)
                wave = 1;
        for (unsigned i = canary; i < n; i++) {
                if (in_wave == size) {
                        wave++;
                        in_wave = 0;
                }
                ret_wave[i] = wave;
                in_wave++;
        }
        return wave + 1;
}

bool rollout_should_halt(const struct rollout_opts *o, unsigned n_selected, bool canary_wave,
                         unsigned failed_in_wave, unsigned failed_total)
{
        if (canary_wave && failed_in_wave > 0)
                return true;
        return failed_total > rollout_budget(o->max_unavailable, n_selected);
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
