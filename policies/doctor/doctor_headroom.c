/* SPDX-License-Identifier: MIT */
/*
 * doctor's lossless-headroom rules (rows in doctor_rules[], doctor_rules.c):
 *
 *   headroom_insufficient  a lossless priority's buffer below what the calculator
 *                          (policies/state/headroom.h) gives for the port's speed, MTU and
 *                          cable length: host NICs and Linux switch ports, whose
 *                          buffers are read (dcbnl buffer); a switch OS sizes its own
 *                          from the cable length (cable_length_unset covers it)
 *   cable_length_unset     a lossless port that runs on its device's default cable
 *                          length (or none) while the link is longer: the committed
 *                          policy declares it, or the other end of the link has it
 *   lossless_drops         drops at a lossless priority: received packets dropped for
 *                          lack of buffer (mlx5 rx_prioN_discards, NVUE
 *                          rx-buffer-discards, SONiC PG drops; port-wide counters such
 *                          as rx_discards_phy or EOS inDiscards as a warning), and on a
 *                          switch port drops of the lossless priority's queue
 */
#include <stdarg.h>

#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"
#include "policies/state/headroom.h"

/* One end of a link: a host interface, a Linux switch port, or a switch port. */
struct end {
        const struct doctor_node *node;
        const char *where;              /* the node, or the switch */
        const char *name;
        const char *driver;             /* kernel driver ("" for a switch OS port) */
        const char *dialect;            /* "nvue", "sonic", "eos"; "" for an interface */
        bool switch_port;               /* a switch's or a switch-role node's port */
        const struct state *st;
        const struct doctor_link *link;
        const struct doctor_rates *rates;
};

static void each_end(const struct doctor_facts *f, void (*fn)(const struct end *, void *), void *ctx)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && k < n->n_ifs; k++) {
                        const struct doctor_iface *x = &n->ifs[k];
                        struct end e = { n, n->name, x->name, x->driver, "", n->switch_role, &x->st, &x->link,
                                         &x->rates };

                        fn(&e, ctx);
                }
                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++) {
                        const struct doctor_switch *sw = &n->switches[s];

                        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++) {
                                const struct doctor_port *p = &sw->ports[k];
                                struct end e = { n, sw->name, p->name, "", sw->dialect, true, &p->st, &p->link,
                                                 &p->rates };

                                fn(&e, ctx);
                        }
                }
        }
}

static uint8_t lossless(const struct end *x)
{
        return state_has(x->st, STATE_FIELD_PFC) ? x->st->pfc_enabled : 0;
}

struct hr_ctx {
        const struct doctor_rule *rule;
        const struct doctor_facts *f;
        struct doctor_report *r;
};

static struct doctor_finding *end_finding(struct hr_ctx *c, const struct end *x, const char *group)
{
        struct doctor_finding *y = doctor_finding_group(c->r, c->rule, group);

        if (y)
                return NULL;            /* already found (a port seen from two nodes) */
        if (!(y = doctor_finding_add(c->r, c->rule)))
                return NULL;
        snprintf(y->group, sizeof(y->group), "%s", group);
        doctor_finding_node(y, x->node->name);
        doctor_finding_port(y, x->where, x->name);
        return y;
}

/* ---- headroom_insufficient ---- */

/* The cable length the port's buffers are for: its own, else the policy's declared one. */
static unsigned cable_of(const struct end *x)
{
        if (state_has(x->st, STATE_FIELD_CABLE_LEN) && x->st->cable_len_m)
                return x->st->cable_len_m;
        return x->node->declared_cable_m;
}

/*
 * A Linux switch port of 8 lanes: mlxsw splits each buffer over two, each half held
 * to the headroom (spectrum_buffers.c mlxsw_sp_port_headroom_8x_adjust()), and dcbnl
 * shows the sum: the headroom is what one half holds. 1 elsewhere.
 */
