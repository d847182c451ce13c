/* SPDX-License-Identifier: MIT */
/* One node's flows of a fabric probe: the request body, and concurrent flows against a real responder on 127.0.0.1. */
#include <CUnit/CUnit.h>

#include "drivers/probe/probe_flows.h"
#include "drivers/probe/probe_server.h"

/* Parse must fail with exactly this "where: msg". */
static void bad(const char *body, const char *expect)
{
        struct probe_flows *f = calloc(1, sizeof(*f));
        struct errbuf e = { .msg = "" };
        char buf[ERRBUF_STR_MAX];

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        f->n = 77;
        CU_ASSERT_EQUAL(probe_flows_request_parse(body, strlen(body), f, &e), -EINVAL);
        CU_ASSERT_EQUAL(f->n, 77);      /* written only on success */
        errbuf_str(&e, buf, sizeof(buf));
        if (strcmp(buf, expect))
                fprintf(stderr, "\n  got:    %s\n  wanted: %s\n", buf, expect);
        CU_ASSERT_STRING_EQUAL(buf, expect);
        free(f);
}

static void test_request(void)
{
        static const char ok[] =
                "{\"start_at_ms\": 1767225600000, \"duration_ms\": 1500, \"flows\": ["
                "{\"id\": 7, \"peer\": \"10.0.0.2:18515\", \"mode\": \"tcp\", \"dscp\": 26, \"priority\": 3, "
                "\"streams\": 2},"
                "{\"id\": 8, \"peer\": \"[fd00::3]:18515\", \"interface\": \"ens1f0np0\"}]}";
        struct probe_flows *f = calloc(1, sizeof(*f));
        struct errbuf e = { .msg = "" };

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL_FATAL(probe_flows_request_parse(ok, strlen(ok), f, &e), 0);
        CU_ASSERT_EQUAL(f->start_at_ms, 1767225600000LL);
        CU_ASSERT_EQUAL(f->duration_ms, 1500);
        CU_ASSERT_EQUAL(f->n, 2);
        CU_ASSERT_EQUAL(f->v[0].id, 7);
        CU_ASSERT_EQUAL(f->v[0].mode, PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(f->v[0].params.traffic_class, 26 << 2);
        CU_ASSERT_EQUAL(f->v[0].params.priority, 3);
        CU_ASSERT_EQUAL(f->v[0].params.streams, 2);
        CU_ASSERT_EQUAL(f->v[0].params.duration_ms, 1500);
        CU_ASSERT_EQUAL(f->v[0].params.timeout_ms, PROBE_FLOWS_TIMEOUT_MS);
        CU_ASSERT_STRING_EQUAL(f->v[0].params.peer, "10.0.0.2:18515");
        /* defaults: auto, the kernel's class, one stream */
        CU_ASSERT_EQUAL(f->v[1].mode, PROBE_MODE_AUTO);
        CU_ASSERT_EQUAL(f->v[1].params.traffic_class, -1);
        CU_ASSERT_EQUAL(f->v[1].params.priority, -1);
        CU_ASSERT_EQUAL(f->v[1].params.streams, 1);
        CU_ASSERT_STRING_EQUAL(f->v[1].params.netdev, "ens1f0np0");
        free(f);

        bad("{\"flows\": [{\"id\": 1, \"peer\": \"h:1\"}]}", "$: missing required key 'start_at_ms'");
        bad("{\"start_at_ms\": 5}", "$: missing required key 'flows'");
        bad("{\"start_at_ms\": 5, \"flows\": []}", "$.flows: expected at least 1 flow, found 0");
        bad("{\"start_at_ms\": 0, \"flows\": [{\"id\": 1, \"peer\": \"h:1\"}]}",
            "$.start_at_ms: start_at_ms 0 out of range 1-4611686018427387903");
        bad("{\"start_at_ms\": 5, \"duration_ms\": 99, \"flows\": [{\"id\": 1, \"peer\": \"h:1\"}]}",
            "$.duration_ms: duration_ms 99 out of range 100-60000");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"peer\": \"h:1\"}, {\"id\": 1, \"peer\": \"h:2\"}]}",
            "$.flows[1].id: duplicate flow id 1");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"peer\": \"h:1\", \"dscp\": 64}]}",
            "$.flows[0].dscp: dscp 64 out of range 0-63");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"peer\": \"h:1\", \"mode\": \"none\"}]}",
            "$.flows[0].mode: mode 'none' is not one of 'auto', 'verbs', 'tcp'");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1}]}", "$.flows[0]: missing required key 'peer'");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"peer\": \"h\"}]}",
            "$.flows[0].peer: peer 'h' is not host:port");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1, \"peer\": \"h:1\", \"runs\": 3}]}",
            "$.flows[0]: unknown key 'runs'");
        bad("{\"start_at_ms\": 5, \"flows\": [{\"id\": 1000001, \"peer\": \"h:1\"}]}",
            "$.flows[0].id: id 1000001 out of range 0-1000000");
}

