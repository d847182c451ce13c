/* SPDX-License-Identifier: MIT */
/* doctor facts: lifetime, lookups and the path of a host interface (see doctor.h). */
#include <stdarg.h>

#include "policies/doctor/doctor.h"

void doctor_params_default(struct doctor_params *p)
{
        *p = (struct doctor_params){
                .window_s = 10,
                .pause_storm_pps = 1000,
                .pause_burst_min_ms = 20,
                .heavy_marking_pps = 1000,
                .heavy_marking_share = 0.001,
                .ecn_min_bytes_per_gbps = 1500,         /* 150000 B at 100 Gb/s */
                .ecn_max_bytes_per_gbps = 15000,        /* 1500000 B at 100 Gb/s */
                .ecn_probability_pct = 10,
                .roce_dscp = 26,
                .roce_prio = -1,
                .cnp_dscp = 48,
                .watchdog_flaps = 3,
                .rdma_min_bytes_per_s = 1e6,
                .class_share = 0.99,
        };
}

void *doctor_append(void *array, unsigned *n, size_t size)
{
        void **v = array;
        char *grown = realloc(*v, (*n + 1) * size);

        if (!grown)
                return NULL;
        *v = grown;
        memset(grown + *n * size, 0, size);
        return grown + (*n)++ * size;
}

void doctor_facts_init(struct doctor_facts *f)
{
        memset(f, 0, sizeof(*f));
}

static void rates_free(struct doctor_rates *r)
{
        free(r->v);
        r->v = NULL;
        r->n = 0;
}

void doctor_node_free(struct doctor_node *n)
{
        if (!n)
                return;
        for (unsigned i = 0; i < n->n_ifs; i++)
                rates_free(&n->ifs[i].rates);
        for (unsigned s = 0; s < n->n_switches; s++) {
                for (unsigned i = 0; i < n->switches[s].n_ports; i++)
                        rates_free(&n->switches[s].ports[i].rates);
                free(n->switches[s].ports);
        }
        free(n->ifs);
        free(n->switches);
        n->ifs = NULL;
        n->switches = NULL;
        n->n_ifs = n->n_switches = 0;
}

void doctor_facts_free(struct doctor_facts *f)
{
        if (!f)
                return;
        for (unsigned i = 0; i < f->n_nodes; i++)
                doctor_node_free(&f->nodes[i]);
        free(f->nodes);
        for (unsigned k = 0; k < DOCTOR_PROBE_KINDS; k++)
                free(f->probes[k].v);
        free(f->suspects.v);
        doctor_facts_init(f);
}

struct doctor_node *doctor_facts_add_node(struct doctor_facts *f)
{
        return doctor_append(&f->nodes, &f->n_nodes, sizeof(*f->nodes));
}

int doctor_facts_take(struct doctor_facts *dst, struct doctor_facts *src)
{
        struct doctor_node *v;

        if (!src->n_nodes)
                return 0;
        v = realloc(dst->nodes, (dst->n_nodes + src->n_nodes) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        memcpy(&v[dst->n_nodes], src->nodes, src->n_nodes * sizeof(*v));
        dst->nodes = v;
        dst->n_nodes += src->n_nodes;
        free(src->nodes);
        src->nodes = NULL;
        src->n_nodes = 0;
        return 0;
}

struct doctor_iface *doctor_node_add_iface(struct doctor_node *n)
{
        struct doctor_iface *x = n->n_ifs < DOCTOR_IFACES_MAX ? doctor_append(&n->ifs, &n->n_ifs, sizeof(*x)) : NULL;

        if (x)
                state_init(&x->st);
        return x;
}

struct doctor_switch *doctor_node_add_switch(struct doctor_node *n, unsigned n_ports)
{
        struct doctor_port *ports;
        struct doctor_switch *sw;

        if (n->n_switches >= DOCTOR_SWITCHES_MAX || n_ports > DOCTOR_PORTS_MAX)
                return NULL;
        ports = calloc(n_ports ? n_ports : 1, sizeof(*ports));
        sw = ports ? doctor_append(&n->switches, &n->n_switches, sizeof(*sw)) : NULL;
        if (!sw) {
                free(ports);
                return NULL;
        }
        sw->ports = ports;
        sw->n_ports = n_ports;
        for (unsigned i = 0; i < n_ports; i++)
                state_init(&sw->ports[i].st);
        return sw;
}

struct doctor_rate *doctor_rates_add(struct doctor_rates *r)
{
        struct doctor_rate *x = r->n < DOCTOR_RATES_MAX ? doctor_append(&r->v, &r->n, sizeof(*x)) : NULL;

        if (x)
                x->prio = DOCTOR_PRIO_ANY;
        return x;
}

struct doctor_probe *doctor_probes_add(struct doctor_probes *p)
{
        return doctor_append(&p->v, &p->n, sizeof(*p->v));
}

struct doctor_suspect *doctor_suspects_add(struct doctor_suspects *s)
{
        return doctor_append(&s->v, &s->n, sizeof(*s->v));
}

void doctor_node_note(struct doctor_node *n, const char *fmt, ...)
{
        va_list ap;

        if (n->n_notes >= DOCTOR_NOTES_MAX)
                return;
        va_start(ap, fmt);
        vsnprintf(n->notes[n->n_notes++], DOCTOR_NOTE_MAX, fmt, ap);
        va_end(ap);
}

double doctor_rate_sum(const struct doctor_rates *r, enum doctor_counter kind, int prio, bool *ret_known)
{
        bool known = false;
        double sum = 0;

        for (unsigned i = 0; i < r->n; i++) {
                const struct doctor_rate *x = &r->v[i];

                if (x->kind != kind || (prio != DOCTOR_PRIO_ANY && x->prio != prio))
                        continue;
                known = true;
                sum += x->per_s;
        }
        if (ret_known)
                *ret_known = known;
        return sum;
}

double doctor_rate_max(const struct doctor_rates *r, enum doctor_counter kind, int *ret_prio)
{
        double best = 0;
        int prio = -1;

        for (int p = 0; p < STATE_PRIO_COUNT; p++) {
                bool known;
                double v = doctor_rate_sum(r, kind, p, &known);

                if (known && (prio < 0 || v > best)) {
                        best = v;
                        prio = p;
                }
        }
        *ret_prio = prio;
        return best;
}

bool doctor_iface_roce(const struct doctor_iface *ifc)
{
        const uint32_t dcb = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_TRUST) |
                             STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_HOST_ECN);

        return ifc->rdma || ifc->managed || (ifc->st.present & dcb) || ifc->peer.source != DOCTOR_PATH_NONE;
}

