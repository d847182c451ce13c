/* SPDX-License-Identifier: MIT */
/*
 * The "pfc" object of a policy's spec and of live state (spec_json.h):
 *
 *   policy: { "priorities": [3],
 *             "watchdog": { "enabled": true, "detection_ms": 200, "restoration_ms": 400,
 *                           "action": "drop", "poll_interval_ms": 100 },
 *             "nic_stall_timeout_ms": 100 | 0 | "auto", "cable_length_m": 40 }
 *   live:   { "priorities": [3],
 *             "watchdog": { "enabled": true, "priorities": [3], "detection_ms": 200, ...,
 *                           "defaults": ["poll_interval_ms"] },
 *             "nic_stall_timeout_ms": 8000, "nic_stall_auto_ms": 100 }
 *
 * Policy ranges are the widest any supported device documents; each switch dialect
 * and NIC driver refuses at plan time what it cannot express (docs/policy-reference.md):
 *   detection_ms, restoration_ms 10-60000 (EOS timeout/recovery-time 0.01-60 s; SONiC
 *   detection 100-5000, restoration 100-60000, sonic-utilities pfcwd/main.py),
 *   poll_interval_ms 5-30000 (EOS polling-interval 0.005-30 s; SONiC 100-1000; NVUE
 *   polling-interval 100-5000), action drop|forward|alert (SONiC's names),
 *   nic_stall_timeout_ms 80-8000, 0 (off) or "auto" (mlx5 en_ethtool.c
 *   MLX5E_PFC_PREVEN_TOUT_MIN_MSEC / _MAX_MSEC; PFC_STORM_PREVENTION_DISABLE / _AUTO).
 */
#include "common/util.h"
#include "policies/state/spec_json.h"

#define WD_TIME_MIN 10
#define WD_TIME_MAX 60000
#define WD_POLL_MIN 5
#define WD_POLL_MAX 30000
#define STALL_MIN 80
#define STALL_MAX 8000

/* Indexes are enum state_wd_action; "errdisable" and "no-drop" are read back only (EOS). */
static const char *const wd_action_desired[] = { "drop", "forward", "alert", NULL };
static const char *const wd_action_live[] = { "drop", "forward", "alert", "errdisable", "no-drop", NULL };

static const struct {
        uint8_t bit;
        const char *key;
} wd_keys[] = {
        { STATE_WD_DETECTION, "detection_ms" },
        { STATE_WD_RESTORATION, "restoration_ms" },
        { STATE_WD_ACTION, "action" },
        { STATE_WD_POLL, "poll_interval_ms" },
};

static uint8_t wd_has(const json_t *j)
{
        uint8_t has = 0;

        for (size_t i = 0; i < ARRAY_SIZE(wd_keys); i++)
                if (json_object_get(j, wd_keys[i].key))
                        has |= wd_keys[i].bit;
        return has;
}

/* ---- parsing: a policy ---- */

struct wd_doc {
        bool enabled;
        uint32_t detection_ms, restoration_ms, poll_ms;
        uint8_t action;
};

static const struct jsonv_field wd_fields[] = {
        JSONV_BOOLEAN("enabled", struct wd_doc, enabled),
        JSONV_UINT("detection_ms", struct wd_doc, detection_ms, WD_TIME_MIN, WD_TIME_MAX),
        JSONV_UINT("restoration_ms", struct wd_doc, restoration_ms, WD_TIME_MIN, WD_TIME_MAX),
        JSONV_ENUM("action", struct wd_doc, action, wd_action_desired, 0),
        JSONV_UINT("poll_interval_ms", struct wd_doc, poll_ms, WD_POLL_MIN, WD_POLL_MAX),
        { 0 },
};

static int parse_watchdog(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_pfc_wd *w = &((struct state *)obj)->pfc_wd;
        struct wd_doc d = { .enabled = true };
        int r = jsonv_object(v, j, wd_fields, &d);

        if (r < 0)
                return r;
        if (d.enabled && !json_object_get(j, "detection_ms"))
                return jsonv_error(v, "missing required key 'detection_ms'");
        /* A watchdog turned off: whether it runs is all that is managed (the members are ignored). */
        *w = d.enabled ? (struct state_pfc_wd){ .enabled = true, .action = d.action, .has = wd_has(j),
                                                .detection_ms = d.detection_ms, .restoration_ms = d.restoration_ms,
                                                .poll_ms = d.poll_ms }
                       : (struct state_pfc_wd){ .enabled = false };
        return 0;
}

