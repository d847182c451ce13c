/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent state [--interfaces GLOB,...] [--switches GLOB,... | --no-switches] | --port IF:
 * the live state of this namespace's interfaces (all but loopback by default)
 * with their congestion counters, and of the configuration's switches (each
 * read over its own SSH session; one that cannot be read is reported with its
 * error and the others are still shown, exit 3 at the end).
 * Changes nothing.
 */
#include <jansson.h>
#include <net/if.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/plan/plan.h"
#include "drivers/host/counters.h"
#include "drivers/host/ecn_sysfs.h"
#include "drivers/host/link.h"
#include "drivers/host/queues.h"
#include "policies/state/field.h"
#include "policies/json/jsonw.h"
#include "policies/policy/policy.h"
#include "policies/state/state_json.h"
#include "policies/state/state_text.h"

#define GLOBS_MAX CLI_GLOBS_MAX

/* ---- state ---- */

static json_t *counters_json(const struct counters *k)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < k->n; i++) {
                json_t *o = json_pack("{s:s,s:s,s:I}", "name", k->c[i].name, "source", k->c[i].source,
                                      "value", (json_int_t)k->c[i].value);

                if (o && k->c[i].prio >= 0)
                        json_object_set_new(o, "priority", json_integer(k->c[i].prio));
                if (o && k->c[i].tc >= 0)
                        json_object_set_new(o, "traffic_class", json_integer(k->c[i].tc));
                json_array_append_new(a, o);
        }
        return a;
}

/* The mlx5 debugfs congestion parameters, read only; an empty object where there are none. */
static json_t *cc_params_json(const struct target *t)
{
        struct ecn_sysfs_param p[ECN_SYSFS_PARAMS_MAX];
        struct errbuf e;
        json_t *o = json_object();
        unsigned n = 0;

        if (ecn_sysfs_cc_params(t, p, ECN_SYSFS_PARAMS_MAX, &n, &e) < 0)
                n = 0;
        for (unsigned i = 0; o && i < n; i++)
                json_object_set_new(o, p[i].name, json_integer((json_int_t)p[i].value));
        return o;
}

static json_t *fields_json(uint32_t fields)
{
        json_t *a = json_array();

        for (int f = 0; a && f < STATE_FIELD_MAX; f++)
                if (fields & STATE_BIT(f))
                        json_array_append_new(a, json_string(state_field_name(f)));
        return a;
}

/* fd: the ethtool socket of the whole listing; k: room for the counters (large: one for all). */
static json_t *interface_json(const struct plan_target *pt, int fd, struct counters *k, struct errbuf *e, int *ret_r)
{
        const struct target *t = &pt->t;
        char dev[LINK_DEVICE_MAX];
        json_t *o, *st;

        *ret_r = k ? counters_read_at(fd, t->name, t->kernel_driver[0] ? t->kernel_driver : NULL,
                                      link_rtnl_device(t, dev, sizeof(dev)), t->env->sysfs_root, k, e)
                   : -ENOMEM;
        if (*ret_r < 0)
                return NULL;
        st = state_to_json(&pt->live[0]);
        state_text_ets_shares(st);      /* as plan compares it: a strict class has no share */
        o = json_pack("{s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:o}", "name", t->name, "ifindex", t->ifindex,
                      "driver", t->kernel_driver, "state", st,
                      "unsupported", fields_json(plan_fields_of(t) & ~pt->live[0].present),
                      "counters", counters_json(k), "cc_params", cc_params_json(t), "queues", queues_json(t));
        if (!o)
                *ret_r = -ENOMEM;
        return o;
}

/* A switch that could not be read (r < 0) is shown with its error. */
static json_t *switch_json(const struct plan_target *pt, const struct errbuf *e, int r)
{
        const struct target *t = &pt->t;
        json_t *ports = json_array(), *o;
        char buf[ERRBUF_STR_MAX];

        for (unsigned i = 0; ports && i < t->sw->n_ports; i++)
                json_array_append_new(ports, json_string(t->sw->ports[i]));
        o = json_pack("{s:s,s:s,s:s,s:i,s:o}", "name", t->name, "dialect", t->sw->dialect,
                      "host", t->sw->host, "port", (int)t->sw->port, "ports", ports);
        if (!o)
                return NULL;
        if (r < 0) {
                json_object_set_new(o, "error", json_string(errbuf_str(e, buf, sizeof(buf))));
                return o;
        }
        json_object_set_new(o, "state", state_units_to_json(pt->live, target_unit_names(t), pt->n_units));
        json_object_set_new(o, "unsupported", fields_json(plan_fields_of(t) &
                                                          ~(pt->n_units ? pt->live[0].present : 0)));
        return o;
}

