/* SPDX-License-Identifier: MIT */
/* Store records as JSON documents, written compactly and read back strictly. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <time.h>

#include "controller/store/store_internal.h"
#include "policies/json/jsonv.h"

static char *dump(json_t *j)
{
        char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        json_decref(j);
        return s;
}

static json_t *gbps(double v)
{
        return isnan(v) ? json_null() : json_real(v);
}

char *store_json_rollout(const struct rollout_rec *r, const char *by)
{
        _cleanup_free_ char *opts = rollout_opts_to_json(&r->opts);
        json_t *o = opts ? json_loads(opts, 0, NULL) : NULL;

        if (!o)
                return NULL;
        return dump(json_pack("{s:i, s:I, s:s, s:s, s:s?, s:s?, s:o, s:s, s:I, s:I, s:i, s:s, s:i, s:i, s:s, s:i}",
                              "v", 1, "id", (json_int_t)r->id, "kind", r->kind, "policy_name", r->policy_name,
                              "policy_doc", r->policy_doc, "args", r->args, "opts", o,
                              "state", rollout_state_name(r->state), "created_at", (json_int_t)r->created_at,
                              "updated_at", (json_int_t)r->updated_at, "exit_code", r->exit_code,
                              "message", r->message, "n_nodes", (int)r->n_nodes, "n_waves", (int)r->n_waves,
                              "by", by, "node_chunk", (int)r->chunk_nodes));
}

char *store_json_wave(const struct rollout_rec *r, unsigned idx, const char *by)
{
        const struct rwave *w = &r->waves[idx];

        return dump(json_pack("{s:i, s:i, s:s, s:I, s:I, s:s}", "v", 1, "idx", (int)idx,
                              "state", rwave_state_name(w->state), "started_at", (json_int_t)w->started_at,
                              "deadline", (json_int_t)w->deadline, "by", by));
}

/* A node's members (the record's, less "v", "updated_at" and "by"). */
static json_t *node_json(const struct rollout_rec *r, const struct rnode *n)
{
        return json_pack("{s:i, s:s, s:s, s:i, s:s, s:s, s:i, s:i, s:o, s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:s}",
                         "seq", (int)(n - r->nodes), "name", n->name, "url", n->url,
                         "wave", (int)n->wave, "state", rnode_state_name(n->state), "tx", n->tx,
                         "exit_code", n->exit_code, "changes", (int)n->changes,
                         "baseline_gbps", gbps(n->baseline_gbps), "post_gbps", gbps(n->post_gbps),
                         "error", n->error, "key", n->key, "confirm_deadline_ms", (json_int_t)n->confirm_deadline_ms,
                         "not_after_ms", (json_int_t)n->not_after_ms, "pre_rev", (json_int_t)n->pre_rev,
                         "rev", (json_int_t)n->rev, "undo_tx", n->undo_tx, "group", n->group);
}

char *store_json_node(const struct rollout_rec *r, const struct rnode *n, const char *by)
{
        json_t *j = node_json(r, n);

        if (j && (json_object_set_new(j, "v", json_integer(1)) < 0 ||
                  json_object_set_new(j, "updated_at", json_integer((json_int_t)time(NULL))) < 0 ||
                  json_object_set_new(j, "by", json_string(by)) < 0)) {
                json_decref(j);
                j = NULL;
        }
        return dump(j);
}

char *store_json_chunk(const struct rollout_rec *r, unsigned chunk, const char *by)
{
        unsigned from = chunk * r->chunk_nodes, to = from + r->chunk_nodes;
        json_t *nodes = json_array();

        for (unsigned i = from; nodes && i < to && i < r->n_nodes; i++)
                if (json_array_append_new(nodes, node_json(r, &r->nodes[i])) < 0) {
                        json_decref(nodes);
                        nodes = NULL;
                }
        return nodes ? dump(json_pack("{s:i, s:i, s:I, s:o, s:s}", "v", 1, "chunk", (int)chunk, "updated_at",
                                      (json_int_t)time(NULL), "nodes", nodes, "by", by)) : NULL;
}

