/* SPDX-License-Identifier: MIT */
/* Layers and owners (policies/policy/layers.c): the merge of committed policies, field by field, and its conflicts. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "policies/state/field.h"
#include "policies/policy/layers.h"

static struct policy *pol(const char *name, const char *meta_extra, const char *targets, const char *spec)
{
        struct errbuf e = { 0 };
        struct policy *p = NULL;
        char doc[2048];

        snprintf(doc, sizeof(doc),
                 "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"%s\"%s},"
                 "\"targets\":%s,\"spec\":%s}", name, meta_extra, targets, spec);
        if (policy_parse_buffer(doc, strlen(doc), "test", &p, &e) < 0)
                fprintf(stderr, "pol: %s: %s\n", e.where, e.msg);
        return p;
}

static const uint32_t on_if = 0xffffffffu;

/* Two layers on different interfaces: each owns its own; a third target belongs to nobody. */
static void test_disjoint(void)
{
        struct policy *a = pol("pol-a", "", "{\"interfaces\":[\"a0\"]}", "{\"mtu\":9000}");
        struct policy *b = pol("pol-b", "", "{\"interfaces\":[\"b*\"]}", "{\"mtu\":4000,\"trust\":\"dscp\"}");
        struct layer v[2] = { { a, 1 }, { b, 2 } };
        int owner[STATE_FIELD_MAX];
        struct state s;

        CU_ASSERT_FATAL(a && b);
        layers_merge(v, 2, false, "a0", on_if, &s, owner);
        CU_ASSERT_EQUAL(s.present, STATE_BIT(STATE_FIELD_MTU));
        CU_ASSERT_EQUAL(s.mtu, 9000);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_MTU], 0);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], -1);
        layers_merge(v, 2, false, "b0", on_if, &s, owner);
        CU_ASSERT_EQUAL(s.present, STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST));
        CU_ASSERT_EQUAL(s.mtu, 4000);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_MTU], 1);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], 1);
        layers_merge(v, 2, false, "c0", on_if, &s, owner);
        CU_ASSERT_EQUAL(s.present, 0);
        /* a field the target's kind does not carry is nobody's there */
        layers_merge(v, 2, false, "b0", STATE_BIT(STATE_FIELD_MTU), &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], -1);
        policy_free(a);
        policy_free(b);
}

/* The same field twice: refused without overrides, won with them, whatever the order. */
static void test_conflict_and_overrides(void)
{
        struct policy *a = pol("pol-a", "", "{\"interfaces\":[\"a0\"]}", "{\"mtu\":9000,\"trust\":\"dscp\"}");
        struct policy *c = pol("pol-c", "", "{\"interfaces\":[\"a*\"]}", "{\"trust\":\"pcp\"}");
        struct policy *w = pol("pol-w", ",\"overrides\":[\"pol-a\"]", "{\"interfaces\":[\"a*\"]}", "{\"trust\":\"pcp\"}");
        struct policy *a2 = pol("pol-a", "", "{\"interfaces\":[\"a0\"]}", "{\"mtu\":4000,\"trust\":\"dscp\"}");
        struct layer v[2] = { { a, 1 }, { w, 2 } };
        enum state_field f = STATE_FIELD_MAX;
        int owner[STATE_FIELD_MAX], o = -1;
        struct state s;

        CU_ASSERT_FATAL(a && c && w && a2);
        /* pol-c declares trust of a0, owned by pol-a: field_owned, naming field and owner */
        CU_ASSERT_TRUE(layers_conflict(v, 1, c, false, "a0", on_if, &f, &o));
        CU_ASSERT_EQUAL(f, STATE_FIELD_TRUST);
        CU_ASSERT_EQUAL(o, 0);
        /* not on a target pol-a does not name */
        CU_ASSERT_FALSE(layers_conflict(v, 1, c, false, "a1", on_if, &f, &o));
        /* overriding it is no conflict, and wins the merge */
        CU_ASSERT_FALSE(layers_conflict(v, 1, w, false, "a0", on_if, &f, &o));
        layers_merge(v, 2, false, "a0", on_if, &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], 1);
        CU_ASSERT_EQUAL(s.trust, STATE_TRUST_PCP);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_MTU], 0);
        /* the overridden owner may be re-applied: no conflict, and its value stays underneath */
        CU_ASSERT_FALSE(layers_conflict(v, 2, a2, false, "a0", on_if, &f, &o));
        v[0] = (struct layer){ a2, 3 };
        layers_merge(v, 2, false, "a0", on_if, &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], 1);
        CU_ASSERT_EQUAL(s.mtu, 4000);
        /* the overrider taken out: the owner's value again */
        layers_merge(v, 1, false, "a0", on_if, &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_TRUST], 0);
        CU_ASSERT_EQUAL(s.trust, STATE_TRUST_DSCP);
        /* a new version of the same layer never conflicts with itself */
        CU_ASSERT_FALSE(layers_conflict(v, 1, a2, false, "a0", on_if, &f, &o));
        policy_free(a);
        policy_free(c);
        policy_free(w);
        policy_free(a2);
}

