/* SPDX-License-Identifier: MIT */
/* The controller's parsing of agent answers: apply results with deadlines, transactions, history, errors. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "controller/fleet/fleet.h"

#define TEXT(s) (s), strlen(s)

static void test_apply_deadline(void)
{
        struct reply_apply a;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(reply_parse_apply(TEXT("{\"tx\":12,\"state\":\"pending_confirm\",\"result\":\"pending_confirm\","
                                                     "\"exit_code\":4,\"changes\":[{}],\"confirm_deadline_ms\":1767225630000}"),
                                                &a, &e), 0);
        CU_ASSERT_STRING_EQUAL(a.tx, "12");
        CU_ASSERT_EQUAL(a.exit_code, 4);
        CU_ASSERT_EQUAL(a.confirm_deadline_ms, 1767225630000LL);
        CU_ASSERT_FALSE(a.replayed);
        CU_ASSERT_EQUAL(a.rev, 0);
        /* A commit names the revision it recorded. */
        CU_ASSERT_EQUAL_FATAL(reply_parse_apply(TEXT("{\"tx\":12,\"rev\":7,\"state\":\"committed\",\"exit_code\":0}"),
                                                &a, &e), 0);
        CU_ASSERT_EQUAL(a.rev, 7);
        /* A replayed answer (a key already journaled) says so. */
        CU_ASSERT_EQUAL_FATAL(reply_parse_apply(TEXT("{\"tx\":12,\"exit_code\":0,\"replayed\":true,"
                                                     "\"confirm_deadline_ms\":null}"), &a, &e), 0);
        CU_ASSERT_TRUE(a.replayed);
        CU_ASSERT_EQUAL(a.confirm_deadline_ms, 0);
        /* No deadline at all (an older agent): 0, the controller estimates. */
        CU_ASSERT_EQUAL_FATAL(reply_parse_apply(TEXT("{\"tx\":3,\"exit_code\":4}"), &a, &e), 0);
        CU_ASSERT_EQUAL(a.confirm_deadline_ms, 0);
}

static void test_apply_hostile(void)
{
        static const struct { const char *body, *msg; } bad[] = {
                { "{\"exit_code\":4,\"confirm_deadline_ms\":\"soon\"}", "$.confirm_deadline_ms: expected a time" },
                { "{\"exit_code\":4,\"confirm_deadline_ms\":-5}", "$.confirm_deadline_ms: expected a time" },
                { "{\"exit_code\":4,\"confirm_deadline_ms\":1.5e300}", "$.confirm_deadline_ms: expected a time" },
                { "{\"exit_code\":4,\"confirm_deadline_ms\":253402300800000}", "$.confirm_deadline_ms: expected a time" },
                { "{\"exit_code\":4,\"replayed\":\"yes\"}", "$.replayed: expected a boolean" },
                { "{\"exit_code\":4,\"tx\":-1}", "$.tx: negative" },
                { "{\"exit_code\":0,\"rev\":0}", "$.rev: expected null or a revision" },
                { "{\"exit_code\":0,\"rev\":\"7\"}", "$.rev: expected null or a revision" },
                { "{\"exit_code\":0,\"rev\":2147483648}", "$.rev: expected null or a revision" },
                { "{\"exit_code\":4,\"exit_code\":0}", "not JSON" },
                { "{\"exit_code\":7}", "$.exit_code: expected an integer 0-4" },
                { "[]", "not a JSON object" },
                { "", "empty answer" },
        };
        struct reply_apply a;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct errbuf e = { 0 };

                CU_ASSERT_EQUAL(reply_parse_apply(TEXT(bad[i].body), &a, &e), -EBADMSG);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].msg));
        }
}

