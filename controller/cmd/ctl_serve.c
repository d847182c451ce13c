/* SPDX-License-Identifier: MIT */
/*
 * nettunectl serve: one replica of a controller that outlives one machine.
 * Replicas share an etcd store; one leads (the etcd lease of PREFIX/leader,
 * kept alive every TTL/3), the others watch the leader key and take over the
 * moment its lease expires. The leader:
 *   - runs every rollout recorded "running" (submitted by `apply`, or left by a
 *     leader that died: resumed from its records, node steps reconciled with
 *     their agents by idempotency key), oldest first;
 *   - scans the inventory for drift every --drift-interval and, with --enforce,
 *     re-applies the policy each drifted node last committed, as a rollout of
 *     kind "enforce" with that rollout's canary/wave rules;
 *   - sends nothing and writes nothing once its lease is no longer known to be
 *     valid (the HTTP gate and the fenced store writes), then steps down.
 * GET /metrics (--metrics ADDR:PORT) shows leadership, rollouts, drift and writes.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

#define RUNNING_SCAN_MAX 200            /* newest rollouts looked at for "running" */

struct serve {
        struct ctl *c;
        bool enforce;
        unsigned drift_interval_s, ttl_s;
        const char *metrics_listen;
        struct serve_counters counters;
        bool leading;
        long long next_drift_ms;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
        stopping = 1;
}

static void stamp(char *buf, size_t size)
{
        struct timespec ts;
        struct tm tm;

        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + strlen(buf), size - strlen(buf), ".%03ldZ", ts.tv_nsec / 1000000);
}

#define say(...) do { char _t[32]; stamp(_t, sizeof(_t)); fprintf(stderr, "%s nettunectl serve: ", _t); \
                      fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)

static bool may_send(void *ud)
{
        return !store_lease_lost(ud);
}

static int parse_args(struct serve *s)
{
        struct ctl *c = s->c;

        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i], *v = i + 1 < c->argc ? c->argv[i + 1] : NULL;

                if (streq(a, "--enforce")) {
                        s->enforce = true;
                        continue;
                }
                if (streq(a, "--drift-interval") && v) {
                        if (ctl_parse_uint(a, v, 0, 86400, &s->drift_interval_s) < 0)
                                return -EINVAL;
                } else if (streq(a, "--lease-ttl") && v) {
                        if (ctl_parse_uint(a, v, 2, 60, &s->ttl_s) < 0)
                                return -EINVAL;
                } else if (streq(a, "--metrics") && v) {
                        s->metrics_listen = v;
                } else {
                        return ctl_bad_arg(c, a);
                }
                i++;
        }
        return 0;
}

static void step_down(struct serve *s, const char *why)
{
        if (!s->leading)
                return;
        say("stepping down: %s", why);
        store_lease_release(s->c->store, NULL);
        s->leading = false;
        atomic_store(&s->counters.leader, 0);
}

/* Try to lead; false when another replica does (then wait for its key to change). */
static bool try_lead(struct serve *s)
{
        struct store_lease me, holder = { 0 };
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int r;

        store_lease_self(&me, 0);
        r = store_lease_take(s->c->store, &me, &holder, &e);
        if (r == -EBUSY)
                return false;
        if (r < 0) {
                say("cannot reach the store: %s", errbuf_str(&e, buf, sizeof(buf)));
                sleep(1);
                return false;
        }
        s->leading = true;
        atomic_store(&s->counters.leader, 1);
        atomic_fetch_add(&s->counters.leader_changes, 1);
        say("leading (pid %lld on '%s')", me.pid, me.host);
        s->next_drift_ms = clock_mono_ms() + (long long)s->drift_interval_s * 1000;
        return true;
}

struct running {
        long long ids[RUNNING_SCAN_MAX];
        unsigned n;
};

static int collect_running(const struct rollout_rec *r, void *ud)
{
        struct running *run = ud;

        if (r->state == ROLLOUT_RUNNING &&
            (streq(r->kind, "apply") || streq(r->kind, "enforce") || streq(r->kind, "remove")) &&
            run->n < RUNNING_SCAN_MAX)
                run->ids[run->n++] = r->id;
        return 0;
}

