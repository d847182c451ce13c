/* SPDX-License-Identifier: MIT */
/*
 * controller/fleet: the nodes and how the controller talks to them — the inventory
 * (inventory.c), HTTPS fan-out to many agents at once (fleet_http.c, libcurl multi,
 * mTLS) and the agents' answers parsed strictly (reply.c).
 *
 * May call: policies/ (the validator, the policy model), common/. Called by every other
 * controller module.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "policies/policy/policy.h"

/*
 * The controller's inventory (spec "Inventory"): the TLS material the controller
 * presents and trusts, and the nodes with their agent URL and labels. Validated
 * strictly: unknown keys, duplicate keys, wrong types, bad URLs and duplicate node
 * names are errors naming the file and the JSON path:
 *
 *   inventory.json: $.nodes[3].url: 'http://x' is not an https:// URL (host[:port], no query)
 *
 * Relative TLS file names are resolved against the inventory file's directory.
 */



#define INVENTORY_NODES_MAX 10000
#define INVENTORY_NAME_MAX 64           /* node names: [A-Za-z0-9._-], 1-63 chars */
#define INVENTORY_URL_MAX 256
#define INVENTORY_PATH_MAX 512
#define INVENTORY_DOC_MAX (16u << 20)   /* bytes: larger files are refused */

struct inventory_node {
        char name[INVENTORY_NAME_MAX];
        char url[INVENTORY_URL_MAX];            /* "https://host:port", no trailing slash */
        unsigned n_labels;
        struct policy_label *labels;            /* owned: n_labels of them (at most POLICY_LABELS_MAX) */
};

struct inventory {
        char ca[INVENTORY_PATH_MAX];
        char cert[INVENTORY_PATH_MAX];
        char key[INVENTORY_PATH_MAX];
        unsigned n_nodes;
        struct inventory_node *nodes;           /* owned */
        unsigned *by_name_, by_name_cap_;       /* private: node index + 1 by name (open addressing) */
};

/*
 * Parse and validate. `name` is used in messages; `basedir` resolves relative TLS
 * paths (NULL = as given). *ret is owned by the caller (inventory_free) and written
 * only on success; on failure returns -EINVAL or -errno and fills e.
 */
int inventory_parse_buffer(const char *buf, size_t len, const char *name, const char *basedir,
                           struct inventory **ret, struct errbuf *e);
int inventory_load_file(const char *path, struct inventory **ret, struct errbuf *e);
void inventory_free(struct inventory *inv);

/* The node called `name`, or NULL (a hash lookup in a parsed inventory). */
const struct inventory_node *inventory_find(const struct inventory *inv, const char *name);

/* Does a node carry label key=value? */
bool inventory_node_has_label(const struct inventory_node *n, const char *key, const char *value);

/*
 * Set-based selectors over inventory labels (selector.c; one --selector argument):
 * requirements separated by commas outside parentheses, every one of which a node
 * meets, as Kubernetes label selectors spell them:
 *
 *   KEY=VALUE, KEY==VALUE   the node's label KEY is VALUE
 *   KEY!=VALUE              it is not (a node without KEY meets it)
 *   KEY in (A,B,...)        it is one of them
 *   KEY notin (A,B,...)     it is none of them (a node without KEY meets it)
 *   KEY / !KEY              the node carries KEY / does not
 *
 * e.g. "role in (gpu,fabric),rack!=r9". check: -EINVAL with e naming what is wrong.
 * match: does n meet s (false when s is not valid)? plain: is s only KEY=VALUE ones?
 */
int inventory_selector_check(const char *s, struct errbuf *e);
bool inventory_selector_match(const char *s, const struct inventory_node *n);
bool inventory_selector_plain(const char *s);

/*
 * An inventory from `kubectl get nodes -o json` (inventory_k8s.c): one node per
 * Kubernetes node that carries agent_label (with agent_value, when given): its
 * metadata.name, the agent URL from url_template ({address}: its first address of
 * type address_type, an IPv6 one in brackets; {name}: its name), and its labels whose
 * keys start with one of prefixes (all_labels: every one), keys and values as they
 * are. The document is then read back by inventory_parse_buffer: it is valid exactly
 * when a hand-written one would be, and an error names the Kubernetes item and node
 * ("FILE: $.items[3] (node 'gpu-7'): no InternalIP address (it has: Hostname)").
 * Nodes without the agent's label are left out, the first INVENTORY_K8S_NAMED_MAX
 * of them named. On success ret->text is the inventory (JSON, owned: free()).
 */
