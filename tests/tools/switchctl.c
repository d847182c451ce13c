/* SPDX-License-Identifier: MIT */
/*
 * switchctl: drive one switch through the driver vtable, the way the agent's
 * transaction does, for the switch integration tests.
 *
 *   switchctl --config AGENT.json --switch NAME read
 *   switchctl --config AGENT.json --switch NAME plan POLICY
 *   switchctl --config AGENT.json --switch NAME apply POLICY [--confirm S]
 *             [--no-commit] [--rollback] [--snapshot FILE]
 *   switchctl --config AGENT.json --switch NAME restore SNAPSHOT.json
 *
 * plan: read -> diff per port (keys "ports.NAME.field", the plan's) -> check; prints
 * {"changes": [{"key","from","to"}], "notes": [...]}; exit 2 when check refuses.
 * apply: open -> read (snapshot) -> apply -> read (verify) -> commit | restore -> close,
 * where --rollback restores instead of committing (a failed probe) and --no-commit
 * leaves a native commit pending (closes without confirming). A failed apply or
 * verify restores. Prints {"before","after","changes","apply_commands","restore_method",
 * "verified","save","save_how","notes"} on stdout. Exit: 0 ok, 1 verify failed (restored), 2 usage/invalid,
 * 3 runtime failure (restored as "restore_method" says).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "agent/config/config.h"
#include "drivers/driver.h"
#include "drivers/switch/switch.h"
#include "policies/state/field.h"
#include "policies/policy/policy.h"
#include "policies/state/state_json.h"

struct ctx {
        struct agent_config cfg;
        struct driver_io io;                    /* notes and the policy's name, as a plan's */
        struct target t;
        const struct driver_ops *ops;
        struct errbuf e;
        json_t *out;
};

static int fail(struct ctx *c, int code, int r)
{
        char buf[ERRBUF_STR_MAX];

        fprintf(stderr, "switchctl: %s (%s)\n", errbuf_str(&c->e, buf, sizeof(buf)), strerror(-r));
        return code;
}

static unsigned units(const struct ctx *c)
{
        return c->t.sw->n_ports;
}

static void put_state(struct ctx *c, const char *key, const struct state *u)
{
        json_object_set_new(c->out, key, state_units_to_json(u, target_unit_names(&c->t), units(c)));
}

static int read_units(struct ctx *c, uint32_t fields, struct state *u)
{
        for (unsigned i = 0; i < units(c); i++)
                state_init(&u[i]);
        return c->ops->read(&c->t, fields, u, &c->e);
}

static int do_read(struct ctx *c)
{
        struct state u[STATE_PORTS_MAX];
        int r = read_units(c, SWITCH_FIELDS, u);

        if (r < 0)
                return fail(c, 3, r);
        put_state(c, "state", u);
        return 0;
}

/* The change from live to desired, as the agent's plan computes it: the field table's diff per port. */
static uint32_t delta_of(const struct ctx *c, const struct state *want, const struct state *live, uint32_t *delta)
{
        uint32_t all = 0;

        for (unsigned i = 0; i < units(c); i++) {
                struct diff d = { 0 };

                delta[i] = state_diff(&want[i], &live[i], &d) < 0 ? SWITCH_FIELDS : d.fields;
                all |= delta[i];
                diff_done(&d);
        }
        return all;
}

/* The per-port diff keys the agent's plan prints. */
static json_t *changes_json(const struct ctx *c, const struct state *want, const struct state *live)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < units(c); i++) {
                struct diff d = { 0 };
                char prefix[STATE_NAME_MAX + 8];

                snprintf(prefix, sizeof(prefix), "ports.%s.", c->t.sw->ports[i]);
                if (diff_append(&d, prefix, &want[i], &live[i]) < 0)
                        break;
                for (unsigned k = 0; k < d.n; k++)
                        json_array_append_new(arr, json_pack("{s:s,s:s,s:s}", "key", d.entries[k].key, "from",
                                                             d.entries[k].from, "to", d.entries[k].to));
                diff_done(&d);
        }
        return arr;
}