/* Drive one rollout to its end; <0 when this replica must stop acting. */
static int drive(struct serve *s, long long id)
{
        struct rollout_run_env env;
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int rc = store_rollout_load(s->c->store, id, &r, &e);

        if (rc < 0) {
                say("rollout %lld: %s", id, errbuf_str(&e, buf, sizeof(buf)));
                return rc;
        }
        if (r->state != ROLLOUT_RUNNING) {
                rollout_rec_free(r);
                return 0;
        }
        say("rollout %lld: driving '%s' (%u nodes, %u waves)", id, r->policy_name, r->n_nodes, r->n_waves);
        ctl_run_env(s->c, &env);
        env.progress = PROGRESS_OFF;            /* a daemon: its own log lines, no progress */
        rc = rollout_run(&env, r, &e);
        if (rc < 0) {
                atomic_fetch_add(&s->counters.rollouts_interrupted, 1);
                say("rollout %lld: stopped: %s", id, errbuf_str(&e, buf, sizeof(buf)));
        } else {
                atomic_fetch_add(&s->counters.rollouts_run, 1);
                if (rc != 0)
                        atomic_fetch_add(&s->counters.rollouts_failed, 1);
                say("rollout %lld: %s (exit %d): %s", id, rollout_state_name(r->state), rc, r->message);
        }
        rollout_rec_free(r);
        return rc < 0 ? rc : 0;
}

