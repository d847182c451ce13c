/* SPDX-License-Identifier: MIT */
/* The routes that change the node through a transaction: plan, apply, rollback, confirm. */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "agent/txn/txn.h"
#include "common/log.h"
#include "common/outcome.h"
#include "policies/json/jsonv.h"

/* Take the node's transaction lock or answer 409. */
static int lock_or_409(struct txn_env *env, struct http_response *resp)
{
        struct errbuf e = { 0 };
        int r = txn_lock(env, false, &e);

        if (r == -EBUSY)
                http_error(resp, 409, "busy", NULL, "%s; nothing was changed", e.msg);
        else if (r < 0)
                api_reply_errbuf(resp, 500, "internal", &e);
        return r;
}

/*
 * A change through a transaction: none while a measurement of the API runs (409 busy
 * naming it, at once), and none of those starts until it is over (measure.h). Then
 * the node's lock.
 */
static int begin_change(struct txn_env *env, struct http_response *resp)
{
        struct measure_info m;
        int r = measure_txn_enter(&m);

        if (r < 0) {
                api_reply_busy(resp, &m);
                return r;
        }
        r = lock_or_409(env, resp);
        if (r < 0)
                measure_txn_leave();
        return r;
}

static void end_change(struct txn_env *env)
{
        txn_unlock(env);
        measure_txn_leave();
        measure_give_back();
}

/* 409 precondition_failed: the node's current revision is not the caller's expect_revision. */
static void reply_precondition(struct http_response *resp, const struct txn_result *r)
{
        api_reply_json(resp, 409, json_pack("{s:{s:s, s:s, s:s, s:I}}", "error", "code", "precondition_failed",
                                            "message", r->error.msg, "path", r->error.where,
                                            "current_revision", (json_int_t)r->current_revision));
}

static void reply_result(struct http_response *resp, struct txn_result *r)
{
        if (streq(r->result, "precondition_failed")) {
                reply_precondition(resp, r);
                return;
        }
        if (streq(r->result, "busy")) {
                http_error(resp, 409, "busy", NULL, "%s; nothing was changed", r->error.msg);
                return;
        }
        metrics_record(r);
        if (r->exit_code == OUTCOME_INVALID && !r->tx) {
                http_error(resp, 400, "invalid", r->error.where, "%s%s", r->error.msg,
                           strstr(r->error.msg, "nothing was changed") ? "" : "; nothing was changed");
                return;
        }
        api_reply_json(resp, 200, txn_result_to_json(r));
}

static int param_cmp(const void *a, const void *b)
{
        return strcmp((*(const struct http_param *const *)a)->key, (*(const struct http_param *const *)b)->key);
}

/*
 * The digest an idempotency key is journaled with: the operation (method and path),
 * the query parameters but the key itself (by name, each length-prefixed) and the
 * body. 0, or -ENOMEM / -EIO after answering 500.
 */
static int request_hash(const struct http_request *req, char out[JOURNAL_HASH_MAX], struct http_response *resp)
{
        const struct http_param *sorted[HTTP_QUERY_MAX];
        unsigned n = 0;
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        int r;

        if (!f) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return -ENOMEM;
        }
        for (unsigned i = 0; i < req->n_query && n < HTTP_QUERY_MAX; i++)
                if (!streq(req->query[i].key, "idempotency_key"))
                        sorted[n++] = &req->query[i];
        qsort(sorted, n, sizeof(sorted[0]), param_cmp);
        fprintf(f, "%s %s\n", req->method, req->url);
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%zu:%s=%zu:%s\n", strlen(sorted[i]->key), sorted[i]->key, strlen(sorted[i]->value),
                        sorted[i]->value);
        fprintf(f, "%zu:", req->body_len);
        fwrite(req->body, 1, req->body_len, f);
        r = fclose(f) == 0 && text ? http_sha256_hex(text, size, out) : -ENOMEM;
        free(text);
        if (r < 0)
                http_error(resp, 500, "internal", NULL, "cannot digest the request: %s", strerror(-r));
        return r;
}

