/* SPDX-License-Identifier: MIT */
/* Inventory validation: accepted documents, and each rejection with its exact message. */
#include <CUnit/CUnit.h>

#include "common/util.h"
#include "controller/fleet/fleet.h"

static const char good[] =
        "{ \"tls\": { \"ca\": \"ca.crt\", \"cert\": \"/etc/c.crt\", \"key\": \"c.key\" },\n"
        "  \"nodes\": [ { \"name\": \"gpu01\", \"url\": \"https://10.0.0.1:7440/\",\n"
        "                 \"labels\": { \"role\": \"gpu\", \"rack\": \"r1\" } },\n"
        "               { \"name\": \"gpu02\", \"url\": \"https://10.0.0.2:7440\" },\n"
        "               { \"name\": \"gpu03\", \"url\": \"https://[fd00::3]:7440\" },\n"
        "               { \"name\": \"gpu04\", \"url\": \"https://gpu04.fabric.example\" } ] }";

static void test_good(void)
{
        struct inventory *inv = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(inventory_parse_buffer(good, strlen(good), "inv.json", "/srv", &inv, &e), 0);
        CU_ASSERT_EQUAL(inv->n_nodes, 4);
        CU_ASSERT_STRING_EQUAL(inv->ca, "/srv/ca.crt");
        CU_ASSERT_STRING_EQUAL(inv->cert, "/etc/c.crt");
        CU_ASSERT_STRING_EQUAL(inv->nodes[0].url, "https://10.0.0.1:7440");     /* trailing / dropped */
        CU_ASSERT_EQUAL(inv->nodes[0].n_labels, 2);
        CU_ASSERT_TRUE(inventory_node_has_label(&inv->nodes[0], "rack", "r1"));
        CU_ASSERT_FALSE(inventory_node_has_label(&inv->nodes[1], "rack", "r1"));
        CU_ASSERT_PTR_EQUAL(inventory_find(inv, "gpu02"), &inv->nodes[1]);
        CU_ASSERT_PTR_NULL(inventory_find(inv, "gpu05"));
        inventory_free(inv);
}

static const struct {
        const char *doc;
        const char *where;
        const char *msg;
} bad[] = {
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[],\"x\":1}", "i.json: $",
          "unknown key 'x'" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[]}", "i.json: $.nodes",
          "expected at least 1 node, found 0" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\"},\"nodes\":[]}", "i.json: $.tls",
          "missing required key 'key'" },
        { "{\"tls\":{\"ca\":1,\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[]}", "i.json: $.tls.ca",
          "expected string, found integer" },
#define URL_CASE(u, why) \
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"n1\",\"url\":\"" u "\"}]}", \
          "i.json: $.nodes[0].url", "'" u "' is not an agent URL https://HOST[:PORT]: " why }
        URL_CASE("http://x", "the scheme must be https://"),
        URL_CASE("https://10.0.0.1:99999", "the port must be a number 1-65535"),
        URL_CASE("https://10.0.0.1:0", "the port must be a number 1-65535"),
        URL_CASE("https://10.0.0.1:", "the port must be a number 1-65535"),
        URL_CASE("https://10.0.0.1:74x", "the port must be a number 1-65535"),
        URL_CASE("https://u:pw@10.0.0.1:7440", "user information (user:password@) is not allowed"),
        URL_CASE("https://[::1", "the '[' around the IPv6 address is not closed"),
        URL_CASE("https://[::1:7440", "the '[' around the IPv6 address is not closed"),
        URL_CASE("https://[::1]x", "only ':PORT' may follow the bracketed address"),
        URL_CASE("https://[zz]:1", "the address in brackets is not an IPv6 address"),
        URL_CASE("https://::1:7440", "write IPv6 addresses in brackets ('https://[::1]:7440')"),
        URL_CASE("https://10.0.0.999", "the host is not an IPv4 address"),
        URL_CASE("https://-gpu.example", "the host is not a DNS name, an IPv4 address or a bracketed IPv6 address"),
        URL_CASE("https://gpu_1", "the host is not a DNS name, an IPv4 address or a bracketed IPv6 address"),
        URL_CASE("https://a..b", "the host is not a DNS name, an IPv4 address or a bracketed IPv6 address"),
        URL_CASE("https://:7440", "the host is empty"),
        URL_CASE("https://gpu1/v1", "a path, query or fragment is not allowed"),
        URL_CASE("https://gpu1?x=1", "a path, query or fragment is not allowed"),
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"n1\",\"url\":\"https://a\"},"
          "{\"name\":\"n1\",\"url\":\"https://b\"}]}", "i.json: $.nodes[1].name", "duplicate node name 'n1'" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"a b\",\"url\":\"https://a\"}]}",
          "i.json: $.nodes[0].name", "node name 'a b' has character ' '; allowed: letters, digits and '-_.'" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"a\",\"url\":\"https://a\","
          "\"labels\":{\"role\":7}}]}", "i.json: $.nodes[0].labels.role", "expected string, found integer" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"a\",\"url\":\"https://a\","
          "\"port\":1}]}", "i.json: $.nodes[0]", "unknown key 'port'" },
        { "{\"tls\":{\"ca\":\"a\",\"ca\":\"b\"}}", "i.json:1:21", "$.tls.ca: duplicate key 'ca'" },
        { "{\"tls\":{\"ca\":\"\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[]}", "i.json: $.tls.ca",
          "ca must not be empty" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"url\":\"https://a\"}]}",
          "i.json: $.nodes[0]", "missing required key 'name'" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[7]}", "i.json: $.nodes[0]",
          "expected object, found integer" },
        { "", "i.json", "document is empty" },
        { "{\"tls\":{\"ca\":\"a\",\"cert\":\"b\",\"key\":\"c\"},\"nodes\":[{\"name\":\"a\",\"url\":\"https://a\","
          "\"labels\":{\"role\":\"g p\"}}]}", "i.json: $.nodes[0].labels.role",
          "label value 'g p' has character ' '; allowed: letters, digits and '-_.'" },
        { "[1]", "i.json: $", "expected object, found array" },
};

