/* SPDX-License-Identifier: MIT */
/*
 * The doctor's rules (doctor.h): one row per finding code in doctor_rules[], each
 * with its threshold and the document that sets it, and a check over the facts.
 * docs/operations.md ("Troubleshooting a slow fabric: run doctor") lists the same
 * table for people; tests/unit/test_doctor.c holds each rule to its boundary.
 */
#include <math.h>

#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"

/* Queue of a priority on a switch: the identity of every dialect's factory mapping
 * (NVUE egress-queue-mapping default-global: switch-priority N -> traffic-class N;
 * SONiC AZURE tc_to_queue_map: tc N -> queue N; EOS traffic-class N -> tx-queue N). */
static unsigned queue_of(const struct state *st, unsigned prio)
{
        return state_has(st, STATE_FIELD_ETS) ? st->ets.prio_tc[prio] % STATE_TC_COUNT : prio;
}

static const char *prio_list(uint8_t bits, char *buf, size_t size)
{
        return doctor_prio_list(bits, buf, size);
}

/* The RoCE priority of a host: the parameter, else what the host maps the RoCE DSCP to, else 3. */
static int roce_prio(const struct state *host, const struct doctor_params *p)
{
        if (p->roce_prio >= 0)
                return p->roce_prio;
        if (state_has(host, STATE_FIELD_DSCP_MAP) && p->roce_dscp >= 0 &&
            host->dscp_prio[p->roce_dscp] != STATE_DSCP_UNMAPPED)
                return host->dscp_prio[p->roce_dscp];
        return 3;
}

static const char *port_name(const struct doctor_path *p)
{
        return p->linux_port ? p->linux_port->name : p->port->name;
}

/* Propose for the switch (or Linux port) of a path; true when the proposal takes it. */
static bool propose_path(struct doctor_report *r, const struct doctor_path *p)
{
        if (p->linux_port)
                return doctor_propose_target(r, p->sw_node->name, p->linux_port->name, true, 0);
        return doctor_propose_target(r, p->sw_node->name, p->sw->name, false, p->sw->mtu_max);
}

struct rule_ctx {
        const struct doctor_rule *rule;
        const struct doctor_params *p;
        const struct doctor_facts *f;
        struct doctor_report *r;
};

/* ---- mtu_mismatch ---- */

static void mtu_one(const struct doctor_path *p, void *data)
{
        struct rule_ctx *c = data;
        uint32_t host = p->iface->st.mtu, port = p->port_st->mtu, want;
        struct doctor_finding *x;

        if (!state_has(&p->iface->st, STATE_FIELD_MTU) || !state_has(p->port_st, STATE_FIELD_MTU) || host <= port)
                return;
        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        snprintf(x->summary, sizeof(x->summary), "%s %s sends frames of MTU %u; port %s of %s carries at most %u",
                 p->node->name, p->iface->name, host, port_name(p), p->sw_name, port);
        doctor_ev_num(x, "host_mtu", host);
        doctor_ev_num(x, "switch_port_mtu", port);
        want = p->sw && p->sw->mtu_max ? p->sw->mtu_max : host;
        if (p->sw && p->sw->mtu_max && host > p->sw->mtu_max) {
                snprintf(x->fix, sizeof(x->fix), "lower the MTU of %s %s to at most %u (the %s limit of %s)",
                         p->node->name, p->iface->name, p->sw->mtu_max, p->sw->dialect, p->sw_name);
                return;
        }
        snprintf(x->fix, sizeof(x->fix), "raise the MTU of %s port %s to %u (policy mtu)", p->sw_name,
                 port_name(p), want);
        if (!propose_path(c->r, p))
                return;
        if (!state_has(&c->r->prop.spec, STATE_FIELD_MTU) || c->r->prop.spec.mtu < want)
                c->r->prop.spec.mtu = want;
        c->r->prop.spec.present |= STATE_BIT(STATE_FIELD_MTU);
        x->fixed = true;
}

/* ---- trust_mismatch ---- */

static void trust_one(const struct doctor_path *p, void *data)
{
        struct rule_ctx *c = data;
        const struct state *h = &p->iface->st, *s = p->port_st;
        struct doctor_finding *x;

        if (!state_has(h, STATE_FIELD_TRUST) || !state_has(s, STATE_FIELD_TRUST) || h->trust == s->trust)
                return;
        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        snprintf(x->summary, sizeof(x->summary), "%s %s trusts %s, port %s of %s trusts %s: the two ends classify "
                 "RoCE traffic differently", p->node->name, p->iface->name, state_trust_name(h->trust),
                 port_name(p), p->sw_name, state_trust_name(s->trust));
        doctor_ev_str(x, "host_trust", "%s", state_trust_name(h->trust));
        doctor_ev_str(x, "switch_port_trust", "%s", state_trust_name(s->trust));
        if (h->trust == STATE_TRUST_NONE) {
                snprintf(x->fix, sizeof(x->fix), "set trust dscp on %s %s (policy trust)", p->node->name,
                         p->iface->name);
                return;
        }
        snprintf(x->fix, sizeof(x->fix), "set trust %s on %s (policy trust)", state_trust_name(h->trust), p->sw_name);
        if (state_has(&c->r->prop.spec, STATE_FIELD_TRUST) && c->r->prop.spec.trust != h->trust)
                return;         /* hosts disagree among themselves: no one value fixes both */
        if (!propose_path(c->r, p))
                return;
        c->r->prop.spec.trust = h->trust;
        c->r->prop.spec.present |= STATE_BIT(STATE_FIELD_TRUST);
        x->fixed = true;
}

/* ---- dscp_map_mismatch ---- */

/* The proposal's DSCP map starts from the switch's own map: the field is an exact map. */
static bool propose_dscp(struct doctor_report *r, const struct doctor_path *p, unsigned dscp, uint8_t prio)
{
        struct state *spec = &r->prop.spec;

        if ((r->prop.dscp_chosen & (UINT64_C(1) << dscp)) && spec->dscp_prio[dscp] != prio)
                return false;           /* another path wants it elsewhere: no one value fixes both */
        if (!propose_path(r, p))
                return false;
        if (!state_has(spec, STATE_FIELD_DSCP_MAP)) {
                memcpy(spec->dscp_prio, p->port_st->dscp_prio, sizeof(spec->dscp_prio));
                spec->present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
        }
        spec->dscp_prio[dscp] = prio;
        r->prop.dscp_chosen |= UINT64_C(1) << dscp;
        return true;
}

static void dscp_check(struct rule_ctx *c, const struct doctor_path *p, unsigned d)
{
        const struct state *h = &p->iface->st, *s = p->port_st;
        uint8_t hp = h->dscp_prio[d], sp = s->dscp_prio[d];
        struct doctor_finding *x;
        char a[16], b[16];

        if (hp == sp || (hp == STATE_DSCP_UNMAPPED && sp == STATE_DSCP_UNMAPPED))
                return;
        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        snprintf(a, sizeof(a), hp == STATE_DSCP_UNMAPPED ? "unmapped" : "%u", hp);
        snprintf(b, sizeof(b), sp == STATE_DSCP_UNMAPPED ? "unmapped" : "%u", sp);
        snprintf(x->summary, sizeof(x->summary), "DSCP %u: %s %s maps it to priority %s, %s port %s to %s", d,
                 p->node->name, p->iface->name, a, p->sw_name, port_name(p), b);
        doctor_ev_num(x, "dscp", d);
        doctor_ev_str(x, "host_priority", "%s", a);
        doctor_ev_str(x, "switch_priority", "%s", b);
        if (hp == STATE_DSCP_UNMAPPED) {
                snprintf(x->fix, sizeof(x->fix), "map DSCP %u to priority %s on %s %s (policy dscp_to_priority)", d, b,
                         p->node->name, p->iface->name);
                return;
        }
        snprintf(x->fix, sizeof(x->fix), "map DSCP %u to priority %u on %s (policy dscp_to_priority)", d, hp,
                 p->sw_name);
        x->fixed = propose_dscp(c->r, p, d, hp);
}