/*
 * A request whose idempotency key is already journaled is not run again. The key
 * names one request: when it was journaled with another operation (an apply's key
 * on a rollback) or another request (another body or parameters), the answer is
 * 409 idempotency_mismatch naming what differs, and nothing runs. Else the answer
 * is that transaction as journaled (everything GET /v1/transactions/TX shows: rev,
 * kind, policy, state, result ..., its changes), with "replayed": true. Returns 1
 * when it answered.
 */
/* op: the journal's kind of the request, "apply" or "rollback" (a rollback --to's too). */
static int replay_keyed(struct api *a, const char *op, const char *key, const char *hash,
                        struct http_response *resp)
{
        struct journal_tx t;
        struct errbuf e = { 0 };
        json_t *doc;
        int64_t tx;
        int r = journal_find_key(a->journal, key, &tx, &e);

        if (r == -ENOENT)
                return 0;
        if (r >= 0)
                r = journal_get(a->journal, tx, &t, &e);
        if (r < 0) {
                api_reply_errbuf(resp, 500, "internal", &e);
                return 1;
        }
        if (!streq(t.kind, op) || (t.key_hash[0] && !streq(t.key_hash, hash))) {
                bool other_op = !streq(t.kind, op);
                char msg[512];

                if (other_op)
                        snprintf(msg, sizeof(msg), "idempotency key '%s' was journaled with transaction %lld (%s "
                                 "of policy '%s'); this request is a %s: a key names one request; nothing was changed",
                                 key, (long long)t.id, t.kind, t.policy_name, op);
                else
                        snprintf(msg, sizeof(msg), "idempotency key '%s' was journaled with transaction %lld (%s "
                                 "of policy '%s') for another request: this %s's body or parameters differ; a key "
                                 "names one request; nothing was changed", key, (long long)t.id, t.kind,
                                 t.policy_name, op);
                api_reply_json(resp, 409, json_pack("{s:{s:s, s:s, s:s, s:s, s:I, s:s}}", "error",
                                                    "code", "idempotency_mismatch", "path", "idempotency_key",
                                                    "message", msg, "mismatch", other_op ? "operation" : "request",
                                                    "transaction", (json_int_t)t.id, "kind", t.kind));
                journal_tx_done(&t);
                return 1;
        }
        doc = transaction_json(a->journal, tx, &e);
        if (!doc) {
                journal_tx_done(&t);
                api_reply_errbuf(resp, 500, "internal", &e);
                return 1;
        }
        json_object_del(doc, "now_ms");
        json_object_set_new(doc, "changes", t.changes_json ? json_loads(t.changes_json, 0, NULL) : json_array());
        json_object_set_new(doc, "exit_code", json_integer(t.exit_code < 0 ? OUTCOME_PENDING : t.exit_code));
        if (!t.result[0])
                json_object_set_new(doc, "result", json_string(journal_state_name(t.state)));
        json_object_set_new(doc, "replayed", json_true());
        journal_tx_done(&t);
        api_reply_json(resp, 200, doc);
        return 1;
}

/* A revision number of a query (0-INT32_MAX, decimal digits), or -1. */
static int64_t revision_of(const char *s)
{
        size_t n = strspn(s, "0123456789");
        char *end;
        long long v;

        if (!n || n != strlen(s) || n > 10 || (s[0] == '0' && n > 1))
                return -1;
        v = strtoll(s, &end, 10);
        return v <= INT32_MAX ? v : -1;
}

/* ?idempotency_key=K: true with *key set (NULL when absent), or false after answering 400. */
static bool key_of(const struct http_request *req, struct http_response *resp, const char **key)
{
        *key = http_query(req, "idempotency_key");
        if (*key && !journal_key_valid(*key)) {
                http_error(resp, 400, "invalid", "idempotency_key", "idempotency_key '%.80s': expected 1-%d "
                           "characters of [A-Za-z0-9._:-]; nothing was changed", *key, JOURNAL_KEY_MAX - 1);
                return false;
        }
        return true;
}

