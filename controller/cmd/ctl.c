/* SPDX-License-Identifier: MIT */
/* Opening the inventory, store and HTTPS client on demand; small option helpers. */
#include <limits.h>
#include <signal.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"
#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"

int ctl_need_inventory(struct ctl *c)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];

        if (c->inv)
                return 0;
        if (inventory_load_file(c->inventory_path, &c->inv, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        return 0;
}

const char *ctl_store_spec(const struct ctl *c)
{
        if (c->store_spec)
                return c->store_spec;
        if (!c->db_given && c->cfg.store[0])
                return c->cfg.store;
        return c->db_path;
}

bool ctl_store_shared(const struct ctl *c)
{
        return !strncmp(ctl_store_spec(c), "etcd://", 7);
}

int ctl_need_store(struct ctl *c)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int r;

        if (c->store)
                return 0;
        if ((r = store_open_spec(ctl_store_spec(c), &c->store_tls, &c->store, &e)) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                return outcome_of_errno(r);
        }
        store_set_lease_ttl(c->store, c->cfg.lease_ttl_s);
        return 0;
}

int ctl_need_lease(struct ctl *c, long long rollout_id)
{
        struct store_lease me, holder;
        struct errbuf e = { 0 };
        char when[64], what[64];
        struct tm tm;
        time_t t;
        int r = ctl_need_store(c);

        if (r > 0)
                return r;
        store_lease_self(&me, rollout_id);
        r = store_lease_take(c->store, &me, &holder, &e);
        if (r == -EBUSY) {
                t = (time_t)holder.started_at;
                strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
                if (holder.rollout_id > 0)
                        snprintf(what, sizeof(what), "rollout %lld", holder.rollout_id);
                else
                        snprintf(what, sizeof(what), "a new rollout");
                log_err("%s: %s is being driven by pid %lld on '%s' since %s; nothing was changed",
                        store_where(c->store), what, holder.pid, holder.host, when);
                return OUTCOME_INVALID;
        }
        return r < 0 ? ctl_fail(&e) : 0;
}

/* The controller's certificate, key and CA must be readable before any node is tried. */
static int check_tls_files(const struct ctl *c)
{
        const struct { const char *key, *path; } f[] = {
                { "ca", c->inv->ca }, { "cert", c->inv->cert }, { "key", c->inv->key },
        };

        for (size_t i = 0; i < ARRAY_SIZE(f); i++)
                if (access(f[i].path, R_OK) < 0) {
                        log_err("%s: $.tls.%s: cannot read '%s': %s; nothing was changed",
                                c->inventory_path, f[i].key, f[i].path, strerror(errno));
                        return OUTCOME_INVALID;
                }
        return 0;
}

int ctl_need_http(struct ctl *c)
{
        struct errbuf e = { 0 };
        struct http_opts o;
        char buf[ERRBUF_STR_MAX];
        int r = ctl_need_inventory(c);

        if (r > 0 || c->http)
                return r;
        r = check_tls_files(c);
        if (r > 0)
                return r;
        http_opts_defaults(&o);
        o.parallel = c->parallel;
        o.max_conns = c->inv->n_nodes < 512 ? c->inv->n_nodes + 1 : 512;
        o.fleet = (unsigned)c->inv->n_nodes;
        if (http_client_new(&(struct http_tls) { c->inv->ca, c->inv->cert, c->inv->key }, &o,
                            &c->http, &e) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_RUNTIME;
        }
        return 0;
}

void ctl_done(struct ctl *c)
{
        http_client_free(c->http);
        store_close(c->store);
        inventory_free(c->inv);
        c->http = NULL;
        c->store = NULL;
        c->inv = NULL;
}

int ctl_parse_uint(const char *opt, const char *s, unsigned min, unsigned max, unsigned *ret)
{
        unsigned long v;
        char *end;

        errno = 0;
        v = s && *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : ULONG_MAX;
        if (!s || errno || v == ULONG_MAX || *end || v < min || v > max) {
                log_err("%s '%s': expected an integer %u-%u; nothing was changed", opt, s ? s : "", min, max);
                return -EINVAL;
        }
        *ret = (unsigned)v;
        return 0;
}

int ctl_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];

        if (jsonv_read_file(path, max, ret, ret_len, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return -EINVAL;
        }
        return 0;
}

int ctl_policy_json(const char *file, char **doc, size_t *len, struct errbuf *e)
{
        char *json = NULL;
        size_t n;
        int r = policy_doc_json(*doc, *len, file, &json, &n, e);

        if (r < 0)
                return r;
        free(*doc);
        *doc = json;
        *len = n;
        return 0;
}

