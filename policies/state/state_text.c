/* SPDX-License-Identifier: MIT */
/* One member of a state's JSON in a line (state_text.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "policies/state/state_text.h"

/* include/uapi/linux/dcbnl.h: DCB_CAP_DCBX_HOST 0x01 ... DCB_CAP_DCBX_STATIC 0x10 */
static const char *const dcbx_bits[] = { "host", "lld-managed", "cee", "ieee", "static" };

struct out {
        char *buf;
        size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) _printf_(2, 3);
static void put(struct out *o, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (o->len >= o->size)
                return;
        va_start(ap, fmt);
        n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
        va_end(ap);
        o->len = n < 0 ? o->size : o->len + (size_t)n;
}

const char *state_dcbx_names(unsigned dcbx, char *buf, size_t size)
{
        struct out o = { buf, size, 0 };

        buf[0] = '\0';
        for (unsigned i = 0; i < ARRAY_SIZE(dcbx_bits); i++)
                if (dcbx & (1u << i))
                        put(&o, "%s%s", o.len ? "+" : "", dcbx_bits[i]);
        if (dcbx >> ARRAY_SIZE(dcbx_bits))
                put(&o, "%s0x%02x", o.len ? "+" : "", dcbx & ~((1u << ARRAY_SIZE(dcbx_bits)) - 1));
        if (!o.len)
                put(&o, "none");
        return buf;
}

static void ints(struct out *o, const json_t *a, const char *sep)
{
        size_t i;
        json_t *x;

        json_array_foreach(a, i, x)
                put(o, "%s%lld", i ? sep : "", (long long)json_integer_value(x));
}

/* "26:3 48:6 (the rest 0)": numeric order; a map of every DSCP folds its zeros. */
static void dscp(struct out *o, const json_t *map)
{
        bool full = json_object_size(map) == 64, any = false;
        char key[4];

        for (unsigned d = 0; d < 64; d++) {
                const json_t *p;

                snprintf(key, sizeof(key), "%u", d);
                p = json_object_get(map, key);
                if (!p || (full && json_integer_value(p) == 0))
                        continue;
                put(o, "%s%u:%lld", any ? " " : "", d, (long long)json_integer_value(p));
                any = true;
        }
        if (full)
                put(o, any ? " (the rest 0)" : "all 0");
        else if (!any)
                put(o, "none");
}

static void ets(struct out *o, const json_t *e)
{
        const json_t *bw = json_object_get(e, "tc_bandwidth_pct"), *tsa = json_object_get(e, "tc_tsa");
        size_t i;
        json_t *x;

        put(o, "tc ");
        ints(o, json_object_get(e, "priority_to_tc"), ",");
        put(o, " bw ");
        json_array_foreach(bw, i, x) {
                const char *t = json_string_value(json_array_get(tsa, i));

                if (t && !streq(t, "ets"))
                        put(o, "%s%c", i ? "," : "", t[0]);
                else
                        put(o, "%s%lld", i ? "," : "", (long long)json_integer_value(x));
        }
        if (json_is_true(json_object_get(e, "willing")))
                put(o, " willing");
}

/* "rp 3,4 np 3 cnp 48/6" */
static void host_ecn(struct out *o, const json_t *h)
{
        static const char *const points[] = { "reaction_point", "notification_point" };
        static const char *const names[] = { "rp", "np" };
        char key[16];

        for (size_t k = 0; k < ARRAY_SIZE(points); k++) {
                bool any = false;

                for (unsigned p = 0; p < 8; p++) {
                        snprintf(key, sizeof(key), "priority%u", p);
                        if (!json_is_true(json_object_get(json_object_get(h, key), points[k])))
                                continue;
                        if (any)
                                put(o, ",%u", p);
                        else
                                put(o, "%s%s %u", o->len ? " " : "", names[k], p);
                        any = true;
                }
        }
        if (json_object_get(h, "cnp_dscp"))
                put(o, "%scnp %lld/%lld", o->len ? " " : "",
                    (long long)json_integer_value(json_object_get(h, "cnp_dscp")),
                    (long long)json_integer_value(json_object_get(h, "cnp_priority")));
        if (!o->len)
                put(o, "off");
}

/* "q3 150000-1500000 100%, q4 off" */
static void ecn(struct out *o, const json_t *e)
{
        char key[16];

        for (unsigned q = 0; q < 8; q++) {
                const json_t *x;

                snprintf(key, sizeof(key), "queue%u", q);
                if (!(x = json_object_get(e, key)))
                        continue;
                if (!json_is_true(json_object_get(x, "enabled")))
                        put(o, "%sq%u off", o->len ? ", " : "", q);
                else
                        put(o, "%sq%u %lld-%lld %lld%%", o->len ? ", " : "", q,
                            (long long)json_integer_value(json_object_get(x, "min_threshold_bytes")),
                            (long long)json_integer_value(json_object_get(x, "max_threshold_bytes")),
                            (long long)json_integer_value(json_object_get(x, "mark_probability_pct")));
        }
        if (!o->len)
                put(o, "none");
}

static void dcb_device(struct out *o, const json_t *d)
{
        const json_t *dcbx = json_object_get(d, "dcbx"), *apps = json_object_get(d, "dscp_apps");
        char names[64];
        size_t i;
        json_t *x;

        if (dcbx)
                put(o, "dcbx %s (0x%02llx)", state_dcbx_names((unsigned)json_integer_value(dcbx), names,
                                                               sizeof(names)),
                    (unsigned long long)json_integer_value(dcbx));
        if (apps) {
                put(o, "%sapps", o->len ? ", " : "");
                json_array_foreach(apps, i, x)
                        put(o, " %lld:%lld", (long long)json_integer_value(json_array_get(x, 0)),
                            (long long)json_integer_value(json_array_get(x, 1)));
                if (!json_array_size(apps))
                        put(o, " none");
        }
        if (json_object_get(d, "trust_table")) {
                put(o, "%strust ", o->len ? ", " : "");
                ints(o, json_object_get(d, "trust_table"), ",");
        }
}

const char *state_text_value(const char *key, const json_t *v, char *buf, size_t size)
{
        struct out o = { buf, size, 0 };
        char *s;

        buf[0] = '\0';
        if (streq(key, "dscp_to_priority") && json_is_object(v))
                dscp(&o, v);
        else if (streq(key, "pfc") && json_is_object(v))
                json_array_size(json_object_get(v, "priorities")) ? ints(&o, json_object_get(v, "priorities"), ",")
                                                                  : put(&o, "none");
        else if (streq(key, "ets") && json_is_object(v))
                ets(&o, v);
        else if (streq(key, "host_ecn") && json_is_object(v))
                host_ecn(&o, v);
        else if (streq(key, "ecn") && json_is_object(v))
                ecn(&o, v);
        else if (streq(key, "dcb_device") && json_is_object(v))
                dcb_device(&o, v);
        else if (json_is_string(v))
                put(&o, "%s", json_string_value(v));
        else if ((s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS))) {
                put(&o, "%s", s);
                free(s);
        }
        return buf;
}

void state_text_ets_shares(json_t *state)
{
        json_t *e = json_object_get(state, "ets");
        const json_t *tsa = json_object_get(e, "tc_tsa");
        json_t *bw = json_object_get(e, "tc_bandwidth_pct");
        size_t i;
        json_t *x;

        json_array_foreach(tsa, i, x)
                if (!streq(json_string_value(x), "ets") && i < json_array_size(bw))
                        json_array_set_new(bw, i, json_integer(0));
}
