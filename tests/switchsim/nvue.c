/* SPDX-License-Identifier: MIT */
/*
 * NVUE subset (docs.nvidia.com NVUE reference: Common Options, Config Commands,
 * QoS set/show pages; CL 5.12 QoS and RoCE chapters): nv set/unset (the pending
 * revision; profiles by name, `interface X qos mapping|pfc|congestion-control
 * profile P` bindings, `qos roce mode M`), nv config apply [-y] [--confirm TIME],
 * --confirm-yes, --confirm-no, --confirm-status, nv config detach, nv config
 * revision -o json, nv config diff -o json (pending against applied), nv config
 * save [-h] (applied -> startup, /etc/nvue.d/startup.yaml), nv show [--applied]
 * qos|interface|qos roce -o json (the applied view; `nv show interface` without
 * --applied is the operational list of ports, with each link's state and speed from
 * the data plane, traffic.c), nv show interface PORT counters qos and nv show interface
 * PORT qos roce counters (text, as CL 5.12 "Show Qos Counters" and the RoCE chapter
 * print them; counters from traffic.c), nv show system config auto-save -o json. The
 * tree under "applied", "pending" and "startup" has the shape of `nv config show -o
 * json`. A reboot loads startup.
 *
 * Revisions (NVREF Config-Commands: nv config revision, detach; the states of NVUE's
 * REST revisions): the first `nv set`/`nv unset` with no pending revision opens one
 * (state "pending", the next id) — also when it changes nothing, so that `nv config
 * diff` is empty while the revision is open — and later edits join it, whoever makes
 * them; `nv config apply` applies that revision ("confirm" with --confirm, else
 * "applied", "applied_and_saved" with auto-save on); a failed apply leaves it pending;
 * `nv config detach` drops its edits (state "detached"). Auto-save (NVREF "nv config
 * apply": off by default up to 5.8, on from 5.9): with it on, every apply saves the
 * applied configuration as the startup one, --confirm too; rolling back a confirmed
 * apply (--confirm-no, or its timer) does not save again, so the startup configuration
 * keeps the rolled-back change until something saves.
 *
 * Variants (--variant):
 *   roce-lossless    `nv set qos roce mode lossless` applied (CL 5.12 RoCE chapter,
 *                    "nv show qos roce": enable on, mode lossless)
 *   no-config-save   an NVUE without `nv config save` (saving is not available:
 *                    the command and its -h are refused)
 *   cl519            Cumulus Linux 5.19 (`nv show system`): `qos pfc-watchdog recovery-interval`
 *                    exists (the 5.19 QoS page, a draft), the queue comes back after it
 *   auto-save        CL 5.9: auto-save on by default, shown as `enable on`
 *   nvue-5.10        CL 5.10 and later: auto-save on, shown as `state enabled` (the 5.10
 *                    "Changed NVUE Commands" table), and the QoS switches take and
 *                    print enabled/disabled only (NVREF-SETQOS spelling)
 * The PFC watchdog (CL 5.12 QoS, "PFC Watchdog"; CL 5.6 What's New): `interface X qos
 * pfc-watchdog [state enable]`, `qos pfc-watchdog polling-interval|robustness`, the storm
 * machine of watchdog.c on every lossless traffic class of a port that has it, and
 * `nv show interface X qos pfc-watchdog`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

enum vkind { V_NONE, V_MTU, V_TRUST, V_PRIO, V_ENABLE, V_BYTES, V_PROB, V_MEMBERS, V_NAME, V_ROCE, V_CABLE,
             V_WD_POLL, V_WD_COUNT };

struct pattern {
        const char *path;       /* '*' = an id list (interfaces or numbers), '%' = a profile name */
        unsigned id_max;        /* numeric ids: 0..id_max; 0 = interface names */
        enum vkind value;
};

/* NVUE reference, Set and Unset Commands (QoS): `nv set qos mapping <profile-id> ...` etc. */
static const struct pattern patterns[] = {
        { "interface * link mtu", 0, V_MTU },
        { "interface * qos mapping profile", 0, V_NAME },
        { "interface * qos pfc profile", 0, V_NAME },
        { "interface * qos congestion-control profile", 0, V_NAME },
        { "qos mapping % trust", 0, V_TRUST },
        { "qos mapping % dscp * switch-priority", 63, V_PRIO },
        { "qos mapping % pcp * switch-priority", 7, V_PRIO },
        { "qos pfc % switch-priority", 7, V_MEMBERS },
        { "qos pfc % tx", 0, V_ENABLE },
        { "qos pfc % rx", 0, V_ENABLE },
        /* "Configures the cable length in meters for the specified PFC profile. You can specify a value between
         * 1 and 100000." (NVUE reference, nv set qos pfc <profile-id> cable-length; Introduced in 5.3.0) */
        { "qos pfc % cable-length", 0, V_CABLE },
        { "qos congestion-control % traffic-class * min-threshold", 7, V_BYTES },
        { "qos congestion-control % traffic-class * max-threshold", 7, V_BYTES },
        { "qos congestion-control % traffic-class * probability", 7, V_PROB },
        { "qos congestion-control % traffic-class * ecn", 7, V_ENABLE },
        { "qos congestion-control % traffic-class * red", 7, V_ENABLE },
        { "qos roce mode", 0, V_ROCE },
        /* CL 5.6 What's New, New Commands: the PFC watchdog (ranges there); 5.19 draft: recovery-interval */
        { "interface * qos pfc-watchdog state", 0, V_ENABLE },
        { "qos pfc-watchdog polling-interval", 0, V_WD_POLL },
        { "qos pfc-watchdog robustness", 0, V_WD_COUNT },
        { "qos pfc-watchdog recovery-interval", 0, V_WD_COUNT },
};

