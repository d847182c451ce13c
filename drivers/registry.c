/* SPDX-License-Identifier: MIT */
/*
 * The driver registry: adding a host mechanism = one file + one line here; a switch
 * vendor is a dialect in drivers/switch/ (its own table, switch_dialects[]).
 */
#include <stdarg.h>

#include "drivers/driver.h"

extern const struct driver_ops link_driver;
extern const struct driver_ops dcb_driver;
extern const struct driver_ops nic_ecn_driver;
extern const struct driver_ops nic_stall_driver;
extern const struct driver_ops roce_tos_driver;
extern const struct driver_ops nccl_conf_driver;
extern const struct driver_ops qdisc_driver;
extern const struct driver_ops dcb_buffer_driver;
extern const struct driver_ops switch_driver;

const struct driver_ops *const driver_table[] = {
        &link_driver,
        &dcb_driver,
        &nic_ecn_driver,
        &nic_stall_driver,
        &roce_tos_driver,
        &nccl_conf_driver,
        &qdisc_driver,
        &dcb_buffer_driver,             /* after pfc (dcb) and a Linux switch's root qdisc (its buffer mode) */
        &switch_driver,
        NULL,
};

unsigned driver_select(const struct driver_ops *const *table, enum target_kind kind, uint32_t fields,
                       const struct driver_ops **ret, unsigned max)
{
        unsigned n = 0;

        for (const struct driver_ops *const *d = table; *d; d++)
                if ((*d)->kind == kind && ((*d)->fields & fields) && n < max)
                        ret[n++] = *d;
        return n;
}

const char *target_kind_name(enum target_kind k)
{
        return k == TARGET_SWITCH ? "switch" : "interface";
}

void driver_note(const struct target *t, const char *fmt, ...)
{
        struct driver_io *io = t ? t->io : NULL;
        char text[DRIVER_NOTE_MAX];
        va_list ap;

        if (!io)
                return;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        for (unsigned i = 0; i < io->n_notes; i++)
                if (streq(io->notes[i], text))
                        return;
        if (io->n_notes < DRIVER_NOTES_MAX)
                snprintf(io->notes[io->n_notes++], DRIVER_NOTE_MAX, "%s", text);
}
