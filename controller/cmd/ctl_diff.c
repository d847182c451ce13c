/* SPDX-License-Identifier: MIT */
/*
 * nettunectl diff ID1 ID2: what changed between two rollouts' documents (the
 * policies as their agents got them) and who asked for each, path by path.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

/* doc's leaves (arrays whole) into out: path -> compact JSON. */
static void flatten(const json_t *v, const char *path, json_t *out)
{
        const char *k;
        json_t *m;

        if (!json_is_object(v) || json_object_size(v) == 0) {
                char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

                if (text)
                        json_object_set_new(out, path[0] ? path : "$", json_string(text));
                free(text);
                return;
        }
        json_object_foreach((json_t *)v, k, m) {
                char sub[512];

                snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", k);
                flatten(m, sub, out);
        }
}

static json_t *leaves(const struct rollout_rec *r)
{
        json_t *out = json_object(), *doc = r->policy_doc ? json_loads(r->policy_doc, 0, NULL) : NULL;

        if (doc)
                flatten(doc, "", out);
        json_decref(doc);
        return out;
}

static const char *leaf(const json_t *o, const char *k)
{
        const char *v = json_string_value(json_object_get(o, k));

        return v ? v : "unset";
}

/* Every path of a or b whose value differs, in sorted order: [{"path","from","to"}]. */
static json_t *changes(const json_t *a, const json_t *b)
{
        json_t *keys = json_object(), *out = json_array();
        const char *k;
        json_t *v;

        json_object_foreach((json_t *)a, k, v)
                json_object_set(keys, k, json_true());
        json_object_foreach((json_t *)b, k, v)
                json_object_set(keys, k, json_true());
        /* json_object_foreach walks in insertion order: sort the paths */
        {
                size_t n = json_object_size(keys), i = 0;
                const char **p = calloc(n + 1, sizeof(*p));

                json_object_foreach(keys, k, v)
                        if (p)
                                p[i++] = k;
                for (size_t x = 1; p && x < n; x++)
                        for (size_t y = x; y > 0 && strcmp(p[y - 1], p[y]) > 0; y--) {
                                const char *t = p[y];

                                p[y] = p[y - 1];
                                p[y - 1] = t;
                        }
                for (size_t x = 0; p && x < n; x++)
                        if (strcmp(leaf(a, p[x]), leaf(b, p[x])))
                                json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "path", p[x],
                                                                     "from", leaf(a, p[x]), "to", leaf(b, p[x])));
                free(p);
        }
        json_decref(keys);
        return out;
}

static json_t *side(const struct rollout_rec *r)
{
        const struct rollout_opts *o = &r->opts;

        return json_pack("{s:I, s:s, s:s, s:s?, s:s?, s:s?, s:s?}", "id", (json_int_t)r->id, "kind", r->kind,
                         "policy", r->policy_name, "policy_sha256", o->policy_sha256[0] ? o->policy_sha256 : NULL,
                         "user", o->user[0] ? o->user : NULL, "reason", o->reason[0] ? o->reason : NULL,
                         "selector", o->selector[0] ? o->selector : NULL);
}

static void print_side(const char *mark, const struct rollout_rec *r)
{
        const struct rollout_opts *o = &r->opts;

        printf("%s rollout %lld (%s '%s')%s%s%s%s%s%s\n", mark, r->id, r->kind, r->policy_name,
               o->policy_sha256[0] ? " " : "", o->policy_sha256, o->user[0] ? " by " : "", o->user,
               o->reason[0] ? ": " : "", o->reason);
}

static int load(struct ctl *c, unsigned id, struct rollout_rec **ret)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int rc = store_rollout_load(c->store, id, ret, &e);

        if (rc < 0)
                log_err("diff: %s", errbuf_str(&e, buf, sizeof(buf)));
        return rc < 0 ? outcome_of_errno(rc) : 0;
}

int ctl_cmd_diff(struct ctl *c)
{
        struct rollout_rec *r[2] = { NULL, NULL };
        unsigned id[2];
        json_t *a = NULL, *b = NULL, *ch = NULL;
        int rc;

        if (c->argc != 2) {
                if (c->argc > 2 || (c->argc && c->argv[0][0] == '-'))
                        return ctl_bad_arg(c, c->argv[c->argc > 2 ? 2 : 0]), OUTCOME_INVALID;
                log_err("diff: expected two rollout ids (ID1 ID2); see 'nettunectl diff --help'");
                return OUTCOME_INVALID;
        }
        for (int i = 0; i < 2; i++)
                if (c->argv[i][0] == '-')
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
        if (ctl_parse_uint("diff ID1", c->argv[0], 1, 2000000000, &id[0]) < 0 ||
            ctl_parse_uint("diff ID2", c->argv[1], 1, 2000000000, &id[1]) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0 || (rc = load(c, id[0], &r[0])) > 0 || (rc = load(c, id[1], &r[1])) > 0)
                goto out;
        a = leaves(r[0]);
        b = leaves(r[1]);
        ch = changes(a, b);
        if (c->json) {
                json_t *j = json_pack("{s:o, s:o, s:O}", "from", side(r[0]), "to", side(r[1]), "changes", ch);

                output_json(j);
                json_decref(j);
        } else {
                size_t i;
                json_t *x;

                print_side("---", r[0]);
                print_side("+++", r[1]);
                json_array_foreach(ch, i, x)
                        printf("  %s: %s -> %s\n", json_string_value(json_object_get(x, "path")),
                               json_string_value(json_object_get(x, "from")),
                               json_string_value(json_object_get(x, "to")));
                if (!json_array_size(ch))
                        printf("  the documents are the same\n");
        }
        rc = json_array_size(ch) ? 1 : OUTCOME_OK;
out:
        json_decref(a);
        json_decref(b);
        json_decref(ch);
        rollout_rec_free(r[0]);
        rollout_rec_free(r[1]);
        return rc;
}