static void print_values(const json_t *st)
{
        const char *key;
        json_t *v;

        json_object_foreach((json_t *)st, key, v) {
                char line[1024];

                printf("  %s: %s\n", key, state_text_value(key, v, line, sizeof(line)));
        }
}

static void print_unsupported(const json_t *v)
{
        const json_t *f;
        size_t i;

        if (!json_array_size(v))
                return;
        printf("  unsupported here:");
        json_array_foreach(v, i, f)
                printf("%s %s", i ? "," : "", json_string_value(f));
        printf("\n");
}

static void print_switch_text(const json_t *o)
{
        const json_t *err = json_object_get(o, "error");

        printf("switch '%s' (%s at %s port %d)\n", json_string_value(json_object_get(o, "name")),
               json_string_value(json_object_get(o, "dialect")), json_string_value(json_object_get(o, "host")),
               (int)json_integer_value(json_object_get(o, "port")));
        if (err) {
                printf("  error: %s\n", json_string_value(err));
                return;
        }
        print_values(json_object_get(o, "state"));
        print_unsupported(json_object_get(o, "unsupported"));
}

static json_int_t queue_member(const json_t *o, const char *key)
{
        return json_integer_value(json_object_get(o, key));
}

/* "  queue 0 (ecn): marked 1240, drops 3 (early 0, limit 3, other 0), backlog 0 bytes / 0 packets". */
static void print_queues(const json_t *queues)
{
        const json_t *q;
        size_t i;

        json_array_foreach(queues, i, q)
                printf("  queue %" JSON_INTEGER_FORMAT " (%s): marked %" JSON_INTEGER_FORMAT ", drops %"
                       JSON_INTEGER_FORMAT " (early %" JSON_INTEGER_FORMAT ", limit %" JSON_INTEGER_FORMAT
                       ", other %" JSON_INTEGER_FORMAT "), backlog %" JSON_INTEGER_FORMAT " bytes / %"
                       JSON_INTEGER_FORMAT " packets\n", queue_member(q, "queue"),
                       json_is_true(json_object_get(q, "ecn")) ? "ecn" : "red",
                       queue_member(q, "marked"), queue_member(q, "drops"), queue_member(q, "early_drops"),
                       queue_member(q, "limit_drops"), queue_member(q, "other_drops"), queue_member(q, "backlog_bytes"),
                       queue_member(q, "backlog_packets"));
}

static void print_interface_text(const json_t *o)
{
        const json_t *st, *v;
        const char *key;
        size_t i;

        printf("interface '%s' (ifindex %d, driver %s)\n", json_string_value(json_object_get(o, "name")),
               (int)json_integer_value(json_object_get(o, "ifindex")),
               json_string_value(json_object_get(o, "driver")));
        print_values(json_object_get(o, "state"));
        print_unsupported(json_object_get(o, "unsupported"));
        json_object_foreach((json_t *)json_object_get(o, "cc_params"), key, v)
                printf("  cc_param %s: %" JSON_INTEGER_FORMAT "\n", key, json_integer_value(v));
        print_queues(json_object_get(o, "queues"));
        v = json_object_get(o, "counters");
        if (!json_array_size(v))
                printf("  counters: none\n");
        json_array_foreach(v, i, st)
                printf("  counter %s (%s): %" JSON_INTEGER_FORMAT "\n", json_string_value(json_object_get(st, "name")),
                       json_string_value(json_object_get(st, "source")),
                       json_integer_value(json_object_get(st, "value")));
}