static void test_request_bounds(void)
{
        char body[PROBE_FLOWS_BODY_MAX * 2];
        size_t n = (size_t)snprintf(body, sizeof(body), "{\"start_at_ms\": 5, \"flows\": [");

        for (unsigned i = 0; i <= PROBE_FLOWS_MAX; i++)
                n += (size_t)snprintf(body + n, sizeof(body) - n, "%s{\"id\": %u, \"peer\": \"h:1\"}", i ? "," : "", i);
        snprintf(body + n, sizeof(body) - n, "]}");
        bad(body, "$.flows: expected at most 16 flows, found 17");
}

/* Two flows to one responder at an absolute start: both measured, neither started before the start. */
static void test_run(void)
{
        struct probe_server *s = NULL;
        struct probe_flows *f = calloc(1, sizeof(*f));
        struct errbuf e = { .msg = "" };
        char peer[64], body[512];
        json_t *j;

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL_FATAL(probe_server_start("127.0.0.1:0", &s, &e), 0);
        probe_server_address(s, peer, sizeof(peer));
        snprintf(body, sizeof(body), "{\"start_at_ms\": %lld, \"duration_ms\": 300, \"flows\": ["
                 "{\"id\": 3, \"peer\": \"%s\", \"mode\": \"tcp\", \"dscp\": 10},"
                 "{\"id\": 4, \"peer\": \"%s\", \"mode\": \"auto\"},"
                 "{\"id\": 5, \"peer\": \"127.0.0.1:1\", \"mode\": \"tcp\"}]}",
                 (long long)probe_flows_now_ms() + 300, peer, peer);
        CU_ASSERT_EQUAL_FATAL(probe_flows_request_parse(body, strlen(body), f, &e), 0);
        CU_ASSERT_EQUAL(probe_flows_run(f, &e), 2);
        for (unsigned i = 0; i < 2; i++) {
                CU_ASSERT_EQUAL(f->v[i].err, 0);
                CU_ASSERT_TRUE(f->v[i].ran);
                CU_ASSERT_EQUAL(f->v[i].path.mode, PROBE_MODE_TCP);
                CU_ASSERT(f->v[i].result.bytes > 0);
                CU_ASSERT(f->v[i].result.gbps > 0);
                CU_ASSERT(f->v[i].started_ms >= f->start_at_ms);
                CU_ASSERT(f->v[i].ended_ms >= f->v[i].started_ms);
        }
        CU_ASSERT_EQUAL(f->v[0].result.dscp, 10);
        /* nothing listens on port 1: that flow fails saying only that no responder answered, and not
         * before the flow's connect-and-hello bound (a closed port looks like a silent host) */
        CU_ASSERT(f->v[2].err < 0);
        CU_ASSERT_STRING_EQUAL(f->v[2].error, PROBE_NO_RESPONDER);
        CU_ASSERT(f->v[2].ended_ms - f->v[2].started_ms >= PROBE_FLOWS_TIMEOUT_MS);
        j = probe_flows_to_json(f);
        CU_ASSERT_EQUAL(json_array_size(j), 3);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 3);
        CU_ASSERT_TRUE(json_is_true(json_object_get(json_array_get(j, 0), "ok")));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(j, 1), "mode")), "tcp");
        CU_ASSERT_TRUE(json_is_object(json_object_get(json_array_get(j, 1), "path")));
        CU_ASSERT_TRUE(json_is_false(json_object_get(json_array_get(j, 2), "ok")));
        CU_ASSERT_TRUE(json_is_null(json_object_get(json_array_get(j, 2), "gbps")));
        CU_ASSERT_TRUE(json_is_string(json_object_get(json_array_get(j, 2), "error")));
        json_decref(j);
        probe_server_stop(s);
        free(f);
}

int suite_probe_flows(void);
int suite_probe_flows(void)
{
        CU_pSuite s = CU_add_suite("probe_flows", NULL, NULL);

        if (!s || !CU_add_test(s, "request", test_request) || !CU_add_test(s, "request_bounds", test_request_bounds) ||
            !CU_add_test(s, "run", test_run))
                return -1;
        return 0;
}
