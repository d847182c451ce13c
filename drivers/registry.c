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

void *driver_io_find(const struct driver_io *io, const struct driver_io_ops *ops)
{
        for (unsigned i = 0; io && i < io->n_parts; i++)
                if (io->parts[i].ops == ops)
                        return io->parts[i].part;
        return NULL;
}

void *driver_io_part(struct driver_io *io, const struct driver_io_ops *ops, size_t size)
{
        void *part = driver_io_find(io, ops);

        if (part || !io || io->n_parts >= DRIVER_IO_PARTS_MAX)
                return part;
        part = calloc(1, size);
        if (part)
                io->parts[io->n_parts++] = (struct driver_io_slot){ .ops = ops, .part = part };
        return part;
}

int driver_io_flush(struct driver_io *io, struct errbuf *e)
{
        int first = 0;

        for (unsigned i = 0; io && i < io->n_parts; i++) {
                struct errbuf pe = { 0 };
                const struct driver_io_slot *s = &io->parts[i];
                int r = s->ops->flush ? s->ops->flush(s->part, &pe) : 0;

                if (r < 0 && !first) {
                        first = r;
                        *e = pe;
                }
        }
        return first;
}

void driver_io_close(struct driver_io *io)
{
        if (!io)
                return;
        for (unsigned i = io->n_parts; i-- > 0;)
                io->parts[i].ops->close(io->parts[i].part);
        memset(io->parts, 0, sizeof(io->parts));
        io->n_parts = 0;
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
