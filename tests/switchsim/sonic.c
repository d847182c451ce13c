/* SPDX-License-Identifier: MIT */
/*
 * SONiC subset over CONFIG_DB (JSON, table -> key -> field -> string), after
 * sonic-utilities config/main.py and generic_config_updater:
 *   sonic-cfggen -d --print-data                the running CONFIG_DB
 *   cat /etc/sonic/config_db.json               the saved one (loaded at boot)
 *   sudo config save -y                         running -> saved (`config save`)
 *   sudo config checkpoint|rollback|delete-checkpoint NAME, sudo config list-checkpoints
 *   sudo config apply-patch FILE|/dev/stdin     RFC 6902, atomic, yang-like checks
 *   sonic-db-cli CONFIG_DB hset|hdel|hgetall "TABLE|key" ...   (hand edits: bypasses GCU)
 *   sonic-db-cli APPL_DB hgetall "TABLE:key"    what buffermgrd made of it (sonic_buffer.c)
 *   show interfaces status, show pfc counters, show queue counters, show queue wredcounters,
 *   show priority-group drop counters
 *                                               the data plane (traffic.c) as SU's tabulate
 *                                               tables print it (Command-Reference.md)
 * `config` needs root: without sudo it exits with "Root privileges are required for
 * this operation" (config/main.py). A reboot loads the saved CONFIG_DB.
 *
 * Variants (--variant):
 *   dynamic-buffer        DEVICE_METADATA|localhost buffer_model dynamic: lossless
 *                         BUFFER_PG 3-4 with profile NULL (the dynamic buffer model,
 *                         NVIDIA SONiC 202012 "QoS and Buffers") and
 *                         LOSSLESS_TRAFFIC_PATTERN|AZURE {mtu 1024, small_packet_percentage
 *                         50} (buffers_config.j2)
 * Every port has CABLE_LENGTH|AZURE <port> "5m" (buffers_config.j2 renders the table for
 * every port; the Mellanox t0/t1 templates' default_cable is 5m).
 *   no-lossless-pg        only the lossy BUFFER_PG 0 per port (the upstream test input
 *                         tests/qos_config_input/update_qos.json has no lossless PG)
 *   gcu-blocks-dscp-map   GCU refuses any DSCP_TO_TC_MAP change, as observed on an RDMA
 *                         SKU (sonic-utilities commit 2e9e81c1 "[GCU] Update WRED_PROFILE
 *                         and BUFFER_POOL validators", its table of RDMA tables)
 *   global-dscp-map       PORT_QOS_MAP|global dscp_to_tc_map AZURE (the switch-level map)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

static json_t *azure_dscp_map(void)
{
        json_t *m = json_object();

        for (int d = 0; d < 64; d++) {
                char k[4];
                const char *v = d == 3 ? "3" : d == 4 ? "4" : d == 5 ? "2" : d == 8 ? "0" :
                                d == 46 ? "5" : d == 48 ? "6" : "1";
                snprintf(k, sizeof(k), "%d", d);
                json_object_set_new(m, k, json_string(v));
        }
        return m;
}

/* The lossless PG headroom the traditional buffer templates write (sonic-buildimage buffers_config.j2). */
static void add_buffers(json_t *db, const char *port, const json_t *st)
{
        char key[96];

        snprintf(key, sizeof(key), "%s|0", port);
        json_object_set_new(sim_obj(db, "BUFFER_PG"), key, json_pack("{s:s}", "profile", "ingress_lossy_profile"));
        if (sim_variant(st, "no-lossless-pg"))
                return;
        snprintf(key, sizeof(key), "%s|3-4", port);
        json_object_set_new(sim_obj(db, "BUFFER_PG"), key, json_pack("{s:s}", "profile",
                            sim_variant(st, "dynamic-buffer") ? "NULL" : "pg_lossless_100000_5m_profile"));
}

