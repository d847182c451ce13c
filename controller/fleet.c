/* SPDX-License-Identifier: MIT */
/* Concurrent idempotent queries across the fleet. */
#include "fleet.h"

int fleet_query(struct ctl *c, const struct inventory_node *const *nodes, unsigned n,
                const char *method, const char *path, const char *body, struct http_req **ret)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
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
        if (r >= 0)
                r = http_run(c->http, ptrs, n, c->timeout_s * 3000 + 10000, NULL, NULL);
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
