/* SPDX-License-Identifier: MIT */
/*
 * The PFC watchdog on the simulated switch's clock, and what a pause storm does to the
 * data plane (traffic.c) with and without it.
 *
 * A pause stream is the counter pfc_rx.P of a port climbing (--traffic PORT:pfc_rx.3=R, or
 * R/ON/OFF for a choppy one): while it climbs the port's egress queue P is paused. The switch polls every watched
 * queue on one grid (the poll interval, switch-wide in every dialect): a poll whose
 * interval was paused throughout is a storm poll, one without any pause frame a clean
 * poll. The machine follows sonic-swss @ e6b0c5b5 (the VS platform's detector and the
 * common restorer):
 *   - the first poll after a queue is registered only records its baseline
 *     (pfc_detect_vs.lua: no *_last values yet);
 *   - detect_polls consecutive storm polls make it `stormed` (pfc_detect_vs.lua: time_left
 *     starts at detection_time and drops by the poll interval each storm poll, a storm
 *     when time_left <= poll; anything else resets it), DEADLOCK_DETECTED + 1;
 *   - restore_polls consecutive clean polls give it back, `operational`, DEADLOCK_RESTORED
 *     + 1 (pfc_restore.lua: any PFC frame resets time_left to restoration_time; an empty
 *     restoration time never restores); `alert` restores on the first poll without the
 *     storm condition instead (pfc_detect_vs.lua, the alert branch);
 *   - a stormed queue drops (drop) or sends (forward) what is offered to it
 *     (pfcactionhandler.cpp: PfcWdZeroBufferHandler / PfcWdAclHandler drop,
 *     PfcWdLossyHandler ignores pause); alert changes nothing (PfcWdActionHandler).
 * Each dialect says how it maps its configuration onto that (sim_wd_config: NVUE's
 * robustness and recovery-interval, EOS's timeout and recovery-time).
 *
 * The fabric: while a queue is paused and not contained (no watchdog, alert, or not
 * detected yet), the lossless traffic of its priority backs up into the shared buffer
 * and PFC spreads upstream, so every port's queue of that priority stops sending
 * (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016, §4.3: one NIC's
 * pause storm froze the whole network); the paused port's own queue sends nothing
 * unless the watchdog forwards. The counters tx_frames.P of every port climb only
 * while their queue sends (traffic.c subtracts the blocked time, "blocked").
 *
 * State (the state file's "watchdog"): "t" the time processed up to, "queues"
 * {"PORT": {"P": {status, d, r, first, detected, restored, stormed_at, restored_at (the
 * switch's clock at the last storm and restore), tx_ok, tx_drop, ok_last, drop_last, cfg}}},
 * "blocked" {"PORT": {"P": seconds}}.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/switchsim/sim.h"

#define PORTS_MAX 64

struct q {
        bool paused;            /* the pause stream runs (constant between two commands) */
        struct sim_wd cfg;
        json_t *st;             /* the queue's state object */
};

struct wd_run {
        struct sim *s;
        unsigned n;
        const char *port[PORTS_MAX];
        struct q q[PORTS_MAX][8];
        double offered[PORTS_MAX][8];   /* tx_frames.P per second: what the queue is offered */
        double poll_s;                  /* the grid; 0: no queue is watched */
};

static double num(const json_t *o, const char *k)
{
        return json_number_value(json_object_get(o, k));
}

static void set_num(json_t *o, const char *k, double v)
{
        json_object_set_new(o, k, json_real(v));
}

static bool flag(const json_t *o, const char *k)
{
        return json_is_true(json_object_get(o, k));
}

static json_t *queue_obj(json_t *wd, const char *port, unsigned p)
{
        char k[4];

        snprintf(k, sizeof(k), "%u", p);
        return sim_obj(sim_obj(sim_obj(wd, "queues"), port), k);
}

static json_t *cfg_json(const struct sim_wd *c)
{
        return json_pack("{s:b,s:f,s:i,s:i,s:i}", "on", c->on, "poll_s", c->poll_s, "detect", c->detect_polls,
                         "restore", c->restore_polls, "action", c->action);
}