json_t *sonic_init(json_t *ports, const json_t *st)
{
        json_t *db = json_object(), *p;
        size_t i;

        json_object_set_new(sim_obj(db, "DSCP_TO_TC_MAP"), "AZURE", azure_dscp_map());
        json_object_set_new(sim_obj(db, "WRED_PROFILE"), "AZURE_LOSSLESS", json_pack(
                "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
                "ecn", "ecn_all", "green_drop_probability", "5", "green_max_threshold", "2097152",
                "green_min_threshold", "1048576", "red_drop_probability", "5", "red_max_threshold", "2097152",
                "red_min_threshold", "1048576", "wred_green_enable", "true", "wred_red_enable", "true",
                "wred_yellow_enable", "true", "yellow_drop_probability", "5",
                "yellow_max_threshold", "2097152", "yellow_min_threshold", "1048576"));
        json_object_set_new(sim_obj(db, "BUFFER_PROFILE"), "ingress_lossy_profile", json_pack("{s:s,s:s,s:s}",
                            "dynamic_th", "3", "pool", "ingress_lossless_pool", "size", "0"));
        json_object_set_new(sim_obj(db, "BUFFER_PROFILE"), "pg_lossless_100000_5m_profile", json_pack(
                "{s:s,s:s,s:s,s:s,s:s}", "dynamic_th", "-3", "pool", "ingress_lossless_pool", "size", "56368",
                "xoff", "55120", "xon", "18432"));
        json_object_set_new(sim_obj(db, "DEVICE_METADATA"), "localhost", json_pack("{s:s}", "buffer_model",
                            sim_variant(st, "dynamic-buffer") ? "dynamic" : "traditional"));
        if (sim_variant(st, "dynamic-buffer"))
                json_object_set_new(sim_obj(db, "LOSSLESS_TRAFFIC_PATTERN"), "AZURE",
                                    json_pack("{s:s,s:s}", "mtu", "1024", "small_packet_percentage", "50"));
        if (sim_variant(st, "global-dscp-map"))
                json_object_set_new(sim_obj(db, "PORT_QOS_MAP"), "global", json_pack("{s:s}", "dscp_to_tc_map", "AZURE"));
        json_array_foreach(ports, i, p) {
                const char *name = json_string_value(p);
                char key[96];
                json_object_set_new(sim_obj(db, "PORT"), name, json_pack("{s:s,s:s,s:s,s:s}", "admin_status", "up",
                                    "mtu", "9100", "pfc_asym", "off", "speed", "100000"));
                json_object_set_new(sim_obj(db, "PORT_QOS_MAP"), name, json_pack("{s:s,s:s,s:s}",
                                    "dscp_to_tc_map", "AZURE", "pfc_enable", "3,4", "tc_to_queue_map", "AZURE"));
                for (int q = 3; q <= 4; q++) {
                        snprintf(key, sizeof(key), "%s|%d", name, q);
                        json_object_set_new(sim_obj(db, "QUEUE"), key,
                                            json_pack("{s:s}", "wred_profile", "AZURE_LOSSLESS"));
                }
                add_buffers(db, name, st);
                json_object_set_new(sim_obj(sim_obj(db, "CABLE_LENGTH"), "AZURE"), name, json_string("5m"));
        }
        return json_pack("{s:o,s:O,s:{}}", "db", db, "saved", db, "checkpoints");
}

/* ---- RFC 6901 pointers and RFC 6902 operations on the DB ---- */

static int pointer_split(const char *path, char tokens[][128], int max)
{
        int n = 0;

        if (path[0] != '/')
                return -1;
        for (const char *p = path + 1;; ) {
                size_t len = 0;
                if (n >= max)
                        return -1;
                while (*p && *p != '/') {
                        char c = *p++;
                        if (c == '~' && (*p == '0' || *p == '1'))
                                c = *p++ == '0' ? '~' : '/';
                        if (len + 1 >= 128)
                                return -1;
                        tokens[n][len++] = c;
                }
                tokens[n++][len] = '\0';
                if (!*p)
                        return n;
                p++;
        }
}

static int patch_op(struct sim *s, json_t *db, const json_t *op, char *why, size_t wsize)
{
        const char *kind = json_string_value(json_object_get(op, "op"));
        const char *path = json_string_value(json_object_get(op, "path"));
        json_t *value = json_object_get(op, "value"), *parent = db;
        char tok[8][128];
        int n;

        if (!kind || !path || (n = pointer_split(path, tok, 8)) < 1)
                return snprintf(why, wsize, "invalid patch operation"), -1;
        if (!strcmp(tok[0], "DSCP_TO_TC_MAP") && sim_variant(s->st, "gcu-blocks-dscp-map"))
                return snprintf(why, wsize, "Failed to apply patch on the following scopes: - localhost: "
                                "Modification of DSCP_TO_TC_MAP table is illegal"), -1;
        for (int i = 0; i < n - 1; i++)
                if (!(parent = json_object_get(parent, tok[i])) || !json_is_object(parent))
                        return snprintf(why, wsize, "path '%s' does not exist", path), -1;
        if (!strcmp(kind, "remove")) {
                if (json_object_del(parent, tok[n - 1]) < 0)
                        return snprintf(why, wsize, "path '%s' does not exist", path), -1;
                return 0;
        }
        if (!value || (strcmp(kind, "add") && strcmp(kind, "replace")))
                return snprintf(why, wsize, "unsupported operation '%s'", kind), -1;
        if (!strcmp(kind, "replace") && !json_object_get(parent, tok[n - 1]))
                return snprintf(why, wsize, "path '%s' does not exist", path), -1;
        json_object_set(parent, tok[n - 1], value);
        return 0;
}

