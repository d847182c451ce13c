/* SPDX-License-Identifier: MIT */
/* Parsing and validating agent answers. */
#include <math.h>
#include <stdint.h>

#include "controller/fleet/fleet.h"
#include "policies/state/state.h"

int reply_load(const char *body, size_t len, json_t **ret, struct errbuf *e)
{
        json_error_t jerr;
        json_t *j;

        if (!body || len == 0)
                return errbuf_set(e, EBADMSG, "answer", "empty answer");
        j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j)
                return errbuf_set(e, EBADMSG, "answer", "not JSON: %s", jerr.text);
        if (!json_is_object(j)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, "answer", "not a JSON object");
        }
        *ret = j;
        return 0;
}

/* Optional string member copied into buf; wrong type is an error. */
static int get_str(const json_t *o, const char *key, char *buf, size_t size, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        buf[0] = '\0';
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v))
                return errbuf_set(e, EBADMSG, "answer", "$.%s: expected a string", key);
        if (json_string_length(v) >= size)
                return errbuf_set(e, EBADMSG, "answer", "$.%s: longer than %zu bytes", key, size - 1);
        memcpy(buf, json_string_value(v), json_string_length(v) + 1);
        return 0;
}

/* Optional time in ms since the epoch: absent or null = 0; wrong type or out of range is an error. */
static int get_time(const json_t *o, const char *key, long long *ret, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        *ret = 0;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > REPLY_TIME_MAX)
                return errbuf_set(e, EBADMSG, "answer", "$.%s: expected a time in ms 0-%lld", key, REPLY_TIME_MAX);
        *ret = (long long)json_integer_value(v);
        return 0;
}

static double get_gbps(const json_t *probe, const char *key)
{
        const json_t *v = json_object_get(probe, key);
        double d;

        if (!json_is_number(v))
                return NAN;
        d = json_number_value(v);
        return d >= 0 && d < 1e6 ? d : NAN;
}

static int get_tx(const json_t *o, char *buf, size_t size, struct errbuf *e)
{
        const json_t *v = json_object_get(o, "tx");

        buf[0] = '\0';
        if (json_is_integer(v)) {
                if (json_integer_value(v) < 0)
                        return errbuf_set(e, EBADMSG, "answer", "$.tx: negative");
                if (json_integer_value(v) > 0)
                        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                return 0;
        }
        return get_str(o, "tx", buf, size, e);
}

static int get_error(const json_t *o, char *buf, size_t size)
{
        const json_t *v = json_object_get(o, "error");

        buf[0] = '\0';
        if (json_is_string(v))
                snprintf(buf, size, "%s", json_string_value(v));
        else if (json_is_object(v) && json_is_string(json_object_get(v, "message")))
                snprintf(buf, size, "%s", json_string_value(json_object_get(v, "message")));
        return 0;
}

/* "rev": a revision number 1..2^31-1, or null / absent (0). */
static int get_rev(const json_t *o, long long *ret, struct errbuf *e)
{
        const json_t *v = json_object_get(o, "rev");

        *ret = 0;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 2147483647)
                return errbuf_set(e, EBADMSG, "answer", "$.rev: expected null or a revision 1-2147483647");
        *ret = (long long)json_integer_value(v);
        return 0;
}

static int parse_apply_obj(const json_t *j, struct reply_apply *a, struct errbuf *e)
{
        const json_t *ec = json_object_get(j, "exit_code"), *ch = json_object_get(j, "changes");
        const json_t *probe = json_object_get(j, "probe"), *replayed = json_object_get(j, "replayed");
        int r;

        if (!json_is_integer(ec) || json_integer_value(ec) < 0 || json_integer_value(ec) > 4)
                return errbuf_set(e, EBADMSG, "answer", "$.exit_code: expected an integer 0-4");
        a->exit_code = (int)json_integer_value(ec);
        if ((r = get_tx(j, a->tx, sizeof(a->tx), e)) < 0 ||
            (r = get_str(j, "state", a->state, sizeof(a->state), e)) < 0 ||
            (r = get_str(j, "result", a->result, sizeof(a->result), e)) < 0 ||
            (r = get_str(j, "restored_by", a->restored_by, sizeof(a->restored_by), e)) < 0 ||
            (r = get_time(j, "confirm_deadline_ms", &a->confirm_deadline_ms, e)) < 0 ||
            (r = get_rev(j, &a->rev, e)) < 0)
                return r;
        if (replayed && !json_is_boolean(replayed))
                return errbuf_set(e, EBADMSG, "answer", "$.replayed: expected a boolean");
        a->replayed = json_is_true(replayed);
        get_error(j, a->error, sizeof(a->error));
        if (json_is_array(ch))
                a->changes = json_array_size(ch) > REPLY_CHANGES_MAX ? REPLY_CHANGES_MAX :
                             (unsigned)json_array_size(ch);
        else if (json_is_integer(ch) && json_integer_value(ch) >= 0 && json_integer_value(ch) <= REPLY_CHANGES_MAX)
                a->changes = (unsigned)json_integer_value(ch);
        a->baseline_gbps = a->post_gbps = NAN;
        if (json_is_object(probe)) {
                a->baseline_gbps = get_gbps(probe, "baseline_gbps");
                a->post_gbps = get_gbps(probe, "post_gbps");
        }
        return 0;
}

