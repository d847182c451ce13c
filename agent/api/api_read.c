/* SPDX-License-Identifier: MIT */
/* The routes that read: state, drift, doctor, history, one transaction, metrics. */
#include <jansson.h>
#include <pthread.h>

#include "agent/api/api_internal.h"
#include "agent/doctor/doctor_collect.h"
#include "agent/measure/measure.h"
#include "agent/txn/txn.h"
#include "policies/state/state_json.h"

/* The transaction's final state as the journal has it: what a controller reconciles against. */
void api_transaction(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct errbuf e = { 0 };
        int64_t tx = api_tx_of(rest, resp);
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

/*
 * The last state (and drift) read outside a bandwidth measurement: what GET /v1/state
 * and GET /v1/drift answer while one runs, so that a read neither waits for the
 * measurement nor competes with it (docs/api.md, "Limits").
 */
struct read_cache {
        pthread_mutex_t lock;
        char *text;                     /* the answer's JSON, without as_of_ms */
        int64_t at_ms;
};

static struct read_cache state_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct read_cache drift_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void cache_put(struct read_cache *c, const json_t *j, int64_t at_ms)
{
        char *text = json_dumps(j, JSON_COMPACT);

        pthread_mutex_lock(&c->lock);
        if (text) {
                free(c->text);
                c->text = text;
                c->at_ms = at_ms;
        }
        pthread_mutex_unlock(&c->lock);
}

/* The cached answer with its as_of_ms, or NULL when none was read yet. */
static json_t *cache_get(struct read_cache *c)
{
        json_t *j = NULL;

        pthread_mutex_lock(&c->lock);
        if (c->text && (j = json_loads(c->text, 0, NULL)))
                json_object_set_new(j, "as_of_ms", json_integer(c->at_ms));
        pthread_mutex_unlock(&c->lock);
        return j;
}

/* A read that produces a document (NULL: it answered an error into resp). */
typedef json_t *read_fn(struct api *a, struct http_response *resp);

/* Answer read(): live outside a measurement (and keep it), else the last one kept, naming the measurement. */
static void answer_read(struct api *a, struct read_cache *c, read_fn *read, struct http_response *resp)
{
        struct measure_info m;
        bool measuring = measure_running(&m);
        json_t *j = measuring ? cache_get(c) : NULL;
        int64_t now = measure_now_ms();

        if (!j) {
                j = read(a, resp);
                if (!j)
                        return;
                if (!measuring)
                        cache_put(c, j, now);
                json_object_set_new(j, "as_of_ms", json_integer(now));
        }
        if (measuring)
                json_object_set_new(j, "measuring", measure_info_to_json(&m));
        api_reply_json(resp, 200, j);
}

/* Every field the committed policy's targets support, live. */
static json_t *read_state(struct api *a, struct http_response *resp)
{
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        struct txn_env env;
        struct plan plan;
        json_t *arr, *doc = NULL;
        int64_t rev = 0;
        int r;

        api_env_init(a, &env);
        txn_plan_init(&env, &plan);
        r = journal_committed_policy(a->journal, 0, &p, NULL, &e);
        if (r == -ENOENT || (r >= 0 && !p))
                return json_pack("{s:[], s:n}", "targets", "policy");
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
        } else if (!(doc = json_pack("{s:o, s:s}", "targets", arr, "policy", p->name))) {
                http_error(resp, 500, "internal", NULL, "out of memory");
        } else if (journal_revision(a->journal, 0, &rev, NULL, NULL, &e) >= 0 &&
                   json_object_set_new(doc, "revision", json_integer(rev)) < 0) {
                json_decref(doc);
                doc = NULL;
                http_error(resp, 500, "internal", NULL, "out of memory");
        }
        plan_free(&plan);
        policy_free(p);
        return doc;
}