static unsigned halves_of(const struct end *x, int asic)
{
        return asic != HEADROOM_CONNECTX && x->link->lanes == 8 ? 2 : 1;
}

static void short_buffer(struct hr_ctx *c, const struct end *x, unsigned prio, const struct headroom_input *in,
                         const struct headroom *need, unsigned halves)
{
        unsigned b = x->st->buffers.prio_buffer[prio];
        uint32_t have = x->st->buffers.size[b] / halves;
        struct doctor_finding *y;
        char group[160];

        snprintf(group, sizeof(group), "%s:%s/%u", x->where, x->name, b);
        if (!(y = end_finding(c, x, group)))
                return;
        snprintf(y->summary, sizeof(y->summary), "%s:%s: lossless priority %u fills buffer %u of %u bytes%s, below "
                 "the %u bytes of headroom for %u Gb/s, %u m, mtu %u (%s): it drops before PFC can stop the sender",
                 x->where, x->name, prio, b, have, halves == 2 ? " (each half of it on an 8-lane port)" : "",
                 need->size_bytes, in->speed_gbps, in->cable_m, in->mtu, headroom_asic_name(in->asic));
        doctor_ev_num(y, "priority", prio);
        doctor_ev_num(y, "buffer", b);
        doctor_ev_num(y, "configured_bytes", have);
        doctor_ev_num(y, "needed_bytes", need->size_bytes);
        doctor_ev_num(y, "speed_gbps", in->speed_gbps);
        doctor_ev_num(y, "cable_m", in->cable_m);
        doctor_ev_num(y, "mtu", in->mtu);
        doctor_ev_str(y, "asic", "%s", headroom_asic_name(in->asic));
        if (halves == 2)
                doctor_ev_num(y, "lanes", 8);
        snprintf(y->fix, sizeof(y->fix), "give buffer %u of %s at least %u bytes (policy buffers.buffer_size_bytes); "
                 "nettunectl headroom --asic %s --speed-gbps %u --cable-m %u --mtu %u%s", b, x->name,
                 need->size_bytes * halves, headroom_asic_name(in->asic), in->speed_gbps, in->cable_m, in->mtu,
                 halves == 2 ? " --lanes 8 (twice its size: mlxsw splits the buffer over two)" : "");
}

static void headroom_one(const struct end *x, void *data)
{
        struct hr_ctx *c = data;
        int asic = x->driver[0] ? headroom_asic_of_driver(x->driver) : -ENOENT;
        struct headroom_input in;
        struct headroom_problem why;
        struct headroom need;
        unsigned halves;

        if (asic < 0 || !lossless(x) || !state_has(x->st, STATE_FIELD_BUFFERS) || !x->link->speed_mbps ||
            !state_has(x->st, STATE_FIELD_MTU) || !cable_of(x))
                return;
        headroom_input_init(&in, (enum headroom_asic)asic);
        in.speed_gbps = x->link->speed_mbps / 1000 ? x->link->speed_mbps / 1000 : 1;
        in.cable_m = cable_of(x);
        in.mtu = x->st->mtu;
        halves = halves_of(x, asic);
        if (asic != HEADROOM_CONNECTX && x->link->lanes)
                in.lanes = x->link->lanes;
        if (in.speed_gbps > HEADROOM_SPEED_MAX_GBPS || headroom_calc(&in, &need, &why) < 0)
                return;
        for (unsigned prio = 0; prio < STATE_PRIO_COUNT; prio++)
                if ((lossless(x) & (1u << prio)) &&
                    x->st->buffers.size[x->st->buffers.prio_buffer[prio]] / halves < need.size_bytes)
                        short_buffer(c, x, prio, &in, &need, halves);
}

void doctor_check_headroom(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r)
{
        struct hr_ctx c = { rule, f, r };

        each_end(f, headroom_one, &c);
}

/* ---- cable_length_unset ---- */

