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

/* The current revision: the rev of the newest committed transaction (what a rollback's expect_revision names). */
static void test_current_revision(void)
{
        struct errbuf e = { 0 };
        long long rev = -1;

        CU_ASSERT_EQUAL(reply_history_current_revision(TEXT(HISTORY("{\"tx\":14,\"state\":\"rolled_back\",\"rev\":null},"
                                                                    "{\"tx\":13,\"state\":\"committed\",\"rev\":7},"
                                                                    "{\"tx\":12,\"state\":\"committed\",\"rev\":6}")),
                                                        &rev, &e), 0);
        CU_ASSERT_EQUAL(rev, 7);
        CU_ASSERT_EQUAL(reply_history_current_revision(TEXT(HISTORY(TX(3, "apply", "rolled_back"))), &rev, &e), 0);
        CU_ASSERT_EQUAL(rev, 0);                /* nothing committed */
        CU_ASSERT_EQUAL(reply_history_current_revision(TEXT(HISTORY("{\"tx\":13,\"state\":\"committed\",\"rev\":\"7\"}")),
                                                        &rev, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "$.rev: expected a revision number"));
        CU_ASSERT_EQUAL(reply_history_current_revision(TEXT(HISTORY("{\"tx\":13,\"state\":\"committed\",\"rev\":0}")),
                                                        &rev, &e), -EBADMSG);
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
            !CU_add_test(s, "current_revision", test_current_revision))
                return -1;
        return 0;
}