static int check_uint_field(const json_t *obj, const char *key, uint64_t min, uint64_t max, uint64_t *ret)
{
        const char *v = json_string_value(json_object_get(obj, key));
        uint64_t n = 0;

        if (!json_object_get(obj, key)) {
                *ret = 0;
                return 0;
        }
        if (!v || switch_parse_uint(v, min, max, &n) < 0)
                return -1;
        *ret = n;
        return 0;
}

/* sonic-wred-profile.yang `ecn` enumeration (absent = none). */
static bool ecn_mode_known(const char *m)
{
        static const char *const modes[] = { "ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow",
                                             "ecn_green_red", "ecn_yellow_red", "ecn_all" };

        for (size_t i = 0; m && i < ARRAY_SIZE(modes); i++)
                if (!strcmp(m, modes[i]))
                        return true;
        return !m;
}

/* sonic-cable-length.yang: a port name (leafref to PORT) and a length '[0-9]+m'. */
static int validate_cable(const json_t *db, char *why, size_t wsize)
{
        const char *k, *port;
        json_t *row, *len;

        json_object_foreach(json_object_get(db, "CABLE_LENGTH"), k, row)
                json_object_foreach(row, port, len) {
                        const char *v = json_string_value(len);
                        size_t n = v ? strlen(v) : 0, digits = v ? strspn(v, "0123456789") : 0;

                        if (!json_object_get(json_object_get(db, "PORT"), port))
                                return snprintf(why, wsize, "CABLE_LENGTH|%s: port '%s' does not exist", k, port), -1;
                        if (n < 2 || digits != n - 1 || v[n - 1] != 'm')
                                return snprintf(why, wsize, "CABLE_LENGTH|%s: '%s' is '%s': pattern '[0-9]+m'", k,
                                                port, v ? v : "?"), -1;
                }
        return 0;
}