static bool v510(const json_t *st)
{
        return sim_variant(st, "nvue-5.10");
}

/* The words for on and off this release takes and prints. */
static const char *word(const json_t *st, bool on)
{
        return v510(st) ? (on ? "enabled" : "disabled") : (on ? "enable" : "disable");
}

static json_t *ecn_default(const json_t *st)
{
        return json_pack("{s:s,s:s,s:i,s:i,s:i}", "ecn", word(st, true), "red", word(st, false),
                         "min-threshold", 150000, "max-threshold", 1500000, "probability", 100);
}

static bool auto_save(const json_t *st)
{
        return sim_variant(st, "auto-save") || v510(st);
}

json_t *nvue_init(json_t *ports, const json_t *st)
{
        json_t *tree = json_object(), *ifs = sim_obj(tree, "interface"), *qos = sim_obj(tree, "qos");
        size_t i;
        json_t *p;

        json_array_foreach(ports, i, p)
                json_object_set_new(ifs, json_string_value(p), json_pack("{s:{s:i},s:s}", "link", "mtu", 9216,
                                                                          "type", "swp"));
        json_object_set_new(sim_obj(sim_obj(qos, "mapping"), "default-global"), "trust", json_string("l2"));
        json_object_set_new(sim_obj(qos, "pfc"), "default-global", json_pack("{s:s,s:s}", "tx", word(st, true),
                                                                               "rx", word(st, true)));
        /* The factory congestion-control: TC0 marks (CL 5.12, "Default Configuration Files"). */
        json_object_set_new(sim_obj(sim_obj(sim_obj(qos, "congestion-control"), "default-global"),
                                    "traffic-class"), "0", ecn_default(st));
        json_object_set_new(qos, "roce", sim_variant(st, "roce-lossless")
                                                 ? json_pack("{s:s,s:s}", "enable", "on", "mode", "lossless")
                                                 : json_pack("{s:s}", "enable", "off"));
        return json_pack("{s:o,s:O,s:n,s:n,s:[{s:i,s:s}]}", "applied", tree, "startup", tree, "pending", "confirm",
                         "revisions", "id", 1, "state", "applied");
}

static bool port_known(struct sim *s, const char *name)
{
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(s->st, "ports"), i, p)
                if (!strcmp(json_string_value(p), name))
                        return true;
        return false;
}

/* Expand an id list token into names; returns count or -1. */
static int expand_ids(struct sim *s, const char *tok, unsigned id_max, char ids[][32], int max)
{
        uint64_t bits;
        int n = 0;

        if (id_max) {
                if (switch_parse_list(tok, id_max, &bits) < 0 || !bits)
                        return -1;
                for (unsigned i = 0; i <= id_max; i++)
                        if (bits & (UINT64_C(1) << i) && n < max)
                                snprintf(ids[n++], 32, "%u", i);
                return n;
        }
        char buf[512], *save = NULL;
        snprintf(buf, sizeof(buf), "%s", tok);
        for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                if (!port_known(s, p) || n >= max)
                        return -1;
                snprintf(ids[n++], 32, "%s", p);
        }
        return n;
}

static int pattern_words(const char *path, char words[][40], int max)
{
        char buf[200], *save = NULL;
        int n = 0;

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *w = strtok_r(buf, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
                snprintf(words[n++], 40, "%s", w);
        return n;
}

/* Match words (without the value) against a pattern: full or prefix. */
static const struct pattern *match(char **w, int n, bool prefix_ok, int *ret_star)
{
        for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
                char pw[12][40];
                int pn = pattern_words(patterns[i].path, pw, 12), star = -1, k;
                if (n > pn || (!prefix_ok && n != pn))
                        continue;
                for (k = 0; k < n; k++) {
                        if (!strcmp(pw[k], "*"))
                                star = k;
                        else if (strcmp(pw[k], "%") && strcmp(pw[k], w[k]))
                                break;
                }
                if (k == n) {
                        *ret_star = star;
                        return &patterns[i];
                }
        }
        return NULL;
}