/* A queue whose configuration changed is registered anew: operational, baseline first, counters kept. */
static void load_queue(struct wd_run *w, json_t *wd, unsigned i, unsigned p)
{
        struct q *q = &w->q[i][p];
        char name[32];
        json_t *c;

        snprintf(name, sizeof(name), "tx_frames.%u", p);
        w->offered[i][p] = sim_rate(w->s->st, w->port[i], name);
        sim_wd_config(w->s, w->port[i], p, &q->cfg);
        q->st = queue_obj(wd, w->port[i], p);
        c = cfg_json(&q->cfg);
        if (!json_equal(c, json_object_get(q->st, "cfg"))) {
                json_object_set_new(q->st, "cfg", c);
                json_object_set_new(q->st, "status", json_string("operational"));
                set_num(q->st, "d", 0);
                set_num(q->st, "r", 0);
                json_object_set_new(q->st, "first", json_true());
        } else {
                json_decref(c);
        }
        if (q->cfg.on)          /* one grid: every dialect's poll interval is switch-wide */
                w->poll_s = q->cfg.poll_s;
}

static bool stormed(const struct q *q)
{
        const char *status = json_string_value(json_object_get(q->st, "status"));

        return status && !strcmp(status, "stormed");
}

/* Does the watchdog hold this queue out of the pause (its traffic leaves: dropped or forwarded)? */
static bool contained(const struct q *q)
{
        return q->cfg.on && stormed(q) && q->cfg.action != SIM_WD_ALERT;
}

/*
 * dt seconds with nothing changing. A queue does not send while it is paused (unless
 * the watchdog forwards), while the watchdog drops its traffic, or while an uncontained
 * storm of its priority holds the fabric: that time is "blocked".
 */
static void run_span(struct wd_run *w, json_t *wd, double dt)
{
        bool spread[8] = { false };

        for (unsigned i = 0; i < w->n; i++)
                for (unsigned p = 0; p < 8; p++)
                        spread[p] |= w->q[i][p].paused && !contained(&w->q[i][p]);
        for (unsigned i = 0; i < w->n; i++)
                for (unsigned p = 0; p < 8; p++) {
                        struct q *q = &w->q[i][p];
                        bool held = contained(q), fwd = held && q->cfg.action == SIM_WD_FORWARD;
                        json_t *b = sim_obj(sim_obj(wd, "blocked"), w->port[i]);
                        double sent = w->offered[i][p] * dt;
                        char k[4];

                        snprintf(k, sizeof(k), "%u", p);
                        /* what the poll interval saw so far: paused throughout ("all"), some pause ("any") */
                        if (dt > 0) {
                                json_object_set_new(q->st, "any", json_boolean(flag(q->st, "any") || q->paused));
                                json_object_set_new(q->st, "all", json_boolean(!flag(q->st, "some_clear") && q->paused));
                                json_object_set_new(q->st, "some_clear", json_boolean(flag(q->st, "some_clear") ||
                                                                                     !q->paused));
                        }
                        if (spread[p] || (q->paused && !fwd) || (held && !fwd))
                                set_num(b, k, num(b, k) + dt);
                        if (!held)
                                continue;
                        set_num(q->st, fwd ? "tx_ok" : "tx_drop", num(q->st, fwd ? "tx_ok" : "tx_drop") + sent);
                        set_num(q->st, fwd ? "ok_last" : "drop_last", num(q->st, fwd ? "ok_last" : "drop_last") + sent);
                }
}

static void storm(struct q *q, double t)
{
        set_num(q->st, "stormed_at", t);
        json_object_set_new(q->st, "status", json_string("stormed"));
        set_num(q->st, "detected", num(q->st, "detected") + 1);
        set_num(q->st, "ok_last", 0);
        set_num(q->st, "drop_last", 0);
        set_num(q->st, "d", 0);
        set_num(q->st, "r", 0);
}

static void restore(struct q *q, double t)
{
        set_num(q->st, "restored_at", t);
        json_object_set_new(q->st, "status", json_string("operational"));
        set_num(q->st, "restored", num(q->st, "restored") + 1);
        set_num(q->st, "d", 0);
        set_num(q->st, "r", 0);
}

