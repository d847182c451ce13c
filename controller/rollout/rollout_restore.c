/* SPDX-License-Identifier: MIT */
/*
 * Rollbacks across the fleet, recorded as a rollout of kind "rollback" (one wave,
 * every node at once):
 *
 *   by rollout (`rollback --rollout ID`): every node rollout ID touched goes back to
 *       the revision it had before it (restore_judge decides, node by node); LOOK
 *       (each agent's history) -> DECIDE -> SEND (journaled first) -> VERIFY (each
 *       restored node's history again) -> FINISH (consistent or not);
 *   plain (`rollback [--to REV]`): each node undoes its newest revision, or applies
 *       its revision REV again; LOOK (its current revision) -> SEND -> FINISH.
 *
 * Every POST /v1/rollback carries expect_revision, the node's current revision as
 * its history said just before: the agent refuses it (409) when something
 * committed in between. Steps over nodes are rollout_step.c's.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/outcome.h"
#include "controller/rollout/rollout_internal.h"

/* The engine state of a rollback run over r (every node in wave 0). */
static int begin(struct engine *g, const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        *g = (struct engine) { .env = env, .r = r, .e = e, .apply_timeout_ms = env->timeout_s * 1000 };
        g->sel = calloc(r->n_nodes + 1, sizeof(*g->sel));
        return g->sel ? 0 : errbuf_set(e, ENOMEM, "", "out of memory");
}

/* The run's end: its one wave done, the rollout completed with exit (0 or 3) and message, stored. */
static int finish(struct engine *g, int exit_code)
{
        struct rollout_rec *r = g->r;
        int rc;

        step_record_wave(g, 0, RWAVE_DONE);
        r->state = ROLLOUT_COMPLETED;
        r->exit_code = exit_code;
        store_record_rollout(g->env->store, r);
        rc = step_barrier(g);
        free(g->sel);
        return rc < 0 ? rc : r->exit_code;
}

/* A run that stopped on an error: what was noted is written still (nothing is left behind). */
static int stop(struct engine *g, int rc)
{
        struct errbuf ignored = { 0 };

        store_barrier(g->env->store, &ignored);
        free(g->sel);
        return rc;
}

/* ---- plain: undo the newest revision, or apply revision REV again ---- */

/* A responder's address as an agent gave it: numeric host:port, nothing to escape. */
static bool peer_ok(const char *a)
{
        size_t n = a ? strlen(a) : 0;

        if (n < 3 || n >= ROLLBACK_PEER_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!strchr("0123456789abcdefABCDEF.:[]", a[i]))
                        return false;
        return true;
}

/* The host of "h:p" or "[h]:p" into buf. */
static void host_of(const char *hostport, char *buf, size_t size)
{
        const char *end = hostport[0] == '[' ? strchr(hostport, ']') : strrchr(hostport, ':');
        const char *start = hostport[0] == '[' ? hostport + 1 : hostport;

        snprintf(buf, size, "%.*s", end && end > start ? (int)(end - start) : 0, start);
}

/* Is host in network cidr ("10.0.0.0/24", "fd00::5": one address without a length)? */
static bool in_cidr(const char *host, const char *cidr)
{
        unsigned char h[16], n[16];
        char net[64];
        const char *slash = strchr(cidr, '/');
        int fam = strchr(host, ':') ? AF_INET6 : AF_INET;
        unsigned bits = slash ? (unsigned)atoi(slash + 1) : (fam == AF_INET ? 32 : 128);

        snprintf(net, sizeof(net), "%.*s", slash ? (int)(slash - cidr) : (int)strlen(cidr), cidr);
        if (inet_pton(fam, host, h) != 1 || inet_pton(fam, net, n) != 1 || bits > (fam == AF_INET ? 32u : 128u))
                return false;
        for (unsigned b = 0; b < bits; b++)
                if ((h[b / 8] ^ n[b / 8]) & (0x80 >> (b % 8)))
                        return false;
        return true;
}

/* Does the responder whose fabric info is j serve a client at host (its probe.allow)? */
static bool serves(const json_t *j, const char *host)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_object_get(json_object_get(j, "probe"), "allow"), i, v)
                if (json_is_string(v) && in_cidr(host, json_string_value(v)))
                        return true;
        return false;
}

/*
 * The probes of a fleet rollback spread over the fleet's responders: every node sent
 * a rollback is asked where its own probe responder listens (GET /v1/fabric,
 * probe.address), and node k's gate measures against the next node's responder (in
 * the rollback's order, the node itself never), instead of every node's gate against
 * the one peer its policy names, where they would wait their turn or fail busy. Only a
 * responder whose probe.allow serves the node's own address is given to it. With none,
 * nothing is given: the agent probes its policy's peer. A node whose agent has no gate
 * ignores it.
 */
