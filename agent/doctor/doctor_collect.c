/* SPDX-License-Identifier: MIT */
/* doctor's collection on one node (see doctor_collect.h). */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "agent/doctor/doctor_collect.h"
#include "agent/plan/plan.h"
#include "common/clock.h"
#include "drivers/host/counters.h"
#include "drivers/host/dcb_lldpad.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/iface.h"
#include "drivers/host/link.h"
#include "drivers/host/linkinfo.h"
#include "drivers/host/lldp.h"
#include "drivers/host/qdisc_ets.h"
#include "drivers/host/queues.h"
#include "drivers/host/sampler.h"
#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"
#include "policies/state/field.h"
#include "policies/policy/layers.h"

#define SAMPLE_MAX 128

/* One reading of a source's counters. */
struct sample {
        double t;                       /* CLOCK_MONOTONIC seconds */
        bool ok;
        unsigned n;
        struct switch_counter c[SAMPLE_MAX];
};

/* Sleep until `until` (monotonic seconds). */
static void wait_until(double until)
{
        double left;

        while ((left = until - clock_mono_s()) > 0) {
                struct timespec ts = { .tv_sec = (time_t)left, .tv_nsec = (long)((left - floor(left)) * 1e9) };

                nanosleep(&ts, NULL);
        }
}

static void sample_put(struct sample *s, const char *name, int kind, int prio, uint64_t v, double t)
{
        struct switch_counter *c;

        if (kind < 0 || s->n >= SAMPLE_MAX)
                return;
        c = &s->c[s->n++];
        snprintf(c->name, sizeof(c->name), "%s", name);
        c->kind = (uint8_t)kind;
        c->prio = (int8_t)prio;
        c->value = v;
        c->t = t;
}

/*
 * Rates of b over a, counter by counter, over the time between its two readings (a
 * counter that went back was reset: left out, and counted).
 */
static void rates_of(const struct sample *a, const struct sample *b, struct doctor_rates *ret, unsigned *ret_reset)
{
        for (unsigned i = 0; a->ok && b->ok && i < b->n; i++) {
                const struct switch_counter *y = &b->c[i];
                struct doctor_rate *x;

                for (unsigned k = 0; k < a->n; k++) {
                        const struct switch_counter *w = &a->c[k];
                        double dt = y->t && w->t ? y->t - w->t : b->t - a->t;

                        if (!streq(w->name, y->name) || w->prio != y->prio || w->kind != y->kind || dt <= 0)
                                continue;
                        if (y->value < w->value) {
                                ++*ret_reset;
                                break;
                        }
                        if (!(x = doctor_rates_add(ret)))
                                return;
                        snprintf(x->name, sizeof(x->name), "%s", y->name);
                        x->kind = y->kind;
                        x->prio = y->prio;
                        x->delta = y->value - w->value;
                        x->per_s = (double)x->delta / dt;
                        break;
                }
        }
}

/* ---- host interfaces ---- */

static void host_sample(const struct plan_target *pt, struct sample *s)
{
        struct counters *k = calloc(1, sizeof(*k));
        struct qdisc_queue_stats q[STATE_TC_COUNT];
        struct errbuf e;
        unsigned nq;

        s->t = clock_mono_s();
        s->n = 0;
        s->ok = k && counters_read(pt->t.name, pt->t.env->sysfs_root, k, &e) >= 0;
        for (unsigned i = 0; s->ok && i < k->n; i++) {
                int prio, tc, kind = counters_kind_source(k->c[i].name, k->c[i].source, &prio, &tc);
                char name[48];

                snprintf(name, sizeof(name), "%s%s%.24s", k->c[i].name, streq(k->c[i].source, "ethtool") ? "" : " ",
                         streq(k->c[i].source, "ethtool") ? "" : k->c[i].source);
                /* doctor's index is a priority (pause) or a queue (ecn, drops): a per-TC counter's TC */
                sample_put(s, name, kind, tc >= 0 ? tc : prio, k->c[i].value, s->t);
        }
        free(k);
        nq = queues_read(&pt->t, q);
        for (unsigned i = 0; i < nq; i++) {             /* a Linux switch port: its queues */
                char name[48];

                snprintf(name, sizeof(name), "queue%u marked", q[i].queue);
                sample_put(s, name, DOCTOR_ECN_MARKED, (int)q[i].queue, q[i].marked, s->t);
                snprintf(name, sizeof(name), "queue%u early_drops", q[i].queue);
                sample_put(s, name, DOCTOR_WRED_DROP, (int)q[i].queue, q[i].early, s->t);
                snprintf(name, sizeof(name), "queue%u drops", q[i].queue);
                sample_put(s, name, DOCTOR_DISCARD, (int)q[i].queue, q[i].drops, s->t);
                snprintf(name, sizeof(name), "queue%u sent_packets", q[i].queue);
                sample_put(s, name, DOCTOR_TX_PACKETS, (int)q[i].queue, q[i].packets, s->t);
        }
        s->ok |= nq > 0;
}