static void dscp_one(const struct doctor_path *p, void *data)
{
        struct rule_ctx *c = data;
        const struct state *h = &p->iface->st, *s = p->port_st;
        uint64_t check = 0;

        if (!state_has(h, STATE_FIELD_DSCP_MAP) || !state_has(s, STATE_FIELD_DSCP_MAP) ||
            (state_has(h, STATE_FIELD_TRUST) && h->trust != STATE_TRUST_DSCP))
                return;
        if (c->p->roce_dscp >= 0 && c->p->roce_dscp < STATE_DSCP_COUNT)
                check |= UINT64_C(1) << c->p->roce_dscp;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)         /* what the host makes lossless */
                if (h->dscp_prio[d] < STATE_PRIO_COUNT && state_has(h, STATE_FIELD_PFC) &&
                    (h->pfc_enabled & (1u << h->dscp_prio[d])))
                        check |= UINT64_C(1) << d;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (check & (UINT64_C(1) << d))
                        dscp_check(c, p, d);
}

/* ---- pfc_priority_mismatch ---- */

/*
 * A RoCE host without DCB (an RDMA device behind the interface, no PFC read: no dcbnl,
 * or nothing configured) facing a port with PFC: the host neither pauses nor honours
 * pause frames, so the lossless class the switch runs ends at that port. An interface
 * without an RDMA device is no endpoint of the class (pfc_one leaves it alone).
 */
static void pfc_no_dcb(struct rule_ctx *c, const struct doctor_path *p)
{
        const struct state *h = &p->iface->st, *s = p->port_st;
        int dscp = state_has(h, STATE_FIELD_ROCE_TOS) ? h->roce_tos >> 2 : c->p->roce_dscp;
        int sp = dscp >= 0 && dscp < STATE_DSCP_COUNT && s->dscp_prio[dscp] < STATE_PRIO_COUNT ? s->dscp_prio[dscp] : -1;
        struct doctor_finding *x;
        char b[24], on[48] = "";

        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        prio_list(s->pfc_enabled, b, sizeof(b));
        if (sp >= 0)
                snprintf(on, sizeof(on), " (RoCE DSCP %d rides priority %d there)", dscp, sp);
        snprintf(x->summary, sizeof(x->summary), "lossless priorities differ: %s %s has no DCB of its own (no PFC: it "
                 "neither pauses nor honours pause frames), port %s of %s has %s%s", p->node->name, p->iface->name,
                 port_name(p), p->sw_name, b, on);
        doctor_ev_str(x, "host_pfc", "none (no DCB)");
        doctor_ev_str(x, "switch_port_pfc", "%s", b);
        if (sp >= 0) {
                doctor_ev_num(x, "roce_dscp", dscp);
                doctor_ev_num(x, "switch_roce_priority", sp);
        }
        snprintf(x->fix, sizeof(x->fix), "configure DCB on %s %s to match the switch: trust dscp, the DSCP map and PFC on "
                 "%s (policy trust, dscp_to_priority, pfc)", p->node->name, p->iface->name, b);
}

/*
 * A host's lossless set the switch may copy: it holds the RoCE priority and, where the
 * host classifies by DSCP, every lossless priority is one its DSCP map sends traffic
 * to (else the copy is a policy the lossless class refuses: pfc_priority_unmapped).
 */
static bool host_pfc_reached(const struct state *h, int rp)
{
        uint8_t reached = 0;

        if (rp < 0 || rp >= STATE_PRIO_COUNT || !(h->pfc_enabled & (1u << rp)))
                return false;
        if (!state_has(h, STATE_FIELD_DSCP_MAP) || (state_has(h, STATE_FIELD_TRUST) && h->trust != STATE_TRUST_DSCP))
                return true;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (h->dscp_prio[d] < STATE_PRIO_COUNT)
                        reached |= (uint8_t)(1u << h->dscp_prio[d]);
        return !(h->pfc_enabled & ~reached);
}

static void pfc_one(const struct doctor_path *p, void *data)
{
        struct rule_ctx *c = data;
        const struct state *h = &p->iface->st, *s = p->port_st;
        int rp = roce_prio(h, c->p);
        uint8_t want, missing;
        struct doctor_finding *x;
        char a[24], b[24];

        if (!state_has(h, STATE_FIELD_PFC) && state_has(s, STATE_FIELD_PFC) && s->pfc_enabled && p->iface->rdma)
                pfc_no_dcb(c, p);
        if (!state_has(h, STATE_FIELD_PFC) || !state_has(s, STATE_FIELD_PFC))
                return;
        want = (uint8_t)(h->pfc_enabled | (h->pfc_enabled ? 0 : 1u << rp));
        missing = (uint8_t)(h->pfc_enabled & ~s->pfc_enabled);
        if (!missing && !!(h->pfc_enabled & (1u << rp)) == !!(s->pfc_enabled & (1u << rp)))
                return;
        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        snprintf(x->summary, sizeof(x->summary), "lossless priorities differ: %s %s has %s, port %s of %s has %s "
                 "(RoCE priority %d)", p->node->name, p->iface->name, prio_list(h->pfc_enabled, a, sizeof(a)),
                 port_name(p), p->sw_name, prio_list(s->pfc_enabled, b, sizeof(b)), rp);
        doctor_ev_num(x, "roce_priority", rp);
        doctor_ev_str(x, "host_pfc", "%s", a);
        doctor_ev_str(x, "switch_port_pfc", "%s", b);
        if (!h->pfc_enabled) {
                snprintf(x->fix, sizeof(x->fix), "enable PFC on priority %d on %s %s (policy pfc)", rp, p->node->name,
                         p->iface->name);
                return;
        }
        if (!host_pfc_reached(h, rp)) {         /* the switch copying it would copy the host's mistake */
                snprintf(x->fix, sizeof(x->fix), "make the RoCE priority %d lossless on %s %s and give every "
                         "lossless priority traffic there first (policy pfc, dscp_to_priority); then make the "
                         "same priorities lossless on %s", rp, p->node->name, p->iface->name, p->sw_name);
                return;
        }
        snprintf(x->fix, sizeof(x->fix), "make priorities %s lossless on %s, and only those (policy pfc)",
                 prio_list(want, a, sizeof(a)), p->sw_name);
        if (state_has(&c->r->prop.spec, STATE_FIELD_PFC) && c->r->prop.spec.pfc_enabled != want)
                return;
        if (!propose_path(c->r, p))
                return;
        c->r->prop.spec.pfc_enabled = want;
        c->r->prop.spec.present |= STATE_BIT(STATE_FIELD_PFC);
        x->fixed = true;
}

/* ---- cnp_priority_mismatch ---- */