#define INVENTORY_K8S_DOC_MAX (512u << 20)      /* bytes of kubectl's output at most */
#define INVENTORY_K8S_NAMED_MAX 32
#define INVENTORY_K8S_PREFIXES_MAX 8

struct inventory_k8s_opts {
        const char *address_type;               /* "InternalIP" (or ExternalIP, Hostname, InternalDNS, ...) */
        const char *url_template;               /* "https://{address}:7440" */
        const char *agent_label;                /* "nettune.io/agent"; "" or NULL: every node */
        const char *agent_value;                /* NULL: any value */
        bool all_labels;
        unsigned n_prefixes;
        const char *prefixes[INVENTORY_K8S_PREFIXES_MAX];
        const char *ca, *cert, *key;            /* the inventory's tls object */
        struct errbuf *e;
};

struct inventory_k8s {
        char *text;                             /* owned */
        unsigned n_items, n_nodes, n_left_out;
        char left_out[INVENTORY_K8S_NAMED_MAX][254];
};

int inventory_from_kubernetes(const char *buf, size_t len, const char *file, const struct inventory_k8s_opts *o,
                              struct inventory_k8s *ret);


/*
 * HTTPS fan-out over libcurl multi: many requests to many agents at once, with
 * the controller's client certificate, agent certificates verified against the
 * inventory's CA, connections kept and reused across batches, a per-request and
 * an overall deadline, bounded concurrency, and retries with exponential backoff
 * for idempotent requests, and for any request that never left this host (its
 * connection or TLS handshake failed: nothing of it reached the agent; an apply
 * that went out is not sent again from here). libcurl itself sends a request once
 * more on a new connection when a connection it reused dies before a byte of the
 * answer (lib/transfer.c Curl_retry_request; 7.88 has no option against it): every
 * apply and every rollback carries an idempotency key for that.
 *
 * Cost per request is constant whatever the fleet: requests start in order from a
 * cursor (retries from a queue ordered by when they are due), easy handles and
 * headers are made once and reused, a connection made for a node's apply can be kept
 * until its confirm (http_client_keep) and libcurl keeps no DNS cache (its pruning
 * walks every name it holds on each request: the whole fleet's, within a minute).
 */



#define HTTP_BODY_MAX (4u << 20)        /* bytes: larger answers are refused */
#define HTTP_URL_MAX 512

struct http_tls {
        const char *ca, *cert, *key;
};

struct http_opts {
        unsigned parallel;              /* requests in flight at most (default 32) */
        unsigned connect_timeout_ms;    /* default 3000 */
        unsigned retries;               /* extra attempts for idempotent requests (default 2) */
        unsigned backoff_ms;            /* first retry delay, doubled each time (default 200) */
        unsigned max_conns;             /* connections kept for reuse (default 256) */
        unsigned fleet;                 /* nodes this client will talk to (0: unknown): sizes what is kept */
};

/*
 * What TLS state a client keeps, in memory: an idle connection costs about 45 KB in libcurl
 * and OpenSSL, a session kept for resumption about 2 KB (fleet_tls.c), and sessions take
 * HTTP_SESSIONS_BYTES at most. Connections kept and a session for every node of the
 * fleet share HTTP_TLS_BUDGET; at most HTTP_KEEP_MAX connections are kept (1,024 for a
 * fleet of 1,000 nodes, about 650 for one of 10,000, 546 for any fleet of 12,288 or more).
 */
#define HTTP_KEEP_MAX 1024
#define HTTP_TLS_BUDGET (48u << 20)
#define HTTP_SESSIONS_BYTES (24u << 20)
#define HTTP_CONN_COST (45u << 10)      /* bytes: an idle connection, as counted against the budget */
#define HTTP_SESSION_COST 2048u         /* bytes: a session kept, the same */

/* What a client did so far, for benchmarks and tests. */
struct http_stats {
        unsigned long long attempts;    /* attempts started */
        unsigned long long connects;    /* new connections made for them (TLS handshakes) */
        unsigned long long resumed;     /* ... of which resumed a session (no certificates, no signatures) */
        unsigned long long retries;     /* attempts that were retries */
        unsigned long long handles;     /* libcurl easy handles made (reused across requests) */
};

struct http_req {
        /* Set by the caller. */
        const char *method;             /* "GET" or "POST" */
        char url[HTTP_URL_MAX];
        const char *body;               /* POST body (not owned), NULL = empty */
        size_t body_len;
        bool idempotent;                /* may be retried */
        bool close_after;               /* nothing more is asked of this node soon: its connection is closed
                                           when the request ends, not kept (see http_client_keep) */
        unsigned timeout_ms;            /* per attempt */
        void *user;