/* The carrier as rtnetlink reports it (IFF_LOWER_UP), else what sysfs says. */
static void host_link(const struct agent_config *c, const struct plan_target *pt, const struct iface *ifs,
                      unsigned n_ifs, struct doctor_iface *x)
{
        struct linkinfo l;

        linkinfo_read(pt->t.name, c->env.sysfs_root, NULL, &l);
        x->link = (struct doctor_link){ .state_known = l.state_known, .up = l.up, .speed_mbps = l.speed_mbps,
                                        .max_speed_mbps = l.max_speed_mbps };
        for (unsigned i = 0; i < n_ifs; i++)
                if (streq(ifs[i].name, pt->t.name)) {
                        x->link.state_known = true;
                        x->link.up = (ifs[i].flags & IFF_UP) && (ifs[i].flags & IFF_LOWER_UP);
                }
        snprintf(x->link.rate, sizeof(x->link.rate), "%s", l.rate);
        x->link.shaper_mbps = queues_shaper_mbps(&pt->t);      /* a Linux switch's shaped port */
        if (ethtool_port_lanes(pt->t.name, &x->link.lanes) < 0)  /* an 8-lane mlxsw port splits its buffers */
                x->link.lanes = 0;
        x->rdma = l.rdma;
}

/* The path: "links" first, then what LLDP heard. */
static void host_peers(const struct agent_config *c, struct doctor_node *n)
{
        char (*names)[64] = calloc(n->n_ifs ? n->n_ifs : 1, sizeof(*names));
        struct lldp_neighbour *nb = calloc(LLDP_NEIGHBOURS_MAX, sizeof(*nb));
        unsigned n_names = 0, n_nb = 0;

        for (unsigned i = 0; i < n->n_ifs; i++) {
                struct doctor_iface *x = &n->ifs[i];

                for (unsigned k = 0; k < c->n_links; k++)
                        if (streq(c->links[k].iface, x->name)) {
                                x->peer.source = DOCTOR_PATH_CONFIG;
                                snprintf(x->peer.sw, sizeof(x->peer.sw), "%s", c->links[k].sw);
                                snprintf(x->peer.port, sizeof(x->peer.port), "%s", c->links[k].port);
                        }
                if (names && x->peer.source == DOCTOR_PATH_NONE && doctor_iface_roce(x))
                        snprintf(names[n_names++], 64, "%s", x->name);
        }
        if (names && nb && n_names)             /* only interfaces that carry RoCE are asked about */
                lldp_neighbours(c->lldpd_socket, (const char (*)[64])names, n_names, nb, LLDP_NEIGHBOURS_MAX, &n_nb);
        for (unsigned k = 0; k < n_nb; k++)
                for (unsigned i = 0; i < n->n_ifs; i++) {
                        struct doctor_iface *x = &n->ifs[i];

                        if (!streq(x->name, nb[k].ifname) || x->peer.source != DOCTOR_PATH_NONE)
                                continue;
                        x->peer.source = DOCTOR_PATH_LLDP;
                        snprintf(x->peer.sw, sizeof(x->peer.sw), "%s", nb[k].system);
                        snprintf(x->peer.port, sizeof(x->peer.port), "%s", nb[k].port);
                }
        free(names);
        free(nb);
}