int reply_parse_apply(const char *body, size_t len, struct reply_apply *ret, struct errbuf *e)
{
        struct reply_apply a = { 0 };
        json_t *j;
        int r = reply_load(body, len, &j, e);

        if (r < 0)
                return r;
        r = parse_apply_obj(j, &a, e);
        json_decref(j);
        if (r < 0)
                return r;
        *ret = a;
        return 0;
}

/*
 * A change's owner (layers): {policy, revision}, the layer that owns the field after
 * the change; revision null for the version the change itself commits (the agent
 * numbers it INT64_MAX). NULL when the agent names none.
 */
static json_t *owner_of(const json_t *o)
{
        const json_t *p = json_object_get(o, "policy");
        json_int_t rev = json_integer_value(json_object_get(o, "revision"));

        if (!json_is_string(p))
                return NULL;
        return json_pack("{s:O, s:o}", "policy", p, "revision", rev > 0 && rev < INT32_MAX ? json_integer(rev) :
                         json_null());
}

/* One target of the plan: its changes, each {field, key, from, to} (strings; from, to typed), into the flat list. */
static int plan_target(const json_t *t, size_t i, json_t *flat, uint32_t *fields, struct errbuf *e)
{
        const json_t *name = json_object_get(t, "name"), *changes = json_object_get(t, "changes"), *c;
        static const char *const members[] = { "field", "key", "from", "to" };
        size_t k;

        if (!json_is_object(t) || !json_is_string(name) || !json_is_array(changes))
                return errbuf_set(e, EBADMSG, "answer", "$.targets[%zu]: expected {\"name\": STRING, "
                                  "\"changes\": [...]}", i);
        json_array_foreach(changes, k, c) {
                json_t *o;
                int f;

                for (size_t m = 0; m < ARRAY_SIZE(members); m++) {
                        const json_t *v = json_object_get(c, members[m]);

                        /* from, to: the value as the agent types it (older agents: strings) */
                        if (!json_is_string(v) && (m < 2 || !(json_is_integer(v) || json_is_boolean(v) ||
                                                             json_is_array(v))))
                                return errbuf_set(e, EBADMSG, "answer", "$.targets[%zu].changes[%zu].%s: expected "
                                                  "a %s", i, k, members[m], m < 2 ? "string" : "string, integer, "
                                                  "boolean or list");
                }
                if (json_array_size(flat) >= REPLY_CHANGES_MAX)
                        return errbuf_set(e, EBADMSG, "answer", "$.targets: more than %d changes",
                                          REPLY_CHANGES_MAX);
                f = state_field_from_name(json_string_value(json_object_get(c, "field")));
                if (f >= 0)
                        *fields |= STATE_BIT(f);
                o = json_pack("{s:O,s:O,s:O,s:O,s:O,s:o?}", "target", name, "field", json_object_get(c, "field"),
                              "key", json_object_get(c, "key"), "from", json_object_get(c, "from"),
                              "to", json_object_get(c, "to"), "owner", owner_of(json_object_get(c, "owner")));
                if (!o || json_array_append_new(flat, o) < 0)
                        return errbuf_set(e, ENOMEM, "answer", "out of memory");
        }
        return 0;
}