static json_t *make_value(const json_t *st, enum vkind k, const char *v, char *why, size_t wsize)
{
        uint64_t n;

        switch (k) {
        case V_MTU:
                if (switch_parse_uint(v, 552, 9216, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        case V_TRUST:
                if (strcmp(v, "l2") && strcmp(v, "l3") && strcmp(v, "port") && strcmp(v, "both"))
                        break;
                return json_string(v);
        case V_PRIO:
                if (switch_parse_uint(v, 0, 7, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        case V_ENABLE:
                if (!strcmp(v, word(st, true)) || !strcmp(v, word(st, false)))
                        return json_string(v);
                break;
        case V_BYTES:
                if (switch_parse_uint(v, 1, 1ull << 31, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        case V_PROB:
                if (switch_parse_uint(v, 1, 100, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        case V_NAME:
                return json_string(v);
        case V_WD_POLL:         /* shown as a duration, as `nv show qos pfc-watchdog` prints it (5.19 draft) */
                if (switch_parse_uint(v, 100, 5000, &n) < 0)
                        break;
                return json_sprintf("0:00:%02u.%06u", (unsigned)(n / 1000), (unsigned)(n % 1000) * 1000);
        case V_WD_COUNT:
                if (switch_parse_uint(v, 1, 1000, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        case V_ROCE:
                if (strcmp(v, "lossy") && strcmp(v, "lossless") && strcmp(v, "lossless-single-ipool"))
                        break;
                return json_string(v);
        case V_CABLE:
                if (switch_parse_uint(v, 1, 100000, &n) < 0)
                        break;
                return json_integer((json_int_t)n);
        default:
                break;
        }
        snprintf(why, wsize, "Error: Invalid value '%s'%s", v,
                 k == V_MTU ? ": expected integer:552 - 9216" : k == V_PROB ? ": expected 1 - 100" :
                 k == V_CABLE ? ": expected integer:1 - 100000" : k == V_WD_POLL ? ": expected integer:100 - 5000" :
                 k == V_WD_COUNT ? ": expected integer:1 - 1000" : "");
        return NULL;
}

/* Walk/create the objects for words[0..n) with the id at `star` replaced by `id`. */
static json_t *walk(json_t *tree, char **w, int n, int star, const char *id, bool create)
{
        json_t *node = tree;

        for (int k = 0; k < n && node; k++) {
                const char *key = k == star ? id : w[k];
                json_t *next = json_object_get(node, key);
                if (!next && create) {
                        next = json_object();
                        json_object_set_new(node, key, next);
                }
                node = next;
        }
        return node;
}

/* The pending revision's entry in the revision list, or NULL. */
static json_t *revision_in(struct sim *s, const char *state)
{
        json_t *revs = json_object_get(s->d, "revisions"), *r;
        size_t i;

        json_array_foreach(revs, i, r)
                if (!strcmp(json_string_value(json_object_get(r, "state")), state))
                        return r;
        return NULL;
}

static void add_revision(struct sim *s, const char *state)
{
        json_t *revs = json_object_get(s->d, "revisions");
        json_int_t id = (json_int_t)json_array_size(revs) + 1;

        json_array_append_new(revs, json_pack("{s:I,s:s,s:f}", "id", id, "state", state, "date", sim_now()));
}

/* The pending configuration; the first edit opens a pending revision (whether or not it changes anything). */
static json_t *pending(struct sim *s)
{
        json_t *p = json_object_get(s->d, "pending");

        if (!json_is_object(p)) {
                p = json_deep_copy(json_object_get(s->d, "applied"));
                json_object_set_new(s->d, "pending", p);
        }
        if (!revision_in(s, "pending"))
                add_revision(s, "pending");
        return p;
}

/* The watchdog on (the object set): state enable. */
static int wd_port_set(struct sim *s, const char *ports)
{
        char ids[64][32];
        int n = expand_ids(s, ports, 0, ids, 64);

        if (n < 0)
                return sim_fail("Error: Invalid id '%s'", ports);
        for (int i = 0; i < n; i++)
                json_object_set_new(sim_obj(sim_obj(sim_obj(sim_obj(pending(s), "interface"), ids[i]), "qos"),
                                            "pfc-watchdog"), "state", json_string("enable"));
        return 0;
}

static int nv_set(struct sim *s, char **w, int n)
{
        char ids[64][32], why[160];
        int star, nids = 1;
        const struct pattern *pt;
        json_t *v;

        if (n == 4 && !strcmp(w[0], "interface") && !strcmp(w[2], "qos") && !strcmp(w[3], "pfc-watchdog"))
                return wd_port_set(s, w[1]);    /* the CL 5.12 form: `nv set interface swp1 qos pfc-watchdog` */
        if (n < 2 || !(pt = match(w, n - 1, false, &star)))
                return sim_fail("Error: Invalid config path: '%s'", s->cmd);
        if (!strcmp(w[n - 2], "recovery-interval") && !sim_variant(s->st, "cl519"))
                return sim_fail("Error: Invalid config path: '%s'", s->cmd);
        if (star >= 0 && (nids = expand_ids(s, w[star], pt->id_max, ids, 64)) < 0)
                return sim_fail("Error: Invalid id '%s'", w[star]);
        if (pt->value == V_MEMBERS) {
                uint64_t bits;
                if (switch_parse_list(w[n - 1], 7, &bits) < 0)
                        return sim_fail("Error: Invalid value '%s': expected 0 - 7", w[n - 1]);
                json_t *coll = walk(pending(s), w, n - 1, -1, NULL, true);
                for (unsigned i = 0; i < 8; i++)
                        if (bits & (1u << i)) {
                                char k[4];
                                snprintf(k, sizeof(k), "%u", i);
                                json_object_set_new(coll, k, json_object());
                        }
                return 0;
        }
        if (!(v = make_value(s->st, pt->value, w[n - 1], why, sizeof(why))))
                return sim_fail("%s", why);
        for (int i = 0; i < nids; i++) {
                json_t *parent = walk(pending(s), w, n - 2, star, star >= 0 ? ids[i] : NULL, true);
                json_object_set(parent, w[n - 2], v);
                if (pt->value == V_ROCE)        /* `nv set qos roce mode M` turns RoCE on */
                        json_object_set_new(parent, "enable", json_string("on"));
        }
        json_decref(v);
        return 0;
}

static int nv_unset(struct sim *s, char **w, int n)
{
        char ids[64][32];
        int star = -1, nids = 1;
        const struct pattern *pt = match(w, n, true, &star);

        if (n == 2 && !strcmp(w[0], "qos") && !strcmp(w[1], "roce")) {        /* `nv unset qos roce`: off */
                json_object_set_new(sim_obj(pending(s), "qos"), "roce", json_pack("{s:s}", "enable", "off"));
                return 0;
        }
        if (!pt) {
                /* "switch-priority 3" under pfc: remove members of the collection. */
                if (n >= 1 && (pt = match(w, n - 1, false, &star)) && pt->value == V_MEMBERS) {
                        uint64_t bits;
                        json_t *coll = walk(pending(s), w, n - 1, -1, NULL, false);
                        if (switch_parse_list(w[n - 1], 7, &bits) < 0)
                                return sim_fail("Error: Invalid value '%s'", w[n - 1]);
                        for (unsigned i = 0; i < 8 && coll; i++)
                                if (bits & (1u << i)) {
                                        char k[4];
                                        snprintf(k, sizeof(k), "%u", i);
                                        json_object_del(coll, k);
                                }
                        return 0;
                }
                return sim_fail("Error: Invalid config path: '%s'", s->cmd);
        }
        if (n < 1)
                return sim_fail("Error: Invalid config path: '%s'", s->cmd);
        if (star >= 0 && (nids = expand_ids(s, w[star], pt->id_max, ids, 64)) < 0)
                return sim_fail("Error: Invalid id '%s'", w[star]);
        for (int i = 0; i < nids; i++) {
                json_t *parent = walk(pending(s), w, n - 1, star, star >= 0 ? ids[i] : NULL, false);
                if (parent)
                        json_object_del(parent, star == n - 1 ? ids[i] : w[n - 1]);
        }
        return 0;
}

/* The revision awaiting confirmation gets its outcome. */
static void set_confirm_state(struct sim *s, const char *state)
{
        json_t *r = revision_in(s, "confirm");

        if (r)
                json_object_set_new(r, "state", json_string(state));
}

/*
 * "--confirm 30s", "5m", "1h"; a bare number is minutes (the documented default unit:
 * "nv config apply --confirm 60 requires you to confirm within one hour", NVREF
 * Config-Commands). The timer starts when the apply runs (config_apply: "If you do not
 * confirm within ten minutes [of the apply], the configuration rolls back automatically"),
 * so an apply that waited behind the lock (main.c, slow_ms) arms it late.
 */
static int parse_confirm(const char *v, double *ret)
{
        char *end;
        double n = strtod(v, &end);

        if (end == v || n <= 0)
                return -1;
        if (!*end || !strcmp(end, "m"))
                n *= 60;
        else if (!strcmp(end, "h"))
                n *= 3600;
        else if (strcmp(end, "s"))
                return -1;
        *ret = n;
        return 0;
}

static int confirm_action(struct sim *s, const char *opt)
{
        json_t *c = json_object_get(s->d, "confirm");

        /*
         * "--confirm-status shows the amount of time left before the automatic rollback"
         * (NVREF Config-Commands, "nv config apply"; the NVOS manuals say the same): the
         * page prints no sample, so the words are this simulator's, the meaning the page's.
         */
        if (!strcmp(opt, "--confirm-status")) {
                if (!json_is_object(c))
                        return printf("No pending confirmation\n"), 0;
                printf("%.0f seconds left\n", json_real_value(json_object_get(c, "deadline")) - sim_now());
                return 0;
        }
        if (!json_is_object(c))
                return sim_fail("Error: there is no applied configuration awaiting confirmation");
        if (!strcmp(opt, "--confirm-no")) {
                json_object_set(s->d, "applied", json_object_get(c, "rollback"));
                set_confirm_state(s, "rolled_back");
                printf("Configuration rolled back\n");
        } else {
                set_confirm_state(s, auto_save(s->st) ? "applied_and_saved" : "applied");
                printf("Configuration confirmed\n");
        }
        json_object_set_new(s->d, "confirm", json_null());
        s->mutated = true;
        return 0;
}

/* A JSON ms value or NVUE's duration "0:00:00.100000". */
static double duration_s(const json_t *v, double dflt)
{
        unsigned h, m;
        double sec;

        if (json_is_integer(v))
                return json_integer_value(v) / 1000.0;
        if (json_is_string(v) && sscanf(json_string_value(v), "%u:%u:%lf", &h, &m, &sec) == 3)
                return h * 3600.0 + m * 60.0 + sec;
        return dflt;
}

static bool wd_on(const json_t *tree, const char *port)
{
        const json_t *wd = json_object_get(json_object_get(json_object_get(json_object_get(tree, "interface"), port),
                                                            "qos"), "pfc-watchdog");
        const char *st = json_string_value(json_object_get(wd, "state"));

        return wd && (!st || !strcmp(st, "enable") || !strcmp(st, "enabled"));
}

/* The switch priorities a port's PFC makes lossless (nettune's NVUE ports use default-global). */
static uint8_t lossless(const json_t *tree, const char *port)
{
        const char *prof = json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(
                json_object_get(tree, "interface"), port), "qos"), "pfc"), "profile"));
        const json_t *sp = json_object_get(json_object_get(json_object_get(json_object_get(tree, "qos"), "pfc"),
                                                           prof ? prof : "default-global"), "switch-priority");
        const char *k;
        json_t *v;
        uint8_t bits = 0;

        json_object_foreach((json_t *)sp, k, v)
                if (k[0] >= '0' && k[0] <= '7' && !k[1])
                        bits |= (uint8_t)(1u << (k[0] - '0'));
        return bits;
}

/*
 * "You can only configure PFC watchdog on a port with PFC (or link pause) configuration"
 * (CL 5.12 QoS, PFC Watchdog): the first port that has it without, or NULL. (The error's
 * wording is this simulator's; the page gives none.)
 */
static const char *wd_without_pfc(const json_t *tree)
{
        const char *k;
        json_t *v;

        json_object_foreach(json_object_get(tree, "interface"), k, v)
                if (wd_on(tree, k) && !lossless(tree, k))
                        return k;
        return NULL;
}

void nvue_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret)
{
        const json_t *tree = json_object_get(s->d, "applied");
        const json_t *wd = json_object_get(json_object_get(tree, "qos"), "pfc-watchdog");
        const json_t *rob = json_object_get(wd, "robustness"), *rec = json_object_get(wd, "recovery-interval");

        if (!wd_on(tree, port) || !(lossless(tree, port) & (1u << prio)))
                return;
        ret->on = true;
        ret->poll_s = duration_s(json_object_get(wd, "polling-interval"), 0.1);
        ret->detect_polls = rob ? (unsigned)json_integer_value(rob) : 3;
        /* one clean polling interval before 5.19; recovery-interval (default 2) from 5.19 (draft) */
        ret->restore_polls = !sim_variant(s->st, "cl519") ? 1 : rec ? (unsigned)json_integer_value(rec) : 2;
        ret->action = SIM_WD_DROP;
}

static int config_apply(struct sim *s)
{
        bool yes = false;
        double confirm = 0;
        json_t *p = json_object_get(s->d, "pending"), *rev;

        for (int i = 3; i < s->argc; i++) {
                if (!strcmp(s->argv[i], "-y") || !strcmp(s->argv[i], "--y") || !strcmp(s->argv[i], "--assume-yes"))
                        yes = true;
                else if (!strcmp(s->argv[i], "--confirm") && i + 1 < s->argc) {
                        if (parse_confirm(s->argv[++i], &confirm) < 0)
                                return sim_fail("Error: Invalid confirm time '%s'", s->argv[i]);
                } else if (!strncmp(s->argv[i], "--confirm-", 10))
                        return confirm_action(s, s->argv[i]);
                else
                        return sim_fail("Error: unknown option '%s'", s->argv[i]);
        }
        if (!yes)
                return sim_fail("Error: not a terminal: use -y to apply without prompting");
        if (json_is_object(json_object_get(s->d, "confirm")))
                return sim_fail("Error: a previous apply awaits confirmation");
        if (!json_is_object(p) || json_equal(p, json_object_get(s->d, "applied"))) {
                printf("Warning: There are no configuration changes to apply\n");
                return 0;       /* an open revision stays open */
        }
        if (wd_without_pfc(p))
                return sim_fail("Error: PFC watchdog needs PFC or link pause on the port (%s)", wd_without_pfc(p));
        if (confirm > 0)
                json_object_set_new(s->d, "confirm", json_pack("{s:f,s:O}", "deadline", sim_now() + confirm,
                                                               "rollback", json_object_get(s->d, "applied")));
        json_object_set(s->d, "applied", p);
        json_object_set_new(s->d, "pending", json_null());
        rev = revision_in(s, "pending");
        json_object_set_new(rev, "state", json_string(confirm > 0 ? "confirm" : auto_save(s->st) ? "applied_and_saved"
                                                                                                   : "applied"));
        if (auto_save(s->st))
                json_object_set(s->d, "startup", p);
        s->mutated = true;
        printf("applied [rev_id: %lld]\n", (long long)json_integer_value(json_object_get(rev, "id")));
        return 0;
}

/* `nv show [--applied] qos|interface|qos roce -o json` (NVUE reference, Common Options). */
static int show(struct sim *s)
{
        json_t *applied = json_object_get(s->d, "applied"), *out;
        char path[64] = "";
        bool applied_view = false, json = false;
        const char *k;
        json_t *v;

        for (int i = 2; i < s->argc; i++) {
                if (!strcmp(s->argv[i], "--applied"))
                        applied_view = true;
                else if (!strcmp(s->argv[i], "-o") && i + 1 < s->argc && !strcmp(s->argv[i + 1], "json"))
                        json = true, i++;
                else
                        snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s", *path ? " " : "",
                                 s->argv[i]);
        }
        if (!json)
                return sim_fail("Error: supported here: nv show [--applied] qos|interface|qos roce -o json");
        if (!strcmp(path, "system config auto-save"))
                out = v510(s->st) ? json_pack("{s:s}", "state", auto_save(s->st) ? "enabled" : "disabled")
                                  : json_pack("{s:s}", "enable", auto_save(s->st) ? "on" : "off");
        else if (!strcmp(path, "qos"))
                out = json_deep_copy(json_object_get(applied, "qos"));
        else if (!strcmp(path, "qos roce"))
                out = json_deep_copy(json_object_get(json_object_get(applied, "qos"), "roce"));
        else if (!strcmp(path, "interface") && applied_view)
                out = json_deep_copy(json_object_get(applied, "interface"));
        else if (!strcmp(path, "interface")) {
                /* The operational list: every port, with what the link runs. */
                out = json_deep_copy(json_object_get(applied, "interface"));
                json_object_foreach(out, k, v) {
                        bool up;
                        const char *speed;

                        sim_link(s->st, k, &up, &speed);
                        json_object_del(v, "qos");
                        json_object_set_new(sim_obj(v, "link"), "state", json_string(up ? "up" : "down"));
                        json_object_set_new(sim_obj(v, "link"), "speed", json_string(speed));
                }
        } else
                return sim_fail("Error: Invalid path: '%s'", path);
        if (!applied_view && strcmp(path, "interface") && strcmp(path, "system config auto-save"))
                json_object_del(out, "roce");   /* the driver reads the applied view; keep the views apart */
        sim_print_json(out);
        json_decref(out);
        return 0;
}

/* The newest applied revision is saved now (state applied_and_saved). */
static void saved_revision(struct sim *s)
{
        json_t *revs = json_object_get(s->d, "revisions");

        for (size_t i = json_array_size(revs); i-- > 0;) {
                json_t *r = json_array_get(revs, i);

                if (!strcmp(json_string_value(json_object_get(r, "state")), "applied")) {
                        json_object_set_new(r, "state", json_string("applied_and_saved"));
                        return;
                }
        }
}

/* `nv config save`: the applied configuration becomes the startup one (NVUE reference, Config Commands). */
static int config_save(struct sim *s)
{
        if (sim_variant(s->st, "no-config-save"))
                return sim_fail("Error: Invalid Command: nv config save");
        if (s->argc == 4 && (!strcmp(s->argv[3], "-h") || !strcmp(s->argv[3], "--help"))) {
                printf("Usage:\n  nv config save [options]\n\nDescription:\n  Overwrite startup configuration "
                       "with applied configuration\n");
                return 0;
        }
        if (s->argc != 3)
                return sim_fail("Error: unsupported: '%s'", s->cmd);
        json_object_set(s->d, "startup", json_object_get(s->d, "applied"));
        saved_revision(s);
        s->mutated = true;
        return 0;
}

/* `nv config diff -o json`: the pending changes against applied; [] when there are none. */
static int config_diff(struct sim *s)
{
        json_t *p = json_object_get(s->d, "pending");

        if (!json_is_object(p) || json_equal(p, json_object_get(s->d, "applied")))
                printf("[]\n");
        else
                printf("[{\"set\": \"pending changes\"}]\n");
        return 0;
}

static int config(struct sim *s)
{
        if (s->argc >= 3 && !strcmp(s->argv[2], "apply"))
                return config_apply(s);
        if (s->argc >= 3 && !strcmp(s->argv[2], "save"))
                return config_save(s);
        if (s->argc == 5 && !strcmp(s->argv[2], "diff") && !strcmp(s->argv[4], "json"))
                return config_diff(s);
        if (s->argc == 3 && !strcmp(s->argv[2], "detach")) {
                json_t *rev = revision_in(s, "pending");

                json_object_set_new(s->d, "pending", json_null());
                if (rev)
                        json_object_set_new(rev, "state", json_string("detached"));
                return 0;
        }
        if (s->argc == 5 && !strcmp(s->argv[2], "revision") && !strcmp(s->argv[4], "json")) {
                json_t *out = json_object(), *r;
                size_t i;
                json_array_foreach(json_object_get(s->d, "revisions"), i, r) {
                        char id[24];
                        snprintf(id, sizeof(id), "%zu", i + 1);
                        json_object_set(out, id, r);
                }
                sim_print_json(out);
                json_decref(out);
                return 0;
        }
        return sim_fail("Error: unsupported: '%s'", s->cmd);
}

/* `nv show interface PORT counters qos` (CL512-QoS "Show Qos Counters"). */
static int counters_qos(struct sim *s, const char *port)
{
        static const char *const ingress[] = { "priority-group", "rx-frames", "rx-buffer-discards",
                                               "rx-shared-buffer-discards" };
        static const char *const ingress_v[] = { "#", "=0", "rx_buffer_discard Bytes", "=0 Bytes" };
        static const char *const egress[] = { "traffic-class", "tx-frames", "tx-bytes", "tx-uc-buffer-discards",
                                              "wred-discards" };
        static const char *const egress_v[] = { "#", "tx_frames", "=0 Bytes", "tx_drop Bytes", "wred_drop" };
        static const char *const pfc[] = { "switch-priority", "rx-pause-frames", "rx-pause-duration",
                                           "tx-pause-frames", "tx-pause-duration" };
        static const char *const pfc_v[] = { "#", "pfc_rx", "=0", "pfc_tx", "=0" };
        char cells[4][SIM_TABLE_COLS][64], name[32];
        uint64_t marked = 0;

        if (!port_known(s, port))
                return sim_fail("Error: The requested item does not exist.");
        for (unsigned i = 0; i < 8; i++) {
                snprintf(name, sizeof(name), "ecn_marked.%u", i);
                marked += sim_counter(s->st, port, name);
        }
        printf("Ingress Buffer Statistics\n============================\n");
        sim_rows(s->st, port, "    ", 4, ingress, ingress_v);
        printf("\nEgress Queue Statistics\n==========================\n");
        sim_rows(s->st, port, "    ", 5, egress, egress_v);
        printf("\nPFC Statistics\n=================\n");
        sim_rows(s->st, port, "    ", 5, pfc, pfc_v);
        printf("\nQos Port Statistics\n======================\n");
        snprintf(cells[0][0], 64, "Counter");
        snprintf(cells[0][1], 64, "Receive");
        snprintf(cells[0][2], 64, "Transmit");
        snprintf(cells[1][0], 64, "ecn-marked-packets");
        snprintf(cells[1][1], 64, "n/a");
        snprintf(cells[1][2], 64, "%llu", (unsigned long long)marked);
        snprintf(cells[2][0], 64, "mc-buffer-discards");
        snprintf(cells[2][1], 64, "n/a");
        snprintf(cells[2][2], 64, "0");
        snprintf(cells[3][0], 64, "pause-frames");
        snprintf(cells[3][1], 64, "%llu", (unsigned long long)sim_counter(s->st, port, "link_pause_rx"));
        snprintf(cells[3][2], 64, "%llu", (unsigned long long)sim_counter(s->st, port, "link_pause_tx"));
        sim_table("    ", 4, 3, cells);
        return 0;
}

/* `nv show interface PORT qos roce counters` (CL512-RoCE), only with RoCE mode on. */
static int roce_counters(struct sim *s, const char *port)
{
        const char *en = json_string_value(json_object_get(json_object_get(json_object_get(
                json_object_get(s->d, "applied"), "qos"), "roce"), "enable"));

        if (!port_known(s, port))
                return sim_fail("Error: The requested item does not exist.");
        if (!en || strcmp(en, "on"))
                return sim_fail("Error: RoCE is not enabled");
        printf("                               operational   applied  description\n"
               "-----------------------------  ------------  -------  ------------------------------------------------------\n"
               "rx-stats\n"
               "  rx-roce-stats\n"
               "    no-buffer-discard          %-22llu Rx buffer discards for RoCE traffic\n"
               "tx-stats\n"
               "  tx-cnp-stats\n"
               "    cnp-packets                %-22llu Tx CNP Packets\n"
               "  tx-ecn-stats\n"
               "    ecn-marked-packets         %-22llu Tx ECN marked packets\n"
               "  tx-roce-stats\n"
               "    unicast-no-buffer-discard  %-22llu Tx buffer discards for RoCE traffic\n",
               (unsigned long long)sim_counter(s->st, port, "roce_no_buffer_discard"),
               (unsigned long long)sim_counter(s->st, port, "cnp_tx"),
               (unsigned long long)sim_counter(s->st, port, "ecn_marked.3"),
               (unsigned long long)sim_counter(s->st, port, "tx_drop.3"));
        return 0;
}

/* `nv show system -o json` (NVUE reference, nv show system: product-name, product-release, ...). */
static int show_system(struct sim *s)
{
        json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "hostname", "switch", "product-name", "Cumulus Linux",
                              "product-release", sim_variant(s->st, "cl519") ? "5.19.0" : "5.12.0", "uptime", "1:52:24");

        sim_print_json(o);
        json_decref(o);
        return 0;
}

/*
 * `nv show interface swp1 qos pfc-watchdog` as the CL 5.12 QoS page prints it (trailing
 * blanks kept): state, then per traffic class OK/DEADLOCK and the deadlock count (the
 * watchdog's detections; NVUE shows no restore count).
 */
static int show_port_wd(struct sim *s, const char *port)
{
        bool on = wd_on(json_object_get(s->d, "applied"), port);

        if (!port_known(s, port))
                return sim_fail("Error: The requested item does not exist.");
        printf("                 operational  applied \n---------------  -----------  ------- \n"
               "state            %-11s  %-7s \n", on ? "enabled" : "disabled", on ? "enabled" : "disabled");
        if (!on)
                return 0;
        printf("\nPFC WD Status \n=========================== \n    traffic-class  status    deadlock-count \n"
               "    -------------  --------  -------------- \n\n");
        for (unsigned tc = 0; tc < 8; tc++) {
                struct sim_wd_stats st;

                sim_wd_stats(s->st, port, tc, &st);
                printf("    %-13u  %-8s  %llu \n", tc, st.stormed ? "DEADLOCK" : "OK", (unsigned long long)st.detected);
        }
        return 0;
}

int nvue_run(struct sim *s)
{
        if (s->argc == 5 && !strcmp(s->argv[1], "show") && !strcmp(s->argv[2], "system") && !strcmp(s->argv[3], "-o") &&
            !strcmp(s->argv[4], "json"))
                return show_system(s);
        if (s->argc == 6 && !strcmp(s->argv[1], "show") && !strcmp(s->argv[2], "interface") &&
            !strcmp(s->argv[4], "qos") && !strcmp(s->argv[5], "pfc-watchdog"))
                return show_port_wd(s, s->argv[3]);
        if (s->argc == 6 && !strcmp(s->argv[1], "show") && !strcmp(s->argv[2], "interface") &&
            !strcmp(s->argv[4], "counters") && !strcmp(s->argv[5], "qos"))
                return counters_qos(s, s->argv[3]);
        if (s->argc == 7 && !strcmp(s->argv[1], "show") && !strcmp(s->argv[2], "interface") &&
            !strcmp(s->argv[4], "qos") && !strcmp(s->argv[5], "roce") && !strcmp(s->argv[6], "counters"))
                return roce_counters(s, s->argv[3]);
        if (s->argc < 2 || strcmp(s->argv[0], "nv"))
                return sim_fail("-bash: %s: command not found", s->argv[0]);
        if (!strcmp(s->argv[1], "set"))
                return nv_set(s, s->argv + 2, s->argc - 2);
        if (!strcmp(s->argv[1], "unset"))
                return nv_unset(s, s->argv + 2, s->argc - 2);
        if (!strcmp(s->argv[1], "show") && s->argc >= 3)
                return show(s);
        if (!strcmp(s->argv[1], "config"))
                return config(s);
        return sim_fail("Error: unsupported: '%s'", s->cmd);
}

void nvue_tick(struct sim *s)
{
        json_t *c = json_object_get(s->d, "confirm");

        if (!json_is_object(c) || json_real_value(json_object_get(c, "deadline")) > sim_now())
                return;
        json_object_set(s->d, "applied", json_object_get(c, "rollback"));
        json_object_set_new(s->d, "confirm", json_null());
        set_confirm_state(s, "rolled_back_confirm_timeout");
}

/* A restart: the startup configuration is applied; pending edits and confirmations are gone. */
void nvue_reboot(struct sim *s)
{
        json_t *startup = json_object_get(s->d, "startup");

        json_t *open = revision_in(s, "pending");

        if (json_is_object(startup))
                json_object_set(s->d, "applied", startup);
        json_object_set_new(s->d, "pending", json_null());
        if (open)
                json_object_set_new(open, "state", json_string("detached"));
        if (json_is_object(json_object_get(s->d, "confirm")))
                set_confirm_state(s, "rolled_back");
        json_object_set_new(s->d, "confirm", json_null());
}