/* ---- switches: one thread each ---- */

struct sw_job {
        struct plan *p;
        unsigned i;                     /* the plan target */
        double window_s;
        struct driver_io io;            /* this thread's own notes (the plan's io is not shared across threads) */
        int r;
        struct errbuf e;
        struct switch_sample *a, *b;
        double ta, tb;
        bool counters;                  /* both samples read */
        char counters_error[DOCTOR_NOTE_MAX];
        pthread_t th;
        bool started;
};

static void *sw_thread(void *arg)
{
        struct sw_job *j = arg;
        struct plan_target *pt = &j->p->v[j->i];
        struct errbuf ce = { 0 };
        char buf[ERRBUF_STR_MAX];
        int r;

        j->r = plan_read_target(j->p, j->i, pt->live, &j->e);
        if (j->r < 0)
                return NULL;
        j->ta = clock_mono_s();
        r = switch_counters_read(&pt->t, j->a, &ce);
        if (r >= 0) {
                wait_until(j->ta + j->window_s);
                j->tb = clock_mono_s();
                r = switch_counters_read(&pt->t, j->b, &ce);
        }
        j->counters = r >= 0;
        if (r < 0)
                snprintf(j->counters_error, sizeof(j->counters_error), "%s", errbuf_str(&ce, buf, sizeof(buf)));
        return NULL;
}

static void port_sample(const struct switch_port_sample *p, double t, struct sample *s)
{
        s->t = t;
        s->ok = true;
        s->n = 0;
        for (unsigned i = 0; i < p->n; i++)
                sample_put(s, p->c[i].name, p->c[i].kind, p->c[i].prio, p->c[i].value, p->c[i].t ? p->c[i].t : t);
}

static void switch_facts(struct doctor_node *n, struct sw_job *j, struct sample *sa, struct sample *sb)
{
        struct plan_target *pt = &j->p->v[j->i];
        const struct switch_dialect *d = switch_dialect_find(pt->t.sw->dialect);
        struct doctor_switch *sw = doctor_node_add_switch(n, pt->n_units);
        char buf[ERRBUF_STR_MAX];
        unsigned reset = 0;

        if (!sw)
                return;
        snprintf(sw->name, sizeof(sw->name), "%s", pt->t.name);
        snprintf(sw->dialect, sizeof(sw->dialect), "%s", pt->t.sw->dialect);
        sw->mtu_max = d ? d->lim.mtu_max : 0;
        if (j->r < 0)
                snprintf(sw->error, sizeof(sw->error), "%s", errbuf_str(&j->e, buf, sizeof(buf)));
        for (unsigned u = 0; u < pt->n_units; u++) {
                struct doctor_port *p = &sw->ports[u];

                snprintf(p->name, sizeof(p->name), "%s", pt->t.sw->ports[u]);
                if (j->r < 0)
                        continue;
                p->st = pt->live[u];
                if (!j->counters)
                        continue;
                p->link = (struct doctor_link){ .state_known = j->b->port[u].link_known, .up = j->b->port[u].up,
                                                .speed_mbps = j->b->port[u].speed_mbps };
                port_sample(&j->a->port[u], j->ta, sa);
                port_sample(&j->b->port[u], j->tb, sb);
                rates_of(sa, sb, &p->rates, &reset);
        }
        if (j->r >= 0 && !j->counters)
                doctor_node_note(n, "switch '%s': counters not read: %s", sw->name, j->counters_error);
        if (j->counters && j->b->note[0])
                doctor_node_note(n, "switch '%s': %s", sw->name, j->b->note);
        if (reset)
                doctor_node_note(n, "switch '%s': %u counter%s went back during the window (cleared): left out",
                                 sw->name, reset, reset == 1 ? "" : "s");
        for (unsigned k = 0; k < j->io.n_notes; k++)
                doctor_node_note(n, "%s", j->io.notes[k]);
}