static void spread_peers(const struct rollout_run_env *env, struct rnode *const *nodes, unsigned n,
                         struct rollback_ask *asks)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        char (*addr)[ROLLBACK_PEER_MAX] = calloc(n + 1, sizeof(*addr));
        json_t **info = calloc(n + 1, sizeof(*info));
        unsigned known = 0;

        for (unsigned i = 0; reqs && ptrs && addr && info && i < n; i++) {
                reqs[i] = (struct http_req){ .method = "GET", .idempotent = true, .close_after = false,
                                             .timeout_ms = env->timeout_s * 1000 };
                ptrs[i] = &reqs[i];
                if (http_url(reqs[i].url, sizeof(reqs[i].url), nodes[i]->url, "/v1/fabric") < 0)
                        reqs[i].url[0] = '\0';
        }
        if (reqs && ptrs && addr && info && n > 1 &&
            http_run(env->http, ptrs, n, env->timeout_s * 1000 + 2000, NULL, NULL) >= 0)
                for (unsigned i = 0; i < n; i++) {
                        json_t *j = reqs[i].status == 200 ? json_loadb(reqs[i].resp, reqs[i].resp_len, 0, NULL) : NULL;
                        const char *a = json_string_value(json_object_get(json_object_get(j, "probe"), "address"));

                        if (peer_ok(a)) {
                                snprintf(addr[i], sizeof(addr[i]), "%s", a);
                                info[i] = j;
                                known++;
                        } else {
                                json_decref(j);
                        }
                }
        for (unsigned i = 0; known >= 2 && i < n; i++) {
                char host[ROLLBACK_PEER_MAX];

                if (!addr[i][0])
                        continue;       /* where its probes come from is not known */
                host_of(addr[i], host, sizeof(host));
                for (unsigned k = 1; k < n; k++) {
                        unsigned j = (i + k) % n;

                        if (addr[j][0] && !streq(addr[j], addr[i]) && serves(info[j], host)) {
                                snprintf(asks[i].peer, sizeof(asks[i].peer), "%s", addr[j]);
                                break;
                        }
                }
        }
        for (unsigned i = 0; reqs && i < n; i++) {
                http_req_done(&reqs[i]);
                if (info)
                        json_decref(info[i]);
        }
        free(reqs);
        free(ptrs);
        free(addr);
        free(info);
}

/* `rollback --no-gate`: {"no_gate": true} in the record's args. */
static bool no_gate_of(const struct rollout_rec *r)
{
        json_t *j = r->args ? json_loads(r->args, 0, NULL) : NULL;
        bool v = json_is_true(json_object_get(j, "no_gate"));

        json_decref(j);
        return v;
}

static int plain_rollback(const struct rollout_run_env *env, struct rollout_rec *r, long long to, const char *policy,
                          struct errbuf *e)
{
        struct node_revision *nr = calloc(r->n_nodes + 1, sizeof(*nr));
        struct rollback_ask *asks = calloc(r->n_nodes + 1, sizeof(*asks));
        struct engine g;
        unsigned n = 0, ok = 0;
        int rc = begin(&g, env, r, e);

        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                g.sel[i] = &r->nodes[i];
        rc = rc < 0 ? rc : !nr || !asks ? errbuf_set(e, ENOMEM, "", "out of memory") :
                                            rollout_revisions(env, g.sel, r->n_nodes, NULL, nr, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                struct rnode *x = &r->nodes[i];

                if (!nr[i].read || !nr[i].v.known) {
                        x->state = RNODE_FAILED;
                        step_node_error(x, "rollback not sent: %s", nr[i].read ? "its agent's history names no "
                                        "current revision" : nr[i].why);
                        continue;
                }
                x->pre_rev = nr[i].v.rev;
                asks[n] = (struct rollback_ask) { .to = to, .expect = nr[i].v.rev, .policy = policy,
                                                  .no_gate = no_gate_of(r) };
                g.sel[n++] = x;
        }
        if (rc >= 0 && !no_gate_of(r))
                spread_peers(env, g.sel, n, asks);
        if (rc >= 0)
                rc = step_barrier(&g);
        if (rc >= 0)
                rc = step_rollback(&g, g.sel, n, asks, NULL, true, 0);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                if (r->nodes[i].state != RNODE_ROLLED_BACK) {
                        r->nodes[i].state = RNODE_FAILED;
                        step_record_node(&g, &r->nodes[i]);
                }
                ok += r->nodes[i].state == RNODE_ROLLED_BACK;
        }
        free(nr);
        free(asks);
        if (rc < 0)
                return stop(&g, rc);
        snprintf(r->message, sizeof(r->message), "%u of %u nodes rolled back", ok, r->n_nodes);
        return finish(&g, ok == r->n_nodes ? OUTCOME_OK : OUTCOME_RUNTIME);
}

