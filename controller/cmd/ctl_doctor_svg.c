/* SPDX-License-Identifier: MIT */
/*
 * What doctor found, for people and for Kubernetes (ctl_doctor.c calls these):
 *
 *   --svg FILE          the lossless class along every known path, host NIC <-> switch
 *                       port, one row each: at each hop its MTU, trust and the RoCE
 *                       DSCP's priority, that priority's traffic class, PFC, ECN (the
 *                       switch queue's thresholds, the NIC's DCQCN), buffer and
 *                       watchdog (the NIC's stall prevention); every finding that names
 *                       a hop is written on it. The hop a finding blames (the end its
 *                       fix changes; the one end it names) is drawn in vermillion and
 *                       marked "MISMATCH", a hop a finding only involves in orange, a
 *                       clean hop in bluish green and marked "ok"; findings on no path
 *                       are listed below. <desc> says the same in words.
 *   --node-labels FILE  per node doctor looked at, its verdict as Kubernetes node labels:
 *                       nettune.io/lossless = broken (a critical finding names it),
 *                       degraded (a warning does), else ok; nettune.io/findings = the
 *                       codes of those findings, most severe first, joined by '.', as
 *                       many as a label value holds (63 characters). Text: one line per
 *                       node, "NODE KEY=VALUE KEY=VALUE" (kubectl label --overwrite node
 *                       NODE ...); --output json: {"nodes": {NODE: a merge patch}}
 *                       (kubectl patch node NODE --type merge -p ...). A node that was
 *                       not collected gets no line: nothing is known of it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/svg/svg.h"
#include "policies/doctor/doctor.h"

#define W 980
#define HOP_W 400
#define HOP_X1 30
#define HOP_X2 550
#define LINE_H 15
#define LINE_MAX 160
#define LABEL_VALUE_MAX 63              /* a Kubernetes label value */

enum hop_mark { HOP_OK, HOP_INVOLVED, HOP_BLAMED };

/* Is `word` in text as a whole word (names are compared as written)? */
static bool has_word(const char *text, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = text; n && (p = strstr(p, word)); p++) {
                bool before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-' || p[-1] == '_'),
                     after = !(isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_');

                if (before && after)
                        return true;
        }
        return false;
}

static bool names_port(const struct doctor_finding *x, const char *owner, const char *name)
{
        char key[2 * DOCTOR_NAME_MAX + 2];

        snprintf(key, sizeof(key), "%s:%s", owner, name);
        for (unsigned i = 0; i < x->n_ports; i++)
                if (streq(x->ports[i], key))
                        return true;
        return false;
}

/*
 * How finding x marks the hop owner:name of a path whose other end is other_owner:other.
 * Blamed: it names this hop alone, or its fix changes this end (names its owner) and not
 * only the other; involved: it names this hop too; info findings never blame.
 */
static enum hop_mark mark_of(const struct doctor_finding *x, const char *owner, const char *name,
                             const char *other_owner, const char *other)
{
        bool here = names_port(x, owner, name), there = names_port(x, other_owner, other), fix_here, fix_there;

        if (!here)
                return HOP_OK;
        if (x->severity == DOCTOR_INFO)
                return HOP_INVOLVED;
        if (!there)
                return HOP_BLAMED;
        fix_here = has_word(x->fix, owner);
        fix_there = has_word(x->fix, other_owner);
        return fix_here || !fix_there ? HOP_BLAMED : HOP_INVOLVED;
}

struct draw {
        struct svg s;
        const struct doctor_report *r;
        const struct doctor_params *p;
        bool *on_path;                  /* per finding: drawn on a hop */
        double y;
        unsigned n_paths, n_blamed;
        char desc[4096];
        size_t desc_len;
};

