/* SPDX-License-Identifier: MIT */
/* The driver registry: adding a mechanism or a switch vendor = one file + one line here. */
#include "driver.h"

extern const struct driver_ops link_driver;
extern const struct driver_ops dcb_driver;
extern const struct driver_ops nic_ecn_driver;
extern const struct driver_ops qdisc_driver;
extern const struct driver_ops switch_nvue_driver;
extern const struct driver_ops switch_sonic_driver;
extern const struct driver_ops switch_eos_driver;

const struct driver_ops *const driver_table[] = {
        &link_driver,
        &dcb_driver,
        &nic_ecn_driver,
        &qdisc_driver,
        &switch_nvue_driver,
        &switch_sonic_driver,
        &switch_eos_driver,
        NULL,
};

unsigned driver_select(enum target_kind kind, uint32_t fields,
                       const struct driver_ops **ret, unsigned max)
{
        unsigned n = 0;

        for (const struct driver_ops *const *d = driver_table; *d; d++)
                if ((*d)->kind == kind && ((*d)->fields & fields) && n < max)
                        ret[n++] = *d;
        return n;
}

const struct driver_ops *driver_for_dialect(const char *dialect)
{
        for (const struct driver_ops *const *d = driver_table; *d; d++)
                if ((*d)->kind == TARGET_SWITCH && streq((*d)->name, dialect))
                        return *d;
        return NULL;
}