static void test_transaction(void)
{
        struct reply_history_tx h;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(reply_parse_transaction(TEXT("{\"tx\":12,\"rev\":null,\"kind\":\"apply\",\"policy\":\"p\","
                                                           "\"state\":\"rolled_back\",\"result\":\"rolled_back\",\"exit_code\":1,"
                                                           "\"restored_by\":\"confirm-timeout\",\"error\":null,\"started_ms\":1,"
                                                           "\"finished_ms\":2,\"confirm_deadline_ms\":1767225630000,"
                                                           "\"restores\":null,\"now_ms\":1767225631234,\"new_member\":[1]}"),
                                                      "12", &h, &e), 0);
        CU_ASSERT_STRING_EQUAL(h.state, "rolled_back");
        CU_ASSERT_STRING_EQUAL(h.kind, "apply");
        CU_ASSERT_STRING_EQUAL(h.restored_by, "confirm-timeout");
        CU_ASSERT_EQUAL(h.exit_code, 1);
        CU_ASSERT_EQUAL(h.confirm_deadline_ms, 1767225630000LL);
        CU_ASSERT_EQUAL(h.now_ms, 1767225631234LL);
        /* tx as a string is the same transaction. */
        CU_ASSERT_EQUAL(reply_parse_transaction(TEXT("{\"tx\":\"12\",\"state\":\"committed\"}"), "12", &h, &e), 0);
}

static void test_transaction_hostile(void)
{
        static const struct { const char *body, *msg; } bad[] = {
                { "{\"tx\":13,\"state\":\"committed\"}", "$.tx: '13' is not the transaction asked for ('12')" },
                { "{\"state\":\"committed\"}", "is not the transaction asked for" },
                { "{\"tx\":12}", "$.state: expected the transaction's state" },
                { "{\"tx\":12,\"state\":7}", "$.state: expected a string" },
                { "{\"tx\":12,\"state\":\"committed-but-with-a-state-name-longer-than-32\"}", "$.state: longer than" },
                { "{\"tx\":12,\"state\":\"committed\",\"exit_code\":9}", "$.exit_code: expected an integer -1..4" },
                { "{\"tx\":12,\"state\":\"committed\",\"now_ms\":\"now\"}", "$.now_ms: expected a time" },
                { "{\"tx\":12,\"state\":\"committed\",\"restored_by\":[]}", "$.restored_by: expected a string" },
                { "{\"tx\":12,\"state\":\"committed\",\"kind\":{}}", "$.kind: expected a string" },
                { "{\"tx\":12,\"tx\":12,\"state\":\"committed\"}", "not JSON" },
                { "\"committed\"", "not JSON" },
                { "{\"tx\":12,\"state\":\"comm", "not JSON" },
        };
        struct reply_history_tx h;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct errbuf e = { 0 };

                CU_ASSERT_EQUAL(reply_parse_transaction(TEXT(bad[i].body), "12", &h, &e), -EBADMSG);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].msg));
                if (!strstr(e.msg, bad[i].msg))
                        fprintf(stderr, "case %zu: '%s'\n", i, e.msg);
        }
}

static void test_error_code(void)
{
        char buf[32];

        CU_ASSERT_STRING_EQUAL(reply_error_code(TEXT("{\"error\":{\"code\":\"expired\",\"message\":\"m\"}}"), buf,
                                                sizeof(buf)), "expired");
        CU_ASSERT_STRING_EQUAL(reply_error_code(TEXT("{\"error\":{\"code\":7}}"), buf, sizeof(buf)), "");
        CU_ASSERT_STRING_EQUAL(reply_error_code(TEXT("<html>"), buf, sizeof(buf)), "");
        CU_ASSERT_STRING_EQUAL(reply_error_code(NULL, 0, buf, sizeof(buf)), "");
        /* A code longer than the buffer is cut, never overrun. */
        CU_ASSERT_EQUAL(strlen(reply_error_code(TEXT("{\"error\":{\"code\":\"expiredexpiredexpiredexpiredexpiredexpired\"}}"),
                                                buf, sizeof(buf))), sizeof(buf) - 1);
}

#define HISTORY(...) "{\"transactions\":[" __VA_ARGS__ "]}"
#define TX(id, kind, state) "{\"tx\":" #id ",\"kind\":\"" kind "\",\"state\":\"" state "\"}"

