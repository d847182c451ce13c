/* SPDX-License-Identifier: MIT */
#include <jansson.h>

#include "common/outcome.h"
#include "agent/api/api.h"
#include "agent/api/api_internal.h"
#include "agent/doctor/doctor_collect.h"
#include "agent/measure/measure.h"
#include "agent/txn/txn.h"
#include "common/version.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_gate.h"
#include "drivers/probe/probe_request.h"
#include "policies/jsonv.h"
#include "policies/state_json.h"

static struct policy *parse_body(const struct http_request *req, struct http_response *resp)
{
        struct errbuf e = { 0 };
        struct policy *p = NULL;
        char where[300];
        const char *path;

        if (policy_parse_buffer(req->body, req->body_len, "request body", &p, &e) >= 0)
                return p;
        /* where is "request body: $.x" or "request body:L:C": keep the JSON path for "path". */
        snprintf(where, sizeof(where), "%s", e.where);
        path = strstr(where, "$") ? strstr(where, "$") : where;
        http_error(resp, 400, "invalid", path, "%s; nothing was changed", e.msg);
        return NULL;
}

static void env_init(struct api *a, struct txn_env *env)
{
        txn_env_init(env, a->config, a->journal);
        env->no_watchdog = true;
}

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

static void reply_result(struct http_response *resp, struct txn_result *r)
{
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

/*
 * An apply whose idempotency key is already journaled is not run again: the
 * answer is that transaction as journaled, with "replayed": true. Returns 1 when
 * it answered.
 */
static int replay_keyed(struct api *a, const char *key, struct http_response *resp)
{
        struct journal_tx t;
        struct errbuf e = { 0 };
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
        api_reply_json(resp, 200, json_pack("{s:I, s:s, s:s, s:i, s:o, s:s?, s:s?, s:I, s:s, s:b}",
                                        "tx", (json_int_t)t.id, "state", journal_state_name(t.state),
                                        "result", t.result[0] ? t.result : journal_state_name(t.state),
                                        "exit_code", t.exit_code < 0 ? OUTCOME_PENDING : t.exit_code,
                                        "changes", t.changes_json ? json_loads(t.changes_json, 0, NULL) : json_array(),
                                        "restored_by", t.restored_by[0] ? t.restored_by : NULL, "error", t.error,
                                        "confirm_deadline_ms", (json_int_t)t.confirm_deadline_ms,
                                        "idempotency_key", key, "replayed", 1));
        journal_tx_done(&t);
        return 1;
}

static void do_apply(struct api *a, const struct http_request *req, struct http_response *resp)
{
        const char *ct = http_query(req, "confirm_timeout_s"), *key = http_query(req, "idempotency_key");
        struct policy *p = parse_body(req, resp);
        struct txn_result res;
        struct txn_env env;
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
        if (key && !journal_key_valid(key)) {
                policy_free(p);
                http_error(resp, 400, "invalid", "idempotency_key", "idempotency_key '%.80s': expected 1-%d "
                           "characters of [A-Za-z0-9._:-]; nothing was changed", key, JOURNAL_KEY_MAX - 1);
                return;
        }
        env_init(a, &env);
        env.idempotency_key = key;
        if (lock_or_409(&env, resp) >= 0) {
                if (!key || !replay_keyed(a, key, resp)) {
                        txn_result_init(&res);
                        txn_apply(&env, p, confirm, &res);
                        reply_result(resp, &res);
                        txn_result_done(&res);
                }
                txn_unlock(&env);
        }
        policy_free(p);
}

/* Body of POST /v1/rollback: empty, {} (undo the newest revision) or {"to": REV}. */
#define ROLLBACK_BODY_MAX 4096

struct rollback_req {
        int64_t to;                     /* 0: not given */
};

static const struct jsonv_field rollback_fields[] = {
        { .key = "to", .type = JSONV_INTEGER, .min = 1, .max = INT32_MAX, .what = "revision",
          JSONV_MEMBER(struct rollback_req, to) },
        { 0 },
};

static int parse_rollback_body(const struct http_request *req, struct rollback_req *ret,
                               struct http_response *resp)
{
        json_auto_t *root = NULL;
        struct errbuf e = { 0 };
        struct jsonv v;
        int r;

        memset(ret, 0, sizeof(*ret));
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

static void do_rollback(struct api *a, const struct http_request *req, struct http_response *resp)
{
        struct rollback_req body;
        struct txn_result res;
        struct txn_env env;

        if (parse_rollback_body(req, &body, resp) < 0)
                return;
        env_init(a, &env);
        if (lock_or_409(&env, resp) < 0)
                return;
        txn_result_init(&res);
        if (body.to)
                txn_rollback_to(&env, body.to, &res);
        else
                txn_rollback(&env, &res);
        txn_unlock(&env);
        if (res.exit_code == OUTCOME_INVALID && !res.tx)
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

/*
 * A transaction id from the URL path as sent: a decimal number, digits only, no
 * sign, no leading zero, no escapes, at most INT64_MAX. 0 and a 404 otherwise.
 */
static int64_t tx_of(const char *id, struct http_response *resp)
{
        size_t n = strspn(id, "0123456789");
        int64_t tx = 0;

        for (size_t i = 0; i < n && n == strlen(id) && id[0] != '0' && tx >= 0; i++)
                tx = tx > (INT64_MAX - (id[i] - '0')) / 10 ? -1 : tx * 10 + (id[i] - '0');
        if (n == 0 || n != strlen(id) || id[0] == '0' || tx <= 0) {
                http_error(resp, 404, "not_found", NULL, "no transaction '%.40s': a transaction id is a decimal number",
                           id);
                return 0;
        }
        return tx;
}

static void do_confirm(struct api *a, const struct http_request *req, const char *id, struct http_response *resp)
{
        struct confirm_req body = { 0 };
        json_auto_t *root = NULL;
        struct errbuf e = { 0 };
        struct txn_result res;
        struct txn_env env;
        struct jsonv v;
        int64_t tx = tx_of(id, resp);

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
        env_init(a, &env);
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

/* The transaction's final state as the journal has it: what a controller reconciles against. */
static void do_transaction(struct api *a, const char *id, struct http_response *resp)
{
        struct errbuf e = { 0 };
        int64_t tx = tx_of(id, resp);
        json_t *j;

        if (!tx)
                return;
        j = transaction_json(a->journal, tx, &e);
        if (!j && e.msg[0] && strstr(e.msg, "no transaction"))
                http_error(resp, 404, "not_found", NULL, "%s", e.msg);
        else if (!j)
                api_reply_errbuf(resp, 500, "internal", &e);
        else
                api_reply_json(resp, 200, j);
}

/* The same plan JSON as `nettune-agent plan --output json`. */
static void do_plan(struct api *a, const struct http_request *req, struct http_response *resp)
{
        struct policy *p = parse_body(req, resp);
        struct errbuf e = { 0 };
        struct plan_probe probe;
        struct txn_env env;
        struct plan plan;
        json_t *doc;
        int r;

        if (!p)
                return;
        env_init(a, &env);
        txn_plan_init(&env, &plan);
        r = plan_for_policy(&plan, p, 0, &e);
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

/* Every field the committed policy's targets support, live. */
static void do_state(struct api *a, struct http_response *resp)
{
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        struct txn_env env;
        struct plan plan;
        json_t *arr;
        int r;

        env_init(a, &env);
        txn_plan_init(&env, &plan);
        r = journal_committed_policy(a->journal, 0, &p, NULL, &e);
        if (r == -ENOENT || (r >= 0 && !p)) {
                api_reply_json(resp, 200, json_pack("{s:[], s:n}", "targets", "policy"));
                return;
        }
        if (r >= 0)
                r = plan_for_policy(&plan, p, PLAN_ALL_FIELDS, &e);
        if (r >= 0)
                r = plan_read(&plan, &e);
        arr = json_array();
        for (unsigned i = 0; r >= 0 && arr && i < plan.n; i++) {
                const struct plan_target *pt = &plan.v[i];

                json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "name", pt->t.name, "kind",
                                                     target_kind_name(pt->t.kind), "state",
                                                     state_units_to_json(pt->live, target_unit_names(&pt->t),
                                                                         pt->n_units)));
        }
        if (r < 0) {
                json_decref(arr);
                api_reply_errbuf(resp, 500, "runtime", &e);
        } else {
                api_reply_json(resp, 200, json_pack("{s:o, s:s}", "targets", arr, "policy", p->name));
        }
        plan_free(&plan);
        policy_free(p);
}

static void do_drift(struct api *a, struct http_response *resp)
{
        struct errbuf e = { 0 };
        struct txn_env env;
        struct plan plan;
        int r;

        env_init(a, &env);
        r = drift_check(&env, &plan, NULL, &e);
        if (r == -ENOENT)
                api_reply_json(resp, 200, json_pack("{s:b, s:[], s:s}", "drift", 0, "changes", "note", e.msg));
        else if (r < 0)
                api_reply_errbuf(resp, 500, "runtime", &e);
        else {
                metrics_set_drift(&plan);
                api_reply_json(resp, 200, json_pack("{s:b, s:o}", "drift", r > 0, "changes", plan_changes_json(&plan)));
        }
        plan_free(&plan);
}

static void do_history(struct api *a, struct http_response *resp)
{
        struct errbuf e = { 0 };
        json_t *arr = history_json(a->journal, 100, &e);

        if (!arr)
                api_reply_errbuf(resp, 500, "internal", &e);
        else
                api_reply_json(resp, 200, json_pack("{s:o}", "transactions", arr));
}

static void do_probe(struct api *a, const struct http_request *req, struct http_response *resp)
{
        struct probe_measurement *m = NULL;
        struct probe_request pr;
        struct errbuf e = { 0 };

        if (probe_request_parse(req->body, req->body_len, &pr, &e) < 0) {
                api_reply_invalid(resp, &e, "");
                return;
        }
        if (probe_params_check(&pr.params, &e) < 0) {
                http_error(resp, 400, "invalid", "$.peer", "%s", e.msg);
                return;
        }
        m = calloc(1, sizeof(*m));
        if (!m) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        {
                struct measure_span span;
                struct measure_load load;

                measure_begin(&span);
                probe_measure(&pr.params, pr.mode, pr.runs, m, &e);
                measure_end(&span, &load);
        }
        {
                json_t *j = probe_measurement_to_json(m);

                if (j) {
                        json_object_set_new(j, "gbps", m->ok ? json_real(m->median_gbps) : json_null());
                        json_object_set_new(j, "rtt_ms", probe_json_rtt(probe_measurement_rtt_ms(m)));
                }
                api_reply_json(resp, m->ok ? 200 : 502, j);
        }
        free(m);
}

static void do_metrics(struct api *a, struct http_response *resp)
{
        char ifs[POLICY_TARGETS_MAX][STATE_NAME_MAX];
        struct policy *p = NULL;
        unsigned n = 0;

        /* NIC counters of the committed policy's plain interface names (globs skipped). */
        if (journal_committed_policy(a->journal, 0, &p, NULL, NULL) >= 0 && p)
                for (unsigned i = 0; i < p->n_interfaces; i++)
                        if (!strpbrk(p->interfaces[i], "*?["))
                                snprintf(ifs[n++], STATE_NAME_MAX, "%s", p->interfaces[i]);
        policy_free(p);
        resp->status = 200;
        resp->body = metrics_render(a->journal, a->config, ifs, n);
        resp->content_type = "text/plain; version=0.0.4";
        if (!resp->body)
                http_error(resp, 500, "internal", NULL, "out of memory");
}

/* While the agent measures bandwidth, everything but health waits for it (the gate compares like with like). */
#define API_QUIET_WAIT_MS 60000

void api_handle(void *userdata, const struct http_request *req, struct http_response *resp)
{
        struct api *a = userdata;
        bool get = streq(req->method, "GET"), post = streq(req->method, "POST");
        const char *u = req->url;

        if (!(get && streq(u, "/v1/health")) && !measure_wait_quiet(API_QUIET_WAIT_MS)) {
                http_error(resp, 503, "measuring", NULL, "a bandwidth measurement is still running after %d s; retry later",
                           API_QUIET_WAIT_MS / 1000);
                return;
        }
        if (get && streq(u, "/v1/health"))
                api_reply_json(resp, 200, json_pack("{s:s, s:s, s:s}", "status", "ok", "version", NETTUNE_VERSION,
                                                "client", req->client));
        else if (get && streq(u, "/metrics"))
                do_metrics(a, resp);
        else if (get && streq(u, "/v1/state"))
                do_state(a, resp);
        else if (post && streq(u, "/v1/plan"))
                do_plan(a, req, resp);
        else if (post && streq(u, "/v1/apply"))
                do_apply(a, req, resp);
        else if (post && !strncmp(u, "/v1/confirm/", 12))
                do_confirm(a, req, u + 12, resp);
        else if (get && !strncmp(u, "/v1/transactions/", 17))
                do_transaction(a, u + 17, resp);
        else if (post && streq(u, "/v1/rollback"))
                do_rollback(a, req, resp);
        else if (get && streq(u, "/v1/drift"))
                do_drift(a, resp);
        else if (get && streq(u, "/v1/doctor"))
                doctor_http(a->config, a->journal, req, resp);
        else if (get && streq(u, "/v1/history"))
                do_history(a, resp);
        else if (post && streq(u, "/v1/probe"))
                do_probe(a, req, resp);
        else if (get && streq(u, "/v1/fabric"))
                fabric_info(a, resp);
        else if (post && streq(u, "/v1/fabric/flows"))
                fabric_flows(a, req, resp);
        else
                http_error(resp, 404, "not_found", NULL, "no route %s '%s'", req->method, u);
}