/* What yang would refuse: mtu, pfc_enable, WRED numbers and modes, dangling references. */
static int validate_db(const json_t *db, char *why, size_t wsize)
{
        const char *k;
        json_t *v;
        uint64_t a, b, bits;

        json_object_foreach(json_object_get(db, "PORT"), k, v)
                if (check_uint_field(v, "mtu", 68, 9216, &a) < 0)
                        return snprintf(why, wsize, "PORT|%s: mtu must be in range 68..9216", k), -1;
        json_object_foreach(json_object_get(db, "PORT_QOS_MAP"), k, v) {
                const char *pfc = json_string_value(json_object_get(v, "pfc_enable"));
                const char *map = json_string_value(json_object_get(v, "dscp_to_tc_map"));
                if (pfc && switch_parse_list(pfc, 7, &bits) < 0)
                        return snprintf(why, wsize, "PORT_QOS_MAP|%s: pfc_enable '%s' does not match "
                                        "([0-7](,[0-7])*)?", k, pfc), -1;
                const char *dot1p = json_string_value(json_object_get(v, "dot1p_to_tc_map"));
                if (map && !json_object_get(json_object_get(db, "DSCP_TO_TC_MAP"), map))
                        return snprintf(why, wsize, "PORT_QOS_MAP|%s: dscp_to_tc_map '%s' does not exist", k, map), -1;
                if (dot1p && !json_object_get(json_object_get(db, "DOT1P_TO_TC_MAP"), dot1p))
                        return snprintf(why, wsize, "PORT_QOS_MAP|%s: dot1p_to_tc_map '%s' does not exist", k, dot1p), -1;
        }
        json_object_foreach(json_object_get(db, "DSCP_TO_TC_MAP"), k, v) {
                const char *d;
                json_t *tc;
                json_object_foreach(v, d, tc)
                        if (switch_parse_uint(d, 0, 63, &a) < 0 || !json_is_string(tc) ||
                            switch_parse_uint(json_string_value(tc), 0, 7, &b) < 0)
                                return snprintf(why, wsize, "DSCP_TO_TC_MAP|%s: '%s' is not dscp 0-63 to tc 0-7", k, d), -1;
        }
        json_object_foreach(json_object_get(db, "WRED_PROFILE"), k, v) {
                if (check_uint_field(v, "green_min_threshold", 0, UINT32_MAX, &a) < 0 ||
                    check_uint_field(v, "green_max_threshold", 0, UINT32_MAX, &b) < 0 || b < a)
                        return snprintf(why, wsize, "WRED_PROFILE|%s: Green max threshold must be greater than "
                                        "or equal to min threshold", k), -1;
                if (check_uint_field(v, "green_drop_probability", 0, 100, &a) < 0)
                        return snprintf(why, wsize, "WRED_PROFILE|%s: green_drop_probability out of range 0..100",
                                        k), -1;
                if (!ecn_mode_known(json_string_value(json_object_get(v, "ecn"))))
                        return snprintf(why, wsize, "WRED_PROFILE|%s: ecn is not one of the sonic-wred-profile.yang "
                                        "modes", k), -1;
        }
        json_object_foreach(json_object_get(db, "QUEUE"), k, v) {
                const char *prof = json_string_value(json_object_get(v, "wred_profile"));
                if (prof && !json_object_get(json_object_get(db, "WRED_PROFILE"), prof))
                        return snprintf(why, wsize, "QUEUE|%s: wred_profile '%s' does not exist", k, prof), -1;
        }
        return validate_cable(db, why, wsize);
}

static char *read_input(const char *file)
{
        FILE *f = (!strcmp(file, "-") || !strcmp(file, "/dev/stdin")) ? stdin : fopen(file, "re");
        char *buf = calloc(1, SIM_INPUT_MAX + 1);
        size_t n = 0;

        if (!f || !buf) {
                free(buf);
                return NULL;
        }
        n = fread(buf, 1, SIM_INPUT_MAX, f);
        buf[n] = '\0';
        if (f != stdin)
                fclose(f);
        return buf;
}

/* Every patch received, for tests that check what was (not) written ("patches", the last 50). */
static void log_patch(struct sim *s, const json_t *patch)
{
        json_t *list = json_object_get(s->st, "patches");

        if (!json_is_array(list)) {
                list = json_array();
                json_object_set_new(s->st, "patches", list);
        }
        json_array_append(list, (json_t *)patch);
        while (json_array_size(list) > 50)
                json_array_remove(list, 0);
}

static int apply_patch(struct sim *s)
{
        json_error_t err;
        char why[400] = "", *text;
        json_t *patch, *db, *op;
        size_t i;

        if (s->argc < 3 || !(text = read_input(s->argv[2])))
                return sim_fail("Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH");
        patch = json_loads(text, 0, &err);
        free(text);
        if (!json_is_array(patch)) {
                json_decref(patch);
                return sim_fail("Failed to apply patch due to: invalid JSON patch");
        }
        log_patch(s, patch);
        db = json_deep_copy(json_object_get(s->d, "db"));
        json_array_foreach(patch, i, op)
                if (patch_op(s, db, op, why, sizeof(why)) < 0)
                        break;
        if (!why[0])
                validate_db(db, why, sizeof(why));
        json_decref(patch);
        if (why[0]) {
                json_decref(db);
                return sim_fail("Failed to apply patch due to: %s", why);
        }
        json_object_set_new(s->d, "db", db);
        s->mutated = true;
        printf("Patch applied successfully.\n");
        return 0;
}