static json_t *read_drift(struct api *a, struct http_response *resp)
{
        struct errbuf e = { 0 };
        struct txn_env env;
        struct plan plan;
        json_t *doc = NULL;
        int r;

        api_env_init(a, &env);
        r = drift_check(&env, &plan, &e);
        if (r < 0 && r != -ENOENT) {
                api_reply_errbuf(resp, 500, "runtime", &e);
                plan_free(&plan);
                return NULL;
        }
        if (r == -ENOENT) {
                doc = json_pack("{s:b, s:[], s:s}", "drift", 0, "changes", "note", e.msg);
        } else {
                struct second_writer *w = calloc(SECOND_WRITERS_MAX, sizeof(*w));
                int n = w ? second_writers_find(a->journal, a->config, w, SECOND_WRITERS_MAX, &e) : 0;

                metrics_set_drift(&plan);
                doc = json_pack("{s:b, s:o, s:o}", "drift", r > 0, "changes", plan_changes_json(&plan),
                                "second_writers", second_writers_json(w, n > 0 ? (unsigned)n : 0));
                free(w);
        }
        if (!doc)
                http_error(resp, 500, "internal", NULL, "out of memory");
        plan_free(&plan);
        return doc;
}

void api_state(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        answer_read(a, &state_cache, read_state, resp);
}

void api_drift(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        answer_read(a, &drift_cache, read_drift, resp);
}

void api_history(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct errbuf e = { 0 };
        json_t *arr = history_json(a->journal, 100, &e);

        if (!arr)
                api_reply_errbuf(resp, 500, "internal", &e);
        else
                api_reply_json(resp, 200, json_pack("{s:o}", "transactions", arr));
}

/* The committed policy's plain interface names (globs skipped) and its switches. */
static void committed_targets(struct api *a, char (*ifs)[STATE_NAME_MAX], unsigned *ret_n,
                              char (*sws)[STATE_NAME_MAX], unsigned *ret_n_sw)
{
        struct policy *p = NULL;
        unsigned n = 0, n_sw = 0;

        if (journal_committed_policy(a->journal, 0, &p, NULL, NULL) >= 0 && p) {
                for (unsigned i = 0; i < p->n_interfaces; i++)
                        if (!strpbrk(p->interfaces[i], "*?["))
                                snprintf(ifs[n++], STATE_NAME_MAX, "%s", p->interfaces[i]);
                for (unsigned i = 0; i < p->n_switches && n_sw < POLICY_TARGETS_MAX; i++)
                        snprintf(sws[n_sw++], STATE_NAME_MAX, "%s", p->switches[i]);
        }
        policy_free(p);
        *ret_n = n;
        *ret_n_sw = n_sw;
}

int api_sampler_sync(struct api *a, struct errbuf *e)
{
        char ifs[POLICY_TARGETS_MAX][STATE_NAME_MAX], sws[POLICY_TARGETS_MAX][STATE_NAME_MAX];
        unsigned n, n_sw;

        committed_targets(a, ifs, &n, sws, &n_sw);
        return metrics_sampler_sync(a->config, ifs, n, e);
}

/* serve's counter sampler: its counters and the bursts it kept (drivers/host/sampler.h). */
void api_counters(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct errbuf e = { 0 };
        json_t *o;

        if (api_sampler_sync(a, &e) < 0) {
                api_reply_errbuf(resp, 500, "internal", &e);
                return;
        }
        if (!(o = metrics_sampler_json()))
                http_error(resp, 500, "internal", NULL, "out of memory");
        else
                api_reply_json(resp, 200, o);
}

void api_metrics(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        char ifs[POLICY_TARGETS_MAX][STATE_NAME_MAX], sws[POLICY_TARGETS_MAX][STATE_NAME_MAX];
        unsigned n = 0, n_sw = 0;

        /* NIC counters of the committed policy's plain interface names; its switches' watchdogs. */
        committed_targets(a, ifs, &n, sws, &n_sw);
        (void)metrics_sampler_sync(a->config, ifs, n, NULL);
        resp->status = 200;
        resp->body = metrics_render(a->journal, a->config, ifs, n, sws, n_sw);
        resp->content_type = "text/plain; version=0.0.4";
        if (!resp->body)
                http_error(resp, 500, "internal", NULL, "out of memory");
}

/* GET /v1/intent: the merged intent, every managed field with its value, live value and owner. */
void api_intent(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct errbuf e = { 0 };
        struct txn_env env;
        struct plan plan = { 0 };
        json_t *doc = NULL;

        api_env_init(a, &env);
        if (intent_read(&env, &plan, &doc, &e) < 0)
                api_reply_errbuf(resp, 500, "runtime", &e);
        else
                api_reply_json(resp, 200, doc);
        plan_free(&plan);
}
