/* SPDX-License-Identifier: MIT */
/*
 * etcd v3 JSON gateway replies and store records: the shapes etcd 3.4 really
 * answers (captured from a running member), defaults for members it leaves out,
 * and refusals of wrong types, negative numbers and bad base64.
 */
#include <CUnit/CUnit.h>
#include <math.h>

#include "controller/rollout/rollout.h"
#include "controller/store/store_etcd_internal.h"

#define TEXT(s) s, strlen(s)

static int parse(enum etcd_reply_kind k, const char *body, struct etcd_reply *r, struct errbuf *e)
{
        return etcd_reply_parse(k, body, strlen(body), r, e);
}

static void test_b64(void)
{
        char *enc = etcd_b64_encode("/t/a", 4), *dec = NULL;
        size_t n;

        CU_ASSERT_STRING_EQUAL(enc, "L3QvYQ==");
        CU_ASSERT_EQUAL(etcd_b64_decode(enc, strlen(enc), 64, &dec, &n), 0);
        CU_ASSERT_EQUAL(n, 4);
        CU_ASSERT_STRING_EQUAL(dec, "/t/a");
        free(enc);
        free(dec);
        CU_ASSERT_EQUAL(etcd_b64_decode("L3QvY", 5, 64, &dec, &n), -EBADMSG);
        CU_ASSERT_EQUAL(etcd_b64_decode("L3Q*YQ==", 8, 64, &dec, &n), -EBADMSG);
        CU_ASSERT_EQUAL(etcd_b64_decode("L3QvYQ==", 8, 3, &dec, &n), -EFBIG);
        CU_ASSERT_EQUAL(etcd_b64_decode("", 0, 3, &dec, &n), 0);
        CU_ASSERT_EQUAL(n, 0);
        free(dec);
}

static void test_range_and_txn(void)
{
        struct etcd_reply r;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(parse(ETCD_REPLY_RANGE, "{\"header\":{\"cluster_id\":\"15118495548433857066\","
                                    "\"revision\":\"2\",\"raft_term\":\"2\"},\"kvs\":[{\"key\":\"L3QvYQ==\","
                                    "\"create_revision\":\"2\",\"mod_revision\":\"5\",\"version\":\"1\","
                                    "\"value\":\"aGVsbG8=\"}],\"count\":\"1\"}", &r, &e), 0);
        CU_ASSERT_EQUAL(r.revision, 2);
        CU_ASSERT_EQUAL_FATAL(r.n_kvs, 1);
        CU_ASSERT_STRING_EQUAL(r.kvs[0].key, "/t/a");
        CU_ASSERT_STRING_EQUAL(r.kvs[0].value, "hello");
        CU_ASSERT_EQUAL(r.kvs[0].mod_rev, 5);
        CU_ASSERT_EQUAL(r.count, 1);
        etcd_reply_done(&r);
        /* nothing in range: etcd leaves kvs and count out */
        CU_ASSERT_EQUAL(parse(ETCD_REPLY_RANGE, "{\"header\":{\"revision\":\"2\"}}", &r, &e), 0);
        CU_ASSERT_EQUAL(r.n_kvs, 0);
        CU_ASSERT_EQUAL(r.count, 0);
        etcd_reply_done(&r);
        /* a failed compare: "succeeded" left out, the failure branch's range flattened */
        CU_ASSERT_EQUAL(parse(ETCD_REPLY_TXN, "{\"header\":{\"revision\":\"2\"},\"responses\":[{\"response_range\":"
                              "{\"header\":{\"revision\":\"2\"},\"kvs\":[{\"key\":\"L3QvYQ==\",\"mod_revision\":\"2\","
                              "\"value\":\"aGVsbG8=\"}],\"count\":\"1\"}}]}", &r, &e), 0);
        CU_ASSERT_FALSE(r.succeeded);
        CU_ASSERT_EQUAL(r.n_responses, 1);
        CU_ASSERT_EQUAL(r.n_kvs, 1);
        etcd_reply_done(&r);
        CU_ASSERT_EQUAL(parse(ETCD_REPLY_TXN, "{\"header\":{\"revision\":\"3\"},\"succeeded\":true,\"responses\":"
                              "[{\"response_put\":{\"header\":{\"revision\":\"3\"}}}]}", &r, &e), 0);
        CU_ASSERT_TRUE(r.succeeded);
        CU_ASSERT_EQUAL(r.revision, 3);
        etcd_reply_done(&r);
}