/* What a port runs on without a cable length of its own: 0 = none at all; *ret_what says whose default. */
static unsigned default_cable(const struct end *x, const char **ret_what)
{
        if (streq(x->driver, "mlx5_core")) {
                *ret_what = "7 m, the mlx5 driver's default (MLX5E_DEFAULT_CABLE_LEN)";
                return 7;
        }
        if (streq(x->dialect, "sonic"))
                *ret_what = "none: SONiC's dynamic buffer model computes no lossless profile without it";
        else if (streq(x->dialect, "nvue"))
                *ret_what = "none set: the switch's default PFC profile length";
        else
                *ret_what = "none: no PFC delay";
        return 0;
}

/* The longest cable length the link is known to have: the other end's own, or a committed policy's. */
struct cable_known {
        unsigned m;
        char from[DOCTOR_NOTE_MAX];
};

static void know(struct cable_known *k, unsigned m, const char *fmt, ...) _printf_(3, 4);
static void know(struct cable_known *k, unsigned m, const char *fmt, ...)
{
        va_list ap;

        if (m <= k->m)
                return;
        k->m = m;
        va_start(ap, fmt);
        vsnprintf(k->from, sizeof(k->from), fmt, ap);
        va_end(ap);
}

static void unset_one(struct hr_ctx *c, const struct end *x, const struct cable_known *k)
{
        const char *what;
        unsigned dflt = default_cable(x, &what), own = state_has(x->st, STATE_FIELD_CABLE_LEN) ? x->st->cable_len_m : 0;
        struct doctor_finding *y;
        char group[160];

        if (!lossless(x) || !state_has(x->st, STATE_FIELD_CABLE_LEN) || (own && own != dflt) || k->m <= dflt)
                return;
        snprintf(group, sizeof(group), "%s:%s", x->where, x->name);
        if (!(y = end_finding(c, x, group)))
                return;
        snprintf(y->summary, sizeof(y->summary), "%s:%s is lossless with a cable length of %s, but the link is %u m "
                 "(%s): its headroom is sized for a shorter cable", x->where, x->name, what, k->m, k->from);
        doctor_ev_str(y, "cable_length", "%s", own ? "default" : "unset");
        doctor_ev_num(y, "device_default_m", dflt);
        doctor_ev_num(y, "link_m", k->m);
        doctor_ev_str(y, "known_from", "%s", k->from);
        snprintf(y->fix, sizeof(y->fix), "declare pfc.cable_length_m %u in a policy for %s", k->m, x->name);
}

struct unset_ctx {
        struct hr_ctx hr;
        const struct end *want;         /* the end looked for among the others: its peer's cable */
        struct cable_known *k;
};

/* The switch port a host interface faces, or the host interfaces that face this switch port. */
static bool peers(const struct doctor_facts *f, const struct end *a, const struct end *b)
{
        const struct end *host = a->switch_port ? b : a, *port = a->switch_port ? a : b;

        if (host->switch_port || !port->switch_port)
                return false;
        for (unsigned i = 0; i < f->n_nodes; i++)
                for (unsigned k = 0; k < f->nodes[i].n_ifs; k++) {
                        const struct doctor_iface *x = &f->nodes[i].ifs[k];

                        if (&f->nodes[i] == host->node && streq(x->name, host->name) && x->peer.source &&
                            streq(x->peer.sw, port->where) && streq(x->peer.port, port->name))
                                return true;
                }
        return false;
}

/* The other end's own length (its device's default is no knowledge of the cable). */
static void peer_cable(const struct end *x, void *data)
{
        struct unset_ctx *u = data;
        const char *what;

        if (state_has(x->st, STATE_FIELD_CABLE_LEN) && x->st->cable_len_m &&
            x->st->cable_len_m != default_cable(x, &what) && peers(u->hr.f, u->want, x))
                know(u->k, x->st->cable_len_m, "%s:%s, the other end, has it", x->where, x->name);
}