static int start_switches(struct plan *p, double window_s, struct sw_job *jobs)
{
        for (unsigned i = 0; i < p->n; i++) {
                struct sw_job *j = &jobs[i];

                if (p->v[i].t.kind != TARGET_SWITCH)
                        continue;
                *j = (struct sw_job){ .p = p, .i = i, .window_s = window_s };
                j->a = calloc(1, sizeof(*j->a));
                j->b = calloc(1, sizeof(*j->b));
                if (!j->a || !j->b)
                        return -ENOMEM;
                p->v[i].t.io = &j->io;
                if (pthread_create(&j->th, NULL, sw_thread, j) != 0)
                        return -EAGAIN;
                j->started = true;
        }
        return 0;
}

static void join_switches(struct plan *p, struct sw_job *jobs)
{
        for (unsigned i = 0; i < p->n; i++)
                if (jobs[i].started) {
                        pthread_join(jobs[i].th, NULL);
                        jobs[i].started = false;
                }
}

static void free_jobs(struct plan *p, struct sw_job *jobs)
{
        for (unsigned i = 0; jobs && i < p->n; i++) {
                if (p->v[i].t.kind == TARGET_SWITCH)
                        p->v[i].t.io = &p->io;
                free(jobs[i].a);
                free(jobs[i].b);
        }
        free(jobs);
}

/* ---- the committed policy and drift ---- */

/* The committed layers (policies/policy/layers.h): every committed policy, oldest first. */
struct layers_here {
        unsigned n;
        struct layer v[LAYERS_MAX];
};

static void layers_free(struct layers_here *l)
{
        for (unsigned i = 0; i < l->n; i++)
                policy_free((struct policy *)l->v[i].p);
        l->n = 0;
}

/*
 * Drift: exactly what `nettune-agent drift` reports (o->drift: its plan), each
 * difference with its owner; nothing when nothing is committed, a note when it
 * cannot be read.
 */
static void drift_of(struct doctor_node *n, const struct doctor_collect_opts *o, const struct agent_config *c)
{
        struct errbuf e = { 0 };
        struct plan p;
        char msg[600];
        int r;

        plan_init(&p, &(struct plan_env){ .config = c });
        r = o->drift(o->drift_ud, &p, &e);
        if (r == -ENOENT) {
                n->drift_known = true;          /* nothing committed: nothing drifts */
        } else if (r < 0) {
                doctor_node_note(n, "drift could not be read: %s", errbuf_str(&e, msg, sizeof(msg)));
        } else {
                for (unsigned i = 0; i < p.n; i++) {
                        const struct plan_target *pt = &p.v[i];

                        for (unsigned k = 0; k < pt->diff.n; k++, n->n_drift++) {
                                const struct diff_entry *d = &pt->diff.entries[k];
                                const struct plan_owner *w = plan_owner_of(&p, pt, d->field);
                                struct doctor_drift *x = &n->drift[n->n_drift];

                                if (n->n_drift >= DOCTOR_DRIFT_MAX)
                                        continue;
                                snprintf(x->target, sizeof(x->target), "%s", pt->t.name);
                                snprintf(x->key, sizeof(x->key), "%s", d->key);
                                snprintf(x->live, sizeof(x->live), "%s", d->from);
                                snprintf(x->committed, sizeof(x->committed), "%s", d->to);
                                if (w)
                                        snprintf(x->owner, sizeof(x->owner), "%s", w->policy);
                        }
                }
                n->drift_known = true;
        }
        plan_free(&p);
}