static void put_notes(struct ctx *c)
{
        json_t *notes = json_array();

        for (unsigned i = 0; notes && i < c->io.n_notes; i++)
                json_array_append_new(notes, json_string(c->io.notes[i]));
        json_object_set_new(c->out, "notes", notes);
}

static void put_save(struct ctx *c)
{
        const char *how;
        enum switch_save v = switch_last_save(&c->t, &how);

        json_object_set_new(c->out, "save", json_string(switch_save_name(v)));
        json_object_set_new(c->out, "save_how", json_string(how));
}

static int restore(struct ctx *c, const struct state *snap, int code, int why)
{
        struct state live[STATE_PORTS_MAX];
        uint32_t delta[STATE_PORTS_MAX];
        struct errbuf e2 = { 0 };
        struct driver_change ch = { .n_units = units(c), .desired = snap, .live = live, .delta = delta };
        char buf[ERRBUF_STR_MAX];
        int r = read_units(c, SWITCH_FIELDS, live);

        /* Unreadable: the native undo (or the switch's timer) is all there is. */
        ch.fields = r < 0 ? (memset(delta, 0, sizeof(delta)), 0) : delta_of(c, snap, live, delta);
        r = c->ops->restore(&c->t, &ch, &e2);
        json_object_set_new(c->out, "restore_method", json_string(switch_last_restore_method(&c->t)));
        put_save(c);
        if (r < 0) {
                fprintf(stderr, "switchctl: restore: %s\n", errbuf_str(&e2, buf, sizeof(buf)));
                json_object_set_new(c->out, "restore_error", json_string(errbuf_str(&e2, buf, sizeof(buf))));
        }
        return why ? fail(c, code, why) : code;
}

static int save_snapshot(struct ctx *c, const char *path, const struct state *u)
{
        json_t *j = state_units_to_json(u, target_unit_names(&c->t), units(c));
        int r = j ? json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS) : -1;

        json_decref(j);
        return r;
}

static int do_apply(struct ctx *c, const char *policy_path, bool commit, bool rollback, const char *snap_path,
                    bool plan_only)
{
        struct state before[STATE_PORTS_MAX], after[STATE_PORTS_MAX], want[STATE_PORTS_MAX];
        uint32_t delta[STATE_PORTS_MAX];
        struct driver_change ch = { .n_units = units(c), .desired = want, .live = before, .delta = delta };
        struct policy *p = NULL;
        uint32_t fields;
        bool ok;
        int r;

        r = policy_load_file(policy_path, &p, &c->e);
        if (r < 0)
                return fail(c, 2, r);
        snprintf(c->io.policy, sizeof(c->io.policy), "%s", p->name);
        fields = p->spec.present & SWITCH_FIELDS;
        for (unsigned i = 0; i < units(c); i++) {
                want[i] = p->spec;
                want[i].present = fields;
        }
        policy_free(p);
        r = read_units(c, fields, before);
        if (r < 0)
                return fail(c, 3, r);
        put_state(c, "before", before);
        if (snap_path && save_snapshot(c, snap_path, before) < 0)
                fprintf(stderr, "switchctl: cannot write '%s'\n", snap_path);
        ch.fields = delta_of(c, want, before, delta);
        json_object_set_new(c->out, "changes", changes_json(c, want, before));
        r = ch.fields ? c->ops->check(&c->t, &ch, &c->e) : 0;
        put_notes(c);
        if (r < 0)
                return fail(c, 2, r);
        if (plan_only)
                return 0;
        r = c->ops->apply(&c->t, &ch, &c->e);
        json_object_set_new(c->out, "apply_commands", json_integer(switch_last_apply_commands(&c->t)));
        if (r < 0)
                return r == -EINVAL || r == -ERANGE || r == -EOPNOTSUPP ? fail(c, 2, r) : restore(c, before, 3, r);
        r = read_units(c, fields, after);
        if (r < 0)
                return restore(c, before, 3, r);
        put_state(c, "after", after);
        ok = delta_of(c, want, after, delta) == 0;
        json_object_set_new(c->out, "verified", json_boolean(ok));
        if (!ok || rollback)
                return restore(c, before, ok ? 0 : 1, 0);
        if (commit && (r = c->ops->commit(&c->t, &c->e)) < 0)
                return restore(c, before, 3, r);
        put_save(c);
        put_notes(c);
        return 0;
}

