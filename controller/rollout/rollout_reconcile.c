/* SPDX-License-Identifier: MIT */
/* Asking agents what they did: unrecorded node steps, pending changes to settle, rollbacks to guard. */
#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "controller/rollout/rollout_internal.h"

#define RECONCILE_ROUNDS 30             /* an agent still running our transaction is asked again */
#define RECONCILE_PAUSE_MS 1000
#define SETTLE_BODY_MAX 48

long long rollout_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long rollout_env_now_s(const struct rollout_run_env *env)
{
        return env->now_s ? env->now_s(env->ud) : rollout_now_ms() / 1000;
}

void rollout_env_sleep_s(const struct rollout_run_env *env, unsigned s)
{
        if (env->sleep_s)
                env->sleep_s(env->ud, s);
        else
                sleep(s);
}

void rollout_node_key(long long id, unsigned w, unsigned seq, char *buf, size_t size)
{
        uint32_t nonce = 0;

        if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
                nonce = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
        snprintf(buf, size, "%lld-%u-%u-%08x", id, w, seq, nonce);
}

/* ---- reconcile: node steps whose answers were never recorded ---- */

struct asked {
        struct rnode *n;
        bool by_key;                    /* GET /v1/history for its key, else GET /v1/transactions/T */
        bool again;                     /* the agent is still at work on it: ask again */
};

static void on_reconciled(struct http_req *q, void *userdata)
{
        struct asked *a = q->user;
        struct rnode *n = a->n;
        enum reconcile_mode mode = *(const enum reconcile_mode *)userdata;
        struct reply_history_tx h;
        struct errbuf pe = { 0 };
        char why[400];
        int found = 1;

        a->again = false;
        if (q->err < 0 || q->status != 200) {
                if (q->err < 0)
                        http_req_error(q, why, sizeof(why));
                else
                        reply_error_text(q->status, q->resp, q->resp_len, why, sizeof(why));
                if (a->by_key) {
                        n->state = RNODE_UNREACHABLE;
                        snprintf(n->error, sizeof(n->error), "cannot ask its agent what it did with its apply: %.100s "
                                 "(nothing confirms a change it may hold: restored at its confirm deadline)", why);
                } else if (q->status == 404) {
                        n->state = RNODE_UNKNOWN;
                        snprintf(n->error, sizeof(n->error), "its agent has no transaction %s: %.150s", n->tx, why);
                } else {
                        snprintf(n->error, sizeof(n->error), "cannot ask its agent about transaction %s: %.150s",
                                 n->tx, why);
                }
                return;
        }
        if (a->by_key)
                found = reply_find_history(q->resp, q->resp_len, n->key, NULL, &h, &pe);
        else if (reply_parse_transaction(q->resp, q->resp_len, n->tx, &h, &pe) < 0)
                found = -EBADMSG;
        if (found < 0) {
                if (a->by_key)
                        n->state = RNODE_UNREACHABLE;
                snprintf(n->error, sizeof(n->error), "its agent's answer is unreadable: %.200s", pe.msg);
                return;
        }
        a->again = a->by_key ? !reconcile_adopt_keyed(n, found, &h, mode) : !reconcile_adopt_tx(n, &h);
}

static int reconcile_request(const struct rollout_run_env *env, struct asked *a, struct http_req *q)
{
        char path[96];

        *q = (struct http_req) { .method = "GET", .idempotent = true, .timeout_ms = env->timeout_s * 1000, .user = a };
        if (a->by_key)
                snprintf(path, sizeof(path), "/v1/history");
        else
                snprintf(path, sizeof(path), "/v1/transactions/%.63s", a->n->tx);
        return http_url(q->url, sizeof(q->url), a->n->url, path);
}

