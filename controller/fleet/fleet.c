/* SPDX-License-Identifier: MIT */
/* Concurrent idempotent queries across the fleet. */
#include "controller/fleet/fleet.h"

/* A live count of the answers on a terminal ("drift: 12/20 nodes done, 1 failed"). */
static void on_answer(struct http_req *q, void *userdata)
{
        progress_item(userdata, q->err < 0 || q->status >= 400, "%s",
                      ((const struct inventory_node *)q->user)->name);
}

int fleet_query(struct ctl *c, const struct inventory_node *const *nodes, unsigned n,
                const char *method, const char *path, const char *body, struct http_req **ret)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        const char *what = strrchr(path, '/');
        struct progress p;
        int r = 0;

        if (!reqs || !ptrs) {
                free(reqs);
                free(ptrs);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < n && r >= 0; i++) {
                reqs[i] = (struct http_req) {
                        .method = method, .body = body, .body_len = body ? strlen(body) : 0,
                        .idempotent = true, .timeout_ms = c->timeout_s * 1000, .user = (void *)nodes[i],
                };
                r = ctl_url(reqs[i].url, sizeof(reqs[i].url), nodes[i]->url, path);
                ptrs[i] = &reqs[i];
        }
        /* The report lists every node: plain lines would repeat it, so a terminal only. */
        progress_init(&p, c->progress == PROGRESS_TTY ? PROGRESS_TTY : PROGRESS_OFF, stderr);
        if (r >= 0) {
                progress_begin(&p, what ? what + 1 : path, n, "node", NULL);
                r = http_run(c->http, ptrs, n, c->timeout_s * 3000 + 10000, on_answer, &p);
                progress_end(&p);
        }
        free(ptrs);
        if (r < 0) {
                fleet_free(reqs, n);
                return r;
        }
        *ret = reqs;
        return 0;
}

void fleet_free(struct http_req *reqs, unsigned n)
{
        if (!reqs)
                return;
        for (unsigned i = 0; i < n; i++)
                http_req_done(&reqs[i]);
        free(reqs);
}