static void cnp_one(const struct doctor_path *p, void *data)
{
        struct rule_ctx *c = data;
        const struct state *h = &p->iface->st, *s = p->port_st;
        const struct state_host_ecn *he = &h->host_ecn;
        uint8_t sp;
        struct doctor_finding *x;
        char b[16];

        if (!state_has(h, STATE_FIELD_HOST_ECN) || !he->has_cnp || !state_has(s, STATE_FIELD_DSCP_MAP) ||
            he->cnp_dscp >= STATE_DSCP_COUNT)
                return;
        sp = s->dscp_prio[he->cnp_dscp];
        if (sp == he->cnp_prio)
                return;
        if (!(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        snprintf(b, sizeof(b), sp == STATE_DSCP_UNMAPPED ? "unmapped" : "%u", sp);
        snprintf(x->summary, sizeof(x->summary), "%s %s sends CNPs with DSCP %u on priority %u; %s port %s puts "
                 "DSCP %u on priority %s", p->node->name, p->iface->name, he->cnp_dscp, he->cnp_prio, p->sw_name,
                 port_name(p), he->cnp_dscp, b);
        doctor_ev_num(x, "cnp_dscp", he->cnp_dscp);
        doctor_ev_num(x, "host_cnp_priority", he->cnp_prio);
        doctor_ev_str(x, "switch_priority", "%s", b);
        snprintf(x->fix, sizeof(x->fix), "map DSCP %u to priority %u on %s (policy dscp_to_priority)", he->cnp_dscp,
                 he->cnp_prio, p->sw_name);
        x->fixed = propose_dscp(c->r, p, he->cnp_dscp, he->cnp_prio);
}

static void run_paths(const struct doctor_rule *rule, const struct doctor_facts *f, const struct doctor_params *p,
                      struct doctor_report *r, void (*fn)(const struct doctor_path *, void *))
{
        struct rule_ctx c = { rule, p, f, r };

        doctor_each_path(f, fn, &c);
}

static void check_mtu(const struct doctor_rule *rule, const struct doctor_facts *f,
                      const struct doctor_params *p, struct doctor_report *r)
{
        run_paths(rule, f, p, r, mtu_one);
}

static void check_trust(const struct doctor_rule *rule, const struct doctor_facts *f,
                        const struct doctor_params *p, struct doctor_report *r)
{
        run_paths(rule, f, p, r, trust_one);
}

static void check_dscp(const struct doctor_rule *rule, const struct doctor_facts *f,
                       const struct doctor_params *p, struct doctor_report *r)
{
        run_paths(rule, f, p, r, dscp_one);
}

static void check_pfc(const struct doctor_rule *rule, const struct doctor_facts *f,
                      const struct doctor_params *p, struct doctor_report *r)
{
        run_paths(rule, f, p, r, pfc_one);
}

static void check_cnp(const struct doctor_rule *rule, const struct doctor_facts *f,
                      const struct doctor_params *p, struct doctor_report *r)
{
        run_paths(rule, f, p, r, cnp_one);
}

/* ---- switch ports, wherever they come from ---- */

/* One port of a switch (network OS or a switch-role node): what the ECN rules need. */
struct sw_port {
        const struct doctor_node *manager;
        const char *sw;                 /* switch name (a switch-role node: the node) */
        const char *name;
        bool linux_port;
        uint32_t mtu_max;
        uint32_t speed_mbps;
        uint32_t shaper_mbps;           /* a Linux switch port under a shaping class: what it drains at */
        const struct state *st;
        const struct doctor_rates *rates;
};

static void each_port(const struct doctor_facts *f, void (*fn)(const struct sw_port *, void *), void *ctx)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                if (n->error[0])
                        continue;
                for (unsigned s = 0; s < n->n_switches; s++) {
                        const struct doctor_switch *sw = &n->switches[s];

                        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++) {
                                const struct doctor_port *pt = &sw->ports[k];
                                struct sw_port x = { n, sw->name, pt->name, false, sw->mtu_max,
                                                     pt->link.speed_mbps, pt->link.shaper_mbps, &pt->st,
                                                     &pt->rates };

                                if (doctor_port_first(f, i, sw->name, pt->name))
                                        fn(&x, ctx);
                        }
                }
                for (unsigned k = 0; n->switch_role && k < n->n_ifs; k++) {
                        const struct doctor_iface *ifc = &n->ifs[k];
                        struct sw_port x = { n, n->name, ifc->name, true, 0, ifc->link.speed_mbps,
                                             ifc->link.shaper_mbps, &ifc->st, &ifc->rates };

                        fn(&x, ctx);
                }
        }
}

/*
 * The round trip the ECN floor follows: --rtt-ms, else the largest base round trip
 * (TCP min_rtt) of doctor's own probes (--probe: point to point and the fabric's
 * all-to-all); a queue serves every path through it, the longest sets what it must
 * hold. 0 when nothing measured one.
 */
double doctor_rtt_ms(const struct doctor_facts *f, const struct doctor_params *p)
{
        double rtt = 0;

        if (p->rtt_ms > 0)
                return p->rtt_ms;
        for (unsigned k = 0; k < DOCTOR_PROBE_KINDS; k++)
                for (unsigned i = 0; i < f->probes[k].n; i++)
                        if (f->probes[k].v[i].ok && f->probes[k].v[i].rtt_ms > rtt)
                                rtt = f->probes[k].v[i].rtt_ms;
        return rtt;
}

struct ecn_floor {
        uint32_t min, max;
        uint32_t rate_mbps;             /* what the port drains at: its shaper, else its speed; 0 unknown */
        double rtt_ms;                  /* 0: not measured, the per-speed floor stands */
};

/*
 * The ECN floor of a port: its bandwidth-delay product, rate x round trip, for min
 * and 10 times that for max (DOCTOR_ECN_MAX_RATIO); without a measured round trip,
 * bytes per Gb/s of its speed (a 12 us round trip: 150000 B at 100 Gb/s; 100 Gb/s
 * when the speed is unknown).
 */
void doctor_ecn_floor(uint32_t rate_mbps, double rtt_ms, const struct doctor_params *p, uint32_t *ret_min,
                      uint32_t *ret_max)
{
        double gbps = rate_mbps ? rate_mbps / 1000.0 : 100.0;

        if (rtt_ms > 0) {
                double bdp = ceil(gbps * 1e9 / 8 * rtt_ms / 1000);

                *ret_min = bdp > POLICY_ECN_BYTES_MAX ? POLICY_ECN_BYTES_MAX : bdp < 1 ? 1 : (uint32_t)bdp;
                *ret_max = bdp * DOCTOR_ECN_MAX_RATIO > POLICY_ECN_BYTES_MAX ? POLICY_ECN_BYTES_MAX
                                                                               : *ret_min * DOCTOR_ECN_MAX_RATIO;
                return;
        }
        *ret_min = (uint32_t)lround(gbps * p->ecn_min_bytes_per_gbps);
        *ret_max = (uint32_t)lround(gbps * p->ecn_max_bytes_per_gbps);
}

static void ecn_floor(const struct rule_ctx *c, const struct sw_port *sp, struct ecn_floor *ret)
{
        uint32_t rate = sp->shaper_mbps && (!sp->speed_mbps || sp->shaper_mbps < sp->speed_mbps) ? sp->shaper_mbps
                                                                                                : sp->speed_mbps;
        double rtt = doctor_rtt_ms(c->f, c->p);

        *ret = (struct ecn_floor){ .rate_mbps = rate, .rtt_ms = rtt };
        doctor_ecn_floor(rate, rtt, c->p, &ret->min, &ret->max);
}

/* Raise queue q of the proposal to at least (min, max); keeps the highest thresholds, the lowest probability. */
static void propose_ecn(struct doctor_report *r, unsigned q, uint32_t min, uint32_t max, uint8_t prob)
{
        struct state *spec = &r->prop.spec;
        struct state_ecn_queue *x = &spec->ecn.q[q];

        if (!(spec->ecn.queues & (1u << q)))
                *x = (struct state_ecn_queue){ .enabled = true };
        x->enabled = true;
        x->min_bytes = x->min_bytes > min ? x->min_bytes : min;
        x->max_bytes = x->max_bytes > max ? x->max_bytes : max;
        x->probability_pct = x->probability_pct && x->probability_pct < prob ? x->probability_pct : prob;
        spec->ecn.queues |= (uint8_t)(1u << q);
        spec->present |= STATE_BIT(STATE_FIELD_ECN);
}

static bool propose_port(struct doctor_report *r, const struct sw_port *sp)
{
        return doctor_propose_target(r, sp->manager->name, sp->linux_port ? sp->name : sp->sw, sp->linux_port,
                                     sp->mtu_max);
}

/* ---- ecn_disabled_on_lossless_queue ---- */

