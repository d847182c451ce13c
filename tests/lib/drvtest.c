/* SPDX-License-Identifier: MIT */
#include "policies/state/field.h"
#include "tests/lib/drvtest.h"

static int reconcile(const struct driver_ops *ops, struct target *t, const struct state *desired, bool restore,
                     struct errbuf *e)
{
        struct state live;
        struct diff d = { 0 };
        uint32_t delta;
        struct driver_change c;
        int r;

        state_init(&live);
        r = ops->read(t, desired->present & ops->fields, &live, e);
        if (r < 0)
                return r;
        if (state_diff(desired, &live, &d) < 0)
                return -ENOMEM;
        delta = d.fields & ops->fields;
        diff_done(&d);
        c = (struct driver_change){ .n_units = 1, .desired = desired, .live = &live, .delta = &delta,
                                    .fields = delta, .owned = ops->fields };
        if (!restore && ops->check && delta && (r = ops->check(t, &c, e)) < 0)
                return r;
        if (restore && ops->restore)
                return ops->restore(t, &c, e);
        return delta ? ops->apply(t, &c, e) : 0;
}

int drvtest_apply(const struct driver_ops *ops, struct target *t, const struct state *desired, struct errbuf *e)
{
        return reconcile(ops, t, desired, false, e);
}

int drvtest_restore(const struct driver_ops *ops, struct target *t, const struct state *snapshot,
                    struct errbuf *e)
{
        return reconcile(ops, t, snapshot, true, e);
}