void api_apply(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        const char *ct = http_query(req, "confirm_timeout_s"), *key;
        const char *expect = http_query(req, "expect_revision");
        char hash[JOURNAL_HASH_MAX] = "";
        struct policy *p = api_parse_policy(req, resp);
        struct txn_result res;
        struct txn_env env;
        struct txn_request treq;
        int confirm = -1;
        char *end;

        if (!p)
                return;
        if (ct) {
                long v = strtol(ct, &end, 10);

                if (*end || end == ct || v < 0 || v > 86400) {
                        policy_free(p);
                        http_error(resp, 400, "invalid", "confirm_timeout_s",
                                   "confirm_timeout_s '%s' out of range 0-86400; nothing was changed", ct);
                        return;
                }
                confirm = (int)v;
        }
        if (!key_of(req, resp, &key)) {
                policy_free(p);
                return;
        }
        if (key && request_hash(req, hash, resp) < 0) {
                policy_free(p);
                return;
        }
        api_env_init(a, &env);
        txn_request_init(&treq);
        treq.idempotency_key = key;
        treq.key_hash = hash;
        if (expect && (treq.expect_revision = revision_of(expect)) < 0) {
                policy_free(p);
                http_error(resp, 400, "invalid", "expect_revision", "expect_revision '%.40s' out of range 0-%d; "
                           "nothing was changed", expect, INT32_MAX);
                return;
        }
        if (begin_change(&env, resp) >= 0) {
                if (!key || !replay_keyed(a, "apply", key, hash, resp)) {
                        txn_result_init(&res);
                        txn_apply(&env, &treq, p, confirm, &res);
                        reply_result(resp, &res);
                        txn_result_done(&res);
                }
                end_change(&env);
        }
        policy_free(p);
}

/*
 * Body of POST /v1/rollback: empty, {} (undo the newest revision) or {"to": REV}, either
 * with "expect_revision": N (the precondition: N is the node's current revision).
 */
#define ROLLBACK_BODY_MAX 4096

struct rollback_req {
        int64_t to;                     /* 0: not given */
        int64_t expect_revision;        /* -1: not given */
        char policy[POLICY_NAME_MAX];   /* {"policy": NAME}: that layer back to its previous version; "": not given */
        char probe_peer[POLICY_PEER_MAX];       /* "": the verify settings' peer */
};

static int parse_probe_peer(struct jsonv *v, const json_t *j, void *obj)
{
        (void)obj;
        return jsonv_check_hostport(v, "probe_peer", json_string_value(j));
}

static const struct jsonv_field rollback_fields[] = {
        { .key = "to", .type = JSONV_INTEGER, .min = 1, .max = INT32_MAX, .what = "revision",
          JSONV_MEMBER(struct rollback_req, to) },
        { .key = "expect_revision", .type = JSONV_INTEGER, .min = 0, .max = INT32_MAX, .what = "expect_revision",
          JSONV_MEMBER(struct rollback_req, expect_revision) },
        JSONV_STR("policy", struct rollback_req, policy, JSONV_NONEMPTY),
        { .key = "probe_peer", .type = JSONV_STRING, .flags = JSONV_NONEMPTY, .what = "probe_peer",
          JSONV_MEMBER(struct rollback_req, probe_peer), .parse = parse_probe_peer },
        { 0 },
};

static int parse_rollback_body(const struct http_request *req, struct rollback_req *ret,
                               struct http_response *resp)
{
        json_auto_t *root = NULL;
        struct errbuf e = { 0 };
        struct jsonv v;
        int r;