/* 80-8000 ms, 0 (off) or "auto". */
static int parse_stall(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        long long ms;
        char q[80];
        int r;

        if (json_is_string(j)) {
                if (!streq(json_string_value(j), "auto"))
                        return jsonv_error(v, "nic_stall_timeout_ms '%s' is neither milliseconds nor \"auto\"",
                                           jsonv_quote(json_string_value(j), q, sizeof(q)));
                st->nic_stall_ms = STATE_NIC_STALL_AUTO;
                return 0;
        }
        if (!json_is_integer(j))
                return jsonv_error(v, "expected integer or \"auto\", found %s", jsonv_type_name(j));
        ms = json_integer_value(j);
        r = 0;
        if (ms != 0 && (ms < STALL_MIN || ms > STALL_MAX))
                r = jsonv_error(v, "nic_stall_timeout_ms %lld out of range %d-%d (0 turns stall prevention off, "
                                "\"auto\" leaves the timeout to the driver)", ms, STALL_MIN, STALL_MAX);
        if (r >= 0)
                st->nic_stall_ms = (uint16_t)ms;
        return r;
}

static int parse_priorities(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        unsigned long long bits;
        int r = jsonv_bitmap_array(v, j, "priority", 7, 0, &bits);

        if (r >= 0)
                st->pfc_enabled = (uint8_t)bits;
        return r;
}

static const struct jsonv_field pfc_fields[] = {
        JSONV_CUSTOM("priorities", JSONV_ARRAY, JSONV_REQUIRED, parse_priorities),
        JSONV_CUSTOM("watchdog", JSONV_OBJECT, 0, parse_watchdog),
        JSONV_CUSTOM("nic_stall_timeout_ms", JSONV_ANY, 0, parse_stall),
        JSONV_UINT("cable_length_m", struct state, cable_len_m, STATE_CABLE_LEN_MIN, STATE_CABLE_LEN_MAX),
        { 0 },
};

int spec_json_parse_pfc(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        int r = jsonv_object(v, j, pfc_fields, obj);

        /* The watchdog covers the priorities the policy makes lossless. */
        if (r >= 0 && json_object_get(j, "watchdog") && st->pfc_wd.enabled)
                st->pfc_wd.prios = st->pfc_enabled;
        return r;
}

/* ---- parsing: live state ---- */

struct wd_live_doc {
        bool enabled;
        uint32_t detection_ms, restoration_ms, poll_ms;
        uint8_t action;
        unsigned long long prios;
        uint8_t dflt;
};

static int live_prios(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_bitmap_array(v, j, "priority", 7, 0, &((struct wd_live_doc *)obj)->prios);
}

static int live_defaults(struct jsonv *v, const json_t *j, void *obj)
{
        struct wd_live_doc *d = obj;
        size_t i;
        json_t *el;

        json_array_foreach(j, i, el) {
                size_t k = 0;
                char q[80];

                while (k < ARRAY_SIZE(wd_keys) && !streq(json_string_value(el), wd_keys[k].key))
                        k++;
                jsonv_push_index(v, i);
                if (k == ARRAY_SIZE(wd_keys)) {
                        int r = jsonv_error(v, "'%s' is not a watchdog member",
                                            json_is_string(el) ? jsonv_quote(json_string_value(el), q, sizeof(q)) : "?");
                        jsonv_pop(v);
                        return r;
                }
                jsonv_pop(v);
                d->dflt |= wd_keys[k].bit;
        }
        return 0;
}

#define U32_MAX 4294967295LL

static const struct jsonv_field wd_live_fields[] = {
        { .key = "enabled", .type = JSONV_BOOL, .flags = JSONV_REQUIRED, JSONV_MEMBER(struct wd_live_doc, enabled) },
        JSONV_CUSTOM("priorities", JSONV_ARRAY, 0, live_prios),
        { .key = "detection_ms", .type = JSONV_INTEGER, .min = 0, .max = U32_MAX,
          JSONV_MEMBER(struct wd_live_doc, detection_ms) },
        { .key = "restoration_ms", .type = JSONV_INTEGER, .min = 0, .max = U32_MAX,
          JSONV_MEMBER(struct wd_live_doc, restoration_ms) },
        JSONV_ENUM("action", struct wd_live_doc, action, wd_action_live, 0),
        { .key = "poll_interval_ms", .type = JSONV_INTEGER, .min = 0, .max = U32_MAX,
          JSONV_MEMBER(struct wd_live_doc, poll_ms) },
        JSONV_CUSTOM("defaults", JSONV_ARRAY, 0, live_defaults),
        { 0 },
};

static int parse_watchdog_live(struct jsonv *v, const json_t *j, void *obj)
{
        struct wd_live_doc d = { 0 };
        int r = jsonv_object(v, j, wd_live_fields, &d);

        if (r < 0)
                return r;
        ((struct state *)obj)->pfc_wd = (struct state_pfc_wd){
                .enabled = d.enabled, .prios = (uint8_t)d.prios, .action = d.action, .has = wd_has(j),
                .dflt = d.dflt, .detection_ms = d.detection_ms, .restoration_ms = d.restoration_ms,
                .poll_ms = d.poll_ms,
        };
        return 0;
}