/* Does the proposal already take this port's switch and leave prio out of its PFC? */
static bool proposal_makes_lossy(const struct doctor_report *r, const struct sw_port *sp, unsigned prio)
{
        const struct doctor_proposal *pr = &r->prop;
        const char *target = sp->linux_port ? sp->name : sp->sw;
        bool mine = false;

        for (unsigned i = 0; i < pr->n_targets; i++)
                mine |= streq(pr->targets[i], target);
        return mine && pr->linux_ports == sp->linux_port && state_has(&pr->spec, STATE_FIELD_PFC) &&
               !(pr->spec.pfc_enabled & (1u << prio));
}

static void ecn_off_port(const struct sw_port *sp, void *data)
{
        struct rule_ctx *c = data;
        const struct state *st = sp->st;
        struct ecn_floor fl;
        uint32_t fmin, fmax;

        if (!state_has(st, STATE_FIELD_PFC) || !state_has(st, STATE_FIELD_ECN))
                return;
        ecn_floor(c, sp, &fl);
        fmin = fl.min;
        fmax = fl.max;
        for (unsigned prio = 0; prio < STATE_PRIO_COUNT; prio++) {
                unsigned q = queue_of(st, prio);
                struct doctor_finding *x;
                char group[160];

                if (!(st->pfc_enabled & (1u << prio)) || ((st->ecn.queues & (1u << q)) && st->ecn.q[q].enabled))
                        continue;
                snprintf(group, sizeof(group), "%s/%u/%u", sp->sw, prio, q);
                if ((x = doctor_finding_group(c->r, c->rule, group))) {
                        doctor_finding_port(x, sp->sw, sp->name);
                        doctor_ev_max(x, "ports", x->n_ports);
                        if (!proposal_makes_lossy(c->r, sp, prio) && propose_port(c->r, sp))
                                propose_ecn(c->r, q, fmin, fmax, c->p->ecn_probability_pct);
                        else if (!proposal_makes_lossy(c->r, sp, prio))
                                x->fixed = false;
                        continue;
                }
                if (!(x = doctor_finding_add(c->r, c->rule)))
                        return;
                snprintf(x->group, sizeof(x->group), "%s", group);
                doctor_finding_node(x, sp->manager->name);
                doctor_finding_port(x, sp->sw, sp->name);
                snprintf(x->summary, sizeof(x->summary), "%s: priority %u is lossless but its queue %u does not mark "
                         "ECN: congestion there only pauses", sp->sw, prio, q);
                doctor_ev_num(x, "priority", prio);
                doctor_ev_num(x, "queue", q);
                doctor_ev_num(x, "ports", 1);
                snprintf(x->fix, sizeof(x->fix), "enable ECN on queue %u of %s (policy ecn, thresholds %u-%u bytes)",
                         q, sp->sw, fmin, fmax);
                if (proposal_makes_lossy(c->r, sp, prio)) {
                        snprintf(x->fix, sizeof(x->fix), "make priority %u lossy on %s (the proposal's pfc), or enable "
                                 "ECN on its queue %u (policy ecn)", prio, sp->sw, q);
                        x->fixed = true;
                } else if (propose_port(c->r, sp)) {
                        propose_ecn(c->r, q, fmin, fmax, c->p->ecn_probability_pct);
                        x->fixed = true;
                }
        }
}

/* A host NIC whose lossless priority has no DCQCN: the reaction or notification point is off. */
static void ecn_off_hosts(struct rule_ctx *c)
{
        for (unsigned i = 0; i < c->f->n_nodes; i++) {
                const struct doctor_node *n = &c->f->nodes[i];

                for (unsigned k = 0; !n->error[0] && !n->switch_role && k < n->n_ifs; k++) {
                        const struct state *st = &n->ifs[k].st;
                        const struct state_host_ecn *he = &st->host_ecn;
                        uint8_t off = (uint8_t)(he->prios & st->pfc_enabled & ~(he->rp_enabled & he->np_enabled));
                        struct doctor_finding *x;
                        char a[24];

                        if (!state_has(st, STATE_FIELD_PFC) || !state_has(st, STATE_FIELD_HOST_ECN) || !off ||
                            !(x = doctor_finding_add(c->r, c->rule)))
                                continue;
                        doctor_finding_node(x, n->name);
                        doctor_finding_port(x, n->name, n->ifs[k].name);
                        snprintf(x->summary, sizeof(x->summary), "%s %s: lossless priorities %s have DCQCN off "
                                 "(reaction or notification point)", n->name, n->ifs[k].name,
                                 prio_list(off, a, sizeof(a)));
                        doctor_ev_str(x, "priorities", "%s", a);
                        doctor_ev_str(x, "reaction_point", "%s", prio_list(he->rp_enabled & he->prios, a, sizeof(a)));
                        doctor_ev_str(x, "notification_point", "%s",
                                      prio_list(he->np_enabled & he->prios, a, sizeof(a)));
                        snprintf(x->fix, sizeof(x->fix), "enable the reaction and notification points on those "
                                 "priorities of %s %s (policy host_ecn)", n->name, n->ifs[k].name);
                }
        }
}

static void check_ecn_off(const struct doctor_rule *rule, const struct doctor_facts *f,
                          const struct doctor_params *p, struct doctor_report *r)
{
        struct rule_ctx c = { rule, p, f, r };

        each_port(f, ecn_off_port, &c);
        ecn_off_hosts(&c);
}

/* ---- ecn_threshold_low ---- */

/* Marks on queue q of a port (the port's own count where the switch counts per port only). */
static double queue_marks(const struct doctor_rates *r, unsigned q, bool *ret_known)
{
        double v = doctor_rate_sum(r, DOCTOR_ECN_MARKED, (int)q, ret_known);

        return *ret_known ? v : doctor_rate_sum(r, DOCTOR_ECN_MARKED, DOCTOR_PRIO_ANY, ret_known);
}

/* The floor in words: "its bandwidth-delay product (20 Mbit/s x 60.2 ms)", or the per-speed rule's. */
static const char *floor_words(const struct sw_port *sp, const struct ecn_floor *fl, char *buf, size_t size)
{
        if (fl->rtt_ms > 0 && fl->rate_mbps)
                snprintf(buf, size, "its bandwidth-delay product (%u Mbit/s x %.1f ms)", fl->rate_mbps, fl->rtt_ms);
        else if (fl->rtt_ms > 0)
                snprintf(buf, size, "its bandwidth-delay product (100 Gb/s, speed unknown, x %.1f ms)", fl->rtt_ms);
        else
                snprintf(buf, size, "%s, at a 12 us round trip (none measured)",
                         sp->speed_mbps ? "the port speed" : "100 Gb/s (speed unknown)");
        return buf;
}

static struct doctor_finding *ecn_low_new(struct rule_ctx *c, const struct sw_port *sp, unsigned q,
                                          const struct state_ecn_queue *e, const struct ecn_floor *fl)
{
        struct doctor_finding *x = doctor_finding_add(c->r, c->rule);
        int n;

        if (!x)
                return NULL;
        doctor_finding_node(x, sp->manager->name);
        doctor_ev_num(x, "queue", q);
        doctor_ev_num(x, "min_threshold_bytes", e->min_bytes);
        doctor_ev_num(x, "max_threshold_bytes", e->max_bytes);
        doctor_ev_num(x, "floor_min_bytes", fl->min);
        doctor_ev_num(x, "floor_max_bytes", fl->max);
        if (sp->speed_mbps)
                doctor_ev_num(x, "port_speed_mbps", sp->speed_mbps);
        else
                doctor_ev_str(x, "port_speed_mbps", "unknown (100000 assumed)");
        if (sp->shaper_mbps)
                doctor_ev_num(x, "shaper_mbps", sp->shaper_mbps);
        if (fl->rtt_ms > 0)
                doctor_ev_num(x, "rtt_ms", round(fl->rtt_ms * 10) / 10);
        else
                doctor_ev_str(x, "rtt_ms", "not measured (doctor --probe measures it)");
        n = snprintf(x->fix, sizeof(x->fix), "raise the ECN thresholds of queue %u on %s to at least %u-%u bytes "
                     "(policy ecn)", q, sp->sw, fl->min, fl->max);
        if (fl->rtt_ms <= 0 && n > 0 && (size_t)n < sizeof(x->fix))
                snprintf(x->fix + n, sizeof(x->fix) - (size_t)n, "; that floor assumes a 12 us round trip: measure "
                         "it (nettunectl doctor --probe), or find the thresholds by trials: nettunectl tune ecn "
                         "--switch %s --queue %u", sp->sw, q);
        x->fixed = true;                /* until a port of it cannot be proposed */
        return x;
}