static void test_bad(void)
{
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct inventory *inv = NULL;
                struct errbuf e = { 0 };
                int r = inventory_parse_buffer(bad[i].doc, strlen(bad[i].doc), "i.json", NULL, &inv, &e);

                CU_ASSERT_EQUAL(r, -EINVAL);
                CU_ASSERT_PTR_NULL(inv);
                CU_ASSERT_STRING_EQUAL(e.where, bad[i].where);
                if (bad[i].msg)
                        CU_ASSERT_STRING_EQUAL(e.msg, bad[i].msg);
                if (strcmp(e.where, bad[i].where) || (bad[i].msg && strcmp(e.msg, bad[i].msg)))
                        fprintf(stderr, "case %zu: got '%s: %s'\n", i, e.where, e.msg);
        }
}

static void test_load_missing(void)
{
        struct inventory *inv = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL(inventory_load_file("/nonexistent/inventory.json", &inv, &e), -ENOENT);
        CU_ASSERT_PTR_NULL(inv);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no such file"));
}

/* Set-based selectors: each operator over nodes with, with another and without the label. */
static void test_selector(void)
{
        struct policy_label gpu_r1[] = { { "role", "gpu" }, { "rack", "r1" } }, fab_r9[] = { { "role", "fabric" },
                                                                                             { "rack", "r9" } };
        const struct inventory_node n[] = {
                { .name = "a", .n_labels = 2, .labels = gpu_r1 },
                { .name = "b", .n_labels = 2, .labels = fab_r9 },
                { .name = "c" },
        };
        static const struct {
                const char *sel;
                bool a, b, c;
        } cases[] = {
                { "role=gpu", true, false, false },
                { "role==gpu", true, false, false },
                { "rack!=r9", true, false, true },
                { "role in (gpu,fabric)", true, true, false },
                { "role in(gpu, fabric) , rack!=r9", true, false, false },
                { "role notin (gpu)", false, true, true },
                { "rack", true, true, false },
                { "!rack", false, false, true },
                { " role = fabric ", false, true, false },
        };
        static const char *const bad_sel[] = {
                "", "role in gpu", "role in (gpu", "role in ()", "role=", "=gpu", "role=gpu,", "role~gpu",
                "!role=gpu", "role in (a b)",
        };
        struct errbuf e = { 0 };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                CU_ASSERT_EQUAL(inventory_selector_check(cases[i].sel, &e), 0);
                CU_ASSERT_EQUAL(inventory_selector_match(cases[i].sel, &n[0]), cases[i].a);
                CU_ASSERT_EQUAL(inventory_selector_match(cases[i].sel, &n[1]), cases[i].b);
                CU_ASSERT_EQUAL(inventory_selector_match(cases[i].sel, &n[2]), cases[i].c);
        }
        for (size_t i = 0; i < ARRAY_SIZE(bad_sel); i++) {
                e = (struct errbuf) { 0 };
                CU_ASSERT_EQUAL(inventory_selector_check(bad_sel[i], &e), -EINVAL);
                CU_ASSERT_STRING_EQUAL(e.where, "--selector");
                CU_ASSERT_FALSE(inventory_selector_match(bad_sel[i], &n[0]));
        }
        CU_ASSERT_TRUE(inventory_selector_plain("role=gpu,rack=r1"));
        CU_ASSERT_FALSE(inventory_selector_plain("rack!=r9"));
}

int suite_inventory(void);
int suite_inventory(void)
{
        CU_pSuite s = CU_add_suite("inventory", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "good", test_good) ||
            !CU_add_test(s, "bad", test_bad) ||
            !CU_add_test(s, "load_missing", test_load_missing) ||
            !CU_add_test(s, "selector", test_selector))
                return -1;
        return 0;
}
