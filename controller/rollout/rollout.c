/* SPDX-License-Identifier: MIT */
/* Wave planning and failure-budget arithmetic. */
#include <limits.h>
#include <stdio.h>

#include "controller/rollout/rollout.h"

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