static int do_restore(struct ctx *c, const char *path)
{
        json_error_t err;
        json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
        struct state snap[STATE_PORTS_MAX];
        int r;

        if (!j) {
                fprintf(stderr, "switchctl: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
                return 2;
        }
        r = state_units_from_json(j, target_unit_names(&c->t), units(c), snap, &c->e);
        json_decref(j);
        if (r < 0)
                return fail(c, 2, r);
        r = restore(c, snap, 0, 0);
        return json_object_get(c->out, "restore_error") ? fail(c, 3, -EIO) : r;
}

static int setup(struct ctx *c, const char *config, const char *name, unsigned confirm_s)
{
        const struct switch_config *sw;
        int r = config_load(config, &c->cfg, &c->e);

        if (r < 0)
                return fail(c, 2, r);
        sw = config_find_switch(&c->cfg, name);
        if (!sw) {
                fprintf(stderr, "switchctl: no switch '%s' in '%s'\n", name, config);
                return 2;
        }
        c->ops = &switch_driver;
        if (!switch_dialect_find(sw->dialect)) {
                fprintf(stderr, "switchctl: no driver for dialect '%s'\n", sw->dialect);
                return 2;
        }
        c->cfg.env.confirm_timeout_s = confirm_s;
        c->t = (struct target){ .kind = TARGET_SWITCH, .sw = sw, .env = &c->cfg.env, .io = &c->io };
        snprintf(c->t.name, sizeof(c->t.name), "%s", sw->name);
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "config", required_argument, NULL, 'c' }, { "switch", required_argument, NULL, 's' },
                { "confirm", required_argument, NULL, 'C' }, { "no-commit", no_argument, NULL, 'n' },
                { "rollback", no_argument, NULL, 'r' }, { "snapshot", required_argument, NULL, 'S' },
                { 0 },
        };
        const char *config = NULL, *name = NULL, *snap = NULL;
        unsigned confirm_s = 0;
        bool commit = true, rollback = false;
        struct ctx *c = calloc(1, sizeof(*c));
        int o, rc;

        while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (o) {
                case 'c': config = optarg; break;
                case 's': name = optarg; break;
                case 'C': confirm_s = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'n': commit = false; break;
                case 'r': rollback = true; break;
                case 'S': snap = optarg; break;
                default: free(c); return 2;
                }
        }
        if (!c || !config || !name || optind >= argc) {
                fprintf(stderr, "usage: switchctl --config FILE --switch NAME read|plan POLICY|apply POLICY|restore "
                        "SNAPSHOT\n");
                free(c);
                return 2;
        }
        rc = setup(c, config, name, confirm_s);
        if (rc) {
                free(c);
                return rc;
        }
        c->out = json_object();
        rc = c->ops->open(&c->t, &c->e) < 0 ? fail(c, 3, -EIO) : 0;
        if (!rc && !strcmp(argv[optind], "read"))
                rc = do_read(c);
        else if (!rc && !strcmp(argv[optind], "apply") && optind + 1 < argc)
                rc = do_apply(c, argv[optind + 1], commit, rollback, snap, false);
        else if (!rc && !strcmp(argv[optind], "plan") && optind + 1 < argc)
                rc = do_apply(c, argv[optind + 1], false, false, NULL, true);
        else if (!rc && !strcmp(argv[optind], "restore") && optind + 1 < argc)
                rc = do_restore(c, argv[optind + 1]);
        else if (!rc)
                rc = 2;
        c->ops->close(&c->t);
        char *s = json_dumps(c->out, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (s)
                printf("%s\n", s);
        free(s);
        json_decref(c->out);
        free(c);
        return rc;
}