int rollout_run_rollback(const struct rollout_run_env *env, struct rollout_rec *r, long long to, struct errbuf *e)
{
        return plain_rollback(env, r, to, NULL, e);
}

int rollout_run_rollback_policy(const struct rollout_run_env *env, struct rollout_rec *r, const char *policy,
                                struct errbuf *e)
{
        return plain_rollback(env, r, 0, policy, e);
}

/* ---- by rollout: back to the revision before it ---- */

struct restore {
        struct engine g;
        struct rollout_rec *src;        /* the rollout undone: its nodes' undo_tx are journaled too */
        bool force;
        struct rnode **srcn;            /* srcn[i]: node i of the run in src */
        struct node_revision *nr;
        struct restore_plan *plan;
        struct rollback_ask *asks;
        struct rollback_outcome *out;
};

/* The node called name in src, looked for from *hint on (the rollback lists them in src's order: O(1) each). */
static struct rnode *src_node(struct rollout_rec *src, const char *name, unsigned *hint)
{
        for (unsigned k = 0; k < src->n_nodes; k++) {
                unsigned i = (*hint + k) % src->n_nodes;

                if (streq(src->nodes[i].name, name)) {
                        *hint = i + 1;
                        return &src->nodes[i];
                }
        }
        return NULL;
}

/* LOOK and DECIDE: every node's history, and what to do with it; the decision is journaled. */
static int look(struct restore *x)
{
        struct rollout_rec *r = x->g.r;
        int rc = rollout_revisions(x->g.env, x->srcn, r->n_nodes, NULL, x->nr, x->g.e);

        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];
                static const enum rnode_state state_of[RESTORE_ACTION_MAX] = {
                        [RESTORE_ALREADY] = RNODE_ALREADY_THERE, [RESTORE_UNDO] = RNODE_APPLYING,
                        [RESTORE_TO] = RNODE_APPLYING, [RESTORE_REFUSE] = RNODE_REFUSED,
                        [RESTORE_FAIL] = RNODE_FAILED,
                };

                restore_judge(x->src->id, x->srcn[i], &x->nr[i], x->force, &x->plan[i]);
                n->state = state_of[x->plan[i].action];
                n->pre_rev = x->plan[i].pre_rev;
                n->rev = x->plan[i].action == RESTORE_ALREADY ? x->nr[i].v.rev : 0;
                step_node_error(n, "%s", x->plan[i].why);
                x->g.sel[i] = n;
        }
        if (rc >= 0)
                step_record_nodes(&x->g, x->g.sel, r->n_nodes, 0);
        return rc;
}

/* SEND: the rollbacks, each with expect_revision (the node's current revision as LOOK read it). */
static int send_asks(struct restore *x)
{
        struct rollout_rec *r = x->g.r;
        struct rnode **sel = x->g.sel;
        struct rollback_ask *asks = x->asks;
        unsigned n = 0;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                const struct restore_plan *p = &x->plan[i];

                if (p->action != RESTORE_UNDO && p->action != RESTORE_TO)
                        continue;
                /*
                 * Back to the revision before the rollout by number wherever there was one, an
                 * undo too: with several policies (layers) committed an agent refuses a bare
                 * rollback, and `to` returns every layer to what it was then.
                 */
                asks[n] = (struct rollback_ask) { .to = p->pre_rev > 0 ? p->pre_rev : 0, .expect = p->cur_rev,
                                                  .no_gate = no_gate_of(r) };
                sel[n++] = &r->nodes[i];
        }
        if (!no_gate_of(r))
                spread_peers(x->g.env, sel, n, asks);
        rc = step_barrier(&x->g);       /* the decisions on record before anything is sent */
        if (rc >= 0)
                rc = step_rollback(&x->g, sel, n, asks, x->out, false, 0);
        /* out[k] belongs to sel[k]: spread them back to their nodes' places */
        for (unsigned k = n; k-- > 0;)
                x->out[sel[k] - r->nodes] = x->out[k];
        return rc;
}

/*
 * VERIFY: each node a rollback went to, by its history again: restored when the
 * newest commit there is a rollback newer than what LOOK saw (its answer may have
 * been lost), with that revision; else failed with the reason.
 */