        /* Results. */
        long status;                    /* HTTP status, 0 = no answer */
        char *resp;                     /* owned, NUL-terminated; http_req_done frees */
        size_t resp_len;
        int err;                        /* 0 or -errno: -ETIMEDOUT, -ECONNREFUSED, -EPROTO (TLS), -EFBIG, -EIO,
                                           -ECANCELED (the gate said no: never sent) */
        char errmsg[256];               /* transport error text when err < 0 */
        unsigned attempts;
        bool sent;                      /* some of the last attempt went out; false: it never reached the agent */

        /* Private to http.c. */
        void *easy_;
        long long not_before_ms_;
        size_t cap_;
        bool queued_, done_;
};

struct http_client;

/* "https://host:port" + "/v1/plan" into buf; -ENAMETOOLONG if it does not fit. */
int http_url(char *buf, size_t size, const char *base, const char *path);

void http_opts_defaults(struct http_opts *o);
int http_client_new(const struct http_tls *tls, const struct http_opts *o, struct http_client **ret,
                    struct errbuf *e);
void http_client_free(struct http_client *c);

/*
 * Run n requests to completion (or until overall_ms passes: those left get
 * -ETIMEDOUT). on_done (optional) is called once per request as it finishes,
 * from this thread. Returns 0, or -ENOMEM/-EIO when libcurl itself failed.
 */
int http_run(struct http_client *c, struct http_req **reqs, size_t n, unsigned overall_ms,
             void (*on_done)(struct http_req *r, void *userdata), void *userdata);

/*
 * A gate asked before each request is started: when it says no, the request is
 * not sent and ends with -ECANCELED (a controller that lost its leadership
 * sends nothing more). NULL removes it.
 */
void http_client_set_gate(struct http_client *c, bool (*may_send)(void *ud), void *ud);

/* Requests in flight at most from now on (at least 1, at most as descriptors allow); returns the bound it replaces. */
unsigned http_client_set_parallel(struct http_client *c, unsigned parallel);

/*
 * Keep up to n idle connections for reuse from now on, beside those of the requests in
 * flight (never fewer than max_conns or than an earlier call asked, never more than
 * HTTP_TLS_BUDGET leaves beside the fleet's sessions, HTTP_KEEP_MAX or the open-file
 * limit allow): a rollout keeps the connections of its pre-flight for its first
 * applies, and those of each node of a wave from its apply to its confirm. Returns how many of the n are kept: a caller with more nodes than that
 * sets close_after on the requests of the others, so that libcurl's cache never fills (a
 * full cache looks at every connection it holds each time one is put back).
 */
unsigned http_client_keep(struct http_client *c, unsigned n);

void http_client_stats(const struct http_client *c, struct http_stats *ret);

/* Free a finished request's answer at once (its results stay): answers are not kept until the run ends. */
void http_req_drop_answer(struct http_req *r);

/* Free the answer and reset the results so the request can be run again. */
void http_req_done(struct http_req *r);

/* "cannot connect (...)", "timed out (...)", "HTTP 409" for messages (the caller says what failed). */
const char *http_req_error(const struct http_req *r, char *buf, size_t size);

long long http_now_ms(void);


/*
 * Agent answers, validated like any outside input: JSON of bounded size, the
 * expected types, bounded strings and counts. Unknown keys are ignored (newer
 * agents may add some); wrong types of known keys are errors.
 */



#define REPLY_CHANGES_MAX 100000
#define REPLY_TIME_MAX 253402300799999LL        /* ms since the epoch: the end of year 9999 */

struct reply_apply {
        char tx[64];                    /* "" = nothing was journaled */
        char state[32];                 /* "PENDING_CONFIRM", "COMMITTED", ... as the agent says */
        char result[32];                /* "committed", "pending_confirm", "nothing_to_do", "rolled_back", ... */
        int exit_code;                  /* 0-4 */
        unsigned changes;
        double baseline_gbps, post_gbps;        /* NAN = none */
        char restored_by[32];
        char error[256];
        long long confirm_deadline_ms;  /* pending: when the agent restores it (its clock), 0 = not said */
        long long rev;                  /* committed: the revision its commit recorded, 0 = not said */
        bool replayed;                  /* answered from the journal for a key already journaled */
};

struct reply_plan {
        unsigned n_changes;
        uint32_t fields;                /* STATE_BIT of every changing field the agent named */
        json_t *changes;                /* owned: [{target, field, key, from, to}] */
        json_t *notes;                  /* owned: the agent's notes, [string] (at most REPLY_NOTES_MAX) */
};
#define REPLY_NOTES_MAX 256