int rollout_reconcile(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                      enum reconcile_mode mode, struct errbuf *e)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        struct asked *asked = calloc(n + 1, sizeof(*asked));
        unsigned left = n;
        int r = 0;

        if (!reqs || !ptrs || !asked) {
                free(reqs);
                free(ptrs);
                free(asked);
                return errbuf_set(e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < n; i++) {
                bool by_key = nodes[i]->state == RNODE_APPLYING && nodes[i]->key[0];

                asked[i] = (struct asked) { nodes[i], by_key, by_key || nodes[i]->tx[0] };
        }
        for (unsigned round = 0; r >= 0 && left > 0 && round < RECONCILE_ROUNDS; round++) {
                unsigned k = 0;

                if (round > 0)
                        usleep(RECONCILE_PAUSE_MS * 1000);
                for (unsigned i = 0; i < n && r >= 0; i++) {
                        if (!asked[i].again)
                                continue;
                        r = reconcile_request(env, &asked[i], &reqs[k]);
                        ptrs[k] = &reqs[k];
                        k++;
                }
                if (r >= 0 && k > 0)
                        r = http_run(env->http, ptrs, k, env->timeout_s * 3000 + 10000, on_reconciled, &mode);
                left = 0;
                for (unsigned i = 0; i < k; i++)
                        http_req_done(&reqs[i]);
                for (unsigned i = 0; i < n; i++)
                        left += asked[i].again;
        }
        for (unsigned i = 0; i < n; i++)
                if (asked[i].again)
                        snprintf(nodes[i]->error, sizeof(nodes[i]->error), "its agent was still at work on the "
                                 "transaction after %u s", RECONCILE_ROUNDS * RECONCILE_PAUSE_MS / 1000);
        for (unsigned i = 0; i < n; i++)
                if (asked[i].again && asked[i].by_key)
                        nodes[i]->state = RNODE_UNREACHABLE;
        free(reqs);
        free(ptrs);
        free(asked);
        if (r < 0)
                return errbuf_set(e, -r, "", "cannot ask the agents: %s", strerror(-r));
        return 0;
}

/* ---- settle: pending changes to a final state ---- */

struct settling {
        struct rnode *n;
        enum settle_goal goal;
        enum settle_req next;
        long long until_ms;
        unsigned queries;               /* transaction queries sent: one at least before giving up */
        bool done;
        char body[SETTLE_BODY_MAX];
        char why[STORE_ERR_MAX];        /* why it is not final yet */
};

struct settle_run {
        void (*on_final)(struct rnode *n, void *ud);
        void *ud;
        bool stopped;                   /* a request was not sent: this controller stopped acting */
        int failed;                     /* -errno: the store failed (e says why), nothing more is sent */
};

static void settle_done(struct settle_run *sr, struct settling *s, enum rnode_state state, const char *why)
{
        s->done = true;
        s->n->state = state;
        snprintf(s->n->error, sizeof(s->n->error), "%s", why);
        if (state == RNODE_COMMITTED)
                s->n->exit_code = 0;
        if (sr->on_final)
                sr->on_final(s->n, sr->ud);
}

static void on_settle_answer(struct http_req *q, void *userdata)
{
        struct settle_run *sr = userdata;
        struct settling *s = q->user;
        struct settle_step step;
        char transport[300];
        struct settle_answer a = {
                .req = s->next, .status = q->err < 0 ? 0 : q->status, .body = q->resp, .len = q->resp_len,
                .transport = q->err < 0 ? http_req_error(q, transport, sizeof(transport)) : NULL,
        };

        if (q->err == -ECANCELED) {
                sr->stopped = true;
                return;
        }
        settle_judge(s->goal, s->n->tx, s->n->not_after_ms, rollout_now_ms(), &a, &step);
        if (step.deadline_ms > 0)
                s->n->confirm_deadline_ms = step.deadline_ms;
        if (step.rev > 0)               /* a commit that named its revision */
                rollout_node_take_rev(s->n, step.rev);
        if (step.final) {
                settle_done(sr, s, step.state, step.why);
        } else {
                s->next = step.next;
                memcpy(s->why, step.why, sizeof(s->why));
        }
}