static void test_lease_and_watch(void)
{
        struct etcd_reply r;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL(parse(ETCD_REPLY_LEASE, "{\"header\":{\"revision\":\"3\"},\"ID\":\"4111120346332485130\","
                              "\"TTL\":\"5\"}", &r, &e), 0);
        CU_ASSERT_EQUAL(r.id, 4111120346332485130LL);
        CU_ASSERT_EQUAL(r.ttl, 5);
        etcd_reply_done(&r);
        /* an expired lease: the keepalive answer has no TTL */
        CU_ASSERT_EQUAL(parse(ETCD_REPLY_KEEPALIVE, "{\"result\":{\"header\":{\"revision\":\"3\"},\"ID\":\"12345\"}}",
                              &r, &e), 0);
        CU_ASSERT_EQUAL(r.ttl, 0);
        etcd_reply_done(&r);
        CU_ASSERT_EQUAL(parse(ETCD_REPLY_WATCH, "{\"result\":{\"header\":{\"revision\":\"9\"},\"events\":[{\"type\":"
                              "\"DELETE\",\"kv\":{\"key\":\"L250L2xlYWRlcg==\",\"mod_revision\":\"9\"}}]}}", &r, &e), 0);
        CU_ASSERT_EQUAL_FATAL(r.n_kvs, 1);
        CU_ASSERT_TRUE(r.kvs[0].deleted);
        CU_ASSERT_STRING_EQUAL(r.kvs[0].key, "/nt/leader");
        etcd_reply_done(&r);
}

static void test_refusals(void)
{
        static const struct { enum etcd_reply_kind k; const char *body, *msg; } bad[] = {
                { ETCD_REPLY_RANGE, "[]", "not a JSON object" },
                { ETCD_REPLY_RANGE, "{\"header\":{\"revision\":\"-1\"}}", "$.header.revision: expected a decimal number" },
                { ETCD_REPLY_RANGE, "{\"header\":{\"revision\":-1}}", "$.header.revision: negative" },
                { ETCD_REPLY_RANGE, "{\"header\":{\"revision\":\"99999999999999999999\"}}", "$.header.revision: expected a decimal number" },
                { ETCD_REPLY_RANGE, "{\"kvs\":{}}", "$.kvs: expected an array" },
                { ETCD_REPLY_RANGE, "{\"kvs\":[{\"key\":\"!!\"}]}", "$.kvs[0].key: not base64" },
                { ETCD_REPLY_RANGE, "{\"kvs\":[{\"value\":\"aA==\"}]}", "$.kvs[0].key: empty" },
                { ETCD_REPLY_RANGE, "{\"kvs\":[{\"key\":\"YQBi\"}]}", "$.kvs[0].key: contains a NUL byte" },
                { ETCD_REPLY_TXN, "{\"succeeded\":\"yes\"}", "$.succeeded: expected true or false" },
                { ETCD_REPLY_TXN, "{\"responses\":[{}]}", "$.responses[0]: expected response_range, response_put or response_delete_range" },
                { ETCD_REPLY_WATCH, "{\"header\":{}}", "$.result: missing" },
                { ETCD_REPLY_WATCH, "{\"result\":{\"events\":[{\"type\":\"X\",\"kv\":{}}]}}", "$.result.events[0].type: expected PUT or DELETE" },
                { ETCD_REPLY_RANGE, "{\"error\":\"x\",\"code\":3}", "an error answer where a result was expected" },
        };
        struct etcd_reply r;
        char buf[200];

        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct errbuf e = { 0 };

                CU_ASSERT(parse(bad[i].k, bad[i].body, &r, &e) < 0);
                if (strcmp(e.msg, bad[i].msg))
                        fprintf(stderr, "case %zu: got '%s'\n", i, e.msg);
                CU_ASSERT_STRING_EQUAL(e.msg, bad[i].msg);
        }
        CU_ASSERT_STRING_EQUAL(etcd_reply_error(400, TEXT("{\"error\":\"illegal base64\",\"message\":\"illegal base64\","
                                                     "\"code\":3}"), buf, sizeof(buf)), "illegal base64 (code 3)");
        CU_ASSERT_STRING_EQUAL(etcd_reply_error(502, "<html>", 6, buf, sizeof(buf)), "HTTP 502");
}

