/* SPDX-License-Identifier: MIT */
/* Progress lines and rollout reports. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "controller/rollout/rollout.h"

void output_progress_begin(struct output_progress *p, enum progress_mode mode, const char *what,
                           unsigned wave, unsigned n_waves, unsigned total)
{
        *p = (struct output_progress) { .n_probed = 0 };
        progress_init(&p->p, mode, stderr);
        if (wave < n_waves)
                progress_begin(&p->p, what, total, "node", "wave %u/%u", wave + 1, n_waves);
        else                    /* a step over nodes of every wave */
                progress_begin(&p->p, what, total, "node", "%u waves", n_waves);
}

static void gbps_text(const struct rnode *n, char *buf, size_t size)
{
        buf[0] = '\0';
        if (!isnan(n->baseline_gbps) && !isnan(n->post_gbps))
                snprintf(buf, size, ", %.2f -> %.2f Gb/s", n->baseline_gbps, n->post_gbps);
}

void output_progress_node(struct output_progress *p, const struct rnode *n, bool failed)
{
        char g[64];

        if (!isnan(n->baseline_gbps) && !isnan(n->post_gbps)) {
                p->base_sum += n->baseline_gbps;
                p->post_sum += n->post_gbps;
                p->n_probed++;
                progress_note(&p->p, "%.2f -> %.2f Gb/s (mean)", p->base_sum / p->n_probed,
                              p->post_sum / p->n_probed);
        }
        gbps_text(n, g, sizeof(g));
        progress_item(&p->p, failed, "%s: %s%s%s%s", n->name, rnode_state_name(n->state), g,
                      n->error[0] ? ": " : "", n->error);
}

void output_progress_end(struct output_progress *p)
{
        progress_end(&p->p);
}

static json_t *real_or_null(double v)
{
        return isnan(v) ? json_null() : json_real(v);
}

static json_t *time_or_null(long long ms)
{
        return ms > 0 ? json_integer(ms) : json_null();
}

/* The agent's transaction id as the agent writes it: a number ("" none: null). */
static json_t *tx_json(const char *tx)
{
        char *end;
        long long id;

        if (!tx[0])
                return json_null();
        errno = 0;
        id = strtoll(tx, &end, 10);
        return !*end && !errno && id > 0 ? json_integer(id) : json_string(tx);
}

static json_t *node_json(const struct rnode *n)
{
        /* wave: counted from 1, as the text and the progress lines count them. */
        /* idempotency_key: the key its apply carried (GET /v1/history on the node shows it too). */
        /* confirm_deadline_ms: its agent's, not_after_ms: its confirm's (ms since the epoch; null: none). */
        /* pre_rev: its agent's revision before this rollout changed it (0: none; null: not recorded);
         * rev: the revision its change committed as; undo_tx: the transaction that put it back; group: --wave-by's. */
        return json_pack("{s:s, s:s, s:i, s:s, s:o, s:i, s:i, s:o, s:o, s:s?, s:s*, s:o, s:o, s:o, s:o, s:o, s:s*}",
                         "name", n->name, "url", n->url, "wave", (int)n->wave + 1,
                         "state", rnode_state_name(n->state), "tx", tx_json(n->tx),
                         "exit_code", n->exit_code, "changes", (int)n->changes,
                         "baseline_gbps", real_or_null(n->baseline_gbps),
                         "post_gbps", real_or_null(n->post_gbps),
                         "error", n->error[0] ? n->error : NULL,
                         "idempotency_key", n->key[0] ? n->key : NULL,
                         "confirm_deadline_ms", time_or_null(n->confirm_deadline_ms),
                         "not_after_ms", time_or_null(n->not_after_ms),
                         "pre_rev", n->pre_rev >= 0 ? json_integer(n->pre_rev) : json_null(),
                         "rev", n->rev > 0 ? json_integer(n->rev) : json_null(),
                         "undo_tx", tx_json(n->undo_tx),
                         "group", n->group[0] ? n->group : NULL);
}

json_t *output_time_json(long long t)
{
        char buf[32];
        time_t tt = (time_t)t;
        struct tm tm;

        if (t <= 0 || !gmtime_r(&tt, &tm))
                return json_null();
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        return json_string(buf);
}

/* Who asked for it and why, what exactly, over which nodes: the members recorded. */
static void who_json(json_t *j, const struct rollout_opts *o)
{
        const struct {
                const char *name, *v;
        } m[] = {
                { "reason", o->reason }, { "user", o->user }, { "cert_cn", o->cert_cn },
                { "policy_sha256", o->policy_sha256 }, { "selector", o->selector },
        };

        for (size_t i = 0; j && i < ARRAY_SIZE(m); i++)
                if (m[i].v[0])
                        json_object_set_new(j, m[i].name, json_string(m[i].v));
}