        *ret = (struct rollback_req){ .expect_revision = -1 };
        if (req->body_len == 0)
                return 0;
        jsonv_init(&v, NULL, &e);
        r = jsonv_parse(req->body, req->body_len, "request body", ROLLBACK_BODY_MAX, &root, &e);
        if (r >= 0)
                r = jsonv_object(&v, root, rollback_fields, ret);
        if (r < 0)
                api_reply_invalid(resp, &e, "; nothing was changed");
        return r;
}

/*
 * ?expect_revision=N of a rollback, which its body may carry too: both given and
 * different is 400 naming it (neither silently wins). 0, or -EINVAL after answering.
 */
static int query_revision(const struct http_request *req, int64_t *expect, struct http_response *resp)
{
        const char *q = http_query(req, "expect_revision");
        int64_t v;

        if (!q)
                return 0;
        if ((v = revision_of(q)) < 0) {
                http_error(resp, 400, "invalid", "expect_revision", "expect_revision '%.40s' out of range 0-%d; "
                           "nothing was changed", q, INT32_MAX);
                return -EINVAL;
        }
        if (*expect >= 0 && *expect != v) {
                http_error(resp, 400, "invalid", "expect_revision", "expect_revision is %lld in the query and %lld in "
                           "the body; give it once; nothing was changed", (long long)v, (long long)*expect);
                return -EINVAL;
        }
        *expect = v;
        return 0;
}

/*
 * ?no_gate=true (false, or absent: gated) of a rollback: restored without the
 * verification probe and gate, for the day the fabric is on fire. The route takes
 * operate-role clients only; who asked is in the answer's notes and the agent's log.
 * 0, or -EINVAL after answering 400.
 */
static int no_gate_of(const struct http_request *req, bool *ret, struct http_response *resp)
{
        const char *q = http_query(req, "no_gate");

        if (!q)
                return 0;
        if (!streq(q, "true") && !streq(q, "false")) {
                http_error(resp, 400, "invalid", "no_gate", "no_gate '%.40s': expected true or false; nothing was "
                           "changed", q);
                return -EINVAL;
        }
        *ret = streq(q, "true");
        return 0;
}

/* The answer of a rollback without its gate says so, and who asked (the client's certificate). */
static void note_no_gate(const struct http_request *req, struct txn_result *res)
{
        char text[256];

        snprintf(text, sizeof(text), "no gate: restored without the verification probe and gate, as '%s' asked "
                 "(no_gate)", req->client);
        if (!res->notes)
                res->notes = json_array();
        json_array_append_new(res->notes, json_string(text));
        log_info("api: rollback without its gate (no_gate) asked by '%s'", req->client);
}

void api_rollback(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        char hash[JOURNAL_HASH_MAX] = "";
        struct rollback_req body;
        struct txn_result res;
        struct txn_env env;
        struct txn_request treq;
        bool no_gate = false;
        const char *key;

        if (!key_of(req, resp, &key) || parse_rollback_body(req, &body, resp) < 0 ||
            query_revision(req, &body.expect_revision, resp) < 0 || (key && request_hash(req, hash, resp) < 0))
                return;
        if (body.to && body.policy[0]) {
                http_error(resp, 400, "invalid", "$.policy", "give \"to\" (every layer back to a revision) or "
                           "\"policy\" (one layer back to its previous version), not both; nothing was changed");
                return;
        }
        if (no_gate_of(req, &no_gate, resp) < 0)
                return;
        api_env_init(a, &env);
        txn_request_init(&treq);
        treq.no_gate = no_gate;
        treq.probe_peer = body.probe_peer[0] ? body.probe_peer : NULL;
        treq.expect_revision = body.expect_revision;
        treq.idempotency_key = key;
        treq.key_hash = hash;
        if (begin_change(&env, resp) < 0)
                return;
        /* A key already journaled: that transaction's answer, before the precondition (which it changed). */
        if (key && replay_keyed(a, "rollback", key, hash, resp)) {
                end_change(&env);
                return;
        }
        txn_result_init(&res);
        if (body.to)
                txn_rollback_to(&env, &treq, body.to, &res);
        else if (body.policy[0])
                txn_rollback_policy(&env, &treq, body.policy, &res);
        else
                txn_rollback(&env, &treq, &res);
        end_change(&env);
        if (no_gate && res.tx)
                note_no_gate(req, &res);
        if (streq(res.result, "precondition_failed"))
                reply_precondition(resp, &res);
        else if (res.exit_code == OUTCOME_INVALID && !res.tx)
                http_error(resp, 404, "not_found", NULL, "%s", res.error.msg);
        else
                reply_result(resp, &res);
        txn_result_done(&res);
}

