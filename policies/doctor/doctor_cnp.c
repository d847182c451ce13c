/* SPDX-License-Identifier: MIT */
/*
 * cnp_class_mismatch: a NIC's live CNP marking (host_ecn.cnp_dscp / cnp_priority: mlx5's
 * np_cnp_dscp / np_cnp_prio in debugfs cc_params, MLNX_OFED's roce_np cnp_dscp /
 * cnp_802p_prio) against the switch port it faces: the priority the port gives that
 * DSCP, and whether that priority is the port's CNP class. The class is the port's
 * strict traffic class where its ETS is read (a Linux switch port); elsewhere nettune
 * reads no switch scheduling, and the class is the priority the port gives DSCP 48,
 * the CNP DSCP of NVIDIA's RoCE defaults (Cumulus Linux 5.x qos roce: DSCP 48 ->
 * switch priority 6 -> traffic class 6, strict). Cumulus's factory map puts DSCP 4 on
 * priority 0: a NIC that marks its CNPs 4, as Network Operator 26.7's roceOptimized
 * documents, has them ride traffic class 0 behind the data they are to slow down.
 * With --profile the vendor profile versions are named: the ones whose CNP marking
 * the NIC follows, and each named profile that disagrees with either end.
 */
#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"

struct cnp_ctx {
        const struct doctor_rule *rule;
        const struct doctor_params *p;
        struct doctor_report *r;
};

#define CNP_REF_DSCP 48         /* NVIDIA's CNP DSCP (Cumulus qos roce, NCO 26.10, MLNX_OFED's default) */

static const char *port_name(const struct doctor_path *p)
{
        return p->linux_port ? p->linux_port->name : p->port->name;
}

static bool strict_known(const struct state *s)
{
        return state_has(s, STATE_FIELD_ETS);
}

static bool strict_prio(const struct state *s, unsigned prio)
{
        return s->ets.tc_tsa[s->ets.prio_tc[prio] % STATE_TC_COUNT] == STATE_TSA_STRICT;
}

/* ", NAME (WHAT)" onto buf: a profile that disagrees; its CNP marking (host) or its CNP class (switch). */
static void append(char *buf, size_t size, bool host, const char *name, unsigned x, unsigned y)
{
        size_t n = strlen(buf);

        if (n && n + 2 < size)
                n += (size_t)snprintf(buf + n, size - n, ", ");
        if (n < size && host)
                snprintf(buf + n, size - n, "%s (marks CNPs DSCP %u, priority %u)", name, x, y);
        else if (n < size)
                snprintf(buf + n, size - n, "%s (DSCP %u -> priority %u, its CNP class)", name, x, y);
}

/* The profiles each end follows or departs from, into the finding's summary and evidence. */
static void name_profiles(struct doctor_finding *x, const struct doctor_params *p, unsigned dscp, unsigned prio)
{
        char as[200] = "", against[400] = "";

        for (unsigned i = 0; i < p->n_profiles; i++) {
                const struct doctor_profile *pr = &p->profiles[i];
                const struct state_host_ecn *he = &pr->spec.host_ecn;

                if (state_has(&pr->spec, STATE_FIELD_HOST_ECN) && he->has_cnp) {
                        if (he->cnp_dscp == dscp && he->cnp_prio == prio) {
                                if (as[0])
                                        strcat2(as, sizeof(as), as, ", ");
                                strcat2(as, sizeof(as), as, pr->name);
                        } else if (pr->named)
                                append(against, sizeof(against), true,
                                       pr->name, he->cnp_dscp, he->cnp_prio);
                }
                if (pr->named && state_has(&pr->spec, STATE_FIELD_DSCP_MAP) &&
                    pr->spec.dscp_prio[dscp] != pr->spec.dscp_prio[CNP_REF_DSCP] &&
                    pr->spec.dscp_prio[CNP_REF_DSCP] != STATE_DSCP_UNMAPPED)
                        append(against, sizeof(against), false, pr->name,
                               CNP_REF_DSCP, pr->spec.dscp_prio[CNP_REF_DSCP]);
        }
        if (as[0]) {
                doctor_ev_str(x, "nic_profiles", "%s", as);
                strcat2(x->summary, sizeof(x->summary), x->summary, "; the NIC marks as ");
                strcat2(x->summary, sizeof(x->summary), x->summary, as);
        }
        if (against[0]) {
                doctor_ev_str(x, "disagreeing_profiles", "%s", against);
                strcat2(x->summary, sizeof(x->summary), x->summary, "; against ");
                strcat2(x->summary, sizeof(x->summary), x->summary, against);
        }
}