/* The rates doctor measured on the queue: marks (heavy: critical), the share they are of it, pauses. */
static void ecn_low_rates(struct rule_ctx *c, const struct sw_port *sp, unsigned q, struct doctor_finding *x)
{
        bool mk, pk, tk, sk;
        double marks = queue_marks(sp->rates, q, &mk), sent, pause;

        sent = doctor_rate_sum(sp->rates, DOCTOR_TX_PACKETS, (int)q, &sk);
        pause = doctor_rate_sum(sp->rates, DOCTOR_PAUSE_RX, DOCTOR_PRIO_ANY, &pk) +
                doctor_rate_sum(sp->rates, DOCTOR_PAUSE_TX, DOCTOR_PRIO_ANY, &tk);
        if (mk)
                doctor_ev_max(x, "ecn_marked_per_s", round(marks * 10) / 10);
        if (mk && sk && sent > 0)
                doctor_ev_max(x, "ecn_marked_share", round(marks / sent * 10000) / 10000);
        if (pk || tk)
                doctor_ev_max(x, "pause_per_s", round(pause * 10) / 10);
        if (mk && (marks >= c->p->heavy_marking_pps || (sk && sent > 0 && marks >= sent * c->p->heavy_marking_share)))
                x->severity = DOCTOR_CRITICAL;
}

static void ecn_low_port(const struct sw_port *sp, void *data)
{
        struct rule_ctx *c = data;
        const struct state *st = sp->st;
        struct ecn_floor fl;
        char words[128];

        if (!state_has(st, STATE_FIELD_ECN))
                return;
        ecn_floor(c, sp, &fl);
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *e = &st->ecn.q[q];
                struct doctor_finding *x;
                char group[160];
                unsigned prob;

                if (!(st->ecn.queues & (1u << q)) || !e->enabled || (e->min_bytes >= fl.min && e->max_bytes >= fl.max))
                        continue;
                snprintf(group, sizeof(group), "%s/%u/%u/%u/%u", sp->sw, q, e->min_bytes, e->max_bytes, fl.min);
                x = doctor_finding_group(c->r, c->rule, group);
                if (!x && !(x = ecn_low_new(c, sp, q, e, &fl)))
                        return;
                snprintf(x->group, sizeof(x->group), "%s", group);
                doctor_finding_port(x, sp->sw, sp->name);
                /* the queue's own probability, at most doctor's (a ramp to 100% at max marks too early) */
                prob = e->probability_pct && e->probability_pct < c->p->ecn_probability_pct ? e->probability_pct
                                                                                             : c->p->ecn_probability_pct;
                if (propose_port(c->r, sp))     /* every port: a Linux switch's ports are targets each */
                        propose_ecn(c->r, q, e->min_bytes > fl.min ? e->min_bytes : fl.min,
                                    e->max_bytes > fl.max ? e->max_bytes : fl.max, (uint8_t)prob);
                else
                        x->fixed = false;
                ecn_low_rates(c, sp, q, x);
                snprintf(x->summary, sizeof(x->summary), "%s queue %u marks from %u bytes (max %u): below the floor "
                         "%u-%u for %s%s", sp->sw, q, e->min_bytes, e->max_bytes, fl.min, fl.max,
                         floor_words(sp, &fl, words, sizeof(words)),
                         x->severity == DOCTOR_CRITICAL ? "; it marks heavily: senders slow down early" : "");
        }
}

static void check_ecn_low(const struct doctor_rule *rule, const struct doctor_facts *f,
                          const struct doctor_params *p, struct doctor_report *r)
{
        struct rule_ctx c = { rule, p, f, r };

        each_port(f, ecn_low_port, &c);
}

/* ---- pause_storm ---- */

static void pause_one(struct rule_ctx *c, const char *node, const char *a, const char *b,
                      const struct doctor_rates *rates, const struct state *st)
{
        int prx, ptx;
        double rx = doctor_rate_max(rates, DOCTOR_PAUSE_RX, &prx), tx = doctor_rate_max(rates, DOCTOR_PAUSE_TX, &ptx);
        double link_rx = doctor_rate_sum(rates, DOCTOR_PAUSE_RX, DOCTOR_PRIO_ANY, NULL);
        double link_tx = doctor_rate_sum(rates, DOCTOR_PAUSE_TX, DOCTOR_PRIO_ANY, NULL);
        bool storm_known;
        double storms = doctor_rate_sum(rates, DOCTOR_PAUSE_STORM, DOCTOR_PRIO_ANY, &storm_known);
        double worst = fmax(fmax(rx, tx), prx < 0 && ptx < 0 ? fmax(link_rx, link_tx) : 0);
        struct doctor_finding *x;

        if (worst < c->p->pause_storm_pps && !(storm_known && storms > 0))
                return;
        if (!(x = doctor_finding_add(c->r, c->rule)))
                return;
        doctor_finding_node(x, node);
        doctor_finding_port(x, a, b);
        snprintf(x->summary, sizeof(x->summary), "%s %s: %.0f pause frames per second%s (bound %.0f)", a, b, worst,
                 storms > 0 ? " and the device's own pause storm detection fired" : "", c->p->pause_storm_pps);
        if (prx >= 0 || ptx >= 0) {
                doctor_ev_num(x, "priority", rx >= tx ? prx : ptx);
                doctor_ev_num(x, "pause_rx_per_s", round(rx * 10) / 10);
                doctor_ev_num(x, "pause_tx_per_s", round(tx * 10) / 10);
        } else {
                doctor_ev_num(x, "pause_rx_per_s", round(link_rx * 10) / 10);
                doctor_ev_num(x, "pause_tx_per_s", round(link_tx * 10) / 10);
        }
        if (storm_known)
                doctor_ev_num(x, "pause_storm_events_per_s", round(storms * 100) / 100);
        doctor_ev_num(x, "bound_per_s", c->p->pause_storm_pps);
        doctor_watchdog_evidence(x, st);
        snprintf(x->fix, sizeof(x->fix), "find the congested egress queue behind it: ECN thresholds too low "
                 "(ecn_threshold_low) or a receiver that cannot keep up; %s",
                 doctor_watchdog_missing_on(st) ? "nothing contains the storm here: the PFC watchdog (switch) or the "
                 "stall prevention timeout (NIC) is missing (watchdog_missing)" : "a PFC watchdog on the switch and stall "
                 "prevention on the NIC contain a storm");
}

static void check_pause(const struct doctor_rule *rule, const struct doctor_facts *f,
                        const struct doctor_params *p, struct doctor_report *r)
{
        struct rule_ctx c = { rule, p, f, r };

        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && k < n->n_ifs; k++)
                        pause_one(&c, n->name, n->name, n->ifs[k].name, &n->ifs[k].rates, &n->ifs[k].st);
                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++)
                        for (unsigned k = 0; k < n->switches[s].n_ports; k++)
                                if (doctor_port_first(f, i, n->switches[s].name, n->switches[s].ports[k].name))
                                        pause_one(&c, n->name, n->switches[s].name, n->switches[s].ports[k].name,
                                                  &n->switches[s].ports[k].rates, &n->switches[s].ports[k].st);
        }
}

/* ---- link_downshift ---- */

struct speeds {
        unsigned n, at_max;
        uint32_t max;
};

