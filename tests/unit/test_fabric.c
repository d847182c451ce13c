/* SPDX-License-Identifier: MIT */
/* The fabric probe's patterns, figures, gate, agent answers and report; the rollout's fabric gate checks. */
#include <CUnit/CUnit.h>
#include <math.h>

#include "agent/api/api_internal.h"
#include "controller/fabric/fabric.h"
#include "controller/rollout/rollout.h"
#include "controller/store/store.h"

#define CLOSE(a, b) (fabs((a) - (b)) < 1e-9)

static void make(struct fabric *f, enum fabric_pattern p, unsigned n)
{
        struct fabric_opts o;
        struct errbuf e = { .msg = "" };

        fabric_opts_defaults(&o);
        o.pattern = p;
        CU_ASSERT_EQUAL_FATAL(fabric_init(f, &o, n, &e), 0);
        for (unsigned i = 0; i < n; i++) {
                snprintf(f->nodes[i].name, sizeof(f->nodes[i].name), "node%03u", i + 1);
                snprintf(f->nodes[i].address, sizeof(f->nodes[i].address), "10.0.0.%u:18515", i + 1);
                f->nodes[i].reached = true;
                f->nodes[i].max_clients = 16;
        }
}

/* Flow k measured at gbps (tcp, on time). */
static void measured(struct fabric *f, unsigned k, double gbps)
{
        f->flows[k].ok = true;
        f->flows[k].gbps = gbps;
        snprintf(f->flows[k].mode, sizeof(f->flows[k].mode), "tcp");
}

static int flow_of(const struct fabric *f, unsigned src, unsigned dst)
{
        for (unsigned k = 0; k < f->n_flows; k++)
                if (f->flows[k].src == src && f->flows[k].dst == dst)
                        return (int)k;
        return -1;
}