static long long clamp_ms(long long v, long long lo, long long hi)
{
        return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The next request of one node; its timeout never runs far past the node's time. A
 * confirm or cancel closes its connection after it: the node's last request of its wave
 * (its connection is not held in the cache the next wave's nodes need).
 */
static int settle_request(const struct rollout_run_env *env, struct settling *s, long long now, struct http_req *q)
{
        long long ask = clamp_ms(env->timeout_s * 1000LL, 1000, SETTLE_ASK_MS), timeout = ask;
        char path[96];

        *q = (struct http_req) { .method = "POST", .user = s };
        if (s->next == SETTLE_REQ_GET) {
                s->queries++;
                q->method = "GET";
                q->idempotent = true;
                snprintf(path, sizeof(path), "/v1/transactions/%.63s", s->n->tx);
        } else {
                snprintf(path, sizeof(path), "/v1/confirm/%.63s", s->n->tx);
                snprintf(s->body, sizeof(s->body), "{\"not_after_ms\":%lld}",
                         s->next == SETTLE_REQ_CONFIRM ? s->n->not_after_ms : 1LL);
                q->body = s->body;
                q->body_len = strlen(s->body);
                q->close_after = true;
                /* A confirm is answered until the agent's clock passes not_after_ms: wait that long, and a margin. */
                if (s->next == SETTLE_REQ_CONFIRM)
                        timeout = clamp_ms(s->n->not_after_ms - now + SETTLE_MARGIN_MS, 1000,
                                           env->timeout_s * 1000LL + SETTLE_MARGIN_MS);
        }
        /* Once it has been asked, no request outlives its time by much. */
        if (s->queries > 1 || (s->queries > 0 && s->next != SETTLE_REQ_GET))
                timeout = clamp_ms(s->until_ms - now + 1000, 2000, timeout);
        q->timeout_ms = (unsigned)timeout;
        return http_url(q->url, sizeof(q->url), s->n->url, path);
}

/* A node whose time is up without a final answer is unknown: say until when, and the last reason. */
static void settle_give_up(struct settle_run *sr, struct settling *s)
{
        char why[STORE_ERR_MAX];
        time_t t = (time_t)(s->until_ms / 1000);
        char when[32];
        struct tm tm;

        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        snprintf(why, sizeof(why), "outcome unknown: no final answer from its agent by %s (%s and a %d s margin): "
                 "%.100s", when, s->goal == SETTLE_COMMIT ? "the end of its confirm window" : "its agent's deadline",
                 SETTLE_MARGIN_MS / 1000, s->why[0] ? s->why : "not asked");
        settle_done(sr, s, RNODE_UNKNOWN, why);
}

/*
 * One round: every node not final gets its next request, the last node first (the
 * connections kept since their applies are those of a wave's last nodes). What the
 * rounds before settled is made durable before a later round sends (the first round's
 * confirms were journaled by the caller). Returns the number sent, or -errno (e says
 * why when the store failed).
 */
static int settle_round(const struct rollout_run_env *env, struct settle_run *sr, struct settling *s, unsigned n,
                        unsigned round, struct http_req *reqs, struct http_req **ptrs, struct errbuf *e)
{
        long long now = rollout_now_ms(), longest = 0;
        unsigned k = 0;
        int r = 0;

        for (unsigned i = n; i-- > 0 && r >= 0;) {
                if (s[i].done)
                        continue;
                /* Given up only once its time is over and its agent was asked at least once. */
                if (s[i].queries > 0 && now > s[i].until_ms) {
                        settle_give_up(sr, &s[i]);
                        continue;
                }
                r = settle_request(env, &s[i], now, &reqs[k]);
                if (reqs[k].timeout_ms > longest)
                        longest = reqs[k].timeout_ms;
                ptrs[k] = &reqs[k];
                k++;
        }
        if (r >= 0 && k > 0 && round > 0 && store_unflushed(env->store) > 0)
                sr->failed = store_barrier(env->store, e);
        if (r >= 0 && k > 0 && sr->failed >= 0) {
                STEP_WRITTEN_AHEAD(env->store);
                r = http_run(env->http, ptrs, k, (unsigned)longest + 2000, on_settle_answer, sr);
        }
        for (unsigned i = 0; i < k; i++)
                http_req_done(&reqs[i]);
        return r < 0 ? r : (int)k;
}

int rollout_settle(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                   const enum settle_goal *goals, const long long *until_ms,
                   void (*on_final)(struct rnode *n, void *ud), void *ud, struct errbuf *e)
{
        struct settling *s = calloc(n + 1, sizeof(*s));
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        struct settle_run sr = { .on_final = on_final, .ud = ud };
        int r = 0;

        if (!s || !reqs || !ptrs) {
                r = errbuf_set(e, ENOMEM, "", "out of memory");
                goto out;
        }
        for (unsigned i = 0; i < n; i++) {
                s[i] = (struct settling) { .n = nodes[i], .goal = goals[i], .until_ms = until_ms[i],
                                           .next = goals[i] == SETTLE_COMMIT ? SETTLE_REQ_CONFIRM : SETTLE_REQ_CANCEL };
                if (!nodes[i]->tx[0])
                        settle_done(&sr, &s[i], RNODE_UNKNOWN, "outcome unknown: no transaction id to ask about");
        }
        for (unsigned round = 0;; round++) {
                int sent = settle_round(env, &sr, s, n, round, reqs, ptrs, e);

                if (sr.failed < 0) {
                        r = sr.failed;
                        break;
                }
                if (sent < 0) {
                        r = errbuf_set(e, -sent, "", "cannot send requests: %s", strerror(-sent));
                        break;
                }
                if (sr.stopped || store_lease_lost(env->store)) {
                        r = errbuf_set(e, ECANCELED, "", "this controller stopped acting: it no longer leads");
                        break;
                }
                if (sent == 0)
                        break;
                /* The first query follows a confirm or cancel at once; then back off. */
                if (round > 0)
                        usleep((useconds_t)clamp_ms(250LL << (round < 6 ? round - 1 : 5), 250,
                                                    SETTLE_BACKOFF_MAX_MS) * 1000);
        }
out:
        free(s);
        free(reqs);
        free(ptrs);
        return r;
}

/* ---- reading histories: revisions, and guarding rollbacks ---- */

/*
 * GET /v1/history of nodes[0..n) at once (by_tx: GET /v1/transactions/T of those for
 * which by_tx(node) says so); on_answer sees each answer, its user the node's index.
 */
static int ask_histories(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                         bool (*by_tx)(const struct rnode *x), void (*on_answer)(struct http_req *q, void *ud),
                         void *ud, struct errbuf *e)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        char path[96];
        int r = 0;

        if (!reqs || !ptrs) {
                free(reqs);
                free(ptrs);
                return errbuf_set(e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < n && r >= 0; i++) {
                reqs[i] = (struct http_req) { .method = "GET", .idempotent = true, .timeout_ms = env->timeout_s * 1000,
                                              .user = (void *)(uintptr_t)i };
                if (by_tx && by_tx(nodes[i]))
                        snprintf(path, sizeof(path), "/v1/transactions/%.63s", nodes[i]->tx);
                else
                        snprintf(path, sizeof(path), "/v1/history");
                r = http_url(reqs[i].url, sizeof(reqs[i].url), nodes[i]->url, path);
                ptrs[i] = &reqs[i];
        }
        if (r >= 0 && n > 0)
                r = http_run(env->http, ptrs, n, env->timeout_s * 3000 + 10000, on_answer, ud);
        for (unsigned i = 0; i < n; i++)
                http_req_done(&reqs[i]);
        free(reqs);
        free(ptrs);
        if (r < 0)
                return errbuf_set(e, -r, "", "cannot ask the agents: %s", strerror(-r));
        return 0;
}

/* Why a history request got no usable answer, into buf; false when it did. */
static bool history_failed(const struct http_req *q, char *buf, size_t size)
{
        if (q->err < 0)
                http_req_error(q, buf, size);
        else if (q->status != 200)
                reply_error_text(q->status, q->resp, q->resp_len, buf, size);
        return q->err < 0 || q->status != 200;
}

struct checked {
        struct rollback_verdict *ret;
        struct rnode **nodes;
};

static void on_history(struct http_req *q, void *userdata)
{
        struct checked *c = userdata;
        size_t i = (size_t)(uintptr_t)q->user;
        char text[400];

        if (history_failed(q, text, sizeof(text))) {
                memset(&c->ret[i], 0, sizeof(c->ret[i]));
                snprintf(c->ret[i].why, STORE_ERR_MAX, "rollback not sent: cannot read its agent's history: %.200s", text);
                c->ret[i].check = ROLLBACK_UNREADABLE;
                return;
        }
        rollout_rollback_judge(q->resp, q->resp_len, c->nodes[i]->tx, &c->ret[i]);
}

int rollout_rollback_check(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                           struct rollback_verdict *ret, struct errbuf *e)
{
        struct checked c = { ret, nodes };

        return ask_histories(env, nodes, n, NULL, on_history, &c, e);
}

struct revisions {
        struct node_revision *ret;
        struct rnode **nodes;
        bool (*by_tx)(const struct rnode *x);
};

/* One transaction's answer as a revision read: ours found, the node's current revision not known. */
static void take_transaction(const struct http_req *q, const struct rnode *x, struct node_revision *nr)
{
        struct errbuf pe = { 0 };

        if (reply_parse_transaction(q->resp, q->resp_len, x->tx, &nr->v.ours, &pe) < 0) {
                snprintf(nr->why, sizeof(nr->why), "its agent's answer about transaction %.40s is unreadable: %.120s",
                         x->tx, pe.msg);
                return;
        }
        nr->v.found = nr->read = true;
        nr->v.before_rev = -1;
}

static void on_revisions(struct http_req *q, void *userdata)
{
        struct revisions *rv = userdata;
        size_t i = (size_t)(uintptr_t)q->user;
        struct node_revision *nr = &rv->ret[i];
        const struct rnode *x = rv->nodes[i];
        struct errbuf pe = { 0 };
        char text[400];

        memset(nr, 0, sizeof(*nr));
        if (history_failed(q, text, sizeof(text)))
                snprintf(nr->why, sizeof(nr->why), "cannot read its agent's history: %.200s", text);
        else if (rv->by_tx && rv->by_tx(x))
                take_transaction(q, x, nr);
        else if (reply_history_revision(q->resp, q->resp_len, x->key, x->tx, &nr->v, &pe) < 0)
                snprintf(nr->why, sizeof(nr->why), "its agent's history is unreadable: %.200s", pe.msg);
        else
                nr->read = true;
}

int rollout_revisions(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                      bool (*by_tx)(const struct rnode *x), struct node_revision *ret, struct errbuf *e)
{
        struct revisions rv = { ret, nodes, by_tx };

        return ask_histories(env, nodes, n, by_tx, on_revisions, &rv, e);
}