static void cnp_class_one(const struct doctor_path *p, void *data)
{
        const struct cnp_ctx *a = data;
        const struct state *h = &p->iface->st, *s = p->port_st;
        const struct state_host_ecn *he = &h->host_ecn;
        struct doctor_finding *x;
        unsigned sp, class_sp = 0;
        bool by_ets;
        char b[16];

        if (!state_has(h, STATE_FIELD_HOST_ECN) || !he->has_cnp || !state_has(s, STATE_FIELD_DSCP_MAP) ||
            he->cnp_dscp >= STATE_DSCP_COUNT)
                return;
        sp = s->dscp_prio[he->cnp_dscp];
        by_ets = strict_known(s);
        if (by_ets) {
                if (sp != STATE_DSCP_UNMAPPED && strict_prio(s, sp))
                        return;
        } else {
                class_sp = s->dscp_prio[CNP_REF_DSCP];
                if (he->cnp_dscp == CNP_REF_DSCP || class_sp == STATE_DSCP_UNMAPPED || sp == class_sp)
                        return;         /* the class is the NIC's own DSCP's, or unknown */
        }
        if (!(x = doctor_finding_path(a->r, a->rule, p)))
                return;
        snprintf(b, sizeof(b), sp == STATE_DSCP_UNMAPPED ? "unmapped" : "%u", sp);
        if (by_ets)
                snprintf(x->summary, sizeof(x->summary), "%s %s marks CNPs DSCP %u, priority %u; %s port %s puts "
                         "DSCP %u on priority %s, not a strict class of its ETS", p->node->name, p->iface->name,
                         he->cnp_dscp, he->cnp_prio, p->sw_name, port_name(p), he->cnp_dscp, b);
        else
                snprintf(x->summary, sizeof(x->summary), "%s %s marks CNPs DSCP %u, priority %u; %s port %s puts "
                         "DSCP %u on priority %s, not its CNP class (priority %u, where it puts DSCP %u)",
                         p->node->name, p->iface->name, he->cnp_dscp, he->cnp_prio, p->sw_name, port_name(p),
                         he->cnp_dscp, b, class_sp, CNP_REF_DSCP);
        doctor_ev_num(x, "nic_cnp_dscp", he->cnp_dscp);
        doctor_ev_num(x, "nic_cnp_priority", he->cnp_prio);
        doctor_ev_str(x, "switch_priority", "%s", b);
        if (!by_ets)
                doctor_ev_num(x, "switch_cnp_class_priority", class_sp);
        doctor_ev_str(x, "switch_class_from", "%s", by_ets ? "ets" : "dscp 48");
        name_profiles(x, a->p, he->cnp_dscp, he->cnp_prio);
        snprintf(x->fix, sizeof(x->fix), "mark CNPs with DSCP %u on %s %s (policy host_ecn.cnp_dscp), or put DSCP %u "
                 "in the CNP class on %s", by_ets ? he->cnp_dscp : CNP_REF_DSCP, p->node->name, p->iface->name,
                 he->cnp_dscp, p->sw_name);
}

void doctor_check_cnp_class(const struct doctor_rule *rule, const struct doctor_facts *f,
                            const struct doctor_params *p, struct doctor_report *r)
{
        struct cnp_ctx a = { rule, p, r };

        (void)f;

        doctor_each_path(f, cnp_class_one, &a);
}