/*
 * --port IF: one interface the way `mlnx_qos -i IF` shows a port (DCBX mode, trust,
 * the DSCP map by priority, the receive buffers, cable length, the PFC table with
 * each priority's buffer, then per traffic class its TSA, share and priorities),
 * from the same state as the listing, and the knobs mlnx_qos has no line for.
 */
static void port_ints(const char *title, const json_t *a, unsigned n)
{
        printf("        %-11s", title);
        for (unsigned i = 0; i < n; i++)
                printf(" %3lld", (long long)json_integer_value(json_array_get(a, i)));
        printf("\n");
}

static void print_port_text(const json_t *o)
{
        const json_t *st = json_object_get(o, "state"), *pfc = json_object_get(st, "pfc"),
                     *map = json_object_get(st, "dscp_to_priority"), *ets = json_object_get(st, "ets"),
                     *buf = json_object_get(st, "buffers"), *dev = json_object_get(st, "dcb_device"), *v;
        char names[64], line[1024];
        json_auto_t *on = json_array();
        const char *key;

        printf("interface '%s' (ifindex %d, driver %s)\n", json_string_value(json_object_get(o, "name")),
               (int)json_integer_value(json_object_get(o, "ifindex")), json_string_value(json_object_get(o, "driver")));
        if ((v = json_object_get(dev, "dcbx")))
                printf("DCBX mode: %s\n", (json_integer_value(v) & 0x02) ? "firmware controlled (lld-managed)" :
                       state_dcbx_names((unsigned)json_integer_value(v), names, sizeof(names)));
        if ((v = json_object_get(st, "trust")))
                printf("Priority trust state: %s\n", json_string_value(v));
        if (json_is_object(map)) {
                printf("dscp2prio mapping:\n");
                for (long long p = 0; p < 8; p++) {
                        unsigned any = 0;

                        for (int d = 63; d >= 0; d--) {         /* eight code points a line, as mlnx_qos */
                                char k[8];

                                snprintf(k, sizeof(k), "%d", d);
                                if (json_integer_value(json_object_get(map, k)) != p || !json_object_get(map, k))
                                        continue;
                                if (any && any % 8 == 0)
                                        printf("\n");
                                if (any % 8)
                                        printf("%02d,", d);
                                else
                                        printf("        prio:%lld dscp:%02d,", p, d);
                                any++;
                        }
                        if (any)
                                printf("\n");
                }
        }
        if (json_is_object(buf)) {
                size_t i;

                printf("Receive buffer size (bytes): ");
                json_array_foreach(json_object_get(buf, "buffer_size_bytes"), i, v)
                        printf("%lld,", (long long)json_integer_value(v));
                printf("\n");
        }
        if ((v = json_object_get(pfc, "cable_length_m")))
                printf("Cable len: %lld\n", (long long)json_integer_value(v));
        if (json_is_object(pfc) && json_object_get(pfc, "priorities")) {
                size_t i;

                for (unsigned p = 0; p < 8; p++)
                        json_array_append_new(on, json_integer(0));
                json_array_foreach(json_object_get(pfc, "priorities"), i, v)
                        if (json_integer_value(v) >= 0 && json_integer_value(v) < 8)
                                json_array_set_new(on, (size_t)json_integer_value(v), json_integer(1));
                printf("PFC configuration:\n        %-11s", "priority");
                for (unsigned p = 0; p < 8; p++)
                        printf(" %3u", p);
                printf("\n");
                port_ints("enabled", on, 8);
                if (json_is_object(buf))
                        port_ints("buffer", json_object_get(buf, "prio_to_buffer"), 8);
        }
        for (unsigned tc = 0; json_is_object(ets) && tc < 8; tc++) {
                const json_t *p2tc = json_object_get(ets, "priority_to_tc");
                const char *tsa = json_string_value(json_array_get(json_object_get(ets, "tc_tsa"), tc));
                bool any = false;

                printf("tc: %u tsa: %s", tc, tsa ? tsa : "?");
                if (tsa && streq(tsa, "ets"))
                        printf(", bw: %lld%%",
                               (long long)json_integer_value(json_array_get(json_object_get(ets, "tc_bandwidth_pct"), tc)));
                printf("\n");
                for (unsigned p = 0; p < 8; p++)
                        if (json_integer_value(json_array_get(p2tc, p)) == tc) {
                                printf(any ? " %u" : "         priority:  %u", p);
                                any = true;
                        }
                if (any)
                        printf("\n");
        }
        json_object_foreach((json_t *)st, key, v) {     /* what mlnx_qos has no line for */
                if (streq(key, "trust") || streq(key, "dscp_to_priority") || streq(key, "ets") ||
                    streq(key, "buffers") || streq(key, "dcb_device"))
                        continue;
                printf("%s: %s\n", key, state_text_value(key, v, line, sizeof(line)));
        }
        print_unsupported(json_object_get(o, "unsupported"));
}

