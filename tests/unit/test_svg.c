/* SPDX-License-Identifier: MIT */
/*
 * controller/svg: ticks a person reads (a 1, 2 or 5 step, labels that differ), text
 * escaped for XML wherever it goes, and a document that opens with its text
 * equivalent.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "controller/svg/svg.h"

/* The labels of the ticks over [lo, hi] joined by ' '. */
static void labels(double lo, double hi, unsigned want, char *buf, size_t size)
{
        double t[SVG_TICKS_MAX], step;
        unsigned n = svg_ticks(lo, hi, want, t, &step);
        size_t len = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < n && len < size; i++) {
                char one[32];

                svg_tick_label(t[i], step, one, sizeof(one));
                len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", one);
        }
}

static void test_ticks(void)
{
        char b[256];

        labels(0, 1.1, 5, b, sizeof(b));                /* what tune's pause axis once printed as 0 0 0 1 1 */
        CU_ASSERT_STRING_EQUAL(b, "0.0 0.5 1.0");   /* one number of decimals per axis */
        labels(0, 1.1, 8, b, sizeof(b));
        CU_ASSERT_STRING_EQUAL(b, "0.0 0.2 0.4 0.6 0.8 1.0");
        labels(0, 33, 5, b, sizeof(b));
        CU_ASSERT_STRING_EQUAL(b, "0 10 20 30");
        labels(0, 518400, 7, b, sizeof(b));
        CU_ASSERT_STRING_EQUAL(b, "0 100k 200k 300k 400k 500k");
        labels(0, 2.5e6, 6, b, sizeof(b));
        CU_ASSERT_STRING_EQUAL(b, "0 500k 1.0M 1.5M 2.0M 2.5M");
        labels(0, 0.03, 4, b, sizeof(b));
        CU_ASSERT_STRING_EQUAL(b, "0.00 0.01 0.02 0.03");
        labels(5, 5, 5, b, sizeof(b));                  /* an empty range still gets an axis */
        CU_ASSERT(strlen(b) > 0);
}

static void test_escaping(void)
{
        struct svg s = { 0 };
        char *doc;

        svg_begin(&s, 100, 50, "a <b> & \"c\"", "it's\x01 fine");
        svg_text(&s, 1, 2, "", "%s", "x<y & z>w");
        doc = svg_end(&s);
        CU_ASSERT_FATAL(doc != NULL);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<title id=\"title\">a &lt;b&gt; &amp; &quot;c&quot;</title>"));
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "<desc id=\"desc\">it&apos;s  fine</desc>"));
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, ">x&lt;y &amp; z&gt;w</text>"));
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "font-size=\"12\""));
        CU_ASSERT(strncmp(doc, "<?xml", 5) == 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "</svg>\n"));
        free(doc);
}

int suite_svg(void);
int suite_svg(void)
{
        CU_pSuite s = CU_add_suite("svg", NULL, NULL);

        if (!s || !CU_add_test(s, "ticks", test_ticks) || !CU_add_test(s, "escaping", test_escaping))
                return -1;
        return 0;
}