/* The committed policies (none, or no journal here: said); n->policy names them. */
static void committed(struct doctor_node *n, struct journal *j, struct layers_here *ret)
{
        struct journal_layer *rows = NULL;
        struct errbuf e;
        unsigned k = 0;
        size_t len = 0;

        ret->n = 0;
        if (!j) {
                doctor_node_note(n, "no journal here: the committed policy and drift are not known");
                return;
        }
        if (journal_layers(j, &rows, &k, &e) < 0)
                return;         /* nothing committed: nothing drifts */
        for (unsigned i = 0; i < k && ret->n < LAYERS_MAX; i++) {
                struct policy *pol = NULL;

                if (policy_parse_committed(rows[i].policy_json, strlen(rows[i].policy_json), "committed layer", &pol,
                                           &e) < 0)
                        continue;
                ret->v[ret->n++] = (struct layer){ .p = pol, .revision = rows[i].rev };
                len += (size_t)snprintf(n->policy + len, len < sizeof(n->policy) ? sizeof(n->policy) - len : 0,
                                        "%s%s", len ? ", " : "", pol->name);
                if (state_has(&pol->spec, STATE_FIELD_CABLE_LEN))
                        n->declared_cable_m = pol->spec.cable_len_m;
        }
        journal_layers_free(rows, k);
}

/* ---- the node ---- */

struct host_part {
        struct sample *a, *b;           /* [n] per plan target (interfaces only) */
};

static int read_hosts(const struct agent_config *c, const struct layers_here *l, struct plan *p, struct doctor_node *n,
                      struct host_part *h, struct errbuf *e)
{
        _cleanup_free_ struct iface *ifs = NULL;
        unsigned n_ifs = 0;

        if (iface_list(c->env.nl, c->env.sysfs_root, &ifs, &n_ifs, e) < 0)
                n_ifs = 0;              /* the plan listed them a moment ago; sysfs then says */
        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                struct doctor_iface *x;
                int r;

                if (pt->t.kind != TARGET_INTERFACE)
                        continue;
                r = plan_read_target(p, i, pt->live, e);
                if (r < 0)
                        return r;
                if (!(x = doctor_node_add_iface(n)))
                        return errbuf_set(e, ENOMEM, NULL, "out of memory");
                snprintf(x->name, sizeof(x->name), "%s", pt->t.name);
                snprintf(x->driver, sizeof(x->driver), "%s", pt->t.kernel_driver);
                x->st = pt->live[0];
                for (unsigned k = 0; k < l->n && !x->managed; k++)
                        x->managed = policy_targets_interface(l->v[k].p, x->name);
                host_link(c, pt, ifs, n_ifs, x);
                host_sample(pt, &h->a[i]);
        }
        return 0;
}

/*
 * Over the window, the counter sampler every counters.sample_ms on the host interfaces:
 * the bursts of pause a rate over the whole window averages away (pause_burst).
 */
static void host_bursts(const struct agent_config *c, struct plan *p, struct doctor_node *n, struct host_part *h,
                        double window_s)
{
        char (*names)[IF_NAMESIZE] = calloc(p->n + 1, IF_NAMESIZE);
        struct sampler *s = calloc(1, sizeof(*s));
        struct sampler_opts o = { .period_ms = c->counters_sample_ms, .sysfs_root = c->env.sysfs_root,
                                  .nl = c->env.nl };
        struct errbuf e = { 0 };
        double end = -1;
        int64_t since_ms;
        unsigned k = 0;

        for (unsigned i = 0; names && i < p->n && k < SAMPLER_IFS_MAX; i++)
                if (p->v[i].t.kind == TARGET_INTERFACE && strlen(p->v[i].t.name) < IF_NAMESIZE) {
                        snprintf(names[k++], IF_NAMESIZE, "%s", p->v[i].t.name);
                        if (end < 0)
                                end = h->a[i].t + window_s;
                }
        since_ms = clock_wall_ms() - c->counters_sample_ms;
        if (!k || !s || !c->counters_sample_ms || sampler_open(s, &o, (const char (*)[IF_NAMESIZE])names, k, &e) < 0) {
                free(names);
                free(s);
                return;
        }
        while (clock_mono_s() < end) {
                sampler_sample(s);
                wait_until(fmin(end, clock_mono_s() + c->counters_sample_ms / 1000.0));
        }
        sampler_sample(s);
        n->sample_ms = c->counters_sample_ms;
        for (unsigned i = 0; i < n->n_ifs; i++)
                n->ifs[i].n_bursts = sampler_bursts(s, n->ifs[i].name, since_ms, n->ifs[i].bursts, DOCTOR_BURSTS_MAX);
        sampler_close(s);
        free(s);
        free(names);
}