/* What the tunable read (any u16), or "auto" (a desired state shown in live form). */
static int parse_stall_live(struct jsonv *v, const json_t *j, void *obj)
{
        long long ms = STATE_NIC_STALL_AUTO;
        int r = 0;

        if (!json_is_string(j) || !streq(json_string_value(j), "auto"))
                r = json_is_integer(j) ? jsonv_int(v, j, "nic_stall_timeout_ms", 0, 65535, &ms)
                                       : jsonv_error(v, "expected integer or \"auto\", found %s", jsonv_type_name(j));
        if (r >= 0)
                ((struct state *)obj)->nic_stall_ms = (uint16_t)ms;
        return r;
}

static const struct jsonv_field pfc_live_fields[] = {
        JSONV_CUSTOM("priorities", JSONV_ARRAY, 0, parse_priorities),
        JSONV_CUSTOM("watchdog", JSONV_OBJECT, 0, parse_watchdog_live),
        JSONV_CUSTOM("nic_stall_timeout_ms", JSONV_ANY, 0, parse_stall_live),
        JSONV_UINT("nic_stall_auto_ms", struct state, nic_stall_auto_ms, 0, 65535),
        /* any length a device reports (struct ieee_pfc.delay is a __u16) */
        JSONV_UINT("cable_length_m", struct state, cable_len_m, 0, 65535),
        { 0 },
};

int spec_json_parse_pfc_live(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, pfc_live_fields, obj);
}

uint32_t spec_json_pfc_present(const json_t *pfc)
{
        uint32_t present = 0;

        if (json_object_get(pfc, "priorities"))
                present |= STATE_BIT(STATE_FIELD_PFC);
        if (json_object_get(pfc, "watchdog"))
                present |= STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
        if (json_object_get(pfc, "nic_stall_timeout_ms"))
                present |= STATE_BIT(STATE_FIELD_NIC_STALL);
        if (json_object_get(pfc, "cable_length_m"))
                present |= STATE_BIT(STATE_FIELD_CABLE_LEN);
        return present;
}

/* ---- rendering ---- */

static json_t *wd_json(const struct state_pfc_wd *w, bool live, bool *ok)
{
        json_t *o = json_object(), *dflt = json_array();

        spec_json_set(o, "enabled", json_boolean(w->enabled), ok);
        if (live)
                spec_json_set(o, "priorities", spec_json_bits(w->prios, ok), ok);
        if (w->has & STATE_WD_DETECTION)
                spec_json_set(o, "detection_ms", json_integer(w->detection_ms), ok);
        if (w->has & STATE_WD_RESTORATION)
                spec_json_set(o, "restoration_ms", json_integer(w->restoration_ms), ok);
        if (w->has & STATE_WD_ACTION)
                spec_json_set(o, "action", json_string(state_wd_action_name(w->action)), ok);
        if (w->has & STATE_WD_POLL)
                spec_json_set(o, "poll_interval_ms", json_integer(w->poll_ms), ok);
        for (size_t i = 0; dflt && i < ARRAY_SIZE(wd_keys); i++)
                if (w->dflt & wd_keys[i].bit)
                        spec_json_append(dflt, json_string(wd_keys[i].key), ok);
        if (live && json_array_size(dflt))
                spec_json_set(o, "defaults", dflt, ok);
        else
                json_decref(dflt);
        return o;
}

void spec_json_put_pfc_storm(json_t *o, const struct state *s, bool live, bool *ok)
{
        bool wd = state_has(s, STATE_FIELD_PFC_WATCHDOG), stall = state_has(s, STATE_FIELD_NIC_STALL);
        json_t *pfc;

        if (!o || (!wd && !stall))
                return;
        pfc = json_object_get(o, "pfc");
        if (!pfc) {
                pfc = json_object();
                spec_json_set(o, "pfc", pfc, ok);
        }
        if (wd)
                spec_json_set(pfc, "watchdog", wd_json(&s->pfc_wd, live, ok), ok);
        if (stall && s->nic_stall_ms == STATE_NIC_STALL_AUTO)
                spec_json_set(pfc, "nic_stall_timeout_ms", json_string("auto"), ok);
        else if (stall)
                spec_json_set(pfc, "nic_stall_timeout_ms", json_integer(s->nic_stall_ms), ok);
        if (stall && live && s->nic_stall_auto_ms)
                spec_json_set(pfc, "nic_stall_auto_ms", json_integer(s->nic_stall_auto_ms), ok);
}
