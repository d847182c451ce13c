/* SPDX-License-Identifier: MIT */
/*
 * The field table's rows for lossless headroom (field.h): cable_length
 * (spec.pfc.cable_length_m) and buffers (spec.buffers).
 *
 *   pfc.cable_length_m             metres; a host NIC's raw struct ieee_pfc.delay
 *                                  (dcb_device.pfc_delay) is compared too when both
 *                                  sides carry it and the metres agree: a snapshot puts
 *                                  back the very value it read, whatever its unit
 *                                  (mlxsw: bits)
 *   buffers.prio_to_buffer         exact, 8 priorities
 *   buffers.buffer_size_bytes      exact, 8 buffers (drivers refuse at plan time a
 *                                  size the device would round)
 */
#include <stdarg.h>

#include "common/util.h"
#include "policies/state/field_internal.h"

static const char *fmt_list(char *buf, size_t size, const void *v, unsigned n, bool u32)
{
        size_t o = (size_t)snprintf(buf, size, "[");

        for (unsigned i = 0; i < n && o < size; i++)
                o += (size_t)snprintf(buf + o, size - o, "%s%lu", i ? "," : "",
                                      u32 ? (unsigned long)((const uint32_t *)v)[i]
                                          : (unsigned long)((const uint8_t *)v)[i]);
        if (o < size)
                snprintf(buf + o, size - o, "]");
        return buf;
}

static const char *key_of(char *key, const char *prefix, const char *name)
{
        snprintf(key, DIFF_KEY_MAX, "%s%s", prefix, name);
        return key;
}

int field_diff_cable_len(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        const struct state_dcb_device *w = &want->dcb, *l = &live->dcb;
        char key[DIFF_KEY_MAX], a[24], b[24];
        int r = 0;

        if (want->cable_len_m != live->cable_len_m) {
                /* 0: none set (a switch's default, mlxsw's delay 0) */
                snprintf(a, sizeof(a), live->cable_len_m ? "%u" : "unset", live->cable_len_m);
                snprintf(b, sizeof(b), want->cable_len_m ? "%u" : "unset", want->cable_len_m);
                r = diff_add(d, STATE_FIELD_CABLE_LEN, key_of(key, prefix, "pfc.cable_length_m"), a, b);
        }
        /* the raw value matters when the lengths read the same (another unit, another rounding) */
        if (r >= 0 && want->cable_len_m == live->cable_len_m && w->present && l->present && w->has_pfc_delay &&
            l->has_pfc_delay && w->pfc_delay != l->pfc_delay) {
                snprintf(a, sizeof(a), "%u", l->pfc_delay);
                snprintf(b, sizeof(b), "%u", w->pfc_delay);
                r = diff_add(d, STATE_FIELD_CABLE_LEN, key_of(key, prefix, "dcb_device.pfc_delay"), a, b);
        }
        return r;
}

void field_copy_cable_len(struct state *to, const struct state *from)
{
        to->cable_len_m = from->cable_len_m;
}

int field_diff_buffers(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        const struct state_buffers *w = &want->buffers, *l = &live->buffers;
        char key[DIFF_KEY_MAX], a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];
        int r = 0;

        if (memcmp(w->prio_buffer, l->prio_buffer, sizeof(w->prio_buffer)))
                r = diff_add(d, STATE_FIELD_BUFFERS, key_of(key, prefix, "buffers.prio_to_buffer"),
                             fmt_list(a, sizeof(a), l->prio_buffer, STATE_PRIO_COUNT, false),
                             fmt_list(b, sizeof(b), w->prio_buffer, STATE_PRIO_COUNT, false));
        if (r >= 0 && memcmp(w->size, l->size, sizeof(w->size)))
                r = diff_add(d, STATE_FIELD_BUFFERS, key_of(key, prefix, "buffers.buffer_size_bytes"),
                             fmt_list(a, sizeof(a), l->size, STATE_BUFFER_COUNT, true),
                             fmt_list(b, sizeof(b), w->size, STATE_BUFFER_COUNT, true));
        return r;
}

void field_copy_buffers(struct state *to, const struct state *from)
{
        to->buffers = from->buffers;
}

static int problem(struct field_problem *ret, const char *member, int index, const char *fmt, ...) _printf_(4, 5);
static int problem(struct field_problem *ret, const char *member, int index, const char *fmt, ...)
{
        va_list ap;

        snprintf(ret->member, sizeof(ret->member), "%s", member);
        ret->index = index;
        va_start(ap, fmt);
        vsnprintf(ret->msg, sizeof(ret->msg), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* The lossless priorities mapped to buffer b (a bitmap). */
static unsigned lossless_in(const struct state *s, unsigned b)
{
        unsigned m = 0;

        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if (s->buffers.prio_buffer[p] == b && (s->pfc_enabled & (1u << p)))
                        m |= 1u << p;
        return m;
}

/*
 * Which buffers are lossless follows the PFC priorities mapped to them, so the spec
 * gives both. A buffer is lossless as soon as one PFC priority maps to it (mlx5
 * update_buffer_lossy(), mlxsw mlxsw_sp_hdroom_bufs_reset_lossiness()): a lossy
 * priority sharing it would be paused too, so only lossless priorities share a
 * lossless buffer, and a lossless buffer has room (mlx5 refuses 0: "lossless
 * buffer[%d] size cannot be zero").
 */
int field_check_buffers(const struct state *s, struct field_problem *ret)
{
        if (s->buffers.total)
                return problem(ret, "", -1, "total is read back only");
        if (!state_has(s, STATE_FIELD_PFC))
                return problem(ret, "", -1, "buffers needs pfc.priorities in the same spec: a buffer is lossless "
                               "when a PFC priority maps to it");
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++) {
                unsigned b = s->buffers.prio_buffer[p], ll = lossless_in(s, b);

                if (b >= STATE_BUFFER_COUNT)
                        return problem(ret, "prio_to_buffer", (int)p, "buffer %u out of range 0-7", b);
                if (ll && !(s->pfc_enabled & (1u << p)))
                        return problem(ret, "prio_to_buffer", (int)p,
                                       "lossy priority %u shares buffer %u with lossless priority %u: the buffer is "
                                       "lossless, so priority %u would pause the link too; give it a buffer of its own",
                                       p, b, (unsigned)__builtin_ctz(ll), p);
                if (ll && !s->buffers.size[b])
                        return problem(ret, "buffer_size_bytes", (int)b,
                                       "buffer %u holds lossless priority %u and cannot be 0 bytes", b, p);
        }
        return 0;
}
