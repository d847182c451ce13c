/* SPDX-License-Identifier: MIT */
/* A rollout's options as JSON text and back: what the store keeps so that --resume sees the same plan. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <string.h>

#include "common/util.h"
#include "controller/model/model.h"

/* The string members of who asked for a rollout and why: recorded only when said. */
static const struct {
        const char *name;
        size_t off, size;
} who_members[] = {
        { "reason", offsetof(struct rollout_opts, reason), sizeof(((struct rollout_opts *)0)->reason) },
        { "user", offsetof(struct rollout_opts, user), sizeof(((struct rollout_opts *)0)->user) },
        { "cert_cn", offsetof(struct rollout_opts, cert_cn), sizeof(((struct rollout_opts *)0)->cert_cn) },
        { "policy_sha256", offsetof(struct rollout_opts, policy_sha256),
          sizeof(((struct rollout_opts *)0)->policy_sha256) },
        { "selector", offsetof(struct rollout_opts, selector), sizeof(((struct rollout_opts *)0)->selector) },
};

char *rollout_opts_to_json(const struct rollout_opts *o)
{
        json_t *j = json_pack("{s:i, s:i, s:b, s:i, s:b, s:i, s:s, s:b}",
                              "canary", (json_int_t)o->canary,
                              "wave_size", (json_int_t)o->wave_size.value, "wave_size_pct", o->wave_size.pct,
                              "max_unavailable", (json_int_t)o->max_unavailable.value,
                              "max_unavailable_pct", o->max_unavailable.pct,
                              "confirm_timeout_s", (json_int_t)o->confirm_timeout_s,
                              "rollback_on_halt", o->halt_scope == ROLLOUT_HALT_ALL ? "all" : "wave",
                              "no_confirm", o->no_confirm);
        char *text;

        if (j && o->fabric_neighbours >= 0)
                json_object_set_new(j, "fabric_neighbours", json_integer(o->fabric_neighbours));
        /* Members a rollout needs only when it was asked for them: older records lack them. */
        if (j && o->canary_selector[0])
                json_object_set_new(j, "canary_selector", json_string(o->canary_selector));
        if (j && o->wave_by[0])
                json_object_set_new(j, "wave_by", json_string(o->wave_by));
        if (j && o->max_regression_pct >= 0)
                json_object_set_new(j, "max_regression_pct", json_integer(o->max_regression_pct));
        if (j && o->probe_duration_ms > 0)
                json_object_set_new(j, "probe_duration_ms", json_integer(o->probe_duration_ms));
        if (j && o->skip_unreachable)
                json_object_set_new(j, "skip_unreachable", json_true());
        if (j && o->wave_interval_s)
                json_object_set_new(j, "wave_interval_s", json_integer(o->wave_interval_s));
        if (j && o->promote_manual)
                json_object_set_new(j, "promote", json_string("manual"));
        for (size_t i = 0; j && i < ARRAY_SIZE(who_members); i++) {
                const char *v = (const char *)o + who_members[i].off;

                if (*v)
                        json_object_set_new(j, who_members[i].name, json_string(v));
        }
        text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        json_decref(j);
        return text;
}

static bool copy_opt_str(const char *v, char *buf, size_t size)
{
        if (!v)
                return true;
        if (strlen(v) >= size)
                return false;
        memcpy(buf, v, strlen(v) + 1);
        return true;
}

int rollout_opts_from_json(const char *text, struct rollout_opts *ret)
{
        json_int_t canary, ws, mu, ct, fn = -1, mrp = -1, pdm = 0;
        int wsp, mup, nc, skip = 0;
        const char *scope, *csel = NULL, *wby = NULL;
        json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        struct rollout_opts o = { 0 };
        int r = -EINVAL;

        if (j && json_unpack(j, "{s:I, s:I, s:b, s:I, s:b, s:I, s:s, s:b, s?I, s?s, s?s, s?I, s?I, s?b}",
                             "canary", &canary, "wave_size", &ws, "wave_size_pct", &wsp, "max_unavailable", &mu,
                             "max_unavailable_pct", &mup, "confirm_timeout_s", &ct,
                             "rollback_on_halt", &scope, "no_confirm", &nc, "fabric_neighbours", &fn,
                             "canary_selector", &csel, "wave_by", &wby, "max_regression_pct", &mrp,
                             "probe_duration_ms", &pdm, "skip_unreachable", &skip) == 0 &&
            canary >= 0 && ws >= 0 && mu >= 0 && ct >= 0 && fn >= -1 && fn <= 1000000 &&
            mrp >= -1 && mrp <= 100 && pdm >= 0 && pdm <= 60000 &&
            copy_opt_str(csel, o.canary_selector, sizeof(o.canary_selector)) &&
            copy_opt_str(wby, o.wave_by, sizeof(o.wave_by))) {
                o.canary = (unsigned)canary;
                o.wave_size = (struct rollout_count) { (unsigned)ws, wsp };
                o.max_unavailable = (struct rollout_count) { (unsigned)mu, mup };
                o.confirm_timeout_s = (unsigned)ct;
                o.halt_scope = streq(scope, "all") ? ROLLOUT_HALT_ALL : ROLLOUT_HALT_WAVE;
                o.no_confirm = nc;
                o.fabric_neighbours = (int)fn;
                o.max_regression_pct = (int)mrp;
                o.probe_duration_ms = (unsigned)pdm;
                o.skip_unreachable = skip;
                r = 0;
        }
        for (size_t i = 0; r == 0 && i < ARRAY_SIZE(who_members); i++) {
                json_t *v = json_object_get(j, who_members[i].name);

                if (v && (!json_is_string(v) || !copy_opt_str(json_string_value(v), (char *)&o + who_members[i].off,
                                                               who_members[i].size)))
                        r = -EINVAL;
        }
        if (r == 0) {
                json_t *wi = json_object_get(j, "wave_interval_s"), *pm = json_object_get(j, "promote");

                if ((wi && (!json_is_integer(wi) || json_integer_value(wi) < 0 ||
                            json_integer_value(wi) > 86400)) ||
                    (pm && (!json_is_string(pm) || strcmp(json_string_value(pm), "manual"))))
                        r = -EINVAL;
                o.wave_interval_s = wi ? (unsigned)json_integer_value(wi) : 0;
                o.promote_manual = pm != NULL;
        }
        if (r == 0)
                *ret = o;
        json_decref(j);
        return r;
}