/* ---- the path ---- */

static const struct doctor_node *node_named(const struct doctor_facts *f, const char *name)
{
        for (unsigned i = 0; i < f->n_nodes; i++)
                if (streq(f->nodes[i].name, name))
                        return &f->nodes[i];
        return NULL;
}

/*
 * The port of switch `name` wherever an agent reports it: every node that manages the
 * switch reads the ports of its own configuration, so the fleet's facts hold the union
 * of their ports (a port two agents configure: the first copy that was read). 1 and
 * the port; 0 when some copy was read but none configures the port; -1 when no copy
 * was read (*ret_sw then the first copy with its error, or NULL: no agent reports it).
 */
static int port_named(const struct doctor_facts *f, const char *name, const char *port,
                      const struct doctor_node **ret_node, const struct doctor_switch **ret_sw,
                      const struct doctor_port **ret_port)
{
        bool read = false;

        *ret_sw = NULL;
        for (unsigned i = 0; i < f->n_nodes; i++)
                for (unsigned s = 0; !f->nodes[i].error[0] && s < f->nodes[i].n_switches; s++) {
                        const struct doctor_switch *sw = &f->nodes[i].switches[s];

                        if (!streq(sw->name, name))
                                continue;
                        if (!*ret_sw)
                                *ret_sw = sw;
                        read |= !sw->error[0];
                        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++)
                                if (streq(sw->ports[k].name, port)) {
                                        *ret_node = &f->nodes[i];
                                        *ret_sw = sw;
                                        *ret_port = &sw->ports[k];
                                        return 1;
                                }
                }
        return read ? 0 : -1;
}

bool doctor_port_first(const struct doctor_facts *f, unsigned node, const char *sw, const char *port)
{
        const struct doctor_node *n;
        const struct doctor_switch *s;
        const struct doctor_port *p;

        return port_named(f, sw, port, &n, &s, &p) <= 0 || n == &f->nodes[node];
}

void doctor_each_path(const struct doctor_facts *f, void (*fn)(const struct doctor_path *, void *), void *ctx)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                if (n->error[0] || n->switch_role)
                        continue;
                for (unsigned k = 0; k < n->n_ifs; k++) {
                        struct doctor_path path;
                        char why[DOCTOR_NOTE_MAX];

                        if (doctor_iface_roce(&n->ifs[k]) && doctor_path(f, n, &n->ifs[k], &path, why, sizeof(why)) > 0)
                                fn(&path, ctx);
                }
        }
}

static int path_linux(const struct doctor_node *swn, const struct doctor_peer *peer, struct doctor_path *ret,
                      char *why, size_t size)
{
        for (unsigned i = 0; i < swn->n_ifs; i++)
                if (streq(swn->ifs[i].name, peer->port)) {
                        ret->sw_node = swn;
                        ret->linux_port = &swn->ifs[i];
                        ret->port_speed_mbps = swn->ifs[i].link.speed_mbps;
                        ret->port_st = &swn->ifs[i].st;
                        return 1;
                }
        snprintf(why, size, "switch-role node '%s' has no interface '%s' in its facts", swn->name, peer->port);
        return -ENOENT;
}

int doctor_path(const struct doctor_facts *f, const struct doctor_node *n, const struct doctor_iface *ifc,
                struct doctor_path *ret, char *why, size_t why_size)
{
        const struct doctor_peer *peer = &ifc->peer;
        const struct doctor_node *swn = NULL;
        const struct doctor_switch *sw;
        const struct doctor_port *port;
        int k;

        memset(ret, 0, sizeof(*ret));
        ret->node = n;
        ret->iface = ifc;
        ret->sw_name = peer->sw;
        if (peer->source == DOCTOR_PATH_NONE) {
                snprintf(why, why_size, "no 'links' entry and no LLDP neighbour");
                return 0;
        }
        k = port_named(f, peer->sw, peer->port, &swn, &sw, &port);
        if (k > 0) {
                ret->sw_node = swn;
                ret->sw = sw;
                ret->port = port;
                ret->port_speed_mbps = port->link.speed_mbps;
                ret->port_st = &port->st;
                return 1;
        }
        if (!sw) {
                swn = node_named(f, peer->sw);
                if (swn && swn->switch_role && !swn->error[0])
                        return path_linux(swn, peer, ret, why, why_size);
                snprintf(why, why_size, "switch '%s' is not in the collected facts%s", peer->sw,
                         f->n_nodes == 1 ? " (nettunectl doctor collects every agent's)" : "");
        } else if (k < 0) {
                snprintf(why, why_size, "switch '%s' could not be read: %s", sw->name, sw->error);
        } else {
                snprintf(why, why_size, "switch '%s' has no configured port '%s'", sw->name, peer->port);
        }
        return -ENOENT;
}