static void desc_add(struct draw *d, const char *fmt, ...) _printf_(2, 3);
static void desc_add(struct draw *d, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (d->desc_len >= sizeof(d->desc) - 1)
                return;
        va_start(ap, fmt);
        n = vsnprintf(d->desc + d->desc_len, sizeof(d->desc) - d->desc_len, fmt, ap);
        va_end(ap);
        if (n > 0)
                d->desc_len = d->desc_len + (size_t)n >= sizeof(d->desc) ? sizeof(d->desc) - 1 : d->desc_len + (size_t)n;
}

static void bits(uint8_t b, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < 8 && n + 3 < size; i++)
                if (b & (1u << i))
                        n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? "," : "", i);
        if (!n)
                snprintf(buf, size, "none");
}

/* The RoCE priority at this hop: its DSCP map of the RoCE DSCP, -1 unknown. */
static int roce_prio(const struct state *st, int dscp)
{
        uint8_t eff[STATE_DSCP_COUNT];

        if (!state_has(st, STATE_FIELD_DSCP_MAP) || dscp < 0 || dscp >= STATE_DSCP_COUNT)
                return -1;
        state_dscp_effective(st, eff);
        return eff[dscp] == STATE_DSCP_UNMAPPED ? -1 : eff[dscp];
}

/* The hop's class, line by line, into lines[]; their count. */
static unsigned class_lines(const struct state *st, bool host, int dscp, char lines[][LINE_MAX])
{
        int prio = roce_prio(st, dscp), tc = prio >= 0 && state_has(st, STATE_FIELD_ETS) ? st->ets.prio_tc[prio] : -1;
        unsigned n = 0;
        char b[32];

        snprintf(lines[n++], LINE_MAX, "MTU %s", state_has(st, STATE_FIELD_MTU) ? "" : "unknown");
        if (state_has(st, STATE_FIELD_MTU))
                snprintf(lines[n - 1], LINE_MAX, "MTU %u", st->mtu);
        snprintf(lines[n++], LINE_MAX, "DSCP map: trust %s; DSCP %d -> priority %s",
                 state_has(st, STATE_FIELD_TRUST) ? state_trust_name(st->trust) : "unknown", dscp,
                 prio >= 0 ? (snprintf(b, sizeof(b), "%d", prio), b) : "unknown");
        snprintf(lines[n++], LINE_MAX, "traffic class: %s", tc >= 0 ? "" : "unknown");
        if (tc >= 0)
                snprintf(lines[n - 1], LINE_MAX, "traffic class: priority %d -> TC %d (%s, %u%%)", prio, tc,
                         state_tsa_name(st->ets.tc_tsa[tc]), st->ets.tc_bw_pct[tc]);
        bits(st->pfc_enabled, b, sizeof(b));
        snprintf(lines[n++], LINE_MAX, "PFC: %s", state_has(st, STATE_FIELD_PFC) ? b : "unknown");
        if (host) {
                const struct state_host_ecn *e = &st->host_ecn;
                char rp[32], np[32];

                bits(e->rp_enabled, rp, sizeof(rp));
                bits(e->np_enabled, np, sizeof(np));
                snprintf(lines[n++], LINE_MAX, "ECN (DCQCN): %s", state_has(st, STATE_FIELD_HOST_ECN) ? "" : "unknown");
                if (state_has(st, STATE_FIELD_HOST_ECN))
                        snprintf(lines[n - 1], LINE_MAX, "ECN (DCQCN): reaction %s, notification %s", rp, np);
        } else {
                int q = tc >= 0 ? tc : prio;

                if (state_has(st, STATE_FIELD_ECN) && q >= 0 && (st->ecn.queues & (1u << q)) && st->ecn.q[q].enabled)
                        snprintf(lines[n++], LINE_MAX, "ECN: queue %d marks %u-%u B, %u%%", q, st->ecn.q[q].min_bytes,
                                 st->ecn.q[q].max_bytes, st->ecn.q[q].probability_pct);
                else
                        snprintf(lines[n++], LINE_MAX, "ECN: %s", state_has(st, STATE_FIELD_ECN) && q >= 0 ?
                                 "queue does not mark" : "unknown");
        }
        if (state_has(st, STATE_FIELD_BUFFERS) && prio >= 0)
                snprintf(lines[n++], LINE_MAX, "buffer: priority %d -> buffer %u (%u B)%s", prio,
                         st->buffers.prio_buffer[prio], st->buffers.size[st->buffers.prio_buffer[prio] & 7],
                         state_has(st, STATE_FIELD_CABLE_LEN) ? "" : "");
        else
                snprintf(lines[n++], LINE_MAX, "buffer: unknown");
        if (state_has(st, STATE_FIELD_CABLE_LEN))
                snprintf(lines[n - 1] + strlen(lines[n - 1]), LINE_MAX - strlen(lines[n - 1]), ", cable %u m",
                         st->cable_len_m);
        if (host && state_has(st, STATE_FIELD_NIC_STALL))
                snprintf(lines[n++], LINE_MAX, "watchdog: NIC stall prevention %u ms", st->nic_stall_ms);
        else if (!host && state_has(st, STATE_FIELD_PFC_WATCHDOG))
                snprintf(lines[n++], LINE_MAX, "watchdog: %s%s", st->pfc_wd.enabled ? "on, " : "off",
                         st->pfc_wd.enabled ? state_wd_action_name(st->pfc_wd.action) : "");
        else
                snprintf(lines[n++], LINE_MAX, "watchdog: unknown");
        return n;
}