static void speeds_add(struct speeds *s, const struct doctor_link *l)
{
        if (!l->speed_mbps || (l->state_known && !l->up))
                return;
        if (l->speed_mbps > s->max) {
                s->max = l->speed_mbps;
                s->at_max = 0;
        }
        s->at_max += l->speed_mbps == s->max;
        s->n++;
}

static void downshift_one(struct rule_ctx *c, const char *node, const char *a, const char *b,
                          const struct doctor_link *l, const struct speeds *peers)
{
        bool below_max = l->max_speed_mbps && l->speed_mbps < l->max_speed_mbps;
        bool below_peers = peers->n >= 2 && l->speed_mbps < peers->max && 2 * peers->at_max > peers->n;
        struct doctor_finding *x;

        if (!l->speed_mbps || (l->state_known && !l->up) || (!below_max && !below_peers))
                return;
        if (!(x = doctor_finding_add(c->r, c->rule)))
                return;
        doctor_finding_node(x, node);
        doctor_finding_port(x, a, b);
        snprintf(x->summary, sizeof(x->summary), "%s %s runs at %u Mb/s%s%s", a, b, l->speed_mbps,
                 below_max ? "; it supports more" : "", below_peers ? "; its peers run faster" : "");
        doctor_ev_num(x, "speed_mbps", l->speed_mbps);
        if (l->max_speed_mbps)
                doctor_ev_num(x, "max_speed_mbps", l->max_speed_mbps);
        if (below_peers)
                doctor_ev_num(x, "peers_speed_mbps", peers->max);
        if (l->rate[0])
                doctor_ev_str(x, "rdma_rate", "%s", l->rate);
        snprintf(x->fix, sizeof(x->fix), "check the cable, transceiver and autonegotiation of %s %s (ethtool, the "
                 "switch's link view)", a, b);
}

static void check_downshift(const struct doctor_rule *rule, const struct doctor_facts *f,
                            const struct doctor_params *p, struct doctor_report *r)
{
        struct rule_ctx c = { rule, p, f, r };
        struct speeds hosts = { 0 };

        for (unsigned i = 0; i < f->n_nodes; i++)
                for (unsigned k = 0; !f->nodes[i].error[0] && k < f->nodes[i].n_ifs; k++)
                        if (doctor_iface_roce(&f->nodes[i].ifs[k]))
                                speeds_add(&hosts, &f->nodes[i].ifs[k].link);
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && k < n->n_ifs; k++)
                        if (doctor_iface_roce(&n->ifs[k]))
                                downshift_one(&c, n->name, n->name, n->ifs[k].name, &n->ifs[k].link, &hosts);
                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++) {
                        const struct doctor_switch *sw = &n->switches[s];
                        struct speeds ports = { 0 };

                        for (unsigned k = 0; k < sw->n_ports; k++)
                                speeds_add(&ports, &sw->ports[k].link);
                        for (unsigned k = 0; k < sw->n_ports; k++)
                                if (doctor_port_first(f, i, sw->name, sw->ports[k].name))
                                        downshift_one(&c, n->name, sw->name, sw->ports[k].name, &sw->ports[k].link,
                                                      &ports);
                }
        }
}

/* ---- lldpad_conflict ---- */

static void check_lldpad(const struct doctor_rule *rule, const struct doctor_facts *f,
                         const struct doctor_params *p, struct doctor_report *r)
{
        const uint32_t dcb = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) |
                             STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS);

        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                struct doctor_finding *x;
                unsigned with_dcb = 0;

                for (unsigned k = 0; k < n->n_ifs; k++)
                        with_dcb += !!(n->ifs[k].st.present & dcb);
                if (n->error[0] || !n->lldpad || !(x = doctor_finding_add(r, rule)))
                        continue;
                doctor_finding_node(x, n->name);
                for (unsigned k = 0; k < n->n_ifs; k++)
                        if (n->ifs[k].st.present & dcb)
                                doctor_finding_port(x, n->name, n->ifs[k].name);
                snprintf(x->summary, sizeof(x->summary), "lldpad (pid %d) runs on %s: it negotiates DCB (DCBX) and may "
                         "rewrite PFC, ETS and the APP table under the policy%s", n->lldpad_pid, n->name,
                         with_dcb ? "" : " (no DCB-capable interface read here)");
                doctor_ev_num(x, "lldpad_pid", n->lldpad_pid);
                doctor_ev_num(x, "interfaces_with_dcb", with_dcb);
                snprintf(x->fix, sizeof(x->fix), "stop and disable lldpad on %s (systemctl disable --now lldpad), or "
                         "leave DCB to it and take the DCB fields out of the policy", n->name);
        }
}

/* ---- drift ---- */

static void check_drift(const struct doctor_rule *rule, const struct doctor_facts *f,
                        const struct doctor_params *p, struct doctor_report *r)
{

        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                struct doctor_finding *x;

                if (n->error[0] || !n->drift_known || !n->n_drift || !(x = doctor_finding_add(r, rule)))
                        continue;
                doctor_finding_node(x, n->name);
                for (unsigned k = 0; k < n->n_drift && k < DOCTOR_DRIFT_MAX; k++) {
                        doctor_finding_port(x, n->name, n->drift[k].target);
                        if (k < DOCTOR_EVIDENCE_MAX - 1 && n->drift[k].owner[0])
                                doctor_ev_str(x, n->drift[k].key, "%s (committed %s by policy '%s')",
                                              n->drift[k].live, n->drift[k].committed, n->drift[k].owner);
                        else if (k < DOCTOR_EVIDENCE_MAX - 1)
                                doctor_ev_str(x, n->drift[k].key, "%s (committed %s)", n->drift[k].live,
                                              n->drift[k].committed);
                }
                doctor_ev_num(x, "differences", n->n_drift);
                snprintf(x->summary, sizeof(x->summary), "%s: %u setting%s differ%s from the committed policy '%s'",
                         n->name, n->n_drift, n->n_drift == 1 ? "" : "s", n->n_drift == 1 ? "s" : "", n->policy);
                snprintf(x->fix, sizeof(x->fix), "re-apply '%s' (nettunectl apply), or put the live values into it",
                         n->policy);
        }
}

/* ---- another writer ---- */

/* A field serve's enforcement gave up (the agent's second_writer): something else keeps writing it. */
static void check_second_writer(const struct doctor_rule *rule, const struct doctor_facts *f,
                                const struct doctor_params *p, struct doctor_report *r)
{
        (void)p;
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                struct doctor_finding *x;

                if (n->error[0] || !n->n_second_writers || !(x = doctor_finding_add(r, rule)))
                        continue;
                doctor_finding_node(x, n->name);
                for (unsigned k = 0; k < n->n_second_writers && k < DOCTOR_SECOND_WRITERS_MAX; k++) {
                        const struct doctor_second_writer *w = &n->second_writers[k];
                        char key[DOCTOR_NAME_MAX + 56];

                        doctor_finding_port(x, n->name, w->target);
                        snprintf(key, sizeof(key), "%s %s", w->target, w->field);
                        if (k < DOCTOR_EVIDENCE_MAX)
                                doctor_ev_str(x, key, "restored %u times, values seen: %s", w->times,
                                              w->values[0] ? w->values : "none recorded");
                }
                snprintf(x->summary, sizeof(x->summary), "%s: another writer keeps changing %u field%s that serve's "
                         "enforcement restored (first: %s %s, %u times); it no longer restores %s", n->name,
                         n->n_second_writers, n->n_second_writers == 1 ? "" : "s", n->second_writers[0].target,
                         n->second_writers[0].field, n->second_writers[0].times,
                         n->n_second_writers == 1 ? "it" : "them");
                snprintf(x->fix, sizeof(x->fix), "find the other writer on %s (a NIC configuration daemon, the switch's "
                         "own QoS configuration, a person) and stop it, or declare the field in the agent's "
                         "external_owners and take it out of the policy; a committed apply, remove or rollback "
                         "starts the count again", n->name);
        }
}