struct state_args {
        char ifglobs[GLOBS_MAX][64], swglobs[GLOBS_MAX][64];
        unsigned n_if, n_sw;
        bool no_switches;
        bool port;                      /* --port IF */
};

static int parse_state_args(struct cli *c, struct state_args *sa)
{
        for (int i = 1; i < c->argc; i++) {
                const char *a = c->argv[i], *v;
                bool sw = false;

                if (streq(a, "--no-switches")) {
                        sa->no_switches = true;
                        continue;
                }
                if ((v = cli_opt_value(c, &i, "--port"))) {
                        if (!v[0] || strpbrk(v, "*?[,") || strlen(v) >= sizeof(sa->ifglobs[0])) {
                                fprintf(stderr, "%s: state: --port '%s': one interface's name, no glob\n", c->prog,
                                        v);
                                return -EINVAL;
                        }
                        snprintf(sa->ifglobs[0], sizeof(sa->ifglobs[0]), "%s", v);
                        sa->n_if = 1;
                        sa->port = sa->no_switches = true;
                        continue;
                }
                v = cli_opt_value(c, &i, "--interfaces");
                if (!v && (v = cli_opt_value(c, &i, "--switches")))
                        sw = true;
                if (!v)
                        return cli_bad_arg(c, a);
                if (cli_globs(v, sw ? sa->swglobs : sa->ifglobs, sw ? &sa->n_sw : &sa->n_if) < 0) {
                        fprintf(stderr, "%s: state: %s '%s': at most %d globs of 63 characters\n",
                                c->prog, sw ? "--switches" : "--interfaces", v, GLOBS_MAX);
                        return -EINVAL;
                }
        }
        if (sa->port && (sa->n_if != 1 || sa->n_sw)) {
                fprintf(stderr, "%s: state: --port shows one interface: no --interfaces or --switches with it\n",
                        c->prog);
                return -EINVAL;
        }
        if (sa->no_switches && sa->n_sw) {
                fprintf(stderr, "%s: state: --switches and --no-switches exclude each other\n", c->prog);
                return -EINVAL;
        }
        return 0;
}

#define STATE_JSON (JSON_INDENT(2) | JSON_SORT_KEYS)

/*
 * The interfaces as they are read: for --output json, each one's text as it stands
 * in the document (the "interfaces" array at depth 1, so its members at depth 2),
 * its tree freed at once (a thousand interfaces are never one tree); for text, the
 * trees, printed at the end.
 */
struct listing {
        bool json;
        struct jsonw_out doc;           /* JSON: the document up to the last interface */
        unsigned n;
        json_t *all;                    /* text: the interfaces */
};

static void listing_init(struct listing *l, bool json)
{
        *l = (struct listing){ .json = json };
        if (!json) {
                l->all = json_array();
                return;
        }
        jsonw_raw(&l->doc, "{");
        jsonw_newline(&l->doc, STATE_JSON, 1, false);
        jsonw_raw(&l->doc, "\"interfaces\": [");
}

/* Takes o. */
static int listing_add(struct listing *l, json_t *o)
{
        if (!l->json)
                return json_array_append_new(l->all, o) < 0 ? -ENOMEM : 0;
        if (l->n++)
                jsonw_raw(&l->doc, ",");
        jsonw_newline(&l->doc, STATE_JSON, 2, l->n > 1);
        jsonw_value(&l->doc, o, STATE_JSON, 2);
        json_decref(o);
        return l->doc.failed ? -ENOMEM : 0;
}

