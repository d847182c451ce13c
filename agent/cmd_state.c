/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent state [--interfaces GLOB,...] [--switches GLOB,... | --no-switches]:
 * the live state of this namespace's interfaces (all but loopback by default)
 * with their congestion counters, and of the configuration's switches (each
 * read over its own SSH session; one that cannot be read is reported with its
 * error and the others are still shown, exit 3 at the end).
 * nettune-agent plan POLICY: resolve the policy's targets, read their live
 * state and print the field-by-field difference. Both change nothing.
 */
#include <jansson.h>
#include <net/if.h>
#include <stdio.h>

#include "cli.h"
#include "counters.h"
#include "ecn_sysfs.h"
#include "diff.h"
#include "policy.h"
#include "queues.h"
#include "state_json.h"
#include "targets.h"
#include "txn.h"

#define GLOBS_MAX 64

static int fail(struct cli *c, const struct errbuf *e, int code)
{
        char buf[1100];

        fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(e, buf, sizeof(buf)));
        return code;
}

/* An errno from resolving/checking targets as an exit code. */
static int exit_for(int r)
{
        return r == -ENOENT || r == -EOPNOTSUPP || r == -EINVAL ? EXIT_INVALID : EXIT_RUNTIME;
}

static void print_json(json_t *j)
{
        char *s = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;

        if (s)
                puts(s);
        free(s);
}

/* ---- state ---- */

static int split_globs(const char *arg, char (*globs)[64], unsigned *n)
{
        _cleanup_free_ char *copy = strdup(arg);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (*n >= GLOBS_MAX || strlen(tok) >= 64)
                        return -EINVAL;
                snprintf(globs[(*n)++], 64, "%s", tok);
        }
        return 0;
}

static json_t *counters_json(const struct counters *k)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < k->n; i++)
                json_array_append_new(a, json_pack("{s:s,s:s,s:I}", "name", k->c[i].name, "source",
                                                   k->c[i].source, "value", (json_int_t)k->c[i].value));
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

static json_t *interface_json(struct target *t, struct errbuf *e, int *ret_r)
{
        uint32_t want = targets_wanted(t->env, TARGET_INTERFACE, STATE_ALL_FIELDS);
        _cleanup_free_ struct counters *k = calloc(1, sizeof(*k));
        struct state live;
        json_t *o;

        state_init(&live);
        *ret_r = k ? targets_read_state(t, want, &live, e) : -ENOMEM;
        if (*ret_r >= 0)
                *ret_r = counters_read(t->name, t->env->sysfs_root, k, e);
        if (*ret_r < 0)
                return NULL;
        o = json_pack("{s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:o}", "name", t->name, "ifindex", t->ifindex,
                      "driver", t->kernel_driver, "state", state_to_json(&live),
                      "unsupported", fields_json(want & ~live.present), "counters", counters_json(k),
                      "cc_params", cc_params_json(t), "queues", queues_json(t));
        if (!o)
                *ret_r = -ENOMEM;
        return o;
}

static json_t *switch_json(struct target *t, struct errbuf *e, int *ret_r)
{
        uint32_t want = targets_wanted(t->env, TARGET_SWITCH, STATE_ALL_FIELDS);
        json_t *ports = json_array(), *o;
        struct state live;
        char buf[1100];

        for (unsigned i = 0; ports && i < t->sw->n_ports; i++)
                json_array_append_new(ports, json_string(t->sw->ports[i]));
        o = json_pack("{s:s,s:s,s:s,s:i,s:o}", "name", t->name, "dialect", t->sw->dialect,
                      "host", t->sw->host, "port", (int)t->sw->port, "ports", ports);
        state_init(&live);
        *ret_r = targets_read_state(t, want, &live, e);
        if (!o)
                return NULL;
        if (*ret_r < 0) {
                json_object_set_new(o, "error", json_string(errbuf_str(e, buf, sizeof(buf))));
                return o;
        }
        json_object_set_new(o, "state", state_to_json(&live));
        json_object_set_new(o, "unsupported", fields_json(want & ~live.present));
        return o;
}