static int checkpoint_cmd(struct sim *s)
{
        json_t *cps = sim_obj(s->d, "checkpoints"), *db = json_object_get(s->d, "db"), *cp;
        const char *sub = s->argv[1];

        if (!strcmp(sub, "list-checkpoints")) {
                json_t *names = json_array();
                const char *k;
                json_t *v;
                json_object_foreach(cps, k, v)
                        json_array_append_new(names, json_string(k));
                char *out = json_dumps(names, JSON_INDENT(4));
                printf("%s\n", out ? out : "[]");
                free(out);
                json_decref(names);
                return 0;
        }
        if (s->argc != 3)
                return sim_fail("Usage: config %s CHECKPOINT_NAME", sub);
        cp = json_object_get(cps, s->argv[2]);
        if (!strcmp(sub, "checkpoint")) {
                json_object_set_new(cps, s->argv[2], json_deep_copy(db));
                printf("Checkpoint created successfully.\n");
                return 0;
        }
        if (!cp)
                return sim_fail("Failed to %s config checkpoint\nError: checkpoint '%s' does not exist",
                                !strcmp(sub, "rollback") ? "rollback" : "delete", s->argv[2]);
        if (!strcmp(sub, "delete-checkpoint")) {
                json_object_del(cps, s->argv[2]);
                printf("Checkpoint deleted successfully.\n");
                return 0;
        }
        if (sim_variant(s->st, "gcu-blocks-dscp-map") &&
            !json_equal(json_object_get(cp, "DSCP_TO_TC_MAP"), json_object_get(db, "DSCP_TO_TC_MAP")))
                return sim_fail("Failed to rollback config\nError: Modification of DSCP_TO_TC_MAP table is illegal");
        json_object_set(s->d, "db", cp);
        s->mutated = true;
        printf("Config rolled back successfully.\n");
        return 0;
}

/* A row as sonic-db-cli prints a hash: a Python dict; {} for no such key. */
static void print_row(const json_t *row)
{
        const char *k;
        json_t *v;
        int first = 1;

        printf("{");
        json_object_foreach((json_t *)row, k, v) {
                char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

                printf("%s'%s': '%s'", first-- > 0 ? "" : ", ", k, text ? text : json_string_value(v));
                free(text);
        }
        printf("}\n");
}

static int appl_db_hgetall(struct sim *s, const char *key)
{
        json_t *appl = sonic_appl_db(json_object_get(s->d, "db"));
        const char *colon = strchr(key, ':');
        char table[64];

        if (colon && (size_t)(colon - key) < sizeof(table)) {
                snprintf(table, sizeof(table), "%.*s", (int)(colon - key), key);
                print_row(json_object_get(json_object_get(appl, table), colon + 1));
        } else {
                printf("{}\n");
        }
        json_decref(appl);
        return 0;
}

static int db_cli(struct sim *s)
{
        char key[256], *bar;
        json_t *row;

        if (s->argc == 4 && !strcmp(s->argv[1], "APPL_DB") && !strcasecmp(s->argv[2], "hgetall"))
                return appl_db_hgetall(s, s->argv[3]);
        if (s->argc < 4 || strcmp(s->argv[1], "CONFIG_DB"))
                return sim_fail("Usage: sonic-db-cli CONFIG_DB hset|hdel|hgetall KEY ...");
        snprintf(key, sizeof(key), "%s", s->argv[3]);
        if (!(bar = strchr(key, '|')))
                return sim_fail("(error) key '%s' has no table", s->argv[3]);
        *bar = '\0';
        row = sim_obj(sim_obj(json_object_get(s->d, "db"), key), bar + 1);
        if (!strcasecmp(s->argv[2], "hgetall")) {
                const char *k;
                json_t *v;
                int first = 1;
                printf("{");
                json_object_foreach(row, k, v)
                        printf("%s'%s': '%s'", first-- > 0 ? "" : ", ", k, json_string_value(v));
                printf("}\n");
                return 0;
        }
        if (!strcasecmp(s->argv[2], "hset") && s->argc >= 6 && (s->argc - 4) % 2 == 0) {
                int added = 0;
                for (int i = 4; i + 1 < s->argc; i += 2) {
                        added += !json_object_get(row, s->argv[i]);
                        json_object_set_new(row, s->argv[i], json_string(s->argv[i + 1]));
                }
                s->mutated = true;
                printf("%d\n", added);
                return 0;
        }
        if (!strcasecmp(s->argv[2], "hdel") && s->argc >= 5) {
                int removed = 0;
                for (int i = 4; i < s->argc; i++)
                        removed += json_object_del(row, s->argv[i]) == 0;
                s->mutated = true;
                printf("%d\n", removed);
                return 0;
        }
        return sim_fail("(error) ERR wrong number of arguments for '%s' command", s->argv[2]);
}

