/* SPDX-License-Identifier: MIT */
/* One idempotent request to many nodes at once (plan, drift): the answers, in node order. */
#pragma once

#include "controller/cmd/ctl.h"

/*
 * Send method+path (with body) to each node; GET and plan are idempotent and
 * retried with backoff. *ret is an array of n requests (user = the node) that
 * the caller releases with fleet_free(). Returns 0 or -errno (libcurl failed).
 */
int fleet_query(struct ctl *c, const struct inventory_node *const *nodes, unsigned n,
                const char *method, const char *path, const char *body, struct http_req **ret);
void fleet_free(struct http_req *reqs, unsigned n);