/* ---- the table ---- */

#define SRC_8021QBB "IEEE 802.1Qbb (PFC); NVIDIA RoCE configuration guide: PFC on the RoCE priority end to end"
#define SRC_LOSSLESS "docs/policy-reference.md, The lossless class (the rules validate and plan apply)"

const struct doctor_rule doctor_rules[] = {
        { .code = "link_downshift", .severity = DOCTOR_WARNING,
          .what = "a link runs slower than it supports or than its peers",
          .threshold = "negotiated speed < the fastest supported link mode, or < the speed most peers of its class run at "
            "(RoCE host interfaces fleet-wide; the ports of one switch)",
          .source = "the seed, step 1 (ibstat: no downshift); ETHTOOL_GLINKSETTINGS supported modes; sysfs speed",
          .needs_path = false, .check = check_downshift },
        { .code = "mtu_mismatch", .severity = DOCTOR_CRITICAL,
          .what = "a host MTU above the switch port MTU on its path",
          .threshold = "host interface MTU > switch port MTU",
          .source = "IEEE 802.3 (oversized frames are dropped); vendor MTU ranges "
            "(NVUE 552-9216, SONiC 68-9216, EOS 68-9214)",
          .needs_path = true, .check = check_mtu },
        { .code = "trust_mismatch", .severity = DOCTOR_CRITICAL,
          .what = "host and switch classify by different fields (pcp/dscp)",
          .threshold = "host trust != switch port trust",
          .source = "NVIDIA RoCE configuration guide (trust dscp on both ends); "
            "Cumulus Linux 5.12 QoS: trust l2|l3",
          .needs_path = true, .check = check_trust },
        { .code = "dscp_map_mismatch", .severity = DOCTOR_CRITICAL,
          .what = "host and switch map the RoCE DSCP to different priorities",
          .threshold = "for the RoCE DSCP (26) and every DSCP the host maps to a lossless priority: host priority != switch "
            "priority",
          .source = "NVIDIA RoCE defaults (DSCP 26 -> priority 3, CNP DSCP 48 -> 6: nv show interface qos roce "
            "status)",
          .needs_path = true, .check = check_dscp },
        { .code = "pfc_priority_mismatch", .severity = DOCTOR_CRITICAL,
          .what = "the RoCE priority lossless on one side only",
          .threshold = "a host lossless priority not lossless on its switch port, the RoCE priority lossless on one end only, or "
            "a host without DCB facing a port with PFC",
          .source = SRC_8021QBB,
          .needs_path = true, .check = check_pfc },
        { .code = "ecn_disabled_on_lossless_queue", .severity = DOCTOR_WARNING,
          .what = "a lossless priority whose queue does not mark ECN",
          .threshold = "PFC on priority P and ECN off on its queue (switch), or DCQCN reaction/notification point off (NIC)",
          .source = "DCQCN (Zhu et al., SIGCOMM 2015): ECN marking before PFC; NVIDIA RoCE lossless mode enables ECN on the "
            "RoCE queue",
          .needs_path = false, .check = check_ecn_off },
        { .code = "ecn_threshold_low", .severity = DOCTOR_WARNING,
          .what = "ECN thresholds below the floor for the port's bandwidth-delay product",
          .threshold = "min < the port's bandwidth-delay product (its rate - a shaping class's where it has one - x the largest "
            "base round trip doctor's probes measured, or --rtt-ms) or max < 10 x that; without a measured round trip "
            "1500 / 15000 B per Gb/s of port speed (a 12 us round trip: 150000 / 1500000 B at 100 Gb/s), and the fix "
            "names nettunectl tune; critical with heavy marking (>= 1000 marked packets/s, or >= 1 in 1000 of the "
            "queue's packets). The proposal's probability: the queue's own, at most 10%",
          .source = "the bandwidth-delay product rule of buffer sizing (Villamizar & Song, 1994); TCP_INFO tcpi_min_rtt of "
            "the probes; Cumulus Linux 5.12 RoCE defaults (min 150000 B, max 1500000 B: 146.48 KB / 1.43 MB); the "
            "seed: thresholds too low, marking early, pause frames; the VM lab's ECN story (bench/RESULTS.md)",
          .needs_path = false, .check = check_ecn_low },
        { .code = "cnp_priority_mismatch", .severity = DOCTOR_WARNING,
          .what = "CNPs leave the host on a priority the switch does not give "
            "their DSCP",
          .threshold = "host cnp_priority != switch priority of host cnp_dscp",
          .source = "NVIDIA RoCE defaults (CNP DSCP "
            "48 -> priority 6); MLNX_OFED roce_np cnp_dscp / cnp_802p_prio",
          .needs_path = true, .check = check_cnp },
        { .code = "cnp_class_mismatch", .severity = DOCTOR_WARNING,
          .what = "CNPs leave the host with a DSCP its switch port does not put in its "
            "CNP class",
          .threshold = "the switch priority of the NIC's CNP DSCP is not a strict class of the port (its ETS where "
            "read), or, where the port's scheduling is not read, not the priority the port gives the CNP DSCP 48 "
            "(--roce-dscp's CNP sibling); with --profile the profile versions each end follows are named",
          .source = "Cumulus Linux 5.x qos roce: DSCP 48 -> switch priority 6 -> traffic class 6, strict; NVIDIA Network "
            "Operator roceOptimized CNP_DSCP 4 (26.7 docs) vs 48 (26.10 docs); MLNX_OFED roce_np cnp_dscp / "
            "cnp_802p_prio",
          .needs_path = true, .check = doctor_check_cnp_class },
        { .code = "pause_storm", .severity = DOCTOR_CRITICAL,
          .what = "pause frames above a bound",
          .threshold = "pause frames/s on one priority >= 1000 "
            "(rx or tx), or the device's pause storm events",
          .source = "the seed, step 3 (many pause frames); at 100 Gb/s one "
            "XOFF of the largest quanta holds the link 336 us, 1000/s can pause it a third of the time; mlx5 "
            "tx_pause_storm_* counters",
          .needs_path = false, .check = check_pause },
        { .code = "watchdog_missing", .severity = DOCTOR_WARNING,
          .what = "nothing contains a PFC storm on a lossless port",
          .threshold = "a switch port's lossless priority its PFC watchdog does not cover; a NIC with lossless priorities whose "
            "stall prevention timeout is 8000 ms (the firmware default) or 0 (off)",
          .source = "Guo et al., RDMA over Commodity "
            "Ethernet at Scale (SIGCOMM 2016), 4.3: NIC (100 ms) and ToR watchdogs; SONiC pfcwd (pfcwd_sw_enable); "
            "mlx5 en_ethtool.c pfc-prevention-tout",
          .needs_path = false, .check = doctor_check_watchdog_missing },
        { .code = "watchdog_flapping", .severity = DOCTOR_WARNING,
          .what = "a switch queue's PFC watchdog storms and restores again and again",
          .threshold = "storm/restore cycles of one queue over the window >= 3 (--watchdog-flaps)",
          .source = "sonic-buildimage #8483 "
            "(storm/restore flapping); SONiC pfc_restore.lua: any pause frame restarts the restoration time",
          .needs_path = false, .check = doctor_check_watchdog_flapping },
        { .code = "lldpad_conflict", .severity = DOCTOR_WARNING,
          .what = "lldpad runs and owns DCB",
          .threshold = "an lldpad process on the node",
          .source = "lldpad(8): DCBX rewrites PFC/ETS/APP; nettune refuses DCB changes "
            "while it runs (drivers/host/dcb_driver.c)",
          .needs_path = false, .check = check_lldpad },
        { .code = "drift", .severity = DOCTOR_WARNING,
          .what = "live state differs from the committed policy",
          .threshold = "any difference of a managed "
            "field",
          .source = "nettune-agent drift (docs/operations.md, Drift)",
          .needs_path = false, .check = check_drift },
        /* the lossless class, each device against itself (doctor_lossless.c; docs/policy-reference.md) */
        { .code = "pfc_priority_unmapped", .severity = DOCTOR_WARNING,
          .what = "a PFC priority no DSCP reaches while trust is dscp",
          .threshold = "trust dscp, every code point's priority known, PFC on a priority none maps to",
          .source = SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_pfc_unmapped },
        { .code = "roce_priority_lossy", .severity = DOCTOR_CRITICAL,
          .what = "the RoCE DSCP rides a priority without PFC",
          .threshold = "trust dscp: the priority of the RoCE DSCP (26, --roce-dscp) has no PFC",
          .source = SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_roce_lossy },
        { .code = "host_ecn_priority_mismatch", .severity = DOCTOR_INFO,
          .what = "DCQCN on a priority that is not lossless",
          .threshold = "reaction or notification point on for a priority without PFC (a lossless priority without DCQCN is "
            "ecn_disabled_on_lossless_queue)",
          .source = SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_host_ecn },
        { .code = "cnp_dscp_unmapped", .severity = DOCTOR_WARNING,
          .what = "a NIC's CNP DSCP maps to another priority than its CNP priority",
          .threshold = "trust dscp: the NIC's own map of cnp_dscp != cnp_priority",
          .source = SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_cnp_dscp },
        { .code = "lossless_tc_no_bandwidth", .severity = DOCTOR_CRITICAL,
          .what = "ETS gives a lossless priority's class 0%",
          .threshold = "the traffic class of a PFC priority is an ets class with 0%",
          .source = SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_tc_bandwidth },
        { .code = "roce_tos_lossy", .severity = DOCTOR_CRITICAL,
          .what = "the RDMA default ToS rides a priority without PFC",
          .threshold = "roce_tos >> 2 maps to a priority without PFC on the host (trust dscp) or on its switch port",
          .source = "rdma_cm configfs default_roce_tos (cma.c cma_resolve_iboe_route: the connecting side's default); "
            SRC_LOSSLESS,
          .needs_path = false, .check = doctor_check_roce_tos },
        { .code = "rdma_on_lossy_priority", .severity = DOCTOR_CRITICAL,
          .what = "RoCE bytes flow on priorities without PFC",
          .threshold = "in a direction (rx or tx), RoCE bytes >= 1 MB/s (vport_rdma) and the lossless priorities' bytes (prioN) "
            "under 99% of them (--class-share)",
          .source = "mlx5 en_stats.c: vport_stats_desc (rx/tx_vport_rdma_*_bytes), pport_per_prio_traffic_stats_desc "
            "(rx/tx_prioN_bytes, per priority)",
          .needs_path = false, .check = doctor_check_rdma_lossy },
        { .code = "headroom_insufficient", .severity = DOCTOR_CRITICAL,
          .what = "a lossless priority's buffer is smaller than its headroom",
          .threshold = "the size of the buffer a PFC priority fills < nettunectl headroom's size for the port's speed, MTU and "
            "cable length (host NICs and Linux switch ports, whose buffers are read)",
          .source = "sonic-swss buffer_headroom_mellanox.lua (Spectrum); mlx5 en/port_buffer.c calculate_xoff (ConnectX); "
            "docs/operations.md, Headroom",
          .needs_path = false, .check = doctor_check_headroom },
        { .code = "cable_length_unset", .severity = DOCTOR_WARNING,
          .what = "a lossless port sized for its device's default cable length",
          .threshold = "PFC on, no cable length of its own (or mlx5's default 7 m) and a longer one known for the link: "
            "declared by the committed policy or set on the other end",
          .source = "mlx5 MLX5E_DEFAULT_CABLE_LEN; SONiC "
            "buffermgrdyn.cpp (no lossless profile without CABLE_LENGTH); NVUE qos pfc cable-length",
          .needs_path = false, .check = doctor_check_cable_unset },
        { .code = "lossless_drops", .severity = DOCTOR_CRITICAL,
          .what = "packets of a lossless priority were dropped",
          .threshold = "any received packet of a PFC priority dropped for lack of buffer (per priority or priority group; a "
            "port-wide counter is a warning), or a drop on a switch port's queue of a PFC priority",
          .source = SRC_8021QBB
            "; mlx5 counters.rst rx_prio[p]_discards, rx_discards_phy; SONiC pg-drop; NVUE "
            "rx-buffer-discards; EOS inDiscards",
          .needs_path = false, .check = doctor_check_lossless_drops },
        { .code = "fabric_suspect", .severity = DOCTOR_WARNING,
          .what = "a node's link, a rack's uplink or a path far slower than its peers",
          .threshold = "nettunectl locate (--locate): every pair through it more than 50% below its peers' median in both "
            "rounds; critical at high confidence (two pairs or more show it, the rest of the fabric quiet)",
          .source = "pairs measured against their peers as R-Pingmesh (SIGCOMM 2024) and ByteTracker localise a degraded "
            "link; controller/fabric/locate.h",
          .needs_path = false, .check = doctor_check_fabric_suspect },
        { .code = "nccl_tc_lossy", .severity = DOCTOR_CRITICAL,
          .what = "NCCL's traffic class rides a priority without PFC",
          .threshold = "a RoCE host's NCCL file exists and sets NCCL_IB_TC (or none: 0) whose DSCP (>> 2) maps to a priority without "
            "PFC on the host (trust dscp) or on its switch port, and no MLNX_OFED global traffic_class overrides it",
          .source = "NCCL src/transport/net_ib.cc (grh.traffic_class = ncclParamIbTc(), default 0), src/misc/param.cc "
            "(the file format)",
          .needs_path = false, .check = doctor_check_nccl_tc },
        { .code = "roce_mode_v1", .severity = DOCTOR_WARNING,
          .what = "an RDMA port's rdma_cm default is RoCE v1: no IP header, so no DSCP",
          .threshold = "rdma_cm default_roce_mode 'IB/RoCE v1' on a port of a host interface that classifies by DSCP (trust "
            "dscp) or has a default ToS set",
          .source = "linux drivers/infiniband/core/cma_configfs.c default_roce_mode, "
            "cache.c ib_cache_gid_type_str()",
          .needs_path = false, .check = doctor_check_roce_mode },
        { .code = "second_writer", .severity = DOCTOR_WARNING,
          .what = "serve's enforcement gave a field up: something else keeps writing it",
          .threshold = "the agent's serve restored the same field of a target 3 times within 10 minutes (agent "
            "configuration second_writer: restores, window_s) and stopped restoring it until a person acts",
          .source = "docs/operations.md, Drift (a second writer); Kubernetes server-side apply field managers",
          .needs_path = false, .check = check_second_writer },
        { .code = "pause_burst", .severity = DOCTOR_WARNING,
          .what = "a burst of pause the window's mean hides",
          .threshold = "the agent's counter sampler (counters.sample_ms, 10 ms) saw samples of >= 1000 pause frames/s (or a "
            "pause duration counter paused >= half the sample) for >= 20 ms on one priority, while the window's mean "
            "stays under pause_storm's bound",
          .source = "Arista AI Analyzer (counters sampled every 100 us: \"traditional "
            "counters are on the time scale of seconds\"); IEEE 802.3 Annex 31D (a quantum is 512 bit times); mlx5 "
            "counters.rst rx/tx_prio[p]_pause, _pause_duration (us); bnxt pfc_pri%d_rx_duration_us",
          .needs_path = false, .check = doctor_check_pause_burst },
};

const unsigned doctor_rules_n = ARRAY_SIZE(doctor_rules);

const struct doctor_rule *doctor_rule_find(const char *code)
{
        for (unsigned i = 0; i < doctor_rules_n; i++)
                if (streq(doctor_rules[i].code, code))
                        return &doctor_rules[i];
        return NULL;
}