/* Switch targets: by switch name; an interface of the same name is another target. */
static void test_switch_targets(void)
{
        struct policy *h = pol("hosts", "", "{\"interfaces\":[\"*\"],\"switches\":[\"leaf*\"]}",
                               "{\"mtu\":9000}");
        struct policy *e = pol("ecn", "", "{\"switches\":[\"leaf1\"]}",
                               "{\"ecn\":{\"queues\":[3],\"min_threshold_bytes\":100000,"
                               "\"max_threshold_bytes\":1000000,\"mark_probability_pct\":100}}");
        struct layer v[2] = { { h, 1 }, { e, 2 } };
        int owner[STATE_FIELD_MAX];
        struct state s;

        CU_ASSERT_FATAL(h && e);
        layers_merge(v, 2, true, "leaf1", on_if, &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_MTU], 0);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_ECN], 1);
        layers_merge(v, 2, false, "leaf1", on_if, &s, owner);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_MTU], 0);
        CU_ASSERT_EQUAL(owner[STATE_FIELD_ECN], -1);
        policy_free(h);
        policy_free(e);
}

/* metadata.overrides: parsed, canonical only when given, and its names checked. */
static void test_overrides_parse(void)
{
        struct policy *p = pol("pol-w", ",\"overrides\":[\"pol-a\",\"pol-b\"]", "{\"interfaces\":[\"a0\"]}",
                               "{\"mtu\":9000}");
        struct policy *q = pol("pol-a", "", "{\"interfaces\":[\"a0\"]}", "{\"mtu\":9000}");
        struct errbuf e = { 0 };
        struct policy *bad = NULL;
        const char *doc = "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"x\","
                          "\"overrides\":[\"Bad_Name\"]},\"targets\":{\"interfaces\":[\"a0\"]},\"spec\":{\"mtu\":9000}}";
        char *jp, *jq;

        CU_ASSERT_FATAL(p && q);
        CU_ASSERT_EQUAL(p->n_overrides, 2);
        CU_ASSERT_STRING_EQUAL(p->overrides[1], "pol-b");
        CU_ASSERT_TRUE(layer_overrides(p, q));
        CU_ASSERT_FALSE(layer_overrides(q, p));
        jp = policy_to_json(p);
        jq = policy_to_json(q);
        CU_ASSERT_PTR_NOT_NULL(strstr(jp, "\"overrides\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(jp, "\"pol-b\""));
        CU_ASSERT_PTR_NULL(strstr(jq, "overrides"));
        free(jp);
        free(jq);
        CU_ASSERT_EQUAL(policy_parse_buffer(doc, strlen(doc), "p.json", &bad, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "p.json: $.metadata.overrides[0]");
        policy_free(p);
        policy_free(q);
}

int suite_layers(void);
int suite_layers(void)
{
        CU_pSuite s = CU_add_suite("layers", NULL, NULL);

        if (!s || !CU_add_test(s, "disjoint", test_disjoint) ||
            !CU_add_test(s, "conflict_and_overrides", test_conflict_and_overrides) ||
            !CU_add_test(s, "switch_targets", test_switch_targets) ||
            !CU_add_test(s, "overrides_parse", test_overrides_parse))
                return -1;
        return 0;
}