/* A rollout written as records reads back the same; a tampered record is refused. */
static void test_records_roundtrip(void)
{
        struct inventory_node nodes[3] = { 0 };
        const struct inventory_node *ptrs[3];
        struct rollout_opts o;
        struct rollout_rec *r, *back = NULL;
        struct errbuf e = { 0 };
        char *t;

        rollout_opts_defaults(&o);
        for (unsigned i = 0; i < 3; i++) {
                snprintf(nodes[i].name, sizeof(nodes[i].name), "n%u", i);
                snprintf(nodes[i].url, sizeof(nodes[i].url), "https://10.0.0.%u:7440", i + 1);
                ptrs[i] = &nodes[i];
        }
        r = rollout_rec_new("apply", "p", "{\"a\":1}", NULL, &o, ptrs, 3);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        r->id = 7;
        r->nodes[1].state = RNODE_PENDING;
        r->nodes[1].post_gbps = 9.5;
        snprintf(r->nodes[1].key, sizeof(r->nodes[1].key), "7-1-1-0badcafe");
        r->nodes[1].confirm_deadline_ms = 1767225630000LL;
        r->nodes[1].not_after_ms = 1767225610000LL;
        r->nodes[1].pre_rev = 4;
        r->nodes[1].rev = 5;
        snprintf(r->nodes[1].undo_tx, sizeof(r->nodes[1].undo_tx), "31");
        snprintf(r->nodes[1].group, sizeof(r->nodes[1].group), "r2");
        r->nodes[2].pre_rev = 0;                        /* no revision before */
        r->waves[1].state = RWAVE_PASSED;
        t = store_json_rollout(r, "h:1");
        CU_ASSERT_EQUAL_FATAL(store_json_parse_rollout(t, strlen(t), "k", &back, &e), 0);
        free(t);
        CU_ASSERT_EQUAL(back->id, 7);
        CU_ASSERT_EQUAL(back->n_nodes, 3);
        CU_ASSERT_STRING_EQUAL(back->policy_doc, "{\"a\":1}");
        CU_ASSERT_PTR_NULL(back->args);
        for (unsigned i = 0; i < r->n_waves; i++) {
                t = store_json_wave(r, i, "h:1");
                CU_ASSERT_EQUAL(store_json_parse_wave(t, strlen(t), "k", back, &e), 0);
                free(t);
        }
        for (unsigned i = 0; i < r->n_nodes; i++) {
                t = store_json_node(r, &r->nodes[i], "h:1");
                CU_ASSERT_EQUAL(store_json_parse_node(t, strlen(t), "k", back, &e), 0);
                free(t);
        }
        CU_ASSERT_EQUAL(back->waves[1].state, RWAVE_PASSED);
        CU_ASSERT_EQUAL(back->nodes[1].state, RNODE_PENDING);
        CU_ASSERT_STRING_EQUAL(back->nodes[1].key, "7-1-1-0badcafe");
        CU_ASSERT_EQUAL(back->nodes[1].confirm_deadline_ms, 1767225630000LL);
        CU_ASSERT_EQUAL(back->nodes[1].not_after_ms, 1767225610000LL);
        CU_ASSERT_DOUBLE_EQUAL(back->nodes[1].post_gbps, 9.5, 1e-9);
        CU_ASSERT_EQUAL(back->nodes[1].pre_rev, 4);
        CU_ASSERT_EQUAL(back->nodes[1].rev, 5);
        CU_ASSERT_STRING_EQUAL(back->nodes[1].undo_tx, "31");
        CU_ASSERT_STRING_EQUAL(back->nodes[1].group, "r2");
        CU_ASSERT_EQUAL(back->nodes[2].pre_rev, 0);
        CU_ASSERT_EQUAL(back->nodes[0].pre_rev, -1);    /* not reached: not recorded */
        CU_ASSERT_TRUE(isnan(back->nodes[0].post_gbps));
        CU_ASSERT_STRING_EQUAL(back->nodes[2].url, "https://10.0.0.3:7440");
        /* out of range, unknown state, unknown key */
        CU_ASSERT(store_json_parse_wave(TEXT("{\"v\":1,\"idx\":9,\"state\":\"done\",\"started_at\":0,\"deadline\":0}"),
                                          "k", back, &e) < 0);
        CU_ASSERT(store_json_parse_node(TEXT("{\"v\":1,\"seq\":0,\"name\":\"n\",\"url\":\"u\",\"wave\":0,\"state\":\"odd\","
                                          "\"tx\":\"\",\"exit_code\":0,\"changes\":0,\"baseline_gbps\":null,"
                                          "\"post_gbps\":null,\"error\":\"\",\"key\":\"\"}"), "k", back, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is not a node state"));
        /* A record from before confirm deadlines were kept has neither: 0; a negative one is refused. */
        CU_ASSERT_EQUAL(store_json_parse_node(TEXT("{\"v\":1,\"seq\":0,\"name\":\"n\",\"url\":\"u\",\"wave\":0,"
                                                "\"state\":\"unknown\",\"tx\":\"3\",\"exit_code\":-1,\"changes\":0,"
                                                "\"baseline_gbps\":null,\"post_gbps\":null,\"error\":\"\",\"key\":\"\"}"),
                                        "k", back, &e), 0);
        CU_ASSERT_EQUAL(back->nodes[0].state, RNODE_UNKNOWN);
        CU_ASSERT_EQUAL(back->nodes[0].confirm_deadline_ms, 0);
        CU_ASSERT_EQUAL(back->nodes[0].pre_rev, -1);    /* nor its revision before the rollout: not recorded */
        CU_ASSERT_STRING_EQUAL(back->nodes[0].undo_tx, "");
        CU_ASSERT(store_json_parse_node(TEXT("{\"v\":1,\"seq\":0,\"name\":\"n\",\"url\":\"u\",\"wave\":0,"
                                          "\"state\":\"pending\",\"tx\":\"3\",\"exit_code\":-1,\"changes\":0,"
                                          "\"baseline_gbps\":null,\"post_gbps\":null,\"error\":\"\",\"key\":\"\","
                                          "\"not_after_ms\":-5}"), "k", back, &e) < 0);
        CU_ASSERT(store_json_parse_wave(TEXT("{\"v\":1,\"idx\":0,\"state\":\"done\",\"started_at\":0,\"deadline\":0,"
                                          "\"extra\":1}"), "k", back, &e) < 0);
        CU_ASSERT(store_json_parse_wave(TEXT("{\"v\":2,\"idx\":0,\"state\":\"done\",\"started_at\":0,\"deadline\":0}"),
                                          "k", back, &e) < 0);
        rollout_rec_free(back);
        rollout_rec_free(r);
}

/*
 * Nodes kept a chunk a record: each chunk reads back into its nodes, in order, each
 * once; a chunk under another chunk's key, one node short, out of order or with a
 * node of another chunk is refused.
 */
static void test_chunk_records(void)
{
        struct inventory_node nodes[5] = { 0 };
        const struct inventory_node *ptrs[5];
        struct rollout_opts o;
        struct rollout_rec *r, *back = NULL;
        struct errbuf e = { 0 };
        char *t;

        rollout_opts_defaults(&o);
        for (unsigned i = 0; i < 5; i++) {
                snprintf(nodes[i].name, sizeof(nodes[i].name), "n%u", i);
                snprintf(nodes[i].url, sizeof(nodes[i].url), "https://10.0.0.%u:7440", i + 1);
                ptrs[i] = &nodes[i];
        }
        r = rollout_rec_new("apply", "p", "{\"a\":1}", NULL, &o, ptrs, 5);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        r->id = 8;
        r->chunk_nodes = 2;                     /* chunks {0,1} {2,3} {4} */
        r->nodes[3].state = RNODE_COMMITTED;
        snprintf(r->nodes[3].tx, sizeof(r->nodes[3].tx), "17");
        snprintf(r->nodes[4].error, sizeof(r->nodes[4].error), "refused: busy");
        t = store_json_rollout(r, "h:1");
        CU_ASSERT_EQUAL_FATAL(store_json_parse_rollout(t, strlen(t), "k", &back, &e), 0);
        free(t);
        CU_ASSERT_EQUAL(back->chunk_nodes, 2);
        for (unsigned k = 0; k < 3; k++) {
                t = store_json_chunk(r, k, "h:1");
                CU_ASSERT_EQUAL(store_json_parse_chunk(t, strlen(t), "k", k, back, &e), 0);
                /* the same text under another chunk's key */
                CU_ASSERT(store_json_parse_chunk(t, strlen(t), "k", (k + 1) % 3, back, &e) < 0);
                free(t);
        }
        CU_ASSERT_EQUAL(back->nodes[3].state, RNODE_COMMITTED);
        CU_ASSERT_STRING_EQUAL(back->nodes[3].tx, "17");
        CU_ASSERT_STRING_EQUAL(back->nodes[4].error, "refused: busy");
        CU_ASSERT_STRING_EQUAL(back->nodes[2].name, "n2");
        CU_ASSERT_EQUAL(back->nodes[4].wave, r->nodes[4].wave);
        /* Chunk 1 with node 3 alone, then nodes 3 and 2 (out of order), then node 0 in chunk 1. */
#define NODE(seq) "{\"seq\":" #seq ",\"name\":\"n\",\"url\":\"u\",\"wave\":0,\"state\":\"planned\",\"tx\":\"\"," \
                  "\"exit_code\":-1,\"changes\":0,\"baseline_gbps\":null,\"post_gbps\":null,\"error\":\"\",\"key\":\"\"}"
        CU_ASSERT(store_json_parse_chunk(TEXT("{\"v\":1,\"chunk\":1,\"nodes\":[" NODE(3) "]}"), "k", 1, back, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "expected"));
        CU_ASSERT(store_json_parse_chunk(TEXT("{\"v\":1,\"chunk\":1,\"nodes\":[" NODE(3) "," NODE(2) "]}"), "k", 1,
                                           back, &e) < 0);
        CU_ASSERT_STRING_EQUAL(e.where, "k: $.nodes[0].seq");
        CU_ASSERT(store_json_parse_chunk(TEXT("{\"v\":1,\"chunk\":1,\"nodes\":[" NODE(2) "," NODE(0) "]}"), "k", 1,
                                           back, &e) < 0);
        CU_ASSERT_EQUAL(store_json_parse_chunk(TEXT("{\"v\":1,\"chunk\":1,\"nodes\":[" NODE(2) "," NODE(3) "]}"), "k",
                                                 1, back, &e), 0);
        CU_ASSERT(store_json_parse_chunk(TEXT("{\"v\":1,\"chunk\":3,\"nodes\":[]}"), "k", 3, back, &e) < 0);
        /* a node record stands alone only with its version */
        CU_ASSERT(store_json_parse_node(TEXT(NODE(0)), "k", back, &e) < 0);
#undef NODE
        rollout_rec_free(back);
        rollout_rec_free(r);
}

int suite_etcd_reply(void);
int suite_etcd_reply(void)
{
        CU_pSuite s = CU_add_suite("etcd_reply", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "b64", test_b64) ||
            !CU_add_test(s, "chunk_records", test_chunk_records) ||
            !CU_add_test(s, "range_and_txn", test_range_and_txn) ||
            !CU_add_test(s, "lease_and_watch", test_lease_and_watch) ||
            !CU_add_test(s, "refusals", test_refusals) ||
            !CU_add_test(s, "records_roundtrip", test_records_roundtrip))
                return -1;
        return 0;
}
