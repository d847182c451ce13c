/* SPDX-License-Identifier: MIT */
/*
 * nccl: the keys of NCCL's configuration file (struct state_nccl). A policy is met
 * when the value NCCL takes from each declared key's first line is the declared one;
 * a snapshot (read from the file) wants each key's first line back byte for byte,
 * and the file as it was: absent, or ending without a newline.
 */
#include "policies/state/field_internal.h"

const char *const state_nccl_env_names[STATE_NCCL_KEYS] = {
        [STATE_NCCL_IB_TC] = "NCCL_IB_TC",
        [STATE_NCCL_IB_SL] = "NCCL_IB_SL",
};

const char *const state_nccl_keys[STATE_NCCL_KEYS] = {
        [STATE_NCCL_IB_TC] = "ib_tc",
        [STATE_NCCL_IB_SL] = "ib_sl",
};

static const char *nccl_value(char *buf, size_t size, const struct state_nccl *n, unsigned k)
{
        return n->has & (1u << k) ? fmt_u(buf, size, n->value[k]) : "unset";
}

/* A line as a diff value: 'NCCL_IB_TC=106', or absent. */
static const char *nccl_line(char *buf, size_t size, const char *line)
{
        if (!line[0])
                return "absent";
        snprintf(buf, size, "'%s'", line);
        return buf;
}

int field_diff_nccl(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        const struct state_nccl *w = &want->nccl, *l = &live->nccl;
        char key[DIFF_KEY_MAX], a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];
        int r = 0;

        for (unsigned k = 0; k < STATE_NCCL_KEYS && r >= 0; k++) {
                keyf(key, prefix, "nccl.%s", state_nccl_keys[k]);
                if (w->read && l->read) {
                        if (!streq(w->line[k], l->line[k]))
                                r = diff_add(d, STATE_FIELD_NCCL, key, nccl_line(a, sizeof(a), l->line[k]),
                                             nccl_line(b, sizeof(b), w->line[k]));
                } else if (w->has & (1u << k) && (!(l->has & (1u << k)) || l->value[k] != w->value[k])) {
                        r = diff_add(d, STATE_FIELD_NCCL, key, nccl_value(a, sizeof(a), l, k),
                                     nccl_value(b, sizeof(b), w, k));
                }
        }
        if (r < 0 || !w->read || !l->read)
                return r;
        if (w->exists != l->exists && (w->exists || l->empty))
                r = diff_add(d, STATE_FIELD_NCCL, keyf(key, prefix, "nccl.file"), l->exists ? "present" : "absent",
                             w->exists ? "present" : "absent");
        else if (w->exists && l->exists && w->eol != l->eol && !l->empty)
                r = diff_add(d, STATE_FIELD_NCCL, keyf(key, prefix, "nccl.file.ends_in_newline"), fmt_bool(l->eol),
                             fmt_bool(w->eol));
        return r;
}

void field_copy_nccl(struct state *to, const struct state *from)
{
        to->nccl = from->nccl;
}

/* The declared keys over the file's: what NCCL would read after the change. */
void field_merge_nccl(struct state *to, const struct state *from)
{
        for (unsigned k = 0; k < STATE_NCCL_KEYS; k++)
                if (from->nccl.has & (1u << k)) {
                        to->nccl.has |= (uint8_t)(1u << k);
                        to->nccl.value[k] = from->nccl.value[k];
                }
}
