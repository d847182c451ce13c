/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the controller's parser of agent answers (controller/reply.c):
 * the same bytes as an apply/rollback/confirm answer, a plan answer, a drift answer
 * an error body and a history answer. Nothing may crash, leak or read out of bounds, and whatever is
 * accepted must be within the documented bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bounded(const char *s, size_t size)
{
        if (strnlen(s, size) >= size)
                abort();
}

static void gbps_ok(double g)
{
        if (!isnan(g) && !(g >= 0 && g < 1e6))
                abort();
}

static void check_apply(const char *body, size_t size)
{
        struct reply_apply a;
        struct errbuf e = { 0 };

        if (reply_parse_apply(body, size, &a, &e) < 0)
                return;
        if (a.exit_code < 0 || a.exit_code > 4 || a.changes > REPLY_CHANGES_MAX)
                abort();
        bounded(a.tx, sizeof(a.tx));
        bounded(a.state, sizeof(a.state));
        bounded(a.result, sizeof(a.result));
        bounded(a.restored_by, sizeof(a.restored_by));
        bounded(a.error, sizeof(a.error));
        gbps_ok(a.baseline_gbps);
        gbps_ok(a.post_gbps);
}

/* A history answer searched by key and by tx: whatever is found is bounded. */
static void check_history(const char *body, size_t size)
{
        struct reply_history_tx h;
        struct errbuf e = { 0 };

        for (int by_key = 0; by_key < 2; by_key++)
                if (reply_find_history(body, size, by_key ? "7-0-1-abcd" : NULL, "1", &h, &e) > 0) {
                        bounded(h.tx, sizeof(h.tx));
                        bounded(h.state, sizeof(h.state));
                        bounded(h.result, sizeof(h.result));
                        bounded(h.error, sizeof(h.error));
                        if (h.exit_code < -1 || h.exit_code > 4 || h.confirm_deadline_ms < 0)
                                abort();
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *body = (const char *)data;
        struct reply_plan p = { 0 };
        struct reply_drift d = { 0 };
        struct errbuf e = { 0 };
        char buf[300];

        check_apply(body, size);
        if (reply_parse_plan(body, size, &p, &e) >= 0)
                reply_plan_done(&p);
        if (reply_parse_drift(body, size, &d, &e) >= 0)
                reply_drift_done(&d);
        if (reply_error_text(400, body, size, buf, sizeof(buf)) != buf)
                abort();
        bounded(buf, sizeof(buf));
        check_history(body, size);
        return 0;
}
