/* SPDX-License-Identifier: MIT */
/*
 * The doctor's rules about containing PFC storms (doctor_rules[] has their rows):
 *
 *   watchdog_missing   a switch port with lossless priorities that its PFC watchdog does
 *                      not cover (the watchdog off, or pfcwd_sw_enable without them), and a
 *                      host NIC with lossless priorities whose stall prevention timeout is
 *                      8000 ms (the firmware's factory value) or 0 (off): a NIC whose
 *                      receive path stalls then pauses the fabric for seconds, or for good
 *                      (Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016,
 *                      §4.3: watchdogs on the NIC (100 ms) and on the ToR after exactly that)
 *   watchdog_flapping  a switch queue whose watchdog went from storm to restore and back at
 *                      least `watchdog_flaps` times over the window: the queue is given back
 *                      while the pause goes on in bursts (sonic-buildimage #8483; SONiC's
 *                      pfc_restore.lua restarts the restoration time on any pause frame, and
 *                      a choppy pause defeats the detector, sonic-mgmt #14411)
 *
 * Ports whose watchdog was not read (a Linux switch: no PFC watchdog; a dialect that could
 * not read it) are not judged.
 */
#include <math.h>

#include "policies/doctor/doctor.h"
#include "policies/doctor/doctor_internal.h"

#define NIC_FACTORY_MS 8000             /* the mlx5 firmware's critical stall watermark (see drivers/host/nic_stall.c) */

/* Lossless priorities the port's watchdog does not cover (0: covered, or not known). */
static uint8_t uncovered(const struct state *st)
{
        if (!state_has(st, STATE_FIELD_PFC) || !state_has(st, STATE_FIELD_PFC_WATCHDOG))
                return 0;
        return (uint8_t)(st->pfc_enabled & ~(st->pfc_wd.enabled ? st->pfc_wd.prios : 0));
}

void doctor_watchdog_evidence(struct doctor_finding *x, const struct state *st)
{
        char b[32];

        if (st && state_has(st, STATE_FIELD_PFC_WATCHDOG)) {
                if (!st->pfc_wd.enabled)
                        doctor_ev_str(x, "watchdog", "off");
                else if (st->pfc_wd.has & STATE_WD_DETECTION)
                        doctor_ev_str(x, "watchdog", "%s after %u ms on %s", state_wd_action_name(st->pfc_wd.action),
                                      st->pfc_wd.detection_ms, doctor_prio_list(st->pfc_wd.prios, b, sizeof(b)));
        }
        if (st && state_has(st, STATE_FIELD_NIC_STALL))
                doctor_ev_num(x, "nic_stall_timeout_ms", st->nic_stall_ms);
}

bool doctor_watchdog_missing_on(const struct state *st)
{
        return uncovered(st) || (st && state_has(st, STATE_FIELD_PFC) && st->pfc_enabled &&
                                 state_has(st, STATE_FIELD_NIC_STALL) &&
                                 (st->nic_stall_ms == NIC_FACTORY_MS || st->nic_stall_ms == 0));
}

/* Is node `node`'s copy of switch `name` the first one the facts hold (the one its finding starts from)? */
static bool switch_first(const struct doctor_facts *f, unsigned node, const char *name)
{
        for (unsigned i = 0; i < node; i++)
                for (unsigned s = 0; !f->nodes[i].error[0] && s < f->nodes[i].n_switches; s++)
                        if (streq(f->nodes[i].switches[s].name, name))
                                return false;
        return true;
}

struct missing {
        struct doctor_finding *x;
        unsigned count;
        uint8_t all;
};

/* The uncovered ports of node i's copy of switch sw that are judged there (doctor_port_first). */
static void copy_missing(const struct doctor_rule *rule, const struct doctor_facts *f, unsigned i,
                         const struct doctor_switch *sw, struct doctor_report *r, struct missing *m)
{
        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++) {
                uint8_t u = uncovered(&sw->ports[k].st);

                if (!u || !doctor_port_first(f, i, sw->name, sw->ports[k].name))
                        continue;
                if (!m->x && !(m->x = doctor_finding_add(r, rule)))
                        return;
                if (!m->count++)
                        doctor_watchdog_evidence(m->x, &sw->ports[k].st);
                doctor_finding_node(m->x, f->nodes[i].name);
                doctor_finding_port(m->x, sw->name, sw->ports[k].name);
                m->all |= u;
        }
}

/* One finding per switch, over the ports every agent that manages it reports (each port once). */
static void switch_missing(const struct doctor_rule *rule, const struct doctor_facts *f, const char *name,
                           struct doctor_report *r)
{
        struct missing m = { 0 };
        char b[32];

        for (unsigned i = 0; i < f->n_nodes; i++)
                for (unsigned s = 0; !f->nodes[i].error[0] && s < f->nodes[i].n_switches; s++)
                        if (streq(f->nodes[i].switches[s].name, name))
                                copy_missing(rule, f, i, &f->nodes[i].switches[s], r, &m);
        if (!m.x)
                return;
        doctor_ev_num(m.x, "ports", m.count);
        doctor_ev_str(m.x, "lossless_priorities_uncovered", "%s", doctor_prio_list(m.all, b, sizeof(b)));
        snprintf(m.x->summary, sizeof(m.x->summary), "%s: %u lossless port%s where the PFC watchdog does not cover "
                 "priority %s: one host that keeps sending pause freezes the fabric behind it", name, m.count,
                 m.count == 1 ? "" : "s", doctor_prio_list(m.all, b, sizeof(b)));
        snprintf(m.x->fix, sizeof(m.x->fix), "declare spec.pfc.watchdog for %s (for example detection_ms 200, "
                 "restoration_ms 400, action drop) with the lossless pfc.priorities [%s]", name,
                 doctor_prio_list(m.all, b, sizeof(b)));
}