/* `config save -y`: the running CONFIG_DB becomes /etc/sonic/config_db.json (config/main.py save). */
static int config_save(struct sim *s)
{
        if (s->argc != 3 || strcmp(s->argv[2], "-y"))
                return sim_fail("Aborted!");    /* click's confirmation prompt, no terminal */
        json_object_set(s->d, "saved", json_object_get(s->d, "db"));
        s->mutated = true;
        printf("Running command: /usr/local/bin/sonic-cfggen -d --print-data > /etc/sonic/config_db.json\n");
        return 0;
}

static int config_cmd(struct sim *s)
{
        if (!strcmp(s->argv[1], "apply-patch"))
                return apply_patch(s);
        if (!strcmp(s->argv[1], "save"))
                return config_save(s);
        if (!strcmp(s->argv[1], "checkpoint") || !strcmp(s->argv[1], "rollback") ||
            !strcmp(s->argv[1], "delete-checkpoint") || !strcmp(s->argv[1], "list-checkpoints"))
                return checkpoint_cmd(s);
        return sim_fail("Error: unsupported command '%s'", s->cmd);
}

/* ---- show: the data plane (traffic.c), tables as SU's Command-Reference prints them ---- */

static void ports_of(struct sim *s, const char **ret, unsigned *n)
{
        size_t i;
        json_t *p;

        *n = 0;
        json_array_foreach(json_object_get(s->st, "ports"), i, p)
                if (*n < 64)
                        ret[(*n)++] = json_string_value(p);
}

static void count_cell(char *cell, struct sim *s, const char *port, const char *counter, unsigned i)
{
        char name[32];

        snprintf(name, sizeof(name), "%s.%u", counter, i);
        snprintf(cell, 64, "%llu", (unsigned long long)sim_counter(s->st, port, name));
}

static int show_status(struct sim *s)
{
        static const char *const head[] = { "Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper",
                                            "Admin", "Type", "Asym PFC" };
        char (*cells)[SIM_TABLE_COLS][64] = calloc(65, sizeof(*cells));
        const char *ports[64];
        unsigned n;

        if (!cells)
                return 1;
        ports_of(s, ports, &n);
        for (unsigned c = 0; c < 11; c++)
                snprintf(cells[0][c], 64, "%s", head[c]);
        for (unsigned i = 0; i < n; i++) {
                const json_t *row = json_object_get(json_object_get(json_object_get(s->d, "db"), "PORT"), ports[i]);
                const char *mtu = json_string_value(json_object_get(row, "mtu")), *speed;
                bool up;

                sim_link(s->st, ports[i], &up, &speed);
                snprintf(cells[i + 1][0], 64, "%s", ports[i]);
                snprintf(cells[i + 1][1], 64, "%u,%u,%u,%u", 4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4);
                snprintf(cells[i + 1][2], 64, "%s", speed);
                snprintf(cells[i + 1][3], 64, "%s", mtu ? mtu : "9100");
                snprintf(cells[i + 1][4], 64, "rs");
                snprintf(cells[i + 1][5], 64, "etp%u", i + 1);
                snprintf(cells[i + 1][6], 64, "routed");
                snprintf(cells[i + 1][7], 64, "%s", up ? "up" : "down");
                snprintf(cells[i + 1][8], 64, "up");
                snprintf(cells[i + 1][9], 64, "N/A");
                snprintf(cells[i + 1][10], 64, "off");
        }
        sim_table("", n + 1, 11, cells);
        free(cells);
        return 0;
}

static int show_pfc(struct sim *s)
{
        char (*cells)[SIM_TABLE_COLS][64] = calloc(65, sizeof(*cells));
        const char *ports[64];
        unsigned n;

        if (!cells)
                return 1;
        ports_of(s, ports, &n);
        for (int tx = 0; tx < 2; tx++) {
                snprintf(cells[0][0], 64, "Port %s", tx ? "Tx" : "Rx");
                for (unsigned p = 0; p < 8; p++)
                        snprintf(cells[0][p + 1], 64, "PFC%u", p);
                for (unsigned i = 0; i < n; i++) {
                        snprintf(cells[i + 1][0], 64, "%s", ports[i]);
                        for (unsigned p = 0; p < 8; p++)
                                count_cell(cells[i + 1][p + 1], s, ports[i], tx ? "pfc_tx" : "pfc_rx", p);
                }
                if (tx)
                        printf("\n");
                sim_table("", n + 1, 9, cells);
        }
        free(cells);
        return 0;
}