/* A plan's notes: absent (older agents) or an array of strings, at most REPLY_NOTES_MAX kept. *ret new. */
static int plan_notes(const json_t *notes, json_t **ret, struct errbuf *e)
{
        json_t *out = json_array();
        const json_t *n;
        size_t i;

        if (!out)
                return errbuf_set(e, ENOMEM, "answer", "out of memory");
        if (notes && !json_is_array(notes)) {
                json_decref(out);
                return errbuf_set(e, EBADMSG, "answer", "$.notes: expected an array");
        }
        json_array_foreach(notes, i, n) {
                if (!json_is_string(n)) {
                        json_decref(out);
                        return errbuf_set(e, EBADMSG, "answer", "$.notes[%zu]: expected a string", i);
                }
                if (i < REPLY_NOTES_MAX)
                        json_array_append(out, (json_t *)n);
        }
        *ret = out;
        return 0;
}

/* The agent's plan (docs/api.md): {"policy", "changes": N, "targets": [{kind, name, changes: [...]}], "notes"}. */
int reply_parse_plan(const char *body, size_t len, struct reply_plan *ret, struct errbuf *e)
{
        json_t *j, *targets, *t, *flat = json_array();
        uint32_t fields = 0;
        size_t i;
        int r = reply_load(body, len, &j, e);

        if (r < 0) {
                json_decref(flat);
                return r;
        }
        targets = json_object_get(j, "targets");
        if (!flat)
                r = errbuf_set(e, ENOMEM, "answer", "out of memory");
        else if (!json_is_array(targets))
                r = errbuf_set(e, EBADMSG, "answer", "$.targets: expected an array");
        json_array_foreach(targets, i, t)
                if (r >= 0)
                        r = plan_target(t, i, flat, &fields, e);
        if (r >= 0)
                r = plan_notes(json_object_get(j, "notes"), &ret->notes, e);
        if (r >= 0) {
                ret->n_changes = (unsigned)json_array_size(flat);
                ret->fields = fields;
                ret->changes = json_incref(flat);
        }
        json_decref(flat);
        json_decref(j);
        return r;
}

void reply_plan_done(struct reply_plan *p)
{
        json_decref(p->changes);
        json_decref(p->notes);
        p->changes = p->notes = NULL;
}

/* Drift answers name their findings "drift" (bool or array), "drifted" (bool) or "changes"/"entries". */
int reply_parse_drift(const char *body, size_t len, struct reply_drift *ret, struct errbuf *e)
{
        static const char *const lists[] = { "entries", "changes", "drift", "targets" };
        const json_t *flag;
        json_t *j;
        int r = reply_load(body, len, &j, e);

        if (r < 0)
                return r;
        *ret = (struct reply_drift) { .doc = j };
        for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
                const json_t *l = json_object_get(j, lists[i]);

                if (json_is_array(l) && i < 3) {
                        ret->n_entries = (unsigned)(json_array_size(l) > REPLY_CHANGES_MAX ?
                                                    REPLY_CHANGES_MAX : json_array_size(l));
                        ret->drifted = ret->n_entries > 0;
                        break;
                }
        }
        flag = json_object_get(j, "drifted");
        if (!flag)
                flag = json_object_get(j, "drift");
        if (flag && json_is_boolean(flag))
                ret->drifted = json_is_true(flag);
        else if (flag && !json_is_array(flag) && !json_is_null(flag)) {
                reply_drift_done(ret);
                return errbuf_set(e, EBADMSG, "answer", "$.drifted: expected a boolean");
        }
        return 0;
}

void reply_drift_done(struct reply_drift *d)
{
        json_decref(d->doc);
        d->doc = NULL;
}

const char *reply_error_text(long status, const char *body, size_t len, char *buf, size_t size)
{
        json_t *j = body && len ? json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
        const json_t *err = json_object_get(j, "error");
        const char *msg = json_string_value(json_object_get(err, "message"));
        const char *code = json_string_value(json_object_get(err, "code"));
        const char *path = json_string_value(json_object_get(err, "path"));

        if (msg && path && *path)
                snprintf(buf, size, "HTTP %ld: %.*s: %.200s (%.40s)", status, 100, path, msg, code ? code : "error");
        else if (msg)
                snprintf(buf, size, "HTTP %ld: %.300s (%.40s)", status, msg, code ? code : "error");
        else
                snprintf(buf, size, "HTTP %ld", status);
        json_decref(j);
        return buf;
}