static void host_missing(const struct doctor_rule *rule, const struct doctor_node *n, struct doctor_report *r)
{
        struct doctor_finding *x = NULL;
        unsigned count = 0, worst = 1;

        for (unsigned k = 0; k < n->n_ifs; k++) {
                const struct state *st = &n->ifs[k].st;

                if (uncovered(st) || !doctor_watchdog_missing_on(st))
                        continue;
                if (!x && !(x = doctor_finding_add(r, rule)))
                        return;
                if (!count++)
                        doctor_finding_node(x, n->name);
                doctor_finding_port(x, n->name, n->ifs[k].name);
                if (st->nic_stall_ms == 0)
                        worst = 0;
        }
        if (!x)
                return;
        doctor_ev_num(x, "interfaces", count);
        doctor_ev_num(x, "nic_stall_timeout_ms", worst ? NIC_FACTORY_MS : 0);
        snprintf(x->summary, sizeof(x->summary), "%s: %u NIC%s with lossless priorities %s: a stalled receive path "
                 "keeps pausing the fabric %s", n->name, count, count == 1 ? "" : "s",
                 worst ? "stop their pause only after 8000 ms (the firmware default)" : "never stop their pause",
                 worst ? "for 8 s" : "for as long as it lasts");
        snprintf(x->fix, sizeof(x->fix), "spec.pfc.nic_stall_timeout_ms: \"auto\" (100 ms on mlx5) for the interfaces "
                 "of %s", n->name);
}

void doctor_check_watchdog_missing(const struct doctor_rule *rule, const struct doctor_facts *f,
                                   const struct doctor_params *p, struct doctor_report *r)
{

        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                if (n->error[0])
                        continue;
                if (!n->switch_role)
                        host_missing(rule, n, r);
                for (unsigned s = 0; s < n->n_switches; s++)
                        if (switch_first(f, i, n->switches[s].name))
                                switch_missing(rule, f, n->switches[s].name, r);
        }
}

/* How much the counters of one kind on queue q went up over the window; *known: one was read. */
static uint64_t grew(const struct doctor_rates *rates, enum doctor_counter kind, int q, bool *known)
{
        uint64_t sum = 0;

        *known = false;
        for (unsigned i = 0; i < rates->n; i++)
                if (rates->v[i].kind == kind && rates->v[i].prio == q) {
                        sum += rates->v[i].delta;
                        *known = true;
                }
        return sum;
}

/*
 * Storm/restore cycles of one queue over the window: storms that were also given back
 * (NVUE counts no restores: every storm after the first was preceded by one).
 */
static uint64_t cycles(const struct doctor_rates *rates, int q, uint64_t *ret_det, uint64_t *ret_res, bool *ret_res_known)
{
        bool dk;

        *ret_det = grew(rates, DOCTOR_WD_STORMS, q, &dk);
        *ret_res = grew(rates, DOCTOR_WD_RESTORES, q, ret_res_known);
        if (!dk)
                return 0;
        if (*ret_res_known)
                return *ret_det < *ret_res ? *ret_det : *ret_res;
        return *ret_det ? *ret_det - 1 : 0;
}

static void flapping_port(const struct doctor_rule *rule, const struct doctor_params *p, const struct doctor_node *n,
                          const struct doctor_switch *sw, const struct doctor_port *port, double window,
                          struct doctor_report *r)
{
        for (int q = 0; q < STATE_TC_COUNT; q++) {
                uint64_t det, res, c;
                bool res_known;
                struct doctor_finding *x;

                c = cycles(&port->rates, q, &det, &res, &res_known);
                if ((double)c < p->watchdog_flaps || !(x = doctor_finding_add(r, rule)))
                        continue;
                doctor_finding_node(x, n->name);
                doctor_finding_port(x, sw->name, port->name);
                doctor_ev_num(x, "queue", q);
                doctor_ev_num(x, "storms_detected", (double)det);
                if (res_known)
                        doctor_ev_num(x, "storms_restored", (double)res);
                else
                        doctor_ev_str(x, "storms_restored", "not counted by %s", sw->dialect);
                doctor_ev_num(x, "window_s", round(window * 10) / 10);
                doctor_ev_num(x, "bound_cycles", p->watchdog_flaps);
                doctor_watchdog_evidence(x, &port->st);
                snprintf(x->summary, sizeof(x->summary), "%s %s queue %d: the PFC watchdog went from storm to restore "
                         "and back %llu times in %.0f s: it gives the queue back while the pause goes on", sw->name,
                         port->name, q, (unsigned long long)c, window);
                snprintf(x->fix, sizeof(x->fix), "find who keeps pausing %s %s (pause_storm on its peer) and raise "
                         "spec.pfc.watchdog.restoration_ms so the queue stays out until the pause has really ended",
                         sw->name, port->name);
        }
}

void doctor_check_watchdog_flapping(const struct doctor_rule *rule, const struct doctor_facts *f,
                                    const struct doctor_params *p, struct doctor_report *r)
{

        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                double window = n->window_s > 0 ? n->window_s : p->window_s;

                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++)
                        for (unsigned k = 0; k < n->switches[s].n_ports; k++)
                                if (doctor_port_first(f, i, n->switches[s].name, n->switches[s].ports[k].name))
                                        flapping_port(rule, p, n, &n->switches[s], &n->switches[s].ports[k],
                                                      window, r);
        }
}