/* Details of the nodes that need a look (drifted or unreachable), bounded in size. */
static json_t *drift_details(const struct drift_scan *scan)
{
        json_t *arr = json_array();
        size_t budget = 512 * 1024;

        for (unsigned i = 0; arr && i < scan->n_nodes; i++) {
                const struct drift_node *d = &scan->nodes[i];
                size_t rl = d->report ? strlen(d->report) : 0;
                json_t *rep = d->report && rl < 8192 && rl < budget ? json_loads(d->report, 0, NULL) : NULL;

                if (d->reached && !d->drifted)
                        continue;
                budget -= rep ? rl : 0;
                json_array_append_new(arr, json_pack("{s:s, s:b, s:b, s:s, s:o*}", "name", d->name,
                                                     "reached", d->reached, "drifted", d->drifted,
                                                     "error", d->error, "report", rep));
        }
        return arr;
}

char *store_json_drift(const struct drift_scan *scan, const char *by)
{
        return dump(json_pack("{s:i, s:I, s:I, s:i, s:i, s:i, s:o, s:s}", "v", 1, "id", (json_int_t)scan->id,
                              "at", (json_int_t)scan->at, "nodes", (int)scan->n_nodes,
                              "drifted", (int)scan->n_drifted, "unreachable", (int)scan->n_unreachable,
                              "details", drift_details(scan), "by", by));
}

char *store_json_lease(const struct store_lease *l)
{
        return dump(json_pack("{s:i, s:I, s:s, s:I, s:I}", "v", 1, "pid", (json_int_t)l->pid, "host", l->host,
                              "started_at", (json_int_t)l->started_at, "rollout_id", (json_int_t)l->rollout_id));
}

/* ---- reading ---- */

static int check_version(struct jsonv *v, const json_t *j, void *obj)
{
        return json_integer_value(j) == 1 ? 0 : jsonv_error(v, "record version %lld is not 1",
                                                            (long long)json_integer_value(j));
}

#define FIELD_VERSION { .key = "v", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .parse = check_version }
#define FIELD_BY { .key = "by", .type = JSONV_STRING, .what = "writer" }

struct rollout_in {
        long long id, created_at, updated_at, exit_code, n_nodes, n_waves, node_chunk;
        char kind[STORE_KIND_MAX], policy_name[64], state[32], message[STORE_ERR_MAX];
        const json_t *doc, *args, *opts;
};

/* policy_doc, args: a string of bounded size, or null (kept from the root afterwards). */
static int check_doc(struct jsonv *v, const json_t *j, void *obj)
{
        if (!json_is_null(j) && !json_is_string(j))
                return jsonv_error(v, "expected a string or null, found %s", jsonv_type_name(j));
        if (json_is_string(j) && json_string_length(j) > POLICY_DOC_MAX)
                return jsonv_error(v, "longer than %u bytes", POLICY_DOC_MAX);
        return 0;
}

static int take_opts(struct jsonv *v, const json_t *j, void *obj)
{
        ((struct rollout_in *)obj)->opts = j;
        return 0;
}