static void print_values(const json_t *st)
{
        const char *key;
        json_t *v;

        json_object_foreach((json_t *)st, key, v) {
                char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);

                printf("  %s: %s\n", key, s ? s : "?");
                free(s);
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
        queues_print(json_object_get(o, "queues"));
        v = json_object_get(o, "counters");
        if (!json_array_size(v))
                printf("  counters: none\n");
        json_array_foreach(v, i, st)
                printf("  counter %s (%s): %" JSON_INTEGER_FORMAT "\n", json_string_value(json_object_get(st, "name")),
                       json_string_value(json_object_get(st, "source")),
                       json_integer_value(json_object_get(st, "value")));
}

static int state_usage(struct cli *c, FILE *f, int code)
{
        fprintf(f,
                "usage: %s state [--config FILE] [--output json] [--interfaces GLOB,...]\n"
                "                [--switches GLOB,... | --no-switches]\n"
                "\n"
                "Prints the live managed settings (mtu, trust, dscp_to_priority, pfc, ets,\n"
                "host_ecn) and congestion counters of this namespace's interfaces, every\n"
                "interface but loopback by default, and the live settings (ports' mtu, trust,\n"
                "dscp_to_priority, pfc, ecn) of the switches of the agent configuration, every\n"
                "one by default. A switch that cannot be read is shown with its error; the\n"
                "rest is still listed. Changes nothing.\n"
                "\nexit codes: 0 ok, 2 bad usage or a glob that matches nothing,\n"
                "3 an interface or a switch could not be read\n", c->prog);
        return code;
}

struct state_args {
        char ifglobs[GLOBS_MAX][64], swglobs[GLOBS_MAX][64];
        unsigned n_if, n_sw;
        bool no_switches;
};

/* "--NAME VALUE" or "--NAME=VALUE": the value, or NULL. */
static const char *opt_value(struct cli *c, int *i, const char *name)
{
        const char *a = c->argv[*i];
        size_t len = strlen(name);

        if (streq(a, name) && *i + 1 < c->argc)
                return c->argv[++*i];
        if (!strncmp(a, name, len) && a[len] == '=')
                return a + len + 1;
        return NULL;
}

static int parse_state_args(struct cli *c, struct state_args *sa)
{
        for (int i = 1; i < c->argc; i++) {
                const char *a = c->argv[i], *v;
                bool sw = false;

                if (streq(a, "--help") || streq(a, "-h"))
                        return state_usage(c, stdout, 1), -ECANCELED;
                if (streq(a, "--no-switches")) {
                        sa->no_switches = true;
                        continue;
                }
                v = opt_value(c, &i, "--interfaces");
                if (!v && (v = opt_value(c, &i, "--switches")))
                        sw = true;
                if (!v) {
                        fprintf(stderr, "%s: state: unexpected argument '%s'\n", c->prog, a);
                        return -EINVAL;
                }
                if (split_globs(v, sw ? sa->swglobs : sa->ifglobs, sw ? &sa->n_sw : &sa->n_if) < 0) {
                        fprintf(stderr, "%s: state: %s '%s': at most %d globs of 63 characters\n",
                                c->prog, sw ? "--switches" : "--interfaces", v, GLOBS_MAX);
                        return -EINVAL;
                }
        }
        if (sa->no_switches && sa->n_sw) {
                fprintf(stderr, "%s: state: --switches and --no-switches exclude each other\n", c->prog);
                return -EINVAL;
        }
        return 0;
}

/* Every switch is read even when one fails; *ret_failed counts those. */
static int read_switches(struct cli *c, const struct state_args *sa, json_t *out, unsigned *ret_failed)
{
        struct target_list l = { 0 };
        struct errbuf e = { .where = "" };
        int r;

        if (sa->no_switches)
                return 0;
        r = targets_for_switches(&c->config, (const char (*)[64])sa->swglobs, sa->n_sw, &l, &e);
        if (r < 0)
                return fail(c, &e, exit_for(r)), r;
        for (unsigned i = 0; i < l.n; i++) {
                json_t *o = switch_json(&l.v[i], &e, &r);

                if (r < 0) {
                        fail(c, &e, EXIT_RUNTIME);
                        ++*ret_failed;
                }
                if (o)
                        json_array_append_new(out, o);
                errbuf_clear(&e);
        }
        targets_free(&l);
        return 0;
}

