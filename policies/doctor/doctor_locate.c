/* SPDX-License-Identifier: MIT */
/*
 * fabric_suspect: where nettunectl locate found the fabric slow (the suspects of
 * doctor's facts, from `nettunectl doctor --locate`): a node's link, a rack's uplink
 * or one path whose pairs were far below their peers' median in both rounds.
 */
#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"

static const char *what_of(const struct doctor_suspect *s)
{
        if (streq(s->kind, "uplink"))
                return "the uplink of rack";
        if (streq(s->kind, "path"))
                return "the path";
        return "the link of node";
}

static const char *fix_of(const struct doctor_suspect *s)
{
        if (streq(s->kind, "uplink"))
                return "check the leaf's uplink ports of that rack (errors, speed, optics: `nettunectl doctor` on the "
                       "agent that manages the leaf), then run nettunectl locate again";
        if (streq(s->kind, "path"))
                return "run nettunectl locate again; a path slow alone between two healthy nodes points at the "
                       "fabric between them (ECMP member, spine port)";
        return "check that node's NIC, cable and leaf port (errors, speed, pause frames: this report's other "
               "findings for the node), then run nettunectl locate again";
}

void doctor_check_fabric_suspect(const struct doctor_rule *rule, const struct doctor_facts *f,
                                 const struct doctor_params *p, struct doctor_report *r)
{
        for (unsigned i = 0; i < f->suspects.n; i++) {
                const struct doctor_suspect *s = &f->suspects.v[i];
                struct doctor_finding *x = doctor_finding_add(r, rule);
                double below = s->peers_gbps > 0 ? 100 * (1 - s->gbps / s->peers_gbps) : 0;

                if (!x)
                        return;
                x->severity = s->high ? DOCTOR_CRITICAL : DOCTOR_WARNING;
                if (streq(s->kind, "node"))
                        doctor_finding_node(x, s->name);
                snprintf(x->summary, sizeof(x->summary), "%s %s is slow (%s side): %u of its %u pairs %.0f%% below "
                         "their peers' median in every round (%.3f against %.3f Gb/s), confidence %s", what_of(s),
                         s->name, s->side[0] ? s->side : "both", s->slow, s->of, below, s->gbps, s->peers_gbps,
                         s->high ? "high" : "medium");
                doctor_ev_str(x, "kind", "%s", s->kind);
                doctor_ev_str(x, "rack", "%s", s->rack);
                doctor_ev_num(x, "slow_pairs", s->slow);
                doctor_ev_num(x, "gbps", s->gbps);
                doctor_ev_num(x, "peers_median_gbps", s->peers_gbps);
                if (s->evidence[0])
                        doctor_ev_str(x, "pairs", "%s", s->evidence);
                snprintf(x->fix, sizeof(x->fix), "%s", fix_of(s));
        }
}