static const struct jsonv_field rollout_fields[] = {
        FIELD_VERSION,
        JSONV_UINT_REQ("id", struct rollout_in, id, 0, 9000000000000000000LL),
        JSONV_STR("kind", struct rollout_in, kind, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("policy_name", struct rollout_in, policy_name, JSONV_REQUIRED),
        JSONV_CUSTOM("policy_doc", JSONV_ANY, 0, check_doc),
        JSONV_CUSTOM("args", JSONV_ANY, 0, check_doc),
        JSONV_CUSTOM("opts", JSONV_OBJECT, JSONV_REQUIRED, take_opts),
        JSONV_STR("state", struct rollout_in, state, JSONV_REQUIRED),
        JSONV_UINT_REQ("created_at", struct rollout_in, created_at, 0, 1LL << 40),
        JSONV_UINT_REQ("updated_at", struct rollout_in, updated_at, 0, 1LL << 40),
        JSONV_UINT_REQ("exit_code", struct rollout_in, exit_code, -1, 255),
        JSONV_STR("message", struct rollout_in, message, JSONV_REQUIRED),
        JSONV_UINT_REQ("n_nodes", struct rollout_in, n_nodes, 0, INVENTORY_NODES_MAX),
        JSONV_UINT_REQ("n_waves", struct rollout_in, n_waves, 0, INVENTORY_NODES_MAX),
        /* Nodes per node record; older records (one record per node) have none: 0. */
        JSONV_UINT("node_chunk", struct rollout_in, node_chunk, 0, INVENTORY_NODES_MAX),
        FIELD_BY,
        { 0 },
};

static int parse_root(const char *text, size_t len, const char *where, json_t **root, struct jsonv *v,
                      struct errbuf *e)
{
        int r = jsonv_parse(text, len, where, STORE_RECORD_MAX, root, e);

        jsonv_init(v, where, e);
        if (r >= 0 && !json_is_object(*root))
                r = jsonv_error(v, "expected an object, found %s", jsonv_type_name(*root));
        return r;
}

static int rollout_from(struct jsonv *v, const struct rollout_in *in, struct rollout_rec *r)
{
        _cleanup_free_ char *opts = json_dumps(in->opts, JSON_COMPACT);
        int st = rollout_state_from_name(in->state);

        if (st < 0)
                return jsonv_error(v, "$.state: '%.32s' is not a rollout state", in->state);
        if (!opts || rollout_opts_from_json(opts, &r->opts) < 0)
                return jsonv_error(v, "$.opts: not valid rollout options");
        if (in->n_waves > in->n_nodes || (in->n_nodes > 0 && in->n_waves == 0))
                return jsonv_error(v, "$.n_waves: %lld waves for %lld nodes", in->n_waves, in->n_nodes);
        r->id = in->id;
        snprintf(r->kind, sizeof(r->kind), "%s", in->kind);
        snprintf(r->policy_name, sizeof(r->policy_name), "%s", in->policy_name);
        r->state = (enum rollout_state)st;
        r->created_at = in->created_at;
        r->updated_at = in->updated_at;
        r->exit_code = (int)in->exit_code;
        snprintf(r->message, sizeof(r->message), "%s", in->message);
        r->policy_doc = json_is_string(in->doc) ? strdup(json_string_value(in->doc)) : NULL;
        r->args = json_is_string(in->args) ? strdup(json_string_value(in->args)) : NULL;
        r->n_nodes = (unsigned)in->n_nodes;
        r->n_waves = (unsigned)in->n_waves;
        r->chunk_nodes = (unsigned)in->node_chunk;
        r->nodes = calloc(r->n_nodes + 1, sizeof(*r->nodes));
        r->waves = calloc(r->n_waves + 1, sizeof(*r->waves));
        if ((json_is_string(in->doc) && !r->policy_doc) || (json_is_string(in->args) && !r->args) ||
            !r->nodes || !r->waves)
                return -ENOMEM;
        for (unsigned i = 0; i < r->n_nodes; i++) {
                r->nodes[i].exit_code = -1;
                r->nodes[i].baseline_gbps = r->nodes[i].post_gbps = NAN;
                r->nodes[i].pre_rev = -1;
        }
        return 0;
}

int store_json_parse_rollout(const char *text, size_t len, const char *where, struct rollout_rec **ret,
                               struct errbuf *e)
{
        struct rollout_in in = { 0 };
        struct rollout_rec *r = calloc(1, sizeof(*r));
        json_t *root = NULL;
        struct jsonv v;
        int rc;

        if (!r)
                return -ENOMEM;
        rc = parse_root(text, len, where, &root, &v, e);
        if (rc >= 0)
                rc = jsonv_object(&v, root, rollout_fields, &in);
        if (rc >= 0) {
                in.doc = json_object_get(root, "policy_doc");
                in.args = json_object_get(root, "args");
                rc = rollout_from(&v, &in, r);
        }
        json_decref(root);
        if (rc < 0) {
                rollout_rec_free(r);
                return rc == -ENOMEM ? errbuf_set(e, ENOMEM, where, "out of memory") : rc;
        }
        *ret = r;
        return 0;
}

struct wave_in {
        long long idx, started_at, deadline;
        char state[32];
};

static const struct jsonv_field wave_fields[] = {
        FIELD_VERSION,
        JSONV_UINT_REQ("idx", struct wave_in, idx, 0, INVENTORY_NODES_MAX),
        JSONV_STR("state", struct wave_in, state, JSONV_REQUIRED),
        JSONV_UINT_REQ("started_at", struct wave_in, started_at, 0, 1LL << 40),
        JSONV_UINT_REQ("deadline", struct wave_in, deadline, 0, 1LL << 40),
        FIELD_BY,
        { 0 },
};

int store_json_parse_wave(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e)
{
        struct wave_in in = { 0 };
        json_t *root = NULL;
        struct jsonv v;
        int st, rc = parse_root(text, len, where, &root, &v, e);

        if (rc >= 0)
                rc = jsonv_object(&v, root, wave_fields, &in);
        json_decref(root);
        if (rc < 0)
                return rc;
        st = rwave_state_from_name(in.state);
        if (st < 0)
                return jsonv_error(&v, "$.state: '%.32s' is not a wave state", in.state);
        if (in.idx >= r->n_waves)
                return jsonv_error(&v, "$.idx: wave %lld of a rollout with %u waves", in.idx, r->n_waves);
        r->waves[in.idx] = (struct rwave) { .state = (enum rwave_state)st, .started_at = in.started_at,
                                            .deadline = in.deadline };
        return 0;
}

struct node_in {
        long long seq, wave, exit_code, changes, updated_at, confirm_deadline_ms, not_after_ms, pre_rev, rev;
        char name[INVENTORY_NAME_MAX], url[INVENTORY_URL_MAX], state[32], tx[STORE_TX_MAX];
        char error[STORE_ERR_MAX], key[STORE_KEY_MAX], undo_tx[STORE_TX_MAX], group[STORE_LABEL_MAX];
        double base, post;
};

static int take_gbps(struct jsonv *v, const json_t *j, void *obj)
{
        struct node_in *in = obj;
        double *p = strstr(v->path, "baseline") ? &in->base : &in->post;

        if (json_is_null(j)) {
                *p = NAN;
                return 0;
        }
        if (!json_is_number(j) || json_number_value(j) < 0 || json_number_value(j) > 1e6)
                return jsonv_error(v, "expected null or a rate 0-1000000");
        *p = json_number_value(j);
        return 0;
}

/* "v", "updated_at" and "by" are the record's: a node inside a chunk has none of them. */
static const struct jsonv_field node_fields[] = {
        { .key = "v", .type = JSONV_INTEGER, .parse = check_version },
        JSONV_UINT_REQ("seq", struct node_in, seq, 0, INVENTORY_NODES_MAX),
        JSONV_STR("name", struct node_in, name, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("url", struct node_in, url, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_UINT_REQ("wave", struct node_in, wave, 0, INVENTORY_NODES_MAX),
        JSONV_STR("state", struct node_in, state, JSONV_REQUIRED),
        JSONV_STR("tx", struct node_in, tx, JSONV_REQUIRED),
        JSONV_UINT_REQ("exit_code", struct node_in, exit_code, -1, 255),
        JSONV_UINT_REQ("changes", struct node_in, changes, 0, 1000000),
        JSONV_CUSTOM("baseline_gbps", JSONV_ANY, JSONV_REQUIRED, take_gbps),
        JSONV_CUSTOM("post_gbps", JSONV_ANY, JSONV_REQUIRED, take_gbps),
        JSONV_STR("error", struct node_in, error, JSONV_REQUIRED),
        JSONV_STR("key", struct node_in, key, JSONV_REQUIRED),
        /* Records written before confirm deadlines were kept have neither: 0. */
        JSONV_UINT("confirm_deadline_ms", struct node_in, confirm_deadline_ms, 0, STORE_TIME_MS_MAX),
        JSONV_UINT("not_after_ms", struct node_in, not_after_ms, 0, STORE_TIME_MS_MAX),
        /* Records written before revisions were kept have none of these: not recorded. */
        JSONV_UINT("pre_rev", struct node_in, pre_rev, -1, STORE_REV_MAX),
        JSONV_UINT("rev", struct node_in, rev, 0, STORE_REV_MAX),
        JSONV_STR("undo_tx", struct node_in, undo_tx, 0),
        JSONV_STR("group", struct node_in, group, 0),
        JSONV_UINT("updated_at", struct node_in, updated_at, 0, 1LL << 40),
        FIELD_BY,
        { 0 },
};

/* One node object into r->nodes[its seq]; seq_from..seq_to: where it may be. */
static int node_from(struct jsonv *v, const json_t *j, struct rollout_rec *r, unsigned seq_from,
                     unsigned seq_to)
{
        struct node_in in = { .pre_rev = -1 };
        struct rnode *n;
        int st, rc = jsonv_object(v, j, node_fields, &in);

        if (rc < 0)
                return rc;
        st = rnode_state_from_name(in.state);
        jsonv_push_key(v, st < 0 ? "state" : "seq");
        if (st < 0)
                rc = jsonv_error(v, "'%.32s' is not a node state", in.state);
        else if (in.seq < seq_from || in.seq >= seq_to || in.seq >= r->n_nodes || in.wave >= r->n_waves)
                rc = jsonv_error(v, "node %lld in wave %lld is not one of this record (nodes %u-%u of %u, %u waves)",
                                 in.seq, in.wave, seq_from, seq_to - 1, r->n_nodes, r->n_waves);
        jsonv_pop(v);
        if (rc < 0)
                return rc;
        n = &r->nodes[in.seq];
        memcpy(n->name, in.name, sizeof(n->name));
        memcpy(n->url, in.url, sizeof(n->url));
        n->wave = (unsigned)in.wave;
        n->state = (enum rnode_state)st;
        memcpy(n->tx, in.tx, sizeof(n->tx));
        n->exit_code = (int)in.exit_code;
        n->changes = (unsigned)in.changes;
        n->baseline_gbps = in.base;
        n->post_gbps = in.post;
        memcpy(n->error, in.error, sizeof(n->error));
        memcpy(n->key, in.key, sizeof(n->key));
        n->confirm_deadline_ms = in.confirm_deadline_ms;
        n->not_after_ms = in.not_after_ms;
        n->pre_rev = in.pre_rev;
        n->rev = in.rev;
        memcpy(n->undo_tx, in.undo_tx, sizeof(n->undo_tx));
        memcpy(n->group, in.group, sizeof(n->group));
        return 0;
}

int store_json_parse_node(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e)
{
        json_t *root = NULL;
        struct jsonv v;
        int rc = parse_root(text, len, where, &root, &v, e);

        if (rc >= 0 && !json_is_integer(json_object_get(root, "v")))
                rc = jsonv_error(&v, "$.v: a node record needs its version");
        if (rc >= 0)
                rc = node_from(&v, root, r, 0, r->n_nodes);
        json_decref(root);
        return rc;
}

struct chunk_in {
        long long chunk, updated_at;
        const json_t *nodes;
};

static int take_nodes(struct jsonv *v, const json_t *j, void *obj)
{
        ((struct chunk_in *)obj)->nodes = j;
        return 0;
}

static const struct jsonv_field chunk_fields[] = {
        FIELD_VERSION,
        JSONV_UINT_REQ("chunk", struct chunk_in, chunk, 0, INVENTORY_NODES_MAX),
        JSONV_UINT("updated_at", struct chunk_in, updated_at, 0, 1LL << 40),
        JSONV_CUSTOM("nodes", JSONV_ARRAY, JSONV_REQUIRED, take_nodes),
        FIELD_BY,
        { 0 },
};

struct chunk_ctx {
        struct rollout_rec *r;
        unsigned from, to;
};

static int chunk_node(struct jsonv *v, const json_t *el, size_t i, void *ctx)
{
        const struct chunk_ctx *c = ctx;

        /* In order, each once: the i-th member is node from + i. */
        return node_from(v, el, c->r, c->from + (unsigned)i, c->from + (unsigned)i + 1);
}

int store_json_parse_chunk(const char *text, size_t len, const char *where, unsigned chunk,
                             struct rollout_rec *r, struct errbuf *e)
{
        struct chunk_in in = { 0 };
        json_t *root = NULL;
        struct jsonv v;
        struct chunk_ctx c = { r, chunk * r->chunk_nodes, chunk * r->chunk_nodes + r->chunk_nodes };
        int rc = parse_root(text, len, where, &root, &v, e);

        if (c.to > r->n_nodes)
                c.to = r->n_nodes;
        if (rc >= 0)
                rc = jsonv_object(&v, root, chunk_fields, &in);
        if (rc >= 0 && in.chunk != chunk)
                rc = jsonv_error(&v, "$.chunk: %lld in the record of chunk %u", in.chunk, chunk);
        if (rc >= 0 && c.from >= c.to)
                rc = jsonv_error(&v, "$.chunk: chunk %u of a rollout with %u nodes", chunk, r->n_nodes);
        if (rc >= 0) {
                jsonv_push_key(&v, "nodes");
                rc = jsonv_object_array(&v, in.nodes, "node", "nodes", c.to - c.from, c.to - c.from, chunk_node, &c);
                jsonv_pop(&v);
        }
        json_decref(root);
        return rc;
}

struct drift_in {
        long long id, at, nodes, drifted, unreachable;
};

static const struct jsonv_field drift_fields[] = {
        FIELD_VERSION,
        JSONV_UINT_REQ("id", struct drift_in, id, 0, 9000000000000000000LL),
        JSONV_UINT_REQ("at", struct drift_in, at, 0, 1LL << 40),
        JSONV_UINT_REQ("nodes", struct drift_in, nodes, 0, INVENTORY_NODES_MAX),
        JSONV_UINT_REQ("drifted", struct drift_in, drifted, 0, INVENTORY_NODES_MAX),
        JSONV_UINT_REQ("unreachable", struct drift_in, unreachable, 0, INVENTORY_NODES_MAX),
        { .key = "details", .type = JSONV_ARRAY },
        FIELD_BY,
        { 0 },
};

int store_json_parse_drift(const char *text, size_t len, const char *where, struct drift_scan *ret,
                             struct errbuf *e)
{
        struct drift_in in = { 0 };
        json_t *root = NULL;
        struct jsonv v;
        int rc = parse_root(text, len, where, &root, &v, e);

        if (rc >= 0)
                rc = jsonv_object(&v, root, drift_fields, &in);
        json_decref(root);
        if (rc < 0)
                return rc;
        *ret = (struct drift_scan) { .id = in.id, .at = in.at, .n_nodes = (unsigned)in.nodes,
                                     .n_drifted = (unsigned)in.drifted, .n_unreachable = (unsigned)in.unreachable };
        return 0;
}

struct lease_in {
        long long pid, started_at, rollout_id;
        char host[STORE_HOST_MAX];
};

static const struct jsonv_field lease_fields[] = {
        FIELD_VERSION,
        JSONV_UINT_REQ("pid", struct lease_in, pid, 0, 1LL << 40),
        JSONV_STR("host", struct lease_in, host, JSONV_REQUIRED),
        JSONV_UINT_REQ("started_at", struct lease_in, started_at, 0, 1LL << 40),
        JSONV_UINT_REQ("rollout_id", struct lease_in, rollout_id, 0, 9000000000000000000LL),
        { 0 },
};

int store_json_parse_lease(const char *text, size_t len, const char *where, struct store_lease *ret,
                             struct errbuf *e)
{
        struct lease_in in = { 0 };
        json_t *root = NULL;
        struct jsonv v;
        int rc = parse_root(text, len, where, &root, &v, e);

        if (rc >= 0)
                rc = jsonv_object(&v, root, lease_fields, &in);
        json_decref(root);
        if (rc < 0)
                return rc;
        *ret = (struct store_lease) { .rollout_id = in.rollout_id, .pid = in.pid, .started_at = in.started_at,
                                      .heartbeat = in.started_at };
        snprintf(ret->host, sizeof(ret->host), "%s", in.host);
        return 0;
}