int cmd_state(struct cli *c)
{
        _cleanup_free_ struct state_args *sa = calloc(1, sizeof(*sa));
        struct target_list l = { 0 };
        struct errbuf e = { .where = "" };
        json_auto_t *all = json_array();
        json_auto_t *switches = json_array();
        unsigned failed = 0;
        int r;

        if (!sa)
                return EXIT_RUNTIME;
        r = parse_state_args(c, sa);
        if (r == -ECANCELED)
                return EXIT_OK;
        if (r < 0)
                return state_usage(c, stderr, EXIT_INVALID);
        r = targets_for_interfaces(&c->config, sa->ifglobs, sa->n_if, &l, &e);
        if (r < 0)
                return fail(c, &e, exit_for(r));
        for (unsigned i = 0; i < l.n && r >= 0; i++) {
                json_t *o = interface_json(&l.v[i], &e, &r);

                if (o)
                        json_array_append_new(all, o);
        }
        targets_free(&l);
        if (r < 0)
                return fail(c, &e, EXIT_RUNTIME);
        r = read_switches(c, sa, switches, &failed);
        if (r < 0)
                return exit_for(r);
        if (c->json) {
                json_auto_t *doc = json_pack("{s:O,s:O}", "interfaces", all, "switches", switches);

                print_json(doc);
        } else {
                size_t i;
                json_t *o;

                json_array_foreach(all, i, o)
                        print_interface_text(o);
                json_array_foreach(switches, i, o)
                        print_switch_text(o);
        }
        return failed ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- plan ---- */

static int plan_target(struct target *t, const struct policy *p, json_t *out, unsigned *changes,
                       struct errbuf *e)
{
        struct state desired = p->spec, live;
        struct diff d = { 0 };
        json_t *o;
        int r;

        desired.present = targets_wanted(t->env, t->kind, p->spec.present);
        state_init(&live);
        r = targets_check(t, &desired, e);
        if (r >= 0)
                r = targets_read_state(t, desired.present, &live, e);
        if (r >= 0 && state_diff(&desired, &live, &d) < 0)
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (r < 0)
                return r;
        o = json_pack("{s:s,s:s,s:o}", "kind", t->kind == TARGET_SWITCH ? "switch" : "interface",
                      "name", t->name, "changes", diff_to_json(&d));
        *changes += d.n;
        diff_done(&d);
        if (!o || json_array_append_new(out, o) < 0)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        return 0;
}

static void print_plan_text(const json_t *targets, unsigned changes)
{
        const json_t *t, *ch;
        size_t i, k;

        json_array_foreach(targets, i, t) {
                const json_t *list = json_object_get(t, "changes");

                printf("%s '%s':%s\n", json_string_value(json_object_get(t, "kind")),
                       json_string_value(json_object_get(t, "name")), json_array_size(list) ? "" : " no changes");
                json_array_foreach(list, k, ch)
                        printf("  %s: %s -> %s\n", json_string_value(json_object_get(ch, "key")),
                               json_string_value(json_object_get(ch, "from")),
                               json_string_value(json_object_get(ch, "to")));
        }
        printf("%u change%s planned; nothing was changed\n", changes, changes == 1 ? "" : "s");
}

int cmd_plan(struct cli *c)
{
        struct errbuf e = { .where = "" };
        struct target_list l = { 0 };
        json_auto_t *targets = json_array();
        struct policy *p = NULL;
        unsigned changes = 0;
        int r;

        if (c->argc != 2 || streq(c->argv[1], "--help")) {
                fprintf(c->argc == 2 ? stdout : stderr,
                        "usage: %s plan [--config FILE] [--output json] POLICY\n"
                        "\nPrints what 'apply POLICY' would change here, field by field. Changes nothing.\n"
                        "\nexit codes: 0 ok, 2 invalid policy or unsupported field, 3 runtime failure\n", c->prog);
                return c->argc == 2 ? EXIT_OK : EXIT_INVALID;
        }
        r = policy_load_file(c->argv[1], &p, &e);
        if (r < 0)
                return fail(c, &e, EXIT_INVALID);
        r = targets_for_policy(p, &c->config, &l, &e);
        for (unsigned i = 0; r >= 0 && i < l.n; i++)
                r = plan_target(&l.v[i], p, targets, &changes, &e);
        targets_free(&l);
        if (r < 0) {
                policy_free(p);
                return fail(c, &e, exit_for(r));
        }
        if (c->json) {
                json_auto_t *doc = json_pack("{s:s,s:O,s:i}", "policy", p->name, "targets", targets,
                                             "changes", (int)changes);

                print_json(doc);
        } else {
                print_plan_text(targets, changes);
        }
        policy_free(p);
        return EXIT_OK;
}
