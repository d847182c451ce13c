/* SPDX-License-Identifier: MIT */
/* Asking agents what they did with node steps whose answers were never recorded. */
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "reply.h"
#include "rollout_reconcile.h"

#define RECONCILE_ROUNDS 30             /* an agent still running our transaction is asked again */
#define RECONCILE_PAUSE_MS 1000

void rollout_node_key(long long id, unsigned w, unsigned seq, char *buf, size_t size)
{
        uint32_t nonce = 0;

        if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
                nonce = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
        snprintf(buf, size, "%lld-%u-%u-%08x", id, w, seq, nonce);
}

static bool running_state(const char *s)
{
        return streq(s, "planned") || streq(s, "snapshotted") || streq(s, "applying") || streq(s, "applied") ||
               streq(s, "verifying") || streq(s, "restoring");
}

/* Apply what the agent said to one node; false when it is still at work (ask again). */
static bool adopt(struct rnode *n, int found, const struct reply_history_tx *h)
{
        bool applying = n->state == RNODE_APPLYING;

        if (found == 0) {
                if (applying) {
                        n->state = RNODE_PLANNED;       /* never arrived: send again, same key */
                        n->error[0] = '\0';
                } else {
                        n->state = RNODE_FAILED;
                        snprintf(n->error, sizeof(n->error), "transaction %s is no longer in the agent's history", n->tx);
                }
                return true;
        }
        if (running_state(h->state))
                return false;
        snprintf(n->tx, sizeof(n->tx), "%s", h->tx);
        n->exit_code = h->exit_code;
        if (streq(h->state, "pending_confirm")) {
                n->state = RNODE_PENDING;
        } else if (streq(h->state, "committed")) {
                n->state = RNODE_COMMITTED;
                n->changes = applying ? !streq(h->result, "nothing_to_do") : n->changes;
                n->error[0] = '\0';
        } else if (applying && streq(h->restored_by, "confirm-timeout")) {
                /* It expired unconfirmed while nobody was there to confirm it: the change never
                 * got a verdict. Apply it again, as a new step with a new key. */
                n->state = RNODE_PLANNED;
                n->key[0] = '\0';
                n->error[0] = '\0';
        } else if (!applying) {
                n->state = RNODE_REVERTED;
                snprintf(n->error, sizeof(n->error), "reverted by its agent (%s)", h->result);
        } else {
                n->state = RNODE_FAILED;
                snprintf(n->error, sizeof(n->error), "%.31s%s%.200s", h->result[0] ? h->result : h->state,
                         h->error[0] ? ": " : "", h->error);
        }
        return true;
}

struct asked {
        struct rnode *n;
        bool again;                     /* the agent is still at work on it: ask again */
};

static void on_history(struct http_req *q, void *userdata)
{
        struct asked *a = q->user;
        struct rnode *n = a->n;
        struct reply_history_tx h;
        struct errbuf pe = { 0 };
        char why[400];
        int found;

        a->again = false;
        if (q->err < 0 || q->status != 200) {
                if (q->err < 0)
                        http_req_error(q, why, sizeof(why));
                else
                        reply_error_text(q->status, q->resp, q->resp_len, why, sizeof(why));
                n->state = RNODE_UNREACHABLE;
                snprintf(n->error, sizeof(n->error), "cannot ask it what it did: %.150s; if it applied, it "
                         "reverts by itself", why);
                return;
        }
        found = reply_find_history(q->resp, q->resp_len, n->state == RNODE_APPLYING ? n->key : NULL, n->tx, &h, &pe);
        if (found < 0) {
                n->state = RNODE_UNREACHABLE;
                snprintf(n->error, sizeof(n->error), "its history is unreadable: %.200s", pe.msg);
                return;
        }
        a->again = !adopt(n, found, &h);
}

int rollout_reconcile(const struct rollout_run_env *env, struct rnode **nodes, unsigned n, struct errbuf *e)
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
        for (unsigned i = 0; i < n; i++)
                asked[i] = (struct asked) { nodes[i], true };
        for (unsigned round = 0; r >= 0 && left > 0 && round < RECONCILE_ROUNDS; round++) {
                unsigned k = 0;

                if (round > 0)
                        usleep(RECONCILE_PAUSE_MS * 1000);
                for (unsigned i = 0; i < n && r >= 0; i++) {
                        if (!asked[i].again)
                                continue;
                        reqs[k] = (struct http_req) { .method = "GET", .idempotent = true,
                                                      .timeout_ms = env->timeout_s * 1000, .user = &asked[i] };
                        r = ctl_url(reqs[k].url, sizeof(reqs[k].url), nodes[i]->url, "/v1/history");
                        ptrs[k] = &reqs[k];
                        k++;
                }
                if (r >= 0 && k > 0)
                        r = http_run(env->http, ptrs, k, env->timeout_s * 3000 + 10000, on_history, NULL);
                left = 0;
                for (unsigned i = 0; i < k; i++)
                        http_req_done(&reqs[i]);
                for (unsigned i = 0; i < n; i++)
                        left += asked[i].again;
        }
        for (unsigned i = 0; i < n; i++)
                if (asked[i].again) {
                        nodes[i]->state = RNODE_UNREACHABLE;
                        snprintf(nodes[i]->error, sizeof(nodes[i]->error), "its agent was still running the "
                                 "transaction after %u s; if it applied, it reverts by itself",
                                 RECONCILE_ROUNDS * RECONCILE_PAUSE_MS / 1000);
                }
        free(reqs);
        free(ptrs);
        free(asked);
        if (r < 0)
                return errbuf_set(e, -r, "", "cannot ask the agents: %s", strerror(-r));
        return 0;
}