/* One transaction object; messages name members from the object ($.state). */
static int history_entry(const json_t *o, struct reply_history_tx *h, struct errbuf *e)
{
        const json_t *ec = json_object_get(o, "exit_code");
        int r;

        memset(h, 0, sizeof(*h));
        if ((r = get_tx(o, h->tx, sizeof(h->tx), e)) < 0 ||
            (r = get_str(o, "state", h->state, sizeof(h->state), e)) < 0 ||
            (r = get_str(o, "kind", h->kind, sizeof(h->kind), e)) < 0 ||
            (r = get_str(o, "result", h->result, sizeof(h->result), e)) < 0 ||
            (r = get_str(o, "restored_by", h->restored_by, sizeof(h->restored_by), e)) < 0 ||
            (r = get_time(o, "confirm_deadline_ms", &h->confirm_deadline_ms, e)) < 0 ||
            (r = get_time(o, "now_ms", &h->now_ms, e)) < 0)
                return r;
        if (ec && (!json_is_integer(ec) || json_integer_value(ec) < -1 || json_integer_value(ec) > 4))
                return errbuf_set(e, EBADMSG, "answer", "$.exit_code: expected an integer -1..4");
        h->exit_code = ec ? (int)json_integer_value(ec) : -1;
        if ((r = get_rev(o, &h->rev, e)) < 0 || (r = get_str(o, "policy", h->policy, sizeof(h->policy), e)) < 0)
                return r;
        get_error(o, h->error, sizeof(h->error));
        return 0;
}

/* The history answer's list of transactions, or -EBADMSG. *ret is borrowed from *root. */
static int history_list(const char *body, size_t len, json_t **root, const json_t **ret, struct errbuf *e)
{
        const json_t *arr;
        int r = reply_load(body, len, root, e);

        if (r < 0)
                return r;
        arr = json_object_get(*root, "transactions");
        if (!json_is_array(arr) || json_array_size(arr) > REPLY_HISTORY_MAX) {
                json_decref(*root);
                *root = NULL;
                return errbuf_set(e, EBADMSG, "answer", "$.transactions: expected an array of at most %u "
                                  "transactions", REPLY_HISTORY_MAX);
        }
        *ret = arr;
        return 0;
}

/* Entry i of a history list, with its idempotency key (NULL: none). */
static int history_item(const json_t *o, size_t i, struct reply_history_tx *h, const char **ret_key,
                        struct errbuf *e)
{
        const json_t *k = json_is_object(o) ? json_object_get(o, "idempotency_key") : NULL;
        int r;

        if (!json_is_object(o))
                return errbuf_set(e, EBADMSG, "answer", "$.transactions[%zu]: expected an object", i);
        if (k && !json_is_string(k) && !json_is_null(k))
                return errbuf_set(e, EBADMSG, "answer", "$.transactions[%zu].idempotency_key: expected a string", i);
        r = history_entry(o, h, e);
        if (r < 0) {
                errbuf_prefix(e, "$.transactions[%zu]", i);
                return r;
        }
        *ret_key = json_string_value(k);
        return 0;
}

/*
 * Visit a history answer's transactions, newest first, until visit returns nonzero
 * (that is the result) or the list ends (0). A malformed entry is -EBADMSG.
 */
static int history_walk(const char *body, size_t len,
                        int (*visit)(const struct reply_history_tx *h, const char *key, void *ud), void *ud,
                        struct errbuf *e)
{
        const json_t *arr;
        json_t *j, *o;
        size_t i;
        int r = history_list(body, len, &j, &arr, e);

        if (r < 0)
                return r;
        json_array_foreach(arr, i, o) {
                struct reply_history_tx h;
                const char *k = NULL;

                r = history_item(o, i, &h, &k, e);
                if (r == 0)
                        r = visit(&h, k, ud);
                if (r != 0)
                        break;
        }
        json_decref(j);
        return r;
}

struct find_ctx {
        const char *key, *tx;
        struct reply_history_tx *ret;
};

static int find_visit(const struct reply_history_tx *h, const char *k, void *ud)
{
        struct find_ctx *f = ud;

        if (f->key && f->key[0] ? !k || !streq(k, f->key) : !f->tx || !f->tx[0] || !streq(h->tx, f->tx))
                return 0;
        *f->ret = *h;
        return 1;
}

int reply_find_history(const char *body, size_t len, const char *key, const char *tx,
                       struct reply_history_tx *ret, struct errbuf *e)
{
        struct find_ctx f = { key, tx, ret };

        return history_walk(body, len, find_visit, &f, e);
}

struct after_ctx {
        const char *tx;
        unsigned newer;
        struct reply_history_tx newest;
};

static int after_visit(const struct reply_history_tx *h, const char *k, void *ud)
{
        struct after_ctx *a = ud;

        if (a->tx && a->tx[0] && streq(h->tx, a->tx))
                return streq(h->state, "committed") ? 1 : 2;    /* 2: listed, not committed */
        if (streq(h->state, "committed") && a->newer++ == 0)
                a->newest = *h;
        return 0;
}

