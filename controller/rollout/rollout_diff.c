/* SPDX-License-Identifier: MIT */
/*
 * What a plan changes, as an operator reads it before saying yes: one line per
 * change, the same change on many ports of a switch one line ("leaf1 swp1-64:
 * trust pcp -> dscp"), and nodes that change the same way one group.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/rollout/rollout.h"
#include "policies/state/state_text.h"

#define LINE_MAX_ 600

struct change_line {
        char head[LINE_MAX_];           /* "TARGET PORTBASE" (a port change) or the whole line */
        char tail[LINE_MAX_];           /* ": REST FROM -> TO" of a port change, "" otherwise */
        char one[LINE_MAX_];            /* a port change as one port's line, while it is one port's */
        unsigned *nums, n_nums;         /* the port numbers of a port change */
        bool port;
};

static const char *str_of(const json_t *o, const char *k)
{
        const char *v = json_string_value(json_object_get(o, k));

        return v ? v : "?";
}

/* "ports.swp12.trust" -> base "swp", number 12, rest "trust". */
static bool port_key(const char *key, char *base, size_t bsize, unsigned *num, const char **rest)
{
        const char *p = key + 6, *d, *dot;

        if (strncmp(key, "ports.", 6))
                return false;
        dot = strchr(p, '.');
        if (!dot || dot == p)
                return false;
        for (d = dot; d > p && isdigit((unsigned char)d[-1]); d--)
                ;
        if (d == dot || d == p || (size_t)(d - p) >= bsize || dot - d > 6 || (d[0] == '0' && dot - d > 1))
                return false;
        snprintf(base, bsize, "%.*s", (int)(d - p), p);
        *num = (unsigned)strtoul(d, NULL, 10);
        *rest = dot + 1;
        return true;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

        return x < y ? -1 : x > y;
}

/* "1-4,7,9-12" of sorted nums. */
static void ranges(const unsigned *nums, unsigned n, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < n && len < size; ) {
                unsigned j = i;

                while (j + 1 < n && nums[j + 1] <= nums[j] + 1)
                        j++;
                len += (size_t)snprintf(buf + len, size - len, j > i ? "%s%u-%u" : "%s%u", i ? "," : "", nums[i],
                                        nums[j]);
                i = j + 1;
        }
}

static int add_change(struct change_line **lines, unsigned *n, const json_t *ch)
{
        char from[256], to[256], base[64], tail[LINE_MAX_], head[LINE_MAX_], one[LINE_MAX_];
        const char *key = str_of(ch, "key"), *rest = NULL;
        unsigned num = 0;
        bool port = port_key(key, base, sizeof(base), &num, &rest);
        struct change_line *l = NULL, *grown;
        char owner[160] = "";
        const json_t *o = json_object_get(ch, "owner");
        json_int_t rev = json_integer_value(json_object_get(o, "revision"));

        state_text_value("", json_object_get(ch, "from"), from, sizeof(from));
        state_text_value("", json_object_get(ch, "to"), to, sizeof(to));
        /*
         * the layer that owns the field after the change (layers): " by policy 'NAME' revision N", as drift
         * says it; the version the change itself commits has no number yet (the agent sends INT64_MAX)
         */
        if (json_is_string(json_object_get(o, "policy")))
                snprintf(owner, sizeof(owner), rev > 0 && rev < INT32_MAX ? " by policy '%s' revision %lld" :
                         " by policy '%s'", str_of(o, "policy"), (long long)rev);
        snprintf(one, sizeof(one), "%s %s: %s -> %s%s", str_of(ch, "target"), key, from, to, owner);
        if (port) {
                snprintf(head, sizeof(head), "%s %s", str_of(ch, "target"), base);
                snprintf(tail, sizeof(tail), ": %s %s -> %s%s", rest, from, to, owner);
        } else {
                memcpy(head, one, sizeof(one));
                tail[0] = '\0';
        }
        for (unsigned i = 0; port && i < *n && !l; i++)
                if ((*lines)[i].port && !strcmp((*lines)[i].head, head) && !strcmp((*lines)[i].tail, tail))
                        l = &(*lines)[i];
        if (!l) {
                grown = realloc(*lines, (*n + 1) * sizeof(**lines));
                if (!grown)
                        return -ENOMEM;
                *lines = grown;
                l = &grown[(*n)++];
                *l = (struct change_line) { .port = port };
                memcpy(l->head, head, sizeof(head));
                memcpy(l->tail, tail, sizeof(tail));
                memcpy(l->one, one, sizeof(one));
        }
        if (port) {
                unsigned *g = realloc(l->nums, (l->n_nums + 1) * sizeof(*g));

                if (!g)
                        return -ENOMEM;
                l->nums = g;
                l->nums[l->n_nums++] = num;
        }
        return 0;
}