/* One block per port: show queue counters (drops) or show queue wredcounters (WRED drops, ECN marks). */
static int show_queues(struct sim *s, bool wred)
{
        static const char *const q_head[] = { "Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts",
                                              "Drop/bytes" };
        static const char *const q_spec[] = { "@", "UC#", "tx_frames", "=0", "tx_drop", "=0" };
        static const char *const w_head[] = { "Port", "TxQ", "WredDrp/pkts", "WredDrp/bytes", "EcnMarked/pkts",
                                              "EcnMarked/bytes" };
        static const char *const w_spec[] = { "@", "UC#", "wred_drop", "=0", "ecn_marked", "=0" };
        const char *ports[64];
        unsigned n;

        ports_of(s, ports, &n);
        for (unsigned i = 0; i < n; i++) {
                if (i)
                        printf("\n");
                sim_rows(s->st, ports[i], "", 6, wred ? w_head : q_head, wred ? w_spec : q_spec);
        }
        return 0;
}

/* `show priority-group drop counters` (scripts/pg-drop; tests/pgdropstat_test.py prints the layout). */
static int show_pg_drops(struct sim *s)
{
        char (*cells)[SIM_TABLE_COLS][64] = calloc(65, sizeof(*cells));
        const char *ports[64];
        unsigned n;

        if (!cells)
                return 1;
        ports_of(s, ports, &n);
        snprintf(cells[0][0], 64, "Port");
        for (unsigned pg = 0; pg < 8; pg++)
                snprintf(cells[0][pg + 1], 64, "PG%u", pg);
        for (unsigned i = 0; i < n; i++) {
                snprintf(cells[i + 1][0], 64, "%s", ports[i]);
                for (unsigned pg = 0; pg < 8; pg++)
                        count_cell(cells[i + 1][pg + 1], s, ports[i], "pg_drop", pg);
        }
        printf("Ingress PG dropped packets:\n");
        sim_table("", n + 1, 9, cells);
        free(cells);
        return 0;
}

static int show_cmd(struct sim *s)
{
        if (!strcmp(s->cmd, "show priority-group drop counters"))
                return show_pg_drops(s);
        if (!strcmp(s->cmd, "show interfaces status"))
                return show_status(s);
        if (!strcmp(s->cmd, "show pfc counters"))
                return show_pfc(s);
        if (!strcmp(s->cmd, "show queue counters"))
                return show_queues(s, false);
        if (!strcmp(s->cmd, "show queue wredcounters"))
                return show_queues(s, true);
        return sim_fail("Error: unsupported command '%s'", s->cmd);
}

int sonic_run(struct sim *s)
{
        const char *c = s->argv[0];

        if (!strcmp(c, "show"))
                return show_cmd(s);
        if (!strcmp(c, "sudo") && s->argc >= 3 && !strcmp(s->argv[1], "config")) {
                memmove(s->argv, s->argv + 1, sizeof(s->argv[0]) * (size_t)--s->argc);
                return config_cmd(s);
        }
        if (!strcmp(c, "sonic-cfggen") && s->argc == 3 && !strcmp(s->argv[1], "-d") &&
            !strcmp(s->argv[2], "--print-data")) {
                char *out = json_dumps(json_object_get(s->d, "db"), JSON_INDENT(4) | JSON_SORT_KEYS);
                printf("%s\n", out ? out : "{}");
                free(out);
                return 0;
        }
        if (!strcmp(c, "cat") && s->argc == 2 && !strcmp(s->argv[1], "/etc/sonic/config_db.json")) {
                char *out = json_dumps(json_object_get(s->d, "saved"), JSON_INDENT(4) | JSON_SORT_KEYS);
                printf("%s\n", out ? out : "{}");
                free(out);
                return 0;
        }
        if (!strcmp(c, "sonic-db-cli"))
                return db_cli(s);
        if (!strcmp(c, "config") && s->argc >= 2)
                return sim_fail("Root privileges are required for this operation");
        return sim_fail("Error: unsupported command '%s'", s->cmd);
}

void sonic_tick(struct sim *s)
{
        (void)s;        /* SONiC has no commit timer */
}

/* A restart: CONFIG_DB is loaded from /etc/sonic/config_db.json; checkpoints are files and stay. */
void sonic_reboot(struct sim *s)
{
        json_t *saved = json_object_get(s->d, "saved");

        if (json_is_object(saved))
                json_object_set_new(s->d, "db", json_deep_copy(saved));
}