int reply_history_committed_after(const char *body, size_t len, const char *tx, unsigned *ret_newer,
                                  struct reply_history_tx *ret_newest, struct errbuf *e)
{
        struct after_ctx a = { .tx = tx, .newest = { .exit_code = -1 } };
        int r = history_walk(body, len, after_visit, &a, e);

        if (r < 0)
                return r;
        *ret_newer = a.newer;
        if (ret_newest)
                *ret_newest = a.newest;
        return r == 1;
}

struct revision_ctx {
        const char *key, *tx;
        struct reply_revision *ret;
        unsigned seen;
        bool have_newest, have_before;
};

static bool in_flight(const char *state)
{
        return !streq(state, "committed") && !streq(state, "rolled_back") && !streq(state, "failed");
}

static int revision_visit(const struct reply_history_tx *h, const char *k, void *ud)
{
        struct revision_ctx *c = ud;
        struct reply_revision *r = c->ret;
        bool ours = c->key && c->key[0] ? k && streq(k, c->key) : c->tx && c->tx[0] && streq(h->tx, c->tx);

        c->seen++;
        if (r->found && !c->have_before && streq(h->state, "committed")) {
                c->have_before = true;
                r->before_rev = h->rev > 0 ? h->rev : -1;
        }
        if (ours && !r->found) {
                r->found = true;
                r->ours = *h;
        }
        if (!c->have_newest && streq(h->state, "committed")) {
                c->have_newest = true;
                r->newest = *h;
                r->rev = h->rev;
        } else if (!c->have_newest && in_flight(h->state) && !r->busy) {
                r->busy = true;
                r->busy_tx = *h;
        }
        if (!r->found && streq(h->state, "committed"))
                r->committed_after++;
        return 0;
}

int reply_history_revision(const char *body, size_t len, const char *key, const char *tx,
                           struct reply_revision *ret, struct errbuf *e)
{
        struct reply_revision r = { .newest = { .exit_code = -1 } };
        struct revision_ctx c = { .key = key, .tx = tx, .ret = &r };
        int rc = history_walk(body, len, revision_visit, &c, e);

        if (rc < 0)
                return rc;
        /*
         * Nothing committed in what is listed: none ever was, unless the page is full.
         * A commit without its revision (an agent that does not say) says nothing either.
         */
        r.known = c.have_newest ? r.rev > 0 : c.seen < REPLY_HISTORY_PAGE;
        if (!r.found)
                r.committed_after = 0;
        /* ours found and nothing committed before it in what is listed: none ever, unless the page is full */
        if (!r.found || (!c.have_before && c.seen >= REPLY_HISTORY_PAGE))
                r.before_rev = -1;
        *ret = r;
        return 0;
}

int reply_parse_transaction(const char *body, size_t len, const char *tx, struct reply_history_tx *ret,
                            struct errbuf *e)
{
        struct reply_history_tx h;
        json_t *j;
        int r = reply_load(body, len, &j, e);

        if (r < 0)
                return r;
        r = history_entry(j, &h, e);
        json_decref(j);
        if (r < 0)
                return r;
        if (!h.tx[0] || !tx || !streq(h.tx, tx))
                return errbuf_set(e, EBADMSG, "answer", "$.tx: '%s' is not the transaction asked for ('%s')",
                                  h.tx, tx ? tx : "");
        if (!h.state[0])
                return errbuf_set(e, EBADMSG, "answer", "$.state: expected the transaction's state");
        *ret = h;
        return 0;
}

/* A string member of an agent's {"error": {...}} into buf, "" when there is none. */
static const char *error_member(const char *body, size_t len, const char *member, char *buf, size_t size)
{
        json_t *j = body && len ? json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
        const char *v = json_string_value(json_object_get(json_object_get(j, "error"), member));

        snprintf(buf, size, "%s", v ? v : "");
        json_decref(j);
        return buf;
}

const char *reply_error_path(const char *body, size_t len, char *buf, size_t size)
{
        return error_member(body, len, "path", buf, size);
}

const char *reply_error_code(const char *body, size_t len, char *buf, size_t size)
{
        return error_member(body, len, "code", buf, size);
}

const char *reply_error_message(const char *body, size_t len, char *buf, size_t size)
{
        return error_member(body, len, "message", buf, size);
}