static int verify(struct restore *x)
{
        struct rollout_rec *r = x->g.r;
        unsigned n = 0;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].state == RNODE_APPLYING)
                        x->g.sel[n++] = &r->nodes[i];
        rc = rollout_revisions(x->g.env, x->g.sel, n, NULL, x->nr, x->g.e);
        for (unsigned k = 0; rc >= 0 && k < n; k++) {
                struct rnode *node = x->g.sel[k];
                unsigned i = (unsigned)(node - r->nodes);
                const struct rollback_outcome *o = &x->out[i];
                const struct reply_revision *v = &x->nr[k].v;
                bool moved = x->nr[k].read && v->known && v->rev > x->plan[i].cur_rev && streq(v->newest.kind, "rollback");

                if (!x->nr[k].read && o->ok && o->tx[0]) {
                        node->state = RNODE_RESTORED;
                        snprintf(node->tx, sizeof(node->tx), "%s", o->tx);
                        step_node_error(node, "restored by tx %.20s (its history could not be read again: %.150s)",
                                        o->tx, x->nr[k].why);
                } else if (moved && (!o->tx[0] || streq(o->tx, v->newest.tx))) {
                        node->state = RNODE_RESTORED;
                        node->rev = v->rev;
                        snprintf(node->tx, sizeof(node->tx), "%s", v->newest.tx);
                        step_node_error(node, "restored: revision %lld (tx %.20s) holds its state before rollout %lld",
                                        v->rev, v->newest.tx, x->src->id);
                } else if (o->ok && streq(o->result, "nothing_to_do")) {
                        node->state = RNODE_ALREADY_THERE;
                        step_node_error(node, "its live state matched revision %lld already: nothing to do",
                                        x->plan[i].pre_rev);
                } else {
                        node->state = RNODE_FAILED;
                        step_node_error(node, "not restored: %.200s", o->ok ? "its history does not show the rollback" :
                                        o->why[0] ? o->why : "no answer");
                }
        }
        for (unsigned i = 0; i < r->n_nodes; i++)
                x->g.sel[i] = &r->nodes[i];
        if (rc >= 0)
                step_record_nodes(&x->g, x->g.sel, r->n_nodes, ENGINE_NO_WAVE);
        return rc;
}

/*
 * The rollout undone keeps, for each node put back, the transaction that did it (a
 * second run sees it there): noted, durable with the end's barrier.
 */
static void note_undone(struct restore *x)
{
        struct rollout_rec *r = x->g.r;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                if (r->nodes[i].state != RNODE_RESTORED)
                        continue;
                snprintf(x->srcn[i]->undo_tx, sizeof(x->srcn[i]->undo_tx), "%s", r->nodes[i].tx);
                store_record_node(x->g.env->store, x->src, x->srcn[i]);
        }
}

/* The summary: restored / already there / refused / failed, and whether the fleet ended consistent. */
static int conclude(struct restore *x)
{
        struct rollout_rec *r = x->g.r;
        unsigned counts[RNODE_STATE_MAX];
        unsigned bad;

        rollout_rec_count_states(r, counts);
        bad = counts[RNODE_REFUSED] + counts[RNODE_FAILED];
        snprintf(r->message, sizeof(r->message), "rollback of rollout %lld: %u restored, %u already there, %u refused, "
                 "%u failed; %s", x->src->id, counts[RNODE_RESTORED], counts[RNODE_ALREADY_THERE],
                 counts[RNODE_REFUSED], counts[RNODE_FAILED], bad ? "the fleet is not back at its state before it" :
                 "every node it touched is at its revision before it");
        return finish(&x->g, bad ? OUTCOME_RUNTIME : OUTCOME_OK);
}

int rollout_run_restore(const struct rollout_run_env *env, struct rollout_rec *r, struct rollout_rec *src,
                        bool force, struct errbuf *e)
{
        struct restore x = { .src = src, .force = force };
        int rc = begin(&x.g, env, r, e);

        /* Each way back is gated like an apply: never a shorter request than the rollout's own measurements. */
        x.g.apply_timeout_ms = rollout_apply_timeout_ms(src->policy_doc, env->timeout_s);
        x.srcn = calloc(r->n_nodes + 1, sizeof(*x.srcn));
        x.nr = calloc(r->n_nodes + 1, sizeof(*x.nr));
        x.plan = calloc(r->n_nodes + 1, sizeof(*x.plan));
        x.asks = calloc(r->n_nodes + 1, sizeof(*x.asks));
        x.out = calloc(r->n_nodes + 1, sizeof(*x.out));
        if (rc >= 0 && (!x.srcn || !x.nr || !x.plan || !x.asks || !x.out))
                rc = errbuf_set(e, ENOMEM, "", "out of memory");
        for (unsigned i = 0, hint = 0; rc >= 0 && i < r->n_nodes; i++)
                if (!(x.srcn[i] = src_node(src, r->nodes[i].name, &hint)))
                        rc = errbuf_set(e, EINVAL, "", "node '%s' is not a node of rollout %lld", r->nodes[i].name,
                                        src->id);
        if (rc >= 0)
                rc = look(&x);
        if (rc >= 0)
                rc = send_asks(&x);
        if (rc >= 0)
                rc = verify(&x);
        if (rc >= 0) {
                note_undone(&x);
                rc = conclude(&x);
        } else {
                rc = stop(&x.g, rc);
        }
        free(x.srcn);
        free(x.nr);
        free(x.plan);
        free(x.asks);
        free(x.out);
        return rc;
}
