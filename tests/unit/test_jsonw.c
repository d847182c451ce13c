/* SPDX-License-Identifier: MIT */
/* The fast JSON writer against jansson's own: the same bytes for every shape and flag nettune uses. */
#include <CUnit/CUnit.h>
#include <stdint.h>

#include "common/util.h"
#include "policies/json/jsonw.h"

static const size_t flag_sets[] = {
        0, JSON_COMPACT, JSON_SORT_KEYS, JSON_COMPACT | JSON_SORT_KEYS, JSON_INDENT(2),
        JSON_INDENT(2) | JSON_SORT_KEYS, JSON_INDENT(4) | JSON_SORT_KEYS, JSON_INDENT(31) | JSON_SORT_KEYS,
};

static void same(const json_t *j, size_t extra)
{
        for (size_t i = 0; i < ARRAY_SIZE(flag_sets); i++) {
                size_t f = flag_sets[i] | extra;
                char *want = json_dumps(j, f), *got = jsonw_dumps(j, f);

                if (!want) {
                        CU_ASSERT_PTR_NULL(got);
                } else {
                        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
                        CU_ASSERT_STRING_EQUAL(got, want);
                }
                free(want);
                free(got);
        }
}

static void test_shapes(void)
{
        json_auto_t *doc = json_loads(
                "{\"zeta\": [1, -2, 9223372036854775807, -9223372036854775807, 0], \"alpha\": {},"
                " \"mid\": [], \"b\": {\"y\": null, \"x\": true, \"w\": false, \"v\": [[], {}, [[1]]]},"
                " \"real\": [0.5, 1e300, -0.0, 3.0, 1.1234567890123457], \"ab\": \"a\", \"a\": \"b\","
                " \"nested\": {\"deep\": {\"deeper\": {\"deepest\": [\"x\", {\"k\": 1}]}}}}", 0, NULL);

        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        same(doc, 0);
        same(json_object_get(doc, "zeta"), 0);
        /* Integers at the edges, written without printf. */
        json_array_append_new(json_object_get(doc, "zeta"), json_integer(INT64_MIN));
        json_array_append_new(json_object_get(doc, "zeta"), json_integer(-1));
        json_array_append_new(json_object_get(doc, "zeta"), json_integer(10));
        json_array_append_new(json_object_get(doc, "zeta"), json_integer(-10));
        same(doc, 0);
}

static void test_strings(void)
{
        json_auto_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "quote\"back\\slash", "tab\there/slash",
                                     "ctl", "\x01\x02\x1f\b\f\n\r", "utf8", "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80",
                                     "", "empty key", "del", "\x7f end");

        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        same(doc, 0);
        same(json_object_get(doc, "ctl"), JSON_ENCODE_ANY);
}

static void test_scalars_and_fallback(void)
{
        json_auto_t *n = json_integer(42), *s = json_string("x"), *r = json_real(2.5), *o = json_pack("{s:s}", "a", "/");

        same(n, 0);                     /* no JSON_ENCODE_ANY: refused by both */
        same(n, JSON_ENCODE_ANY);
        same(s, JSON_ENCODE_ANY);
        same(r, JSON_ENCODE_ANY);
        same(o, JSON_ESCAPE_SLASH);     /* a flag it leaves to jansson */
        same(o, JSON_ENSURE_ASCII);
}

static void test_many_keys(void)
{
        json_auto_t *o = json_object();
        char key[16];

        for (int i = 99; i >= 0; i--) {
                snprintf(key, sizeof(key), "k%d", i * 7 % 100);
                json_object_set_new(o, key, json_integer(i));
        }
        same(o, 0);
}

/* A document written piece by piece (jsonw_raw/newline/value) is the whole tree's dump, byte for byte. */
static void test_pieces(void)
{
        json_auto_t *items = json_loads("[{\"b\": [1, {}], \"a\": \"x\"}, [], {\"k\": {\"z\": null, \"y\": [true]}}]",
                                        0, NULL);
        json_auto_t *rest = json_loads("{\"q\": [], \"p\": {\"o\": \"\\n\"}}", 0, NULL);
        static const size_t flags[] = { JSON_INDENT(2) | JSON_SORT_KEYS, JSON_INDENT(4) | JSON_SORT_KEYS,
                                         JSON_SORT_KEYS, JSON_COMPACT | JSON_SORT_KEYS };

        CU_ASSERT_PTR_NOT_NULL_FATAL(items);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rest);
        for (size_t f = 0; f < ARRAY_SIZE(flags); f++) {
                const char *sep = flags[f] & JSON_COMPACT ? ":" : ": ";
                for (size_t n = 0; n <= json_array_size(items); n++) {
                        json_auto_t *part = json_array(), *doc = NULL;
                        struct jsonw_out o = { 0 };
                        char *want, *got;

                        jsonw_raw(&o, "{");
                        jsonw_newline(&o, flags[f], 1, false);
                        jsonw_raw(&o, "\"items\"");
                        jsonw_raw(&o, sep);
                        jsonw_raw(&o, "[");
                        for (size_t i = 0; i < n; i++) {
                                json_array_append(part, json_array_get(items, i));
                                if (i)
                                        jsonw_raw(&o, ",");
                                jsonw_newline(&o, flags[f], 2, i > 0);
                                jsonw_value(&o, json_array_get(items, i), flags[f], 2);
                        }
                        if (n)
                                jsonw_newline(&o, flags[f], 1, false);
                        jsonw_raw(&o, "],");
                        jsonw_newline(&o, flags[f], 1, true);
                        jsonw_raw(&o, "\"rest\"");
                        jsonw_raw(&o, sep);
                        jsonw_value(&o, rest, flags[f], 1);
                        jsonw_newline(&o, flags[f], 0, false);
                        jsonw_raw(&o, "}");
                        got = jsonw_finish(&o);
                        doc = json_pack("{s:O,s:O}", "items", part, "rest", rest);
                        want = json_dumps(doc, flags[f]);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
                        CU_ASSERT_STRING_EQUAL(got, want);
                        CU_ASSERT_PTR_NULL(o.buf);      /* the text is the caller's now */
                        free(got);
                        free(want);
                }
        }
}

int suite_jsonw(void);
int suite_jsonw(void)
{
        CU_pSuite s = CU_add_suite("jsonw", NULL, NULL);

        if (!s || !CU_add_test(s, "shapes", test_shapes) || !CU_add_test(s, "strings", test_strings) ||
            !CU_add_test(s, "scalars_and_fallback", test_scalars_and_fallback) ||
            !CU_add_test(s, "many_keys", test_many_keys) || !CU_add_test(s, "pieces", test_pieces))
                return -1;
        return 0;
}