/* Body of POST /v1/confirm/{tx}: empty, {} or {"not_after_ms": N} (the caller's deadline, ms since the epoch). */
#define CONFIRM_BODY_MAX 4096

struct confirm_req {
        int64_t not_after_ms;           /* 0: not given */
};

static const struct jsonv_field confirm_fields[] = {
        { .key = "not_after_ms", .type = JSONV_INTEGER, .min = 1, .max = INT64_MAX / 2, .what = "not_after_ms",
          JSONV_MEMBER(struct confirm_req, not_after_ms) },
        { 0 },
};

void api_confirm(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct confirm_req body = { 0 };
        json_auto_t *root = NULL;
        struct errbuf e = { 0 };
        struct txn_result res;
        struct txn_env env;
        struct jsonv v;
        int64_t tx = api_tx_of(rest, resp);

        if (!tx)
                return;
        if (req->body_len) {
                jsonv_init(&v, NULL, &e);
                if (jsonv_parse(req->body, req->body_len, "request body", CONFIRM_BODY_MAX, &root, &e) < 0 ||
                    jsonv_object(&v, root, confirm_fields, &body) < 0) {
                        api_reply_invalid(resp, &e, "; nothing was changed");
                        return;
                }
        }
        api_env_init(a, &env);
        if (lock_or_409(&env, resp) < 0)
                return;
        txn_result_init(&res);
        txn_confirm(&env, tx, body.not_after_ms, &res);
        txn_unlock(&env);
        if (res.restored_by[0])         /* this confirm came too late and restored the change */
                metrics_record(&res);
        if (res.exit_code == OUTCOME_INVALID)
                http_error(resp, 404, "not_found", NULL, "%s", res.error.msg);
        else if (res.state != TXN_COMMITTED)
                http_error(resp, 409, res.restored_by[0] ? "expired" : "not_pending", NULL, "%s", res.error.msg);
        else
                api_reply_json(resp, 200, txn_result_to_json(&res));
        txn_result_done(&res);
}

/* The same plan JSON as `nettune-agent plan --output json`, over the layers committed here. */
void api_plan(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct policy *p = api_parse_policy(req, resp);
        const char *cmp = http_query(req, "compare");
        struct errbuf e = { 0 };
        struct plan_probe probe;
        struct txn_env env;
        struct plan plan;
        json_t *doc;
        int r;

        if (!p)
                return;
        if (cmp && !streq(cmp, "0") && !streq(cmp, "1")) {
                policy_free(p);
                http_error(resp, 400, "invalid", "compare", "compare '%.40s': expected 0 or 1; nothing was changed", cmp);
                return;
        }
        api_env_init(a, &env);
        /*
         * the layers committed here judge it as apply would (field_owned refused, owners named);
         * ?compare=1 compares the document with live state alone (nettunectl conform's profile)
         */
        if (cmp && streq(cmp, "1")) {
                txn_plan_init(&env, &plan);
                r = plan_for_policy(&plan, p, 0, &e);
        } else {
                r = txn_plan_policy(&env, p, &plan, &e);
        }
        if (r < 0)
                api_reply_errno(resp, r, &e);
        else if ((r = plan_read(&plan, &e)) < 0)
                api_reply_errbuf(resp, 500, "runtime", &e);
        else if ((r = plan_check(&plan, &e)) < 0)
                api_reply_errbuf(resp, 400, "invalid", &e);
        else if ((r = plan_probe_pin(&plan, &p->verify, 0, &probe, &e)) < 0)
                api_reply_errno(resp, r, &e);
        else if ((doc = plan_to_json(&plan)) && json_object_set_new(doc, "probe", plan_probe_to_json(&probe)) < 0) {
                json_decref(doc);
                http_error(resp, 500, "internal", NULL, "out of memory");
        } else {
                api_reply_json(resp, 200, doc);
        }
        plan_free(&plan);
        policy_free(p);
}