static void host_rates(struct plan *p, struct doctor_node *n, struct host_part *h, double window_s)
{
        unsigned k = 0, reset = 0;

        for (unsigned i = 0; i < p->n; i++) {
                if (p->v[i].t.kind != TARGET_INTERFACE)
                        continue;
                wait_until(h->a[i].t + window_s);
                host_sample(&p->v[i], &h->b[i]);
                rates_of(&h->a[i], &h->b[i], &n->ifs[k++].rates, &reset);
        }
        if (reset)
                doctor_node_note(n, "%u NIC counter%s went back during the window (cleared): left out", reset,
                                 reset == 1 ? "" : "s");
}

static void node_basics(const struct agent_config *c, const struct doctor_collect_opts *o, struct doctor_node *n)
{
        const char *colon = strrchr(c->probe_listen, ':');
        pid_t pid = 0;

        if (colon && strtoul(colon + 1, NULL, 10) > 0 && strtoul(colon + 1, NULL, 10) < 65536)
                n->probe_port = (unsigned)strtoul(colon + 1, NULL, 10);
        if (o->name)
                snprintf(n->name, sizeof(n->name), "%s", o->name);
        else if (gethostname(n->name, sizeof(n->name) - 1) < 0)
                snprintf(n->name, sizeof(n->name), "localhost");
        n->switch_role = c->env.switch_role;
        if (dcb_lldpad_find(c->proc_root, &pid) > 0) {
                n->lldpad = true;
                n->lldpad_pid = (int)pid;
        }
}

int doctor_collect(const struct agent_config *c, const struct doctor_collect_opts *o, struct doctor_node *ret,
                   struct errbuf *e)
{
        struct doctor_node n = { 0 };
        struct host_part h = { 0 };
        struct sw_job *jobs = NULL;
        struct layers_here layers;
        struct plan p;
        double start = clock_mono_s();
        int r;

        plan_init(&p, &(struct plan_env){ .config = c });
        node_basics(c, o, &n);
        committed(&n, o->journal, &layers);
        r = plan_for_globs(&p, o->ifglobs, o->n_if, o->swglobs, o->n_sw, o->no_switches, e);
        if (r >= 0 && (!(jobs = calloc(p.n ? p.n : 1, sizeof(*jobs))) || !(h.a = calloc(p.n + 1, sizeof(*h.a))) ||
                       !(h.b = calloc(p.n + 1, sizeof(*h.b)))))
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (r >= 0 && (r = start_switches(&p, o->window_s, jobs)) < 0)
                errbuf_set(e, -r, NULL, "cannot start a thread per switch");
        if (r >= 0)
                r = read_hosts(c, &layers, &p, &n, &h, e);
        if (r >= 0)
                host_peers(c, &n);
        if (r >= 0)
                host_bursts(c, &p, &n, &h, o->window_s);
        if (r >= 0)
                host_rates(&p, &n, &h, o->window_s);
        join_switches(&p, jobs);
        for (unsigned i = 0; r >= 0 && i < p.n; i++)
                if (p.v[i].t.kind == TARGET_SWITCH)
                        switch_facts(&n, &jobs[i], &h.a[i], &h.b[i]);
        if (r >= 0 && layers.n && o->drift)
                drift_of(&n, o, c);
        layers_free(&layers);
        for (unsigned i = 0; i < p.io.n_notes; i++)
                doctor_node_note(&n, "%s", p.io.notes[i]);
        free_jobs(&p, jobs);
        plan_free(&p);
        free(h.a);
        free(h.b);
        n.window_s = round((clock_mono_s() - start) * 1000) / 1000;
        if (r < 0) {
                doctor_node_free(&n);
                return r;
        }
        *ret = n;
        return 0;
}