/* One hop's box at (x, y); its height. */
static double hop(struct draw *d, double x, double y, const char *owner, const char *name, const struct state *st,
                  bool host, const char *other_owner, const char *other)
{
        char lines[10][LINE_MAX], fl[DOCTOR_SUBJECTS_MAX * 2][160];
        enum hop_mark worst = HOP_OK;
        unsigned n = class_lines(st, host, d->p->roce_dscp, lines), nf = 0;
        const char *stroke, *fill, *word;
        double h;

        for (unsigned i = 0; i < d->r->n && nf < ARRAY_SIZE(fl); i++) {
                const struct doctor_finding *f = &d->r->v[i];
                enum hop_mark m = mark_of(f, owner, name, other_owner, other);

                if (!names_port(f, owner, name))
                        continue;
                d->on_path[i] = true;
                worst = m > worst ? m : worst;
                snprintf(fl[nf++], sizeof(fl[0]), "%s %s %s", m == HOP_BLAMED ? "X" : "!",
                         doctor_severity_name(f->severity), f->rule->code);
        }
        stroke = worst == HOP_BLAMED ? SVG_RED : worst == HOP_INVOLVED ? SVG_ORANGE : SVG_GREEN;
        fill = worst == HOP_BLAMED ? "#FBE3D3" : worst == HOP_INVOLVED ? "#FCF0D2" : "#DDF1EA";
        word = worst == HOP_BLAMED ? "MISMATCH" : worst == HOP_INVOLVED ? "involved" : "ok";
        h = 30 + (n + nf) * LINE_H + 10;
        d->n_blamed += worst == HOP_BLAMED;
        svg_put(&d->s, "<g class=\"hop\" data-hop=\"");
        svg_esc(&d->s, owner);
        svg_put(&d->s, ":");
        svg_esc(&d->s, name);
        svg_put(&d->s, "\" data-mark=\"%s\" data-findings=\"%u\">\n", word, nf);
        svg_put(&d->s, "<rect class=\"hop-box\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" rx=\"6\" fill=\"%s\" "
                "stroke=\"%s\" stroke-width=\"3\"/>\n", x, y, HOP_W, h, fill, stroke);
        svg_put(&d->s, "<rect class=\"hop-head\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"24\" fill=\"%s\"/>\n",
                x + 1.5, y + 1.5, HOP_W - 3, stroke);
        svg_text(&d->s, x + 8, y + 18, "font-size=\"13\" font-weight=\"bold\" fill=\"#FFFFFF\"", "%s %s %s: %s",
                 host ? "host NIC" : "switch port", owner, name, word);
        for (unsigned i = 0; i < n; i++)
                svg_text(&d->s, x + 8, y + 42 + i * LINE_H, "", "%s", lines[i]);
        for (unsigned i = 0; i < nf; i++)
                svg_text(&d->s, x + 8, y + 42 + (n + i) * LINE_H, "class=\"hop-finding\" font-weight=\"bold\" "
                         "fill=\"#000000\"", "%s", fl[i]);
        svg_put(&d->s, "</g>\n");
        desc_add(d, "%s %s %s: %s", host ? "host NIC" : "switch port", owner, name, word);
        for (unsigned i = 0; i < nf; i++)
                desc_add(d, "%s%s", i ? ", " : " (", fl[i] + 2);
        desc_add(d, "%s. ", nf ? ")" : "");
        return h;
}