struct reply_drift {
        bool drifted;
        unsigned n_entries;
        json_t *doc;                    /* owned: the whole answer */
};

/* An answer's JSON object (not empty, JSON, duplicates refused, an object). New reference in *ret. */
int reply_load(const char *body, size_t len, json_t **ret, struct errbuf *e);

/* An apply, rollback or confirm answer (all share the transaction result shape). */
int reply_parse_apply(const char *body, size_t len, struct reply_apply *ret, struct errbuf *e);
int reply_parse_plan(const char *body, size_t len, struct reply_plan *ret, struct errbuf *e);
void reply_plan_done(struct reply_plan *p);
int reply_parse_drift(const char *body, size_t len, struct reply_drift *ret, struct errbuf *e);
void reply_drift_done(struct reply_drift *d);

/* One transaction of GET /v1/history that a node step is looking for. */
struct reply_history_tx {
        char tx[64];
        char kind[16];                  /* "apply", "rollback", "enforce", "" = not said */
        char state[32];                 /* "pending_confirm", "committed", "rolled_back", ... */
        char result[32];
        int exit_code;                  /* -1 while running */
        char error[256];
        char restored_by[32];           /* "" or "gate", "confirm-timeout", ... */
        long long confirm_deadline_ms;
        long long now_ms;               /* GET /v1/transactions: the agent's clock when it answered, 0 = not said */
        long long rev;                  /* the revision its commit recorded, 0 = none (null) */
        char policy[64];                /* the policy's name, "" = none */
};

#define REPLY_HISTORY_MAX 10000         /* transactions in one answer */

/*
 * Find in a history answer ({"transactions": [...]}, newest first) the transaction whose
 * idempotency_key is key (key non-empty), else the one whose tx is tx. 1 found,
 * 0 not there, -EBADMSG for a malformed answer.
 */
int reply_find_history(const char *body, size_t len, const char *key, const char *tx,
                       struct reply_history_tx *ret, struct errbuf *e);

/*
 * In a history answer (newest first), the committed transactions listed before (newer
 * than) transaction tx: how many (*ret_newer) and the newest of them (ret_newest, when
 * there is one). 1 when tx is listed and committed, 0 when it is not listed or not
 * committed, -EBADMSG for a malformed answer.
 */
int reply_history_committed_after(const char *body, size_t len, const char *tx, unsigned *ret_newer,
                                  struct reply_history_tx *ret_newest, struct errbuf *e);

#define REPLY_HISTORY_PAGE 100          /* transactions GET /v1/history lists at most (docs/api.md) */

/*
 * What a history answer says of a node's revisions: its current one (the newest
 * committed transaction's rev) and, when asked for (key or tx), one transaction of
 * ours. known is false when the answer cannot say: a full page without any commit,
 * or a commit without its revision number.
 */
struct reply_revision {
        bool known;
        long long rev;                          /* the current revision, 0 = none ever committed */
        struct reply_history_tx newest;         /* the transaction that committed it (tx "" when none) */
        bool busy;                              /* a transaction newer than it is still running or pending */
        struct reply_history_tx busy_tx;        /* the newest such one */
        bool found;                             /* ours (by key, else by tx) is listed */
        struct reply_history_tx ours;
        unsigned committed_after;               /* committed transactions newer than ours */
        long long before_rev;                   /* the revision current when ours started: the newest commit
                                                   older than it (0: none ever); -1 = not known */
};

/* Summarise a history answer; key and tx (either may be NULL or "") name ours. 0 or -EBADMSG. */
int reply_history_revision(const char *body, size_t len, const char *key, const char *tx,
                           struct reply_revision *ret, struct errbuf *e);

/*
 * GET /v1/transactions/{tx}: the transaction as the agent's journal has it, with the
 * agent's clock (now_ms). It must be transaction tx and name its state. 0, or -EBADMSG.
 */
int reply_parse_transaction(const char *body, size_t len, const char *tx, struct reply_history_tx *ret,
                            struct errbuf *e);

/* The code of an agent's error body ({"error":{"code":...}}) into buf, "" when there is none. */
const char *reply_error_code(const char *body, size_t len, char *buf, size_t size);
/* Its "path" (the JSON path of what was refused) into buf, "" when there is none. */
const char *reply_error_path(const char *body, size_t len, char *buf, size_t size);
/* Its "message" into buf, "" when there is none. */
const char *reply_error_message(const char *body, size_t len, char *buf, size_t size);

/* The agent's {"error":{code,message,path}} as "message (code, at path)"; fallback "HTTP N". */
const char *reply_error_text(long status, const char *body, size_t len, char *buf, size_t size);
