/* SPDX-License-Identifier: MIT */
/*
 * Set-based node selectors over inventory labels (one --selector argument): the
 * requirements a node meets, as Kubernetes label selectors spell them. Pure.
 */
#include <string.h>

#include "common/util.h"
#include "controller/fleet/fleet.h"

#define KEY_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./"

enum sel_op { SEL_EQ, SEL_NE, SEL_IN, SEL_NOTIN, SEL_EXISTS, SEL_ABSENT };

struct sel_req {
        enum sel_op op;
        char key[POLICY_LABEL_MAX];
        unsigned n_values;
        char values[POLICY_LABELS_MAX][POLICY_LABEL_MAX];
};

static const char *skip_space(const char *p)
{
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* A key or value of label characters at *p into buf; its length, 0 = none there, -1 = too long. */
static int take_word(const char **p, char *buf, size_t size)
{
        size_t n = strspn(*p, KEY_CHARS);

        if (n >= size)
                return -1;
        memcpy(buf, *p, n);
        buf[n] = '\0';
        *p += n;
        return (int)n;
}

static int take_set(const char *s, const char **p, struct sel_req *r, struct errbuf *e)
{
        const char *q = skip_space(*p);

        if (*q != '(')
                return errbuf_set(e, EINVAL, "--selector", "'%.120s': expected '(' after '%s %s'", s, r->key,
                                  r->op == SEL_IN ? "in" : "notin");
        for (q++;;) {
                int n;

                if (r->n_values >= POLICY_LABELS_MAX)
                        return errbuf_set(e, EINVAL, "--selector", "'%.120s': at most %d values in a set", s,
                                          POLICY_LABELS_MAX);
                q = skip_space(q);
                n = take_word(&q, r->values[r->n_values], POLICY_LABEL_MAX);
                if (n <= 0)
                        return errbuf_set(e, EINVAL, "--selector", "'%.120s': expected a value of 1-%d characters "
                                          "[A-Za-z0-9-_./] in the set of '%s'", s, POLICY_LABEL_MAX - 1, r->key);
                r->n_values++;
                q = skip_space(q);
                if (*q == ')')
                        break;
                if (*q != ',')
                        return errbuf_set(e, EINVAL, "--selector", "'%.120s': expected ',' or ')' in the set of '%s'",
                                          s, r->key);
                q++;
        }
        *p = q + 1;
        return 0;
}

/* One requirement at *p (past it and its ',' on success). */
static int take_req(const char *s, const char **p, struct sel_req *r, struct errbuf *e)
{
        const char *q = skip_space(*p);
        bool neg = *q == '!';
        int n;

        *r = (struct sel_req) { .op = SEL_EXISTS };
        if (neg)
                q = skip_space(q + 1);
        n = take_word(&q, r->key, sizeof(r->key));
        if (n <= 0)
                return errbuf_set(e, EINVAL, "--selector", "'%.120s': expected a label key of 1-%d characters "
                                  "[A-Za-z0-9-_./] at '%.40s'", s, POLICY_LABEL_MAX - 1, q);
        q = skip_space(q);
        if (neg) {
                r->op = SEL_ABSENT;
        } else if (!strncmp(q, "!=", 2) || !strncmp(q, "==", 2) || *q == '=') {
                r->op = *q == '!' ? SEL_NE : SEL_EQ;
                q = skip_space(q + (*q == '=' && q[1] != '=' ? 1 : 2));
                n = take_word(&q, r->values[0], POLICY_LABEL_MAX);
                if (n <= 0)
                        return errbuf_set(e, EINVAL, "--selector", "'%.120s': expected a value of 1-%d characters "
                                          "[A-Za-z0-9-_./] for '%s'", s, POLICY_LABEL_MAX - 1, r->key);
                r->n_values = 1;
        } else if ((!strncmp(q, "in", 2) && (q[2] == '(' || q[2] == ' ')) ||
                   (!strncmp(q, "notin", 5) && (q[5] == '(' || q[5] == ' '))) {
                r->op = q[0] == 'i' ? SEL_IN : SEL_NOTIN;
                q += r->op == SEL_IN ? 2 : 5;
                if (take_set(s, &q, r, e) < 0)
                        return -EINVAL;
        }
        q = skip_space(q);
        if (*q && *q != ',')
                return errbuf_set(e, EINVAL, "--selector", "'%.120s': unexpected '%.40s' after '%s' (expected KEY=VALUE, "
                                  "KEY!=VALUE, KEY in (A,B), KEY notin (A,B), KEY or !KEY)", s, q, r->key);
        *p = *q ? q + 1 : q;
        return 0;
}

static const char *label_value(const struct inventory_node *n, const char *key)
{
        for (unsigned i = 0; i < n->n_labels; i++)
                if (streq(n->labels[i].key, key))
                        return n->labels[i].value;
        return NULL;
}

static bool req_match(const struct sel_req *r, const struct inventory_node *n)
{
        const char *v = label_value(n, r->key);
        bool in = false;

        for (unsigned i = 0; v && i < r->n_values; i++)
                in |= streq(v, r->values[i]);
        switch (r->op) {
        case SEL_EQ:
        case SEL_IN:
                return in;
        case SEL_NE:
        case SEL_NOTIN:
                return !in;
        case SEL_EXISTS:
                return v != NULL;
        case SEL_ABSENT:
                return v == NULL;
        }
        return false;
}

/* Walk s: each requirement checked, and when n is given judged (*ret: all met), plain: all KEY=VALUE. */
static int walk(const char *s, const struct inventory_node *n, bool *ret, bool *ret_plain, struct errbuf *e)
{
        const char *p = s ? s : "";
        bool all = true, plain = true;
        struct sel_req r;

        if (!*skip_space(p))
                return errbuf_set(e, EINVAL, "--selector", "'': expected KEY=VALUE, KEY!=VALUE, KEY in (A,B), "
                                  "KEY notin (A,B), KEY or !KEY");
        while (*p) {
                if (take_req(s, &p, &r, e) < 0)
                        return -EINVAL;
                plain &= r.op == SEL_EQ;
                if (n)
                        all &= req_match(&r, n);
                if (!*skip_space(p) && p > s && p[-1] == ',')
                        return errbuf_set(e, EINVAL, "--selector", "'%.120s': a requirement is missing after the "
                                          "last ','", s);
        }
        if (ret)
                *ret = all;
        if (ret_plain)
                *ret_plain = plain;
        return 0;
}

int inventory_selector_check(const char *s, struct errbuf *e)
{
        return walk(s, NULL, NULL, NULL, e);
}

bool inventory_selector_match(const char *s, const struct inventory_node *n)
{
        struct errbuf e = { 0 };
        bool all = false;

        return walk(s, n, &all, NULL, &e) >= 0 && all;
}

bool inventory_selector_plain(const char *s)
{
        struct errbuf e = { 0 };
        bool plain = false;

        return walk(s, NULL, NULL, &plain, &e) >= 0 && plain;
}