/* The whole document, as jsonw_dumps() of {"interfaces", "notes", "switches"} writes it. */
static char *listing_json(struct listing *l, const json_t *notes, const json_t *switches)
{
        if (l->n)
                jsonw_newline(&l->doc, STATE_JSON, 1, false);
        jsonw_raw(&l->doc, "],");
        jsonw_newline(&l->doc, STATE_JSON, 1, true);
        jsonw_raw(&l->doc, "\"notes\": ");
        jsonw_value(&l->doc, notes, STATE_JSON, 1);
        jsonw_raw(&l->doc, ",");
        jsonw_newline(&l->doc, STATE_JSON, 1, true);
        jsonw_raw(&l->doc, "\"switches\": ");
        jsonw_value(&l->doc, switches, STATE_JSON, 1);
        jsonw_newline(&l->doc, STATE_JSON, 0, false);
        jsonw_raw(&l->doc, "}");
        return jsonw_finish(&l->doc);
}

static void listing_free(struct listing *l)
{
        free(l->doc.buf);
        json_decref(l->all);
        *l = (struct listing){ 0 };
}

/* Every target is read; a switch that fails is shown with its error (*ret_failed counts them), an interface fails the command. */
static int read_all(struct cli *c, struct plan *p, struct listing *ifs, json_t *switches, unsigned *ret_failed)
{
        _cleanup_close_ int fd = counters_socket();
        _cleanup_free_ struct counters *k = malloc(sizeof(*k));
        struct errbuf e = { .where = "" };

        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                int r = plan_read_target(p, i, pt->live, &e);
                json_t *o;

                if (pt->t.kind == TARGET_SWITCH) {
                        if (r < 0) {
                                cli_fail(c, &e, OUTCOME_RUNTIME);
                                ++*ret_failed;
                        }
                        o = switch_json(pt, &e, r);
                        if (o)
                                json_array_append_new(switches, o);
                        errbuf_clear(&e);
                        continue;
                }
                o = r < 0 ? NULL : interface_json(pt, fd, k, &e, &r);
                if (r >= 0 && (r = listing_add(ifs, o)) < 0)
                        errbuf_set(&e, -r, NULL, "out of memory");
                if (r < 0)
                        return cli_fail(c, &e, OUTCOME_RUNTIME), r;
        }
        return 0;
}

int cmd_state(struct cli *c)
{
        _cleanup_free_ struct state_args *sa = calloc(1, sizeof(*sa));
        struct plan p;
        struct errbuf e = { .where = "" };
        struct listing all;
        json_auto_t *switches = json_array();
        json_auto_t *notes = json_array();
        unsigned failed = 0;
        int r;

        if (!sa)
                return OUTCOME_RUNTIME;
        r = parse_state_args(c, sa);
        if (r < 0)
                return OUTCOME_INVALID;
        plan_init(&p, &(struct plan_env){ .config = &c->config });
        r = plan_for_globs(&p, (const char (*)[64])sa->ifglobs, sa->n_if, (const char (*)[64])sa->swglobs, sa->n_sw,
                           sa->no_switches, &e);
        if (r < 0) {
                plan_free(&p);
                return cli_fail(c, &e, outcome_of_errno(r));
        }
        listing_init(&all, c->json);
        r = read_all(c, &p, &all, switches, &failed);
        for (unsigned i = 0; i < p.io.n_notes; i++)     /* what the drivers want the reader to know */
                json_array_append_new(notes, json_string(p.io.notes[i]));
        plan_free(&p);
        if (r < 0) {
                listing_free(&all);
                return OUTCOME_RUNTIME;
        }
        if (c->json) {
                char *s = listing_json(&all, notes, switches);

                if (s)
                        puts(s);
                else
                        failed++;
                free(s);
        } else {
                size_t i;
                json_t *o;

                json_array_foreach(all.all, i, o)
                        (sa->port ? print_port_text : print_interface_text)(o);
                json_array_foreach(switches, i, o)
                        print_switch_text(o);
                json_array_foreach(notes, i, o)
                        printf("note: %s\n", json_string_value(o));
        }
        listing_free(&all);
        return failed ? OUTCOME_RUNTIME : OUTCOME_OK;
}