static int run_pending(struct serve *s)
{
        struct running run = { .n = 0 };
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int rc = store_rollout_list(s->c->store, RUNNING_SCAN_MAX, collect_running, &run, &e);

        if (rc < 0) {
                say("cannot list rollouts: %s", errbuf_str(&e, buf, sizeof(buf)));
                return rc;
        }
        for (unsigned i = run.n; i-- > 0 && !stopping;) {       /* oldest first */
                rc = drive(s, run.ids[i]);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

/* ---- drift and enforcement ---- */

/* One enforce rollout: the drifted nodes of `src` that it committed, with its document and rules. */
static int enforce_from(struct serve *s, const struct rollout_rec *src, struct drift_scan *scan, bool *done)
{
        _cleanup_free_ const struct inventory_node **sel = calloc(scan->n_nodes + 1, sizeof(*sel));
        struct rollout_rec *r;
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        unsigned n = 0;
        int rc;

        if (!sel)
                return -ENOMEM;
        for (unsigned i = 0; i < scan->n_nodes; i++) {
                const struct inventory_node *node = inventory_find(s->c->inv, scan->nodes[i].name);

                if (done[i] || !scan->nodes[i].drifted || !node)
                        continue;
                for (unsigned k = 0; k < src->n_nodes; k++)
                        if (streq(src->nodes[k].name, node->name) && src->nodes[k].state == RNODE_COMMITTED) {
                                sel[n++] = node;
                                done[i] = true;
                                break;
                        }
        }
        if (n == 0)
                return 0;
        /* src->args: a policy split into parts (one profile for hosts and switches) keeps them */
        r = rollout_rec_new("enforce", src->policy_name, src->policy_doc, src->args, &src->opts, sel, n);
        if (!r)
                return -ENOMEM;
        rc = store_rollout_create(s->c->store, r, &e);
        if (rc >= 0) {
                atomic_fetch_add(&s->counters.enforce_rollouts, 1);
                say("drift: rollout %lld re-applies '%s' (from rollout %lld) to %u drifted node%s", r->id,
                    r->policy_name, src->id, n, n == 1 ? "" : "s");
        } else {
                say("drift: cannot record an enforce rollout: %s", errbuf_str(&e, buf, sizeof(buf)));
        }
        rollout_rec_free(r);
        return rc;
}

static int enforce(struct serve *s, struct drift_scan *scan)
{
        _cleanup_free_ bool *done = calloc(scan->n_nodes + 1, sizeof(*done));
        struct ctl_sources src = { .n = 0 };
        struct errbuf e = { 0 };
        int rc;

        if (!done)
                return -ENOMEM;
        rc = store_rollout_list(s->c->store, CTL_SOURCES_MAX * 4, ctl_collect_source, &src, &e);
        for (unsigned i = 0; rc >= 0 && i < src.n; i++) {       /* newest first: the policy in force */
                struct rollout_rec *r = NULL;

                if (store_rollout_load(s->c->store, src.ids[i], &r, &e) < 0)
                        continue;
                rc = enforce_from(s, r, scan, done);
                rollout_rec_free(r);
        }
        return rc;
}

static int drift(struct serve *s)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct drift_scan scan;
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        unsigned n;
        int rc;

        if (ctl_select(s->c, NULL, &sel, &n) < 0)
                return -ENOMEM;
        rc = ctl_drift_scan(s->c, sel, n, &scan, &e);
        if (rc < 0) {
                say("drift scan failed: %s", errbuf_str(&e, buf, sizeof(buf)));
                return rc;
        }
        atomic_fetch_add(&s->counters.drift_scans, 1);
        atomic_store(&s->counters.drift_nodes, scan.n_nodes);
        atomic_store(&s->counters.drift_drifted, scan.n_drifted);
        atomic_store(&s->counters.drift_unreachable, scan.n_unreachable);
        atomic_store(&s->counters.last_scan_at, scan.at);
        say("drift scan %lld: %u nodes, %u drifted, %u unreachable", scan.id, scan.n_nodes, scan.n_drifted,
            scan.n_unreachable);
        if (s->enforce && scan.n_drifted > 0)
                rc = enforce(s, &scan);
        ctl_drift_scan_free(&scan);
        return rc;
}

/* ---- the loop ---- */

static void lead_once(struct serve *s)
{
        if (store_lease_lost(s->c->store)) {
                step_down(s, "the lease was not renewed in time");
                return;
        }
        if (run_pending(s) < 0) {
                step_down(s, "a store write or read failed (another replica may lead now)");
                return;
        }
        if (s->drift_interval_s && clock_mono_ms() >= s->next_drift_ms && !stopping) {
                if (drift(s) < 0 && store_lease_lost(s->c->store))
                        step_down(s, "the lease was not renewed in time");
                s->next_drift_ms = clock_mono_ms() + (long long)s->drift_interval_s * 1000;
        }
}

static unsigned wait_ms(const struct serve *s)
{
        long long w = (long long)s->ttl_s * 1000 / 2;

        if (s->leading && s->drift_interval_s) {
                long long until = s->next_drift_ms - clock_mono_ms();

                if (until < w)
                        w = until > 0 ? until : 0;
        }
        return (unsigned)w;
}

static int serve_loop(struct serve *s)
{
        struct errbuf e = { 0 };

        while (!stopping) {
                if (!s->leading && !try_lead(s)) {
                        if (store_wait_change(s->c->store, s->ttl_s * 1000, &e) < 0)   /* the leader key going away */
                                sleep(1);
                        continue;
                }
                lead_once(s);
                atomic_store(&s->counters.store_writes, store_writes(s->c->store));
                if (!stopping && s->leading)
                        store_wait_change(s->c->store, wait_ms(s), &e);        /* a new submission */
        }
        step_down(s, "stopping");
        return OUTCOME_OK;
}

int ctl_cmd_serve(struct ctl *c)
{
        struct serve s = { .c = c, .enforce = c->cfg.enforce, .drift_interval_s = c->cfg.drift_interval_s,
                           .ttl_s = c->cfg.lease_ttl_s,
                           .metrics_listen = c->cfg.metrics_listen[0] ? c->cfg.metrics_listen : NULL };
        struct serve_metrics *m = NULL;
        struct sigaction sa = { .sa_handler = on_signal };
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int r;

        if (parse_args(&s) < 0)
                return OUTCOME_INVALID;
        if (!ctl_store_shared(c)) {
                log_err("serve: needs a store the replicas share (--store etcd://HOST:PORT[,...]/PREFIX); "
                        "with SQLite run 'nettunectl apply' and 'drift' directly");
                return OUTCOME_INVALID;
        }
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_store(c)) > 0 || (r = ctl_need_http(c)) > 0)
                return r;
        store_set_lease_ttl(c->store, s.ttl_s);
        http_client_set_gate(c->http, may_send, c->store);
        if (s.metrics_listen && serve_metrics_start(s.metrics_listen, &s.counters, &m, &e) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        say("replica of %s (lease TTL %u s, drift every %u s%s)", store_where(c->store), s.ttl_s,
            s.drift_interval_s, s.enforce ? ", enforce" : "");
        r = serve_loop(&s);
        serve_metrics_stop(m);
        return r;
}