static void test_patterns(void)
{
        struct fabric f;
        struct fabric_opts o;
        struct errbuf e = { .msg = "" };

        make(&f, FABRIC_RING, 4);
        CU_ASSERT_EQUAL(f.n_flows, 4);
        for (unsigned i = 0; i < 4; i++) {
                CU_ASSERT(flow_of(&f, i, (i + 1) % 4) >= 0);
                CU_ASSERT_EQUAL(f.nodes[i].n_in, 1);
                CU_ASSERT_EQUAL(f.nodes[i].n_out, 1);
        }
        fabric_free(&f);
        make(&f, FABRIC_RING, 2);       /* two nodes: one flow each way */
        CU_ASSERT_EQUAL(f.n_flows, 2);
        CU_ASSERT(flow_of(&f, 0, 1) >= 0 && flow_of(&f, 1, 0) >= 0);
        fabric_free(&f);
        make(&f, FABRIC_INCAST, 5);
        CU_ASSERT_EQUAL(f.n_flows, 4);
        CU_ASSERT_EQUAL(f.nodes[0].n_in, 4);
        CU_ASSERT_EQUAL(f.nodes[0].n_out, 0);
        CU_ASSERT_EQUAL(f.nodes[3].n_out, 1);
        fabric_free(&f);
        make(&f, FABRIC_ALLTOALL, 5);
        CU_ASSERT_EQUAL(f.n_flows, 20);
        for (unsigned i = 0; i < 5; i++)
                CU_ASSERT(f.nodes[i].n_in == 4 && f.nodes[i].n_out == 4);
        CU_ASSERT_EQUAL(flow_of(&f, 2, 2), -1);
        fabric_free(&f);

        fabric_opts_defaults(&o);
        CU_ASSERT_EQUAL(fabric_init(&f, &o, 1, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "a ring needs at least 2 nodes, 1 selected");
        o.pattern = FABRIC_INCAST;
        o.receiver = 3;
        CU_ASSERT_EQUAL(fabric_init(&f, &o, 3, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "incast receiver 3 out of range 0-2");
        o.receiver = 2;
        CU_ASSERT_EQUAL(fabric_init(&f, &o, 3, &e), 0);
        CU_ASSERT_EQUAL(f.nodes[2].n_in, 2);
        fabric_free(&f);
        CU_ASSERT_EQUAL(fabric_pattern_from_string("alltoall", &o.pattern), 0);
        CU_ASSERT_EQUAL(o.pattern, FABRIC_ALLTOALL);
        CU_ASSERT_EQUAL(fabric_pattern_from_string("mesh", &o.pattern), -EINVAL);
}

static void test_check(void)
{
        struct fabric f;
        struct errbuf e = { .msg = "" };

        make(&f, FABRIC_ALLTOALL, 6);
        CU_ASSERT_EQUAL(fabric_check(&f, &e), 0);
        f.nodes[3].max_clients = 4;
        CU_ASSERT_EQUAL(fabric_check(&f, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "node 'node004' would receive 5 flows at once but its responder takes 4 sessions "
                               "(probe.max_clients); raise it or select fewer nodes; no flow was run");
        f.nodes[3].max_clients = 16;
        f.nodes[1].address[0] = '\0';
        CU_ASSERT_EQUAL(fabric_check(&f, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "node 'node002' advertises no probe responder address"));
        f.nodes[4].reached = f.nodes[5].reached = false;
        snprintf(f.nodes[4].error, sizeof(f.nodes[4].error), "cannot connect (connection refused)");
        CU_ASSERT_EQUAL(fabric_check(&f, &e), -EHOSTUNREACH);
        CU_ASSERT_STRING_EQUAL(e.msg, "nodes 'node005', 'node006' did not answer (node005: cannot connect (connection "
                               "refused)); no flow was run");
        fabric_free(&f);
        /* a node sending more flows than one request carries */
        make(&f, FABRIC_ALLTOALL, 18);
        CU_ASSERT_EQUAL(fabric_check(&f, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "receive 17 flows at once but its responder takes 16"));
        fabric_free(&f);
        CU_ASSERT_EQUAL(fabric_late_tolerance_ms(1000), 500);
        CU_ASSERT_EQUAL(fabric_late_tolerance_ms(10000), 2000);
}

static void test_ring_figures(void)
{
        struct fabric f;
        struct fabric_figures g;
        const double hop[6] = { 9.0, 0.2, 8.0, 9.5, 8.5, 7.0 };

        make(&f, FABRIC_RING, 6);
        for (unsigned k = 0; k < 6; k++)
                measured(&f, k, hop[k]);
        fabric_compute(&f, &g);
        CU_ASSERT_TRUE(g.complete);
        CU_ASSERT_EQUAL(g.slowest, 1);                  /* node002 -> node003 */
        CU_ASSERT_EQUAL(f.flows[g.slowest].src, 1);
        CU_ASSERT_EQUAL(f.flows[g.slowest].dst, 2);
        CU_ASSERT(CLOSE(g.busbw, 0.2));                 /* the slowest hop bounds the ring */
        CU_ASSERT(CLOSE(g.algbw, 0.2 * 6 / 10.0));      /* busbw = algbw * 2(n-1)/n */
        CU_ASSERT(CLOSE(g.busbw, g.algbw * 2 * 5 / 6.0));
        CU_ASSERT(CLOSE(g.figure, 0.2));
        CU_ASSERT_STRING_EQUAL(g.figure_name, "busbw");
        CU_ASSERT(CLOSE(g.median_gbps, 8.25));
        CU_ASSERT(CLOSE(g.sum_gbps, 42.2));
        /* one hop failed: no collective figure */
        f.flows[4].ok = false;
        f.flows[4].gbps = NAN;
        fabric_compute(&f, &g);
        CU_ASSERT_FALSE(g.complete);
        CU_ASSERT_EQUAL(g.n_failed, 1);
        CU_ASSERT_TRUE(isnan(g.figure));
        CU_ASSERT(CLOSE(g.slowest_gbps, 0.2));
        fabric_free(&f);
}

static void test_incast_alltoall_figures(void)
{
        struct fabric f;
        struct fabric_figures g;

        make(&f, FABRIC_INCAST, 4);
        f.nodes[0].link_gbps = 10.0;
        for (unsigned k = 0; k < f.n_flows; k++)
                measured(&f, k, 2.0 + k);               /* 2, 3, 4 */
        fabric_compute(&f, &g);
        CU_ASSERT(CLOSE(g.goodput, 9.0));
        CU_ASSERT(CLOSE(g.link_ratio, 0.9));
        CU_ASSERT(CLOSE(g.figure, 9.0));
        CU_ASSERT_STRING_EQUAL(g.figure_name, "goodput");
        CU_ASSERT(CLOSE(f.nodes[0].rx_gbps, 9.0));
        CU_ASSERT_TRUE(isnan(g.busbw));
        f.nodes[0].link_gbps = NAN;                     /* the receiver's speed unknown */
        fabric_compute(&f, &g);
        CU_ASSERT_TRUE(isnan(g.link_ratio));
        CU_ASSERT(CLOSE(g.goodput, 9.0));
        fabric_free(&f);

        make(&f, FABRIC_ALLTOALL, 4);
        for (unsigned k = 0; k < f.n_flows; k++)
                measured(&f, k, f.flows[k].dst == 2 ? 0.1 : 1.0);      /* everything into node003 is slow */
        fabric_compute(&f, &g);
        CU_ASSERT(CLOSE(g.rx_min, 0.3));
        CU_ASSERT_EQUAL(g.rx_min_node, 2);
        CU_ASSERT(CLOSE(g.rx_median, 3.0));
        CU_ASSERT(CLOSE(g.busbw, 0.3));
        CU_ASSERT(CLOSE(g.algbw, 0.3 * 4 / 3.0));
        CU_ASSERT(CLOSE(g.figure, 0.3));
        CU_ASSERT_STRING_EQUAL(g.figure_name, "min_rx_gbps");
        fabric_free(&f);
}

static void ring_of(struct fabric *f, double slow)
{
        make(f, FABRIC_RING, 4);
        for (unsigned k = 0; k < 4; k++)
                measured(f, k, k == 1 ? slow : 5.0);
}

static void test_gate(void)
{
        struct fabric b, p;
        struct fabric_figures bf, pf;
        struct fabric_gate_report r;

        ring_of(&b, 4.0);
        fabric_compute(&b, &bf);
        ring_of(&p, 3.5);
        fabric_compute(&p, &pf);
        CU_ASSERT_EQUAL(fabric_gate_evaluate(20, &b, &bf, &p, &pf, &r), 0);
        CU_ASSERT_EQUAL(r.verdict, FABRIC_PASS);
        CU_ASSERT(CLOSE(r.threshold, 3.2));
        CU_ASSERT(CLOSE(r.change_pct, -12.5));
        fabric_free(&p);
        ring_of(&p, 0.05);
        fabric_compute(&p, &pf);
        CU_ASSERT_EQUAL(fabric_gate_evaluate(20, &b, &bf, &p, &pf, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, FABRIC_FAIL_REGRESSION);
        CU_ASSERT_STRING_EQUAL(r.reason, "ring busbw 0.050 Gb/s is 98.8% below the baseline 4.000 Gb/s (at most "
                               "20.0% allowed); slowest flow node002 -> node003 at 0.050 Gb/s");
        CU_ASSERT_STRING_EQUAL(fabric_verdict_name(r.verdict), "regression");
        /* a flow ran in another mode: not comparable */
        fabric_free(&p);
        ring_of(&p, 4.0);
        snprintf(p.flows[2].mode, sizeof(p.flows[2].mode), "verbs");
        fabric_compute(&p, &pf);
        CU_ASSERT_EQUAL(fabric_gate_evaluate(20, &b, &bf, &p, &pf, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, FABRIC_FAIL_MISMATCH);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "flow node003 -> node004 ran tcp in the baseline and verbs after"));
        /* an incomplete post measurement */
        p.flows[3].ok = false;
        snprintf(p.flows[3].error, sizeof(p.flows[3].error), "node004: did not start: late");
        fabric_compute(&p, &pf);
        CU_ASSERT_EQUAL(fabric_gate_evaluate(20, &b, &bf, &p, &pf, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, FABRIC_FAIL_POST);
        CU_ASSERT_STRING_EQUAL(r.reason, "post-change fabric probe incomplete (1 of 4 flows failed): node004 -> node001: "
                               "node004: did not start: late");
        fabric_free(&p);
        /* no baseline */
        ring_of(&p, 4.0);
        fabric_compute(&p, &pf);
        CU_ASSERT_EQUAL(fabric_gate_evaluate(20, NULL, NULL, &p, &pf, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, FABRIC_FAIL_BASELINE);
        fabric_free(&p);
        fabric_free(&b);
}

/* An agent's answer as the HTTP layer hands it over. */
static void answer(struct http_req *q, long status, int err, const char *body)
{
        memset(q, 0, sizeof(*q));
        q->status = status;
        q->err = err;
        q->resp = body ? strdup(body) : NULL;
        q->resp_len = body ? strlen(body) : 0;
        snprintf(q->errmsg, sizeof(q->errmsg), "%s", err ? "Operation timed out after 47000 milliseconds" : "");
}

static void test_take_flows(void)
{
        struct fabric f;
        struct http_req q;
        char body[1024];

        make(&f, FABRIC_ALLTOALL, 3);   /* node001 sends flows 0 and 1 */
        snprintf(body, sizeof(body), "{\"now_ms\": 1000, \"start_at_ms\": 100000, \"flows\": ["
                 "{\"id\": %d, \"ok\": true, \"gbps\": 9.5, \"mode\": \"tcp\", \"started_ms\": 100003, \"ended_ms\": 102100, "
                 "\"dscp\": 26},"
                 "{\"id\": %d, \"ok\": true, \"gbps\": 9.1, \"mode\": \"tcp\", \"started_ms\": 100900, \"ended_ms\": 103000},"
                 "{\"id\": %d, \"ok\": true, \"gbps\": 1.0, \"mode\": \"tcp\", \"started_ms\": 100000}]}",
                 flow_of(&f, 0, 1), flow_of(&f, 0, 2), flow_of(&f, 1, 0));
        answer(&q, 200, 0, body);
        fabric_take_flows(&f, 0, &q, 50000);
        CU_ASSERT_TRUE(f.flows[flow_of(&f, 0, 1)].ok);
        CU_ASSERT(CLOSE(f.flows[flow_of(&f, 0, 1)].gbps, 9.5));
        CU_ASSERT_EQUAL(f.flows[flow_of(&f, 0, 1)].late_ms, 3);
        CU_ASSERT_EQUAL(f.flows[flow_of(&f, 0, 1)].dscp, 26);
        /* started 900 ms late with 2000 ms flows (tolerance 500 ms): does not count */
        CU_ASSERT_FALSE(f.flows[flow_of(&f, 0, 2)].ok);
        CU_ASSERT_STRING_EQUAL(f.flows[flow_of(&f, 0, 2)].error, "node001 did not start in time: the flow started 900 ms "
                               "after the agreed start (tolerance 500 ms)");
        /* another node's flow in node001's answer is ignored */
        CU_ASSERT_FALSE(f.flows[flow_of(&f, 1, 0)].ok);
        CU_ASSERT_STRING_EQUAL(f.nodes[0].error, "");
        http_req_done(&q);

        answer(&q, 409, 0, "{\"error\":{\"code\":\"late\",\"message\":\"start_at_ms 5 passed 312 ms ago on this agent's "
               "clock (now 317); no flow was run\",\"path\":\"$.start_at_ms\"}}");
        fabric_take_flows(&f, 1, &q, 50000);
        CU_ASSERT_PTR_NOT_NULL(strstr(f.nodes[1].error, "did not start: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(f.nodes[1].error, "start_at_ms 5 passed 312 ms ago"));
        CU_ASSERT_FALSE(f.flows[flow_of(&f, 1, 0)].ok);
        CU_ASSERT_PTR_NOT_NULL(strstr(f.flows[flow_of(&f, 1, 0)].error, "node002: did not start"));
        http_req_done(&q);

        answer(&q, 0, -ETIMEDOUT, NULL);
        fabric_take_flows(&f, 2, &q, 47000);
        CU_ASSERT_STRING_EQUAL(f.nodes[2].error, "did not finish in time: no answer within 47000 ms of sending its flows");
        CU_ASSERT_STRING_EQUAL(f.flows[flow_of(&f, 2, 0)].error, "node003: did not finish in time: no answer within "
                               "47000 ms of sending its flows");
        http_req_done(&q);
        fabric_free(&f);

        /* an answer that leaves a flow out, and one that is not valid */
        make(&f, FABRIC_RING, 2);
        answer(&q, 200, 0, "{\"start_at_ms\": 5, \"flows\": []}");
        fabric_take_flows(&f, 0, &q, 1000);
        CU_ASSERT_STRING_EQUAL(f.flows[0].error, "node001: its agent did not report the flow");
        http_req_done(&q);
        answer(&q, 200, 0, "{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"ok\": true, \"gbps\": \"fast\"}]}");
        fabric_take_flows(&f, 1, &q, 1000);
        CU_ASSERT_STRING_EQUAL(f.nodes[1].error, "invalid answer to POST /v1/fabric/flows: $.flows[0].gbps: expected a "
                               "number 0-1000000");
        http_req_done(&q);
        fabric_free(&f);
}

static void test_take_info(void)
{
        struct fabric_node n = { .skew_err_ms = NAN, .skew_ms = NAN, .link_gbps = NAN };
        struct http_req q;

        answer(&q, 200, 0, "{\"now_ms\": 1010, \"probe\": {\"listen\": \"10.0.0.1:18515\", \"address\": "
               "\"10.0.0.1:18515\", \"max_clients\": 8, \"interface\": \"nt0\", \"speed_mbps\": 25000}, \"extra\": 1}");
        fabric_take_info(&n, &q, 990.0, 1010.0);        /* round trip 20 ms, midpoint 1000: its clock is 10 ms ahead */
        CU_ASSERT_TRUE(n.reached);
        CU_ASSERT_STRING_EQUAL(n.address, "10.0.0.1:18515");
        CU_ASSERT_STRING_EQUAL(n.interface, "nt0");
        CU_ASSERT_EQUAL(n.max_clients, 8);
        CU_ASSERT(CLOSE(n.link_gbps, 25.0));
        CU_ASSERT(CLOSE(n.skew_ms, 10.0));
        CU_ASSERT(CLOSE(n.skew_err_ms, 10.5));
        /* a later round with a longer trip does not replace the better estimate */
        fabric_take_info(&n, &q, 900.0, 1100.0);
        CU_ASSERT(CLOSE(n.skew_ms, 10.0));
        http_req_done(&q);
        answer(&q, 200, 0, "{\"now_ms\": 5, \"probe\": {\"address\": null, \"max_clients\": 99}}");
        fabric_take_info(&n, &q, 0, 1);
        CU_ASSERT_FALSE(n.reached);
        CU_ASSERT_STRING_EQUAL(n.error, "invalid answer to GET /v1/fabric: $.probe.max_clients: expected an integer 1-16");
        http_req_done(&q);
}

static void test_report(void)
{
        struct fabric f;
        struct fabric_figures g;
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        json_t *j;

        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        ring_of(&f, 0.25);
        fabric_compute(&f, &g);
        j = fabric_to_json(&f, &g);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "pattern")), "ring");
        CU_ASSERT_TRUE(json_is_true(json_object_get(j, "ok")));
        CU_ASSERT(CLOSE(json_real_value(json_object_get(json_object_get(j, "figures"), "busbw_gbps")), 0.25));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(json_object_get(j, "figures"),
                                                                                 "slowest"), "from")), "node002");
        CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "flows")), 4);
        CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "nodes")), 4);
        json_decref(j);
        fabric_print_text(out, &f, &g);
        fclose(out);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "slowest hop: node002 -> node003 at 0.250 Gb/s"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "busbw 0.250 Gb/s (the slowest hop), algbw 0.167 Gb/s"));
        free(text);
        fabric_free(&f);
}