char *rollout_changes_text(const json_t *changes, const char *indent)
{
        struct change_line *lines = NULL;
        unsigned n = 0;
        size_t i, len = 0, size = 1;
        char *out = NULL, r[LINE_MAX_];
        json_t *ch;
        int rc = 0;

        json_array_foreach(changes, i, ch)
                if (rc >= 0)
                        rc = add_change(&lines, &n, ch);
        for (unsigned k = 0; k < n; k++)
                size += strlen(indent) + 4 * LINE_MAX_;
        if (rc >= 0)
                out = malloc(size);
        for (unsigned k = 0; out && k < n; k++) {
                struct change_line *l = &lines[k];

                if (!l->port || l->n_nums == 1) {
                        len += (size_t)snprintf(out + len, size - len, "%s%s\n", indent, l->port ? l->one : l->head);
                        continue;
                }
                qsort(l->nums, l->n_nums, sizeof(*l->nums), cmp_unsigned);
                ranges(l->nums, l->n_nums, r, sizeof(r));
                len += (size_t)snprintf(out + len, size - len, "%s%s%s%s\n", indent, l->head, r, l->tail);
        }
        if (out)
                out[len] = '\0';
        for (unsigned k = 0; k < n; k++)
                free(lines[k].nums);
        free(lines);
        return out;
}

/* ---- nodes that change the same way, grouped ---- */

struct diff_group {
        const char *text;               /* borrowed */
        unsigned n;
        char names[200];
};

void rollout_diff_print(FILE *f, const char *const *names, const char *const *texts, unsigned n, unsigned max_groups)
{
        struct diff_group *g = calloc(n + 1, sizeof(*g));
        unsigned ng = 0, same = 0;

        if (!g)
                return;
        for (unsigned i = 0; i < n; i++) {
                unsigned k = 0;

                if (!texts[i] || !texts[i][0]) {
                        same++;
                        continue;
                }
                while (k < ng && strcmp(g[k].text, texts[i]))
                        k++;
                if (k == ng)
                        g[ng++].text = texts[i];
                if (g[k].n < 8) {
                        size_t len = strlen(g[k].names);

                        snprintf(g[k].names + len, sizeof(g[k].names) - len, "%s%s", g[k].n ? ", " : "", names[i]);
                }
                g[k].n++;
        }
        for (unsigned k = 0; k < ng && k < max_groups; k++)
                fprintf(f, "%s%s (%u node%s):\n%s", g[k].names, g[k].n > 8 ? ", ..." : "", g[k].n,
                        g[k].n == 1 ? "" : "s", g[k].text);
        if (ng > max_groups)
                fprintf(f, "... and %u more ways of changing\n", ng - max_groups);
        if (same)
                fprintf(f, "%u node%s already as the policy asks\n", same, same == 1 ? " is" : "s are");
        free(g);
}

/* ---- notes: each said once, with the nodes that say it ---- */

int rollout_notes_add(json_t *groups, const char *node, const json_t *notes)
{
        const json_t *n;
        size_t i, k;

        json_array_foreach(notes, i, n) {
                const char *text = json_string_value(n);
                json_t *g = NULL, *x;

                if (!text)
                        continue;
                json_array_foreach(groups, k, x)
                        if (!strcmp(json_string_value(json_object_get(x, "note")), text)) {
                                g = x;
                                break;
                        }
                if (!g) {
                        g = json_pack("{s:s, s:[]}", "note", text, "nodes");
                        if (!g || json_array_append_new(groups, g) < 0)
                                return -ENOMEM;
                }
                if (json_array_append_new(json_object_get(g, "nodes"), json_string(node)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

void rollout_notes_print(FILE *f, const json_t *groups)
{
        const json_t *g, *name;
        size_t i, k;

        json_array_foreach(groups, i, g) {
                const json_t *nodes = json_object_get(g, "nodes");
                size_t n = json_array_size(nodes);

                fprintf(f, "note (%zu node%s: ", n, n == 1 ? "" : "s");
                json_array_foreach(nodes, k, name) {
                        if (k == 8) {
                                fprintf(f, ", ...");
                                break;
                        }
                        fprintf(f, "%s%s", k ? ", " : "", json_string_value(name));
                }
                fprintf(f, "): %s\n", json_string_value(json_object_get(g, "note")));
        }
}