static void unset_end(const struct end *x, void *data)
{
        struct hr_ctx *c = data;
        struct cable_known k = { 0 };
        struct unset_ctx u = { *c, x, &k };

        if (!lossless(x))
                return;
        if (x->node->declared_cable_m)
                know(&k, x->node->declared_cable_m, "policy '%s' of %s declares it", x->node->policy, x->node->name);
        each_end(c->f, peer_cable, &u);
        unset_one(c, x, &k);
}

void doctor_check_cable_unset(const struct doctor_rule *rule, const struct doctor_facts *f,
                              const struct doctor_params *p, struct doctor_report *r)
{
        struct hr_ctx c = { rule, f, r };

        each_end(f, unset_end, &c);
}

/* ---- lossless_drops ---- */

static void drops_found(struct hr_ctx *c, const struct end *x, const struct doctor_rate *rt, bool port_wide,
                        bool egress)
{
        struct doctor_finding *y;
        char group[160];

        snprintf(group, sizeof(group), "%s:%s/%s", x->where, x->name, rt->name);
        if (!(y = end_finding(c, x, group)))
                return;
        if (port_wide) {
                y->severity = DOCTOR_WARNING;
                snprintf(y->summary, sizeof(y->summary), "%s:%s has PFC on and dropped %llu received packets for "
                         "lack of buffer (%s, port-wide: which priority is not told)", x->where, x->name,
                         (unsigned long long)rt->delta, rt->name);
        } else {
                snprintf(y->summary, sizeof(y->summary), "%s:%s dropped %llu packets of lossless priority %d (%s%s): "
                         "PFC did not keep them", x->where, x->name, (unsigned long long)rt->delta, rt->prio, rt->name,
                         egress ? ", its egress queue" : ", no buffer on receive");
        }
        doctor_ev_str(y, "counter", "%s", rt->name);
        if (!port_wide)
                doctor_ev_num(y, "priority", rt->prio);
        doctor_ev_num(y, "dropped", (double)rt->delta);
        doctor_ev_num(y, "per_s", rt->per_s);
        snprintf(y->fix, sizeof(y->fix), "%s", egress ? "the lossless queue overflowed: check ECN on it and PFC "
                 "toward its sender" : "check headroom_insufficient and cable_length_unset for this port; "
                 "nettunectl headroom gives the buffer a lossless priority needs");
}

/* Does a lossless priority leave by queue q? (ETS where read, else every dialect's identity map.) */
static bool lossless_queue(const struct end *x, int q)
{
        for (unsigned prio = 0; q >= 0 && prio < STATE_PRIO_COUNT; prio++)
                if ((lossless(x) & (1u << prio)) &&
                    (state_has(x->st, STATE_FIELD_ETS) ? x->st->ets.prio_tc[prio] % STATE_TC_COUNT : prio) == (unsigned)q)
                        return true;
        return false;
}

static void drops_one(const struct end *x, void *data)
{
        struct hr_ctx *c = data;
        uint8_t ll = lossless(x);

        for (unsigned i = 0; ll && i < x->rates->n; i++) {
                const struct doctor_rate *rt = &x->rates->v[i];
                bool rx = rt->kind == DOCTOR_RX_DISCARD;
                bool egress = x->switch_port && rt->kind == DOCTOR_DISCARD && lossless_queue(x, rt->prio);

                if (!rt->delta || (!rx && !egress))
                        continue;
                if (rx && rt->prio < 0)
                        drops_found(c, x, rt, true, false);
                else if (rx && (ll & (1u << rt->prio)))
                        drops_found(c, x, rt, false, false);
                else if (egress)
                        drops_found(c, x, rt, false, true);
        }
}

void doctor_check_lossless_drops(const struct doctor_rule *rule, const struct doctor_facts *f,
                                 const struct doctor_params *p, struct doctor_report *r)
{
        struct hr_ctx c = { rule, f, r };

        each_end(f, drops_one, &c);
}