static void test_history_committed_after(void)
{
        struct reply_history_tx newest;
        struct errbuf e = { 0 };
        unsigned newer = 99;

        /* Newest first: 14 rolled back (not committed), 13 a committed rollback, then ours. */
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY(TX(14, "apply", "rolled_back") ","
                                                                   TX(13, "rollback", "committed") ","
                                                                   TX(12, "apply", "committed") ","
                                                                   TX(11, "apply", "committed"))),
                                                      "12", &newer, &newest, &e), 1);
        CU_ASSERT_EQUAL(newer, 1);
        CU_ASSERT_STRING_EQUAL(newest.tx, "13");
        CU_ASSERT_STRING_EQUAL(newest.kind, "rollback");
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY(TX(12, "apply", "committed"))), "12", &newer, NULL,
                                                      &e), 1);
        CU_ASSERT_EQUAL(newer, 0);
        /* Ours restored, or not there at all: 0. */
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY(TX(12, "apply", "rolled_back"))), "12", &newer,
                                                      NULL, &e), 0);
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY(TX(11, "apply", "committed"))), "12", &newer,
                                                      NULL, &e), 0);
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY()), "12", &newer, NULL, &e), 0);
        /* Malformed entries before ours are errors, never skipped. */
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY("7," TX(12, "apply", "committed"))), "12", &newer,
                                                      NULL, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "$.transactions[0]: expected an object"));
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT(HISTORY("{\"tx\":13,\"state\":1}")), "12", &newer, NULL,
                                                      &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "$.transactions[0]: $.state: expected a string"));
        CU_ASSERT_EQUAL(reply_history_committed_after(TEXT("{\"transactions\":{}}"), "12", &newer, NULL, &e), -EBADMSG);
}

static void test_find_history(void)
{
        struct reply_history_tx h;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL(reply_find_history(TEXT(HISTORY("{\"tx\":5,\"state\":\"pending_confirm\",\"idempotency_key\":"
                                                        "\"1-0-0-abcd\",\"confirm_deadline_ms\":99}")),
                                           "1-0-0-abcd", NULL, &h, &e), 1);
        CU_ASSERT_STRING_EQUAL(h.tx, "5");
        CU_ASSERT_EQUAL(h.confirm_deadline_ms, 99);
        CU_ASSERT_EQUAL(reply_find_history(TEXT(HISTORY("{\"tx\":5,\"state\":\"committed\",\"idempotency_key\":null}")),
                                           "1-0-0-abcd", NULL, &h, &e), 0);
        CU_ASSERT_EQUAL(reply_find_history(TEXT(HISTORY("{\"tx\":5,\"state\":\"committed\",\"idempotency_key\":5}")),
                                           "1-0-0-abcd", NULL, &h, &e), -EBADMSG);
        CU_ASSERT_EQUAL(reply_find_history(TEXT(HISTORY(TX(5, "apply", "committed"))), NULL, "5", &h, &e), 1);
}

#define RTX(id, rev, kind, state) "{\"tx\":" #id ",\"rev\":" #rev ",\"kind\":\"" kind "\",\"state\":\"" state \
        "\",\"policy\":\"p" #id "\"}"