/* One poll of one watched queue: a storm poll when its interval was paused throughout, clean without any pause. */
static void poll_queue(struct q *q, double t)
{
        bool storm_poll = flag(q->st, "all"), clean = !flag(q->st, "any");

        json_object_set_new(q->st, "all", json_false());
        json_object_set_new(q->st, "any", json_false());
        json_object_set_new(q->st, "some_clear", json_false());

        if (flag(q->st, "first")) {
                json_object_set_new(q->st, "first", json_false());
                return;
        }
        if (!stormed(q) || q->cfg.action == SIM_WD_ALERT) {
                if (storm_poll && !stormed(q)) {
                        set_num(q->st, "d", num(q->st, "d") + 1);
                        if (num(q->st, "d") >= q->cfg.detect_polls)
                                storm(q, t);
                } else if (!storm_poll) {
                        set_num(q->st, "d", 0);
                        if (stormed(q))         /* alert: the first poll without the condition */
                                restore(q, t);
                }
                return;
        }
        if (!clean) {
                set_num(q->st, "r", 0);
                return;
        }
        set_num(q->st, "r", num(q->st, "r") + 1);
        if (q->cfg.restore_polls && num(q->st, "r") >= q->cfg.restore_polls)
                restore(q, t);
}

static void ports_of(struct wd_run *w)
{
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(w->s->st, "ports"), i, p)
                if (w->n < PORTS_MAX)
                        w->port[w->n++] = json_string_value(p);
}

/* Which queues the pause streams hold at time t; returns when that changes next by itself. */
static double paused_at(struct wd_run *w, double t)
{
        double next = INFINITY, edge;
        char name[32];

        for (unsigned i = 0; i < w->n; i++)
                for (unsigned p = 0; p < 8; p++) {
                        snprintf(name, sizeof(name), "pfc_rx.%u", p);
                        w->q[i][p].paused = sim_rate_at(w->s->st, w->port[i], name, t, &edge) > 0;
                        next = fmin(next, edge);
                }
        return next;
}

void sim_watchdog_advance(struct sim *s)
{
        static struct wd_run w;
        json_t *wd = sim_obj(s->st, "watchdog");
        double now = sim_now(), t = json_object_get(wd, "t") ? num(wd, "t") : now;

        memset(&w, 0, sizeof(w));
        w.s = s;
        ports_of(&w);
        for (unsigned i = 0; i < w.n; i++)
                for (unsigned p = 0; p < 8; p++)
                        load_queue(&w, wd, i, p);
        while (t < now) {
                /* the polls sit on the grid k x poll interval of the switch's clock */
                double next = fmin(now, paused_at(&w, t)), grid = w.poll_s ? (floor(t / w.poll_s + 1e-9) + 1) * w.poll_s : 0;
                bool at_poll = w.poll_s && grid <= next;

                if (at_poll)
                        next = grid;
                if (next <= t)          /* an edge the clock cannot tell from now */
                        next = fmin(now, t + 1e-6);
                run_span(&w, wd, next - t);
                t = next;
                for (unsigned i = 0; at_poll && i < w.n; i++)
                        for (unsigned p = 0; p < 8; p++)
                                if (w.q[i][p].cfg.on)
                                        poll_queue(&w.q[i][p], t);
        }
        set_num(wd, "t", now);
}

static const json_t *queue_state(const json_t *st, const char *port, unsigned p)
{
        char k[4];

        snprintf(k, sizeof(k), "%u", p);
        return json_object_get(json_object_get(json_object_get(json_object_get(st, "watchdog"), "queues"), port), k);
}

void sim_wd_stats(const json_t *st, const char *port, unsigned prio, struct sim_wd_stats *ret)
{
        const json_t *q = queue_state(st, port, prio);
        const char *status = json_string_value(json_object_get(q, "status"));

        *ret = (struct sim_wd_stats){
                .watched = json_is_true(json_object_get(json_object_get(q, "cfg"), "on")),
                .stormed = status && !strcmp(status, "stormed"),
                .detected = (uint64_t)num(q, "detected"), .restored = (uint64_t)num(q, "restored"),
                .tx_ok = (uint64_t)num(q, "tx_ok"), .tx_drop = (uint64_t)num(q, "tx_drop"),
                .tx_ok_last = (uint64_t)num(q, "ok_last"), .tx_drop_last = (uint64_t)num(q, "drop_last"),
        };
}

double sim_blocked_s(const json_t *st, const char *port, unsigned prio)
{
        char k[4];

        snprintf(k, sizeof(k), "%u", prio);
        return num(json_object_get(json_object_get(json_object_get(st, "watchdog"), "blocked"), port), k);
}