/*
 * Body of POST /v1/remove: {"policy": NAME} (the layer taken out), with
 * "expect_revision": N as for a rollback.
 */
struct remove_req {
        char policy[POLICY_NAME_MAX];
        int64_t expect_revision;        /* -1: not given */
};

static const struct jsonv_field remove_fields[] = {
        JSONV_STR("policy", struct remove_req, policy, JSONV_REQUIRED | JSONV_NONEMPTY),
        { .key = "expect_revision", .type = JSONV_INTEGER, .min = 0, .max = INT32_MAX, .what = "expect_revision",
          JSONV_MEMBER(struct remove_req, expect_revision) },
        { 0 },
};

/* ?confirm_timeout_s=S (0-86400): 0, or -EINVAL after answering 400. */
static int query_confirm(const struct http_request *req, unsigned *ret, struct http_response *resp)
{
        const char *ct = http_query(req, "confirm_timeout_s");
        char *end;
        long v;

        *ret = 0;
        if (!ct)
                return 0;
        v = strtol(ct, &end, 10);
        if (*end || end == ct || v < 0 || v > 86400) {
                http_error(resp, 400, "invalid", "confirm_timeout_s",
                           "confirm_timeout_s '%.40s' out of range 0-86400; nothing was changed", ct);
                return -EINVAL;
        }
        *ret = (unsigned)v;
        return 0;
}

/*
 * POST /v1/remove[?confirm_timeout_s=S][&idempotency_key=K][&expect_revision=N]: layer
 * NAME taken out as one transaction (kind "remove"), answered like an apply; with
 * confirm_timeout_s it waits for POST /v1/confirm/{tx} as an apply does. Not committed
 * here: 404, nothing changed.
 */
void api_remove(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct remove_req body = { .expect_revision = -1 };
        char hash[JOURNAL_HASH_MAX] = "";
        json_auto_t *root = NULL;
        struct errbuf e = { 0 };
        struct txn_request treq;
        struct txn_result res;
        struct txn_env env;
        struct jsonv v;
        const char *key;
        unsigned confirm;

        if (!key_of(req, resp, &key) || query_confirm(req, &confirm, resp) < 0)
                return;
        jsonv_init(&v, NULL, &e);
        if (jsonv_parse(req->body, req->body_len, "request body", ROLLBACK_BODY_MAX, &root, &e) < 0 ||
            jsonv_object(&v, root, remove_fields, &body) < 0) {
                api_reply_invalid(resp, &e, "; nothing was changed");
                return;
        }
        if (query_revision(req, &body.expect_revision, resp) < 0 || (key && request_hash(req, hash, resp) < 0))
                return;
        api_env_init(a, &env);
        txn_request_init(&treq);
        treq.expect_revision = body.expect_revision;
        treq.idempotency_key = key;
        treq.key_hash = hash;
        if (begin_change(&env, resp) < 0)
                return;
        if (key && replay_keyed(a, "remove", key, hash, resp)) {
                end_change(&env);
                return;
        }
        txn_result_init(&res);
        txn_remove_confirm(&env, &treq, body.policy, confirm, &res);
        end_change(&env);
        if (streq(res.result, "precondition_failed"))
                reply_precondition(resp, &res);
        else if (res.exit_code == OUTCOME_INVALID && !res.tx)
                http_error(resp, 404, "not_found", NULL, "%s", res.error.msg);
        else
                reply_result(resp, &res);
        txn_result_done(&res);
}
