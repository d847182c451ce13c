/* SPDX-License-Identifier: MIT */
/* The agents' fabric answers into the fabric: responders, clocks, each flow's result, failures by name. */
#include <math.h>

#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet.h"

/* Why a request got no usable answer, into buf. */
static const char *failure(const struct http_req *q, char *buf, size_t size)
{
        if (q->err < 0)
                return http_req_error(q, buf, size);
        return reply_error_text(q->status, q->resp, q->resp_len, buf, size);
}

static void take_info(struct fabric_node *n, const struct fabric_info_reply *r, double t0, double t1)
{
        double rtt = t1 - t0, offset = (double)r->now_ms - (t0 + t1) / 2.0;

        n->reached = true;
        n->error[0] = '\0';
        snprintf(n->address, sizeof(n->address), "%s", r->address);
        snprintf(n->interface, sizeof(n->interface), "%s", r->interface);
        n->max_clients = r->max_clients;
        n->link_gbps = r->speed_mbps > 0 ? (double)r->speed_mbps / 1000.0 : NAN;
        if (!isfinite(n->skew_err_ms) || rtt / 2.0 < n->skew_err_ms) {
                n->skew_ms = offset;
                n->skew_err_ms = rtt / 2.0 + 0.5;       /* plus the agent's ms resolution */
        }
}

static void take_flow(struct fabric *f, unsigned node, const struct fabric_flow_reply *r, long long start_at_ms)
{
        struct fabric_flow *fl;
        long long tol = fabric_late_tolerance_ms(f->o.duration_ms);

        if (r->id >= f->n_flows || f->flows[r->id].src != node)
                return;         /* not one of this node's flows: ignored, the flow stays unanswered */
        fl = &f->flows[r->id];
        snprintf(fl->mode, sizeof(fl->mode), "%s", r->mode);
        fl->dscp = r->dscp;
        fl->late_ms = r->started_ms ? r->started_ms - start_at_ms : 0;
        fl->ok = r->ok;
        fl->gbps = r->ok ? r->gbps : NAN;
        fl->rtt_ms = r->ok ? r->rtt_ms : 0;
        if (!r->ok)
                snprintf(fl->error, sizeof(fl->error), "%.300s", r->error[0] ? r->error : "failed");
        else if (fl->late_ms > tol) {
                fl->ok = false;
                fl->gbps = NAN;
                snprintf(fl->error, sizeof(fl->error), "%s did not start in time: the flow started %lld ms after the "
                         "agreed start (tolerance %lld ms)", f->nodes[node].name, fl->late_ms, tol);
        }
}

/* This node's flows its answer did not mention. */
static void unreported(struct fabric *f, unsigned i)
{
        for (unsigned k = 0; k < f->n_flows; k++) {
                struct fabric_flow *fl = &f->flows[k];

                if (fl->src == i && !fl->ok && !fl->error[0])
                        snprintf(fl->error, sizeof(fl->error), "%s: its agent did not report the flow",
                                 f->nodes[i].name);
        }
}

void fabric_take_info(struct fabric_node *n, const struct http_req *q, double t0_ms, double t1_ms)
{
        struct fabric_info_reply r;
        struct errbuf e = { 0 };
        char why[300];

        if (q->err < 0 || q->status != 200) {
                n->reached = false;
                snprintf(n->error, sizeof(n->error), "%s", failure(q, why, sizeof(why)));
        } else if (fabric_reply_info(q->resp, q->resp_len, &r, &e) < 0) {
                n->reached = false;
                snprintf(n->error, sizeof(n->error), "invalid answer to GET /v1/fabric: %.200s", e.msg);
        } else {
                take_info(n, &r, t0_ms, t1_ms);
        }
}

void fabric_take_flows(struct fabric *f, unsigned i, const struct http_req *q, unsigned timeout_ms)
{
        struct fabric_flows_reply *r = malloc(sizeof(*r));
        struct errbuf e = { 0 };
        char why[300];

        if (q->err == -ETIMEDOUT)
                fabric_fail_node(f, i, "did not finish in time: no answer within %u ms of sending its flows", timeout_ms);
        else if (q->status == 409 && q->err >= 0)
                fabric_fail_node(f, i, "did not start: %s", failure(q, why, sizeof(why)));
        else if (q->err < 0 || q->status != 200)
                fabric_fail_node(f, i, "%s", failure(q, why, sizeof(why)));
        else if (!r || fabric_reply_flows(q->resp, q->resp_len, r, &e) < 0)
                fabric_fail_node(f, i, "invalid answer to POST /v1/fabric/flows: %.200s", r ? e.msg : "out of memory");
        else
                for (unsigned k = 0; k < r->n; k++)
                        take_flow(f, i, &r->v[k], r->start_at_ms);
        free(r);
        unreported(f, i);
}