static void path_row(const struct doctor_path *p, void *ud)
{
        struct draw *d = ud;
        const char *port = p->linux_port ? p->linux_port->name : p->port->name;
        double h1, h2;

        desc_add(d, "Path %u: ", d->n_paths + 1);
        svg_put(&d->s, "<g class=\"path\" id=\"path-%u\">\n", d->n_paths);
        h1 = hop(d, HOP_X1, d->y, p->node->name, p->iface->name, &p->iface->st, true, p->sw_name, port);
        h2 = hop(d, HOP_X2, d->y, p->sw_name, port, p->port_st, false, p->node->name, p->iface->name);
        svg_put(&d->s, "<line class=\"link\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" SVG_GREY
                "\" stroke-width=\"3\"/>\n", HOP_X1 + HOP_W, d->y + 14, HOP_X2, d->y + 14);
        svg_text(&d->s, (HOP_X1 + HOP_W + HOP_X2) / 2.0, d->y + 8, "text-anchor=\"middle\" font-size=\"11\"", "%s",
                 p->iface->peer.source == DOCTOR_PATH_LLDP ? "LLDP" : "links");
        svg_put(&d->s, "</g>\n");
        d->y += (h1 > h2 ? h1 : h2) + 20;
        d->n_paths++;
}

int ctl_doctor_svg(const struct doctor_facts *f, const struct doctor_params *p, const struct doctor_report *r,
                   const char *path)
{
        struct draw *d = calloc(1, sizeof(*d));
        struct svg measure = { 0 };
        _cleanup_free_ char *doc = NULL;
        char title[160];
        unsigned others = 0;
        double height;
        int rc;

        if (!d || !(d->on_path = calloc(r->n + 1, sizeof(bool)))) {
                free(d);
                return -ENOMEM;
        }
        d->r = r;
        d->p = p;
        /* first into a scratch document: the height and the words, which the head carries */
        d->s = measure;
        d->y = 60;
        desc_add(d, "RoCE DSCP %d. ", p->roce_dscp);
        doctor_each_path(f, path_row, d);
        free(svg_end(&d->s));
        for (unsigned i = 0; i < r->n; i++)
                if (!d->on_path[i])
                        desc_add(d, "%sfinding on no path: %s %s.", others++ ? " " : "",
                                 doctor_severity_name(r->v[i].severity), r->v[i].rule->code);
        height = d->y + 30 + others * LINE_H + (d->n_paths ? 0 : LINE_H);
        snprintf(title, sizeof(title), "nettunectl doctor: the lossless class along %u path%s, %u finding%s",
                 d->n_paths, d->n_paths == 1 ? "" : "s", r->n, r->n == 1 ? "" : "s");
        memset(d->on_path, 0, (r->n + 1) * sizeof(bool));
        svg_begin(&d->s, W, (int)height, title, d->desc);
        d->y = 60;
        d->n_paths = d->n_blamed = 0;
        svg_text(&d->s, HOP_X1, 28, "font-size=\"16\"", "%s", title);
        svg_text(&d->s, HOP_X1, 46, "font-size=\"11\" fill=\"#555555\"", "vermillion, MISMATCH: the hop a finding "
                 "blames (X); orange: a hop it involves (!); bluish green: ok. RoCE DSCP %d.", p->roce_dscp);
        doctor_each_path(f, path_row, d);
        if (!d->n_paths)
                svg_text(&d->s, HOP_X1, d->y, "", "no path known: no host interface names the switch port it faces");
        d->y += d->n_paths ? 0 : LINE_H;
        if (others)
                svg_text(&d->s, HOP_X1, d->y + 4, "font-weight=\"bold\"", "findings on no path:");
        for (unsigned i = 0, k = 0; i < r->n; i++)
                if (!d->on_path[i])
                        svg_text(&d->s, HOP_X1, d->y + 4 + ++k * LINE_H, "class=\"other-finding\"", "%s %s: %.100s",
                                 doctor_severity_name(r->v[i].severity), r->v[i].rule->code, r->v[i].summary);
        doc = svg_end(&d->s);
        free(d->on_path);
        free(d);
        if (!doc)
                return -ENOMEM;
        rc = svg_write(path, doc);
        if (rc < 0)
                log_err("doctor: cannot write the picture to '%s': %s", path, strerror(-rc));
        return rc;
}

