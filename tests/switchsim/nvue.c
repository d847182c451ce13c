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
 * print them; counters from traffic.c). The tree under "applied",
 * "pending" and "startup" has the shape of `nv config show -o json`. A reboot
 * loads startup (auto-save off, the CL 5.8 default: only `nv config save` makes a
 * change survive it).
 *
 * Variants (--variant):
 *   roce-lossless    `nv set qos roce mode lossless` applied (CL 5.12 RoCE chapter,
 *                    "nv show qos roce": enable on, mode lossless)
 *   no-config-save   an NVUE without `nv config save` (saving is not available:
 *                    the command and its -h are refused)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

enum vkind { V_NONE, V_MTU, V_TRUST, V_PRIO, V_ENABLE, V_BYTES, V_PROB, V_MEMBERS, V_NAME, V_ROCE, V_CABLE };

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
};

static json_t *ecn_default(void)
{
        return json_pack("{s:s,s:s,s:i,s:i,s:i}", "ecn", "enable", "red", "disable",
                         "min-threshold", 150000, "max-threshold", 1500000, "probability", 100);
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
        json_object_set_new(sim_obj(qos, "pfc"), "default-global", json_pack("{s:s,s:s}", "tx", "enable",
                                                                               "rx", "enable"));
        /* The factory congestion-control: TC0 marks (CL 5.12, "Default Configuration Files"). */
        json_object_set_new(sim_obj(sim_obj(sim_obj(qos, "congestion-control"), "default-global"),
                                    "traffic-class"), "0", ecn_default());
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

static json_t *make_value(enum vkind k, const char *v, char *why, size_t wsize)
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
                if (!strcmp(v, "enable") || !strcmp(v, "enabled"))
                        return json_string("enable");
                if (!strcmp(v, "disable") || !strcmp(v, "disabled"))
                        return json_string("disable");
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
                 k == V_CABLE ? ": expected integer:1 - 100000" : "");
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

static json_t *pending(struct sim *s)
{
        json_t *p = json_object_get(s->d, "pending");

        if (!json_is_object(p)) {
                p = json_deep_copy(json_object_get(s->d, "applied"));
                json_object_set_new(s->d, "pending", p);
        }
        return p;
}

static int nv_set(struct sim *s, char **w, int n)
{
        char ids[64][32], why[160];
        int star, nids = 1;
        const struct pattern *pt;
        json_t *v;

        if (n < 2 || !(pt = match(w, n - 1, false, &star)))
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
        if (!(v = make_value(pt->value, w[n - 1], why, sizeof(why))))
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

static void add_revision(struct sim *s, const char *state)
{
        json_t *revs = json_object_get(s->d, "revisions");
        json_int_t id = (json_int_t)json_array_size(revs) + 1;

        json_array_append_new(revs, json_pack("{s:I,s:s,s:f}", "id", id, "state", state, "date", sim_now()));
}

static void set_last_revision_state(struct sim *s, const char *state)
{
        json_t *revs = json_object_get(s->d, "revisions");
        json_t *last = json_array_get(revs, json_array_size(revs) - 1);

        json_object_set_new(last, "state", json_string(state));
}

/* "--confirm 30s", "5m", "1h"; a bare number is minutes (the documented default unit). */
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
                set_last_revision_state(s, "rolled_back");
                printf("Configuration rolled back\n");
        } else {
                set_last_revision_state(s, "applied_and_saved");
                printf("Configuration confirmed\n");
        }
        json_object_set_new(s->d, "confirm", json_null());
        s->mutated = true;
        return 0;
}

static int config_apply(struct sim *s)
{
        bool yes = false;
        double confirm = 0;
        json_t *p = json_object_get(s->d, "pending");

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
                json_object_set_new(s->d, "pending", json_null());
                printf("Warning: There are no configuration changes to apply\n");
                return 0;
        }
        if (confirm > 0)
                json_object_set_new(s->d, "confirm", json_pack("{s:f,s:O}", "deadline", sim_now() + confirm,
                                                               "rollback", json_object_get(s->d, "applied")));
        json_object_set(s->d, "applied", p);
        json_object_set_new(s->d, "pending", json_null());
        add_revision(s, confirm > 0 ? "confirm" : "applied_and_saved");
        s->mutated = true;
        printf("applied [rev_id: %zu]\n", json_array_size(json_object_get(s->d, "revisions")));
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
        if (!strcmp(path, "qos"))
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
        if (!applied_view && strcmp(path, "interface"))
                json_object_del(out, "roce");   /* the driver reads the applied view; keep the views apart */
        sim_print_json(out);
        json_decref(out);
        return 0;
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
                json_object_set_new(s->d, "pending", json_null());
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

int nvue_run(struct sim *s)
{
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
        set_last_revision_state(s, "rolled_back_confirm_timeout");
}

/* A restart: the startup configuration is applied; pending edits and confirmations are gone. */
void nvue_reboot(struct sim *s)
{
        json_t *startup = json_object_get(s->d, "startup");

        if (json_is_object(startup))
                json_object_set(s->d, "applied", startup);
        json_object_set_new(s->d, "pending", json_null());
        json_object_set_new(s->d, "confirm", json_null());
}