/* A node's revisions from its history: the current one, ours, what came after, what is in flight. */
static void test_history_revision(void)
{
        struct reply_revision v;
        struct errbuf e = { 0 };
        char big[REPLY_HISTORY_PAGE * 40 + 64];
        size_t len;

        /* 14 rolled back (a gate), 13 a committed rollback (rev 6), then ours (12, rev 5) */
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(14, null, "apply", "rolled_back") ","
                                                            RTX(13, 6, "rollback", "committed") ","
                                                            RTX(12, 5, "apply", "committed") ","
                                                            RTX(11, 4, "apply", "committed"))),
                                               NULL, "12", &v, &e), 0);
        CU_ASSERT_TRUE(v.known);
        CU_ASSERT_EQUAL(v.rev, 6);
        CU_ASSERT_STRING_EQUAL(v.newest.tx, "13");
        CU_ASSERT_STRING_EQUAL(v.newest.kind, "rollback");
        CU_ASSERT_STRING_EQUAL(v.newest.policy, "p13");
        CU_ASSERT_FALSE(v.busy);
        CU_ASSERT_TRUE(v.found);
        CU_ASSERT_EQUAL(v.ours.rev, 5);
        CU_ASSERT_EQUAL(v.committed_after, 1);
        CU_ASSERT_EQUAL(v.before_rev, 4);                       /* current when ours started */
        /* by key; a pending change newer than the current revision is in flight */
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY("{\"tx\":9,\"rev\":null,\"state\":\"pending_confirm\","
                                                            "\"idempotency_key\":\"3-1-0-00ff\"}," RTX(8, 2, "apply", "committed"))),
                                               "3-1-0-00ff", NULL, &v, &e), 0);
        CU_ASSERT_EQUAL(v.rev, 2);
        CU_ASSERT_TRUE(v.busy);
        CU_ASSERT_STRING_EQUAL(v.busy_tx.tx, "9");
        CU_ASSERT_TRUE(v.found);
        CU_ASSERT_STRING_EQUAL(v.ours.state, "pending_confirm");
        CU_ASSERT_EQUAL(v.before_rev, 2);
        /* ours a first change: no revision before it */
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(3, null, "apply", "rolled_back"))), NULL, "3", &v, &e), 0);
        CU_ASSERT_EQUAL(v.before_rev, 0);
        /* nothing ever committed: revision 0, known; ours not listed */
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(3, null, "apply", "rolled_back"))), NULL, "7", &v, &e), 0);
        CU_ASSERT_TRUE(v.known);
        CU_ASSERT_EQUAL(v.rev, 0);
        CU_ASSERT_FALSE(v.found);
        CU_ASSERT_EQUAL(v.committed_after, 0);
        CU_ASSERT_EQUAL(v.before_rev, -1);
        /* a full page without a commit cannot say which revision is current */
        len = (size_t)snprintf(big, sizeof(big), "{\"transactions\":[");
        for (unsigned i = 0; i < REPLY_HISTORY_PAGE; i++)
                len += (size_t)snprintf(big + len, sizeof(big) - len, "%s{\"tx\":%u,\"state\":\"rolled_back\"}",
                                        i ? "," : "", 500 - i);
        snprintf(big + len, sizeof(big) - len, "]}");
        CU_ASSERT_EQUAL(reply_history_revision(big, strlen(big), NULL, NULL, &v, &e), 0);
        CU_ASSERT_FALSE(v.known);
        /* hostile revisions are refused */
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(3, -1, "apply", "committed"))), NULL, NULL, &v, &e),
                        -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "$.rev: expected null or a revision"));
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(3, "5", "apply", "committed"))), NULL, NULL, &v, &e),
                        -EBADMSG);
        CU_ASSERT_EQUAL(reply_history_revision(TEXT(HISTORY(RTX(3, 9999999999, "apply", "committed"))), NULL, NULL,
                                               &v, &e), -EBADMSG);
}

static void test_error_path(void)
{
        char buf[64];

        CU_ASSERT_STRING_EQUAL(reply_error_path(TEXT("{\"error\":{\"code\":\"invalid\",\"path\":\"$.expect_revision\"}}"),
                                                buf, sizeof(buf)), "$.expect_revision");
        CU_ASSERT_STRING_EQUAL(reply_error_path(TEXT("{\"error\":{\"code\":\"invalid\"}}"), buf, sizeof(buf)), "");
        CU_ASSERT_STRING_EQUAL(reply_error_path(TEXT("nope"), buf, sizeof(buf)), "");
}

int suite_ctl_reply(void)
{
        CU_pSuite s = CU_add_suite("ctl_reply", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "apply_deadline", test_apply_deadline) ||
            !CU_add_test(s, "apply_hostile", test_apply_hostile) ||
            !CU_add_test(s, "transaction", test_transaction) ||
            !CU_add_test(s, "transaction_hostile", test_transaction_hostile) ||
            !CU_add_test(s, "error_code", test_error_code) ||
            !CU_add_test(s, "history_committed_after", test_history_committed_after) ||
            !CU_add_test(s, "find_history", test_find_history) ||
            !CU_add_test(s, "history_revision", test_history_revision) ||
            !CU_add_test(s, "error_path", test_error_path))
                return -1;
        return 0;
}