/* ---- --node-labels ---- */

static void node_verdict(const struct doctor_report *r, const char *node, const char **ret_state, char *codes,
                         size_t size)
{
        enum doctor_severity worst = DOCTOR_INFO;
        bool any = false;
        size_t n = 0;

        codes[0] = '\0';
        for (unsigned i = 0; i < r->n; i++) {
                const struct doctor_finding *x = &r->v[i];
                bool named = false;
                size_t len = strlen(x->rule->code);

                for (unsigned k = 0; k < x->n_nodes && !named; k++)
                        named = streq(x->nodes[k], node);
                if (!named || x->severity == DOCTOR_INFO)
                        continue;
                if (!any || x->severity > worst)
                        worst = x->severity;
                any = true;
                if (has_word(codes, x->rule->code) || n + (n ? 1 : 0) + len > LABEL_VALUE_MAX || n + len + 2 > size)
                        continue;
                n += (size_t)snprintf(codes + n, size - n, "%s%s", n ? "." : "", x->rule->code);
        }
        *ret_state = !any ? "ok" : worst == DOCTOR_CRITICAL ? "broken" : "degraded";
}

int ctl_doctor_labels(const struct doctor_facts *f, const struct doctor_report *r, bool json, const char *path)
{
        json_auto_t *doc = json ? json_object() : NULL;
        json_t *nodes = json ? json_object() : NULL;
        FILE *out = fopen(path, "we");
        int rc = 0;

        if (!out || (json && (!doc || !nodes))) {
                rc = out ? -ENOMEM : -errno;
                json_decref(nodes);
                goto fail;
        }
        if (doc)
                json_object_set_new(doc, "nodes", nodes);
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                const char *state;
                char codes[LABEL_VALUE_MAX + 2];

                if (n->error[0]) {
                        log_warn("doctor: node '%s' was not collected (%s): no labels for it", n->name, n->error);
                        continue;
                }
                node_verdict(r, n->name, &state, codes, sizeof(codes));
                if (json)
                        json_object_set_new(nodes, n->name, json_pack("{s:{s:{s:s,s:s}}}", "metadata", "labels",
                                                                      "nettune.io/lossless", state,
                                                                      "nettune.io/findings", codes));
                else
                        fprintf(out, "%s nettune.io/lossless=%s nettune.io/findings=%s\n", n->name, state, codes);
        }
        if (json && json_dumpf(doc, out, JSON_INDENT(2) | JSON_SORT_KEYS) < 0)
                rc = -EIO;
        if (json)
                fputc('\n', out);
        if (fclose(out) != 0 && rc == 0)
                rc = -errno;
        out = NULL;
        if (rc == 0)
                return 0;
fail:
        if (out)
                fclose(out);
        log_err("doctor: cannot write the node labels to '%s': %s", path, strerror(-rc));
        return rc;
}