int ctl_select(struct ctl *c, const struct policy *p, const struct inventory_node ***ret, unsigned *ret_n)
{
        const struct inventory_node **v = calloc(c->inv->n_nodes + 1, sizeof(*v));
        unsigned n = 0;

        if (!v)
                return -ENOMEM;
        for (unsigned i = 0; i < c->inv->n_nodes; i++)
                if (!p || policy_selects(p, c->inv->nodes[i].labels, c->inv->nodes[i].n_labels))
                        v[n++] = &c->inv->nodes[i];
        *ret = v;
        *ret_n = n;
        return 0;
}

bool ctl_labels_match(const char *const *labels, unsigned n, const struct inventory_node *node)
{
        for (unsigned i = 0; i < n; i++)
                if (!inventory_selector_match(labels[i], node))
                        return false;
        return true;
}

/* What the rollout engine says while it waits (a soak, a pause, a resumed wave), on stderr. */
static void say_line(void *ud, const char *line)
{
        (void)ud;
        fprintf(stderr, "%s\n", line);
}

void ctl_run_env(struct ctl *c, struct rollout_run_env *ret)
{
        *ret = (struct rollout_run_env) {
                .http = c->http, .store = c->store, .timeout_s = c->timeout_s,
                .progress = c->progress, .say = say_line,
        };
}

int ctl_fail(const struct errbuf *e)
{
        char buf[ERRBUF_STR_MAX];

        log_err("%s", errbuf_str(e, buf, sizeof(buf)));
        return OUTCOME_RUNTIME;
}

struct query_run {
        struct progress p;
        const struct ctl_query_each *each;
        const struct http_req *reqs;
};

/* A live count of the answers on a terminal ("drift: 12/20 nodes done, 1 failed"); each answer used and dropped. */
static void on_answer(struct http_req *q, void *userdata)
{
        struct query_run *u = userdata;

        progress_item(&u->p, q->err < 0 || q->status >= 400, "%s", ((const struct inventory_node *)q->user)->name);
        if (u->each && u->each->fn) {
                u->each->fn(q, (unsigned)(q - u->reqs), u->each->ud);
                http_req_drop_answer(q);
        }
}

/* The requests in the order they are sent: newest kept connections first with CTL_QUERY_REVERSE. */
static int query_reqs(struct ctl *c, const struct inventory_node *const *nodes, unsigned n, const char *method,
                      const char *path, const char *body, unsigned flags, struct http_req *reqs,
                      struct http_req **ptrs)
{
        unsigned keep = flags & CTL_QUERY_KEEP ? http_client_keep(c->http, n) : 0;
        int r = 0;

        for (unsigned i = 0; i < n && r >= 0; i++) {
                reqs[i] = (struct http_req) {
                        .method = method, .body = body, .body_len = body ? strlen(body) : 0,
                        .idempotent = true, .timeout_ms = c->timeout_s * 1000, .user = (void *)nodes[i],
                        /* one request per node: its connection is kept only for a query that follows */
                        .close_after = i + keep < n,
                };
                r = http_url(reqs[i].url, sizeof(reqs[i].url), nodes[i]->url, path);
                ptrs[flags & CTL_QUERY_REVERSE ? n - 1 - i : i] = &reqs[i];
        }
        return r;
}

int ctl_query_each(struct ctl *c, const struct inventory_node *const *nodes, unsigned n, const char *method,
                   const char *path, const char *body, const struct ctl_query_each *each, struct http_req **ret)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        const char *what = strrchr(path, '/');
        struct query_run u = { .each = each, .reqs = reqs };
        int r = reqs && ptrs ? query_reqs(c, nodes, n, method, path, body, each ? each->flags : 0, reqs, ptrs) :
                               -ENOMEM;

        /* The report lists every node: plain lines would repeat it, so a terminal only. */
        progress_init(&u.p, c->progress == PROGRESS_TTY ? PROGRESS_TTY : PROGRESS_OFF, stderr);
        if (r >= 0) {
                progress_begin(&u.p, what ? what + 1 : path, n, "node", NULL);
                r = http_run(c->http, ptrs, n, c->timeout_s * 3000 + 10000, on_answer, &u);
                progress_end(&u.p);
        }
        free(ptrs);
        if (r < 0 || !ret) {
                ctl_query_free(reqs, n);
                return r;
        }
        *ret = reqs;
        return 0;
}

int ctl_query(struct ctl *c, const struct inventory_node *const *nodes, unsigned n,
                const char *method, const char *path, const char *body, struct http_req **ret)
{
        return ctl_query_each(c, nodes, n, method, path, body, NULL, ret);
}

void ctl_query_free(struct http_req *reqs, unsigned n)
{
        if (!reqs)
                return;
        for (unsigned i = 0; i < n; i++)
                http_req_done(&reqs[i]);
        free(reqs);
}

static void on_stop_signal(int sig)
{
        rollout_request_stop(sig);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
}

void ctl_signals_stop_rollout(bool on)
{
        struct sigaction sa = { .sa_handler = on ? on_stop_signal : SIG_DFL, .sa_flags = on ? SA_RESTART : 0 };

        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
}