/* A rollout of doc over n nodes in waves of `wave` after a canary of `canary`. */
static struct rollout_rec *rollout_of(const char *doc, unsigned n, unsigned canary, unsigned wave, int neighbours,
                                      unsigned confirm_s)
{
        struct inventory_node nodes[8], *ptrs[8];
        struct rollout_opts o;

        rollout_opts_defaults(&o);
        o.canary = canary;
        o.wave_size = (struct rollout_count) { wave, false };
        o.fabric_neighbours = neighbours;
        o.confirm_timeout_s = confirm_s;
        for (unsigned i = 0; i < n; i++) {
                nodes[i] = (struct inventory_node) { .n_labels = 0 };
                snprintf(nodes[i].name, sizeof(nodes[i].name), "node%u", i + 1);
                snprintf(nodes[i].url, sizeof(nodes[i].url), "https://10.0.0.%u:7440", i + 1);
                ptrs[i] = &nodes[i];
        }
        return rollout_rec_new("apply", "p", doc, NULL, &o, (const struct inventory_node *const *)ptrs, n);
}

static void test_rollout_check(void)
{
        static const char doc[] = "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"p\"},"
                                  "\"targets\":{\"interfaces\":[\"nt0\"]},\"spec\":{\"mtu\":9000},"
                                  "\"verify\":{\"fabric\":{\"pattern\":\"ring\",\"neighbours\":0}}}";
        static const char plain[] = "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"p\"},"
                                    "\"targets\":{\"interfaces\":[\"nt0\"]},\"spec\":{\"mtu\":9000}}";
        struct errbuf e = { .msg = "" };
        struct rollout_fabric *fg = NULL;
        struct rollout_rec *r;
        struct rollout_opts back;
        char *text;

        r = rollout_of(doc, 4, 1, 3, -1, 120);          /* a canary of one and no neighbours */
        CU_ASSERT_EQUAL(rollout_fabric_check(r, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "verify.fabric");
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "wave 1 has 1 node and 0 neighbours join it: a ring needs at least 2 nodes"));
        rollout_rec_free(r);
        r = rollout_of(doc, 4, 1, 3, 1, 120);           /* --fabric-neighbours 1 */
        CU_ASSERT_EQUAL(rollout_fabric_check(r, &e), 0);
        CU_ASSERT_EQUAL(rollout_fabric_new(r, &fg, &e), 0);
        CU_ASSERT_PTR_NOT_NULL(fg);
        CU_ASSERT_STRING_EQUAL(rollout_fabric_reason(fg), "");
        CU_ASSERT_EQUAL(json_array_size(rollout_fabric_log(fg)), 0);
        rollout_fabric_free(fg);
        /* the neighbours survive the store */
        text = rollout_opts_to_json(&r->opts);
        CU_ASSERT_EQUAL(rollout_opts_from_json(text, &back), 0);
        CU_ASSERT_EQUAL(back.fabric_neighbours, 1);
        free(text);
        rollout_rec_free(r);
        r = rollout_of(doc, 4, 2, 2, -1, 30);           /* the gate cannot finish before the nodes revert */
        CU_ASSERT_EQUAL(rollout_fabric_check(r, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "confirm timeout 30 s is shorter than the fabric gate may take after a wave "
                               "applied (58 s for 2000 ms flows): raise --confirm-timeout");
        rollout_rec_free(r);
        r = rollout_of(plain, 4, 1, 3, -1, 30);         /* no verify.fabric: nothing to check, no gate */
        CU_ASSERT_EQUAL(rollout_fabric_check(r, &e), 0);
        CU_ASSERT_EQUAL(rollout_fabric_new(r, &fg, &e), 0);
        CU_ASSERT_PTR_NULL(fg);
        text = rollout_opts_to_json(&r->opts);
        CU_ASSERT_PTR_NULL(strstr(text, "fabric"));
        CU_ASSERT_EQUAL(rollout_opts_from_json(text, &back), 0);
        CU_ASSERT_EQUAL(back.fabric_neighbours, -1);
        free(text);
        rollout_rec_free(r);
}

int suite_fabric(void);
int suite_fabric(void)
{
        CU_pSuite s = CU_add_suite("fabric", NULL, NULL);

        if (!s || !CU_add_test(s, "patterns", test_patterns) || !CU_add_test(s, "check", test_check) ||
            !CU_add_test(s, "ring_figures", test_ring_figures) ||
            !CU_add_test(s, "incast_alltoall_figures", test_incast_alltoall_figures) ||
            !CU_add_test(s, "gate", test_gate) || !CU_add_test(s, "take_flows", test_take_flows) ||
            !CU_add_test(s, "take_info", test_take_info) || !CU_add_test(s, "report", test_report) ||
            !CU_add_test(s, "rollout_check", test_rollout_check))
                return -1;
        return 0;
}