json_t *output_rollout_json(const struct rollout_rec *r)
{
        unsigned counts[RNODE_STATE_MAX];
        json_t *nodes = json_array(), *waves = json_array(), *summary = json_object(), *j;

        rollout_rec_count_states(r, counts);
        for (int s = 0; s < RNODE_STATE_MAX; s++)
                json_object_set_new(summary, rnode_state_name(s), json_integer(counts[s]));
        for (unsigned i = 0; i < r->n_nodes; i++)
                json_array_append_new(nodes, node_json(&r->nodes[i]));
        for (unsigned i = 0; i < r->n_waves; i++)
                json_array_append_new(waves, json_pack("{s:i, s:s, s:o, s:o}", "wave", (int)i + 1,
                                                       "state", rwave_state_name(r->waves[i].state),
                                                       "started_at", output_time_json(r->waves[i].started_at),
                                                       "deadline", output_time_json(r->waves[i].deadline)));
        j = json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:o, s:o, s:o, s:o, s:o}",
                      "id", (json_int_t)r->id, "kind", r->kind, "policy", r->policy_name,
                      "state", rollout_state_name(r->state), "exit_code", r->exit_code,
                      "message", r->message, "created_at", output_time_json(r->created_at),
                      "updated_at", output_time_json(r->updated_at), "summary", summary,
                      "waves", waves, "nodes", nodes);
        who_json(j, &r->opts);
        return j;
}

static void print_time(const char *label, long long t)
{
        char buf[64];
        time_t tt = (time_t)t;
        struct tm tm;

        gmtime_r(&tt, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        printf("%s%s", label, buf);
}

static void print_text(const struct rollout_rec *r, const struct rollout_live *live)
{
        unsigned counts[RNODE_STATE_MAX];
        char g[64];

        rollout_rec_count_states(r, counts);
        printf("rollout %lld (%s '%s'): %s", r->id, r->kind, r->policy_name,
               live && live->state[0] ? live->state : rollout_state_name(r->state));
        print_time(", started ", r->created_at);
        printf("\n");
        if (live && live->note[0])
                printf("  %s\n", live->note);
        if (r->opts.user[0] || r->opts.reason[0])
                printf("  by %s%s%s%s: %s\n", r->opts.user[0] ? r->opts.user : "(not recorded)",
                       r->opts.cert_cn[0] ? " (certificate '" : "", r->opts.cert_cn, r->opts.cert_cn[0] ? "')" : "",
                       r->opts.reason[0] ? r->opts.reason : "no reason given");
        if (r->opts.policy_sha256[0] || r->opts.selector[0])
                printf("  policy %s%s%s%s\n", r->opts.policy_sha256[0] ? r->opts.policy_sha256 : "",
                       r->opts.selector[0] ? " --selector '" : "", r->opts.selector, r->opts.selector[0] ? "'" : "");
        if (r->message[0])
                printf("  %s\n", r->message);
        printf("  nodes: %u", r->n_nodes);
        for (int s = 0; s < RNODE_STATE_MAX; s++)
                if (counts[s])
                        printf(", %s %u", rnode_state_name(s), counts[s]);
        printf("\n");
        for (unsigned w = 0; w < r->n_waves; w++) {
                printf("  wave %u%s: %s\n", w + 1, w == 0 && r->opts.canary ? " (canary)" : "",
                       rwave_state_name(r->waves[w].state));
                for (unsigned i = 0; i < r->n_nodes; i++) {
                        const struct rnode *n = &r->nodes[i];

                        if (n->wave != w)
                                continue;
                        gbps_text(n, g, sizeof(g));
                        printf("    %-20s %-13s%s%s%s%s%s\n", n->name, rnode_state_name(n->state),
                               n->tx[0] ? " tx " : "", n->tx, g, n->error[0] ? ": " : "", n->error);
                }
        }
}

void output_rollout_text(const struct rollout_rec *r)
{
        print_text(r, NULL);
}

void output_rollout_status(const struct rollout_rec *r, const struct rollout_live *live, bool json)
{
        json_t *j;

        if (!json) {
                print_text(r, live);
                fflush(stdout);
                return;
        }
        j = output_rollout_json(r);
        /* driver: who drives it now ("state": running, interrupted, waiting), for a rollout recorded running */
        if (j && live && live->state[0])
                json_object_set_new(j, "driver", json_pack("{s:s, s:s, s:o?, s:s?}", "state", live->state,
                                                           "message", live->note, "pid",
                                                           live->pid > 0 ? json_integer(live->pid) : NULL,
                                                           "host", live->host[0] ? live->host : NULL));
        output_json(j);
        json_decref(j);
        fflush(stdout);
}

void output_json(json_t *j)
{
        if (j)
                json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        fputc('\n', stdout);
}

void output_rollout(const struct rollout_rec *r, bool json)
{
        if (json) {
                json_t *j = output_rollout_json(r);

                output_json(j);
                json_decref(j);
        } else {
                output_rollout_text(r);
        }
        fflush(stdout);
}
