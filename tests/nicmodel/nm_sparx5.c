/* SPDX-License-Identifier: MIT */
/*
 * Microchip Sparx5 switch ports (sparx5) as their dcbnl_rtnl_ops see them, from
 * drivers/net/ethernet/microchip/sparx5/sparx5_dcb.c: one of the drivers with an
 * APP trust table (dcbnl_getapptrust/setapptrust, kernel 6.3+). No ETS, PFC or
 * DCBX ops. DSCP entries are global to the switch: every port gets them.
 *
 * The port's QoS is recomputed from the APP entries and the trust table after
 * every change (sparx5_dcb_app_update): a DSCP or PCP value without an entry
 * classifies to priority 0 (dcb_getapp() answers 0), the default priority comes
 * from the ETHERTYPE 0 entries, DSCP and PCP classification are on as the trust
 * table lists them. The dump shows that computed QoS.
 *
 * MTU is not taken from the driver: the model keeps ether_setup()'s 68-1500.
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#define SEL_PCP 255                     /* DCB_APP_SEL_PCP */
#define PRIOS 8                         /* SPX5_PRIOS */
#define DSCP_COUNT 64                   /* SPARX5_PORT_QOS_DSCP_COUNT */
#define PCP_DEI_COUNT 16                /* SPARX5_PORT_QOS_PCP_DEI_COUNT */

/* sparx5_dcb_apptrust_policies[]: the only trust tables the switch can do; "empty" must be first. */
static const struct {
        const char *name;
        uint8_t sel[2];
        int n;
} policies[] = {
        { "empty", { 0 }, 0 },
        { "dscp", { IEEE_8021QAZ_APP_SEL_DSCP }, 1 },
        { "pcp", { SEL_PCP }, 1 },
        { "dscp pcp", { IEEE_8021QAZ_APP_SEL_DSCP, SEL_PCP }, 2 },
};

struct sparx5 {
        int trust;                      /* index into policies[] (sparx5_port_apptrust) */
};

static struct sparx5 *P(const struct nm_dev *d)
{
        return d->priv;
}

/* dcb_getapp(): the newest entry for selector and protocol on this port, its priority; 0 when none. */
static uint8_t getapp(struct nm *m, const struct nm_dev *d, uint8_t sel, uint16_t proto)
{
        for (unsigned i = 0; i < m->n_apps; i++)
                if (m->apps[i].ifindex == d->ifindex && m->apps[i].app.selector == sel &&
                    m->apps[i].app.protocol == proto)
                        return m->apps[i].app.priority;
        return 0;
}

static bool trusts(const struct nm_dev *d, uint8_t sel)
{
        const int t = P(d)->trust;

        for (int i = 0; i < policies[t].n; i++)
                if (policies[t].sel[i] == sel)
                        return true;
        return false;
}

/* sparx5_dcb_app_validate() */
static int validate(const struct dcb_app *app)
{
        switch (app->selector) {
        case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
                return app->protocol != 0 ? -EINVAL : app->priority >= PRIOS ? -ERANGE : 0;
        case IEEE_8021QAZ_APP_SEL_DSCP:
                return app->protocol >= DSCP_COUNT ? -EINVAL : app->priority >= PRIOS ? -ERANGE : 0;
        case SEL_PCP:
                return app->protocol >= PCP_DEI_COUNT ? -EINVAL : app->priority >= PRIOS ? -ERANGE : 0;
        default:
                return -EINVAL;
        }
}

/* sparx5_dcb_ieee_dscp_setdel(): a DSCP entry is set or deleted on every port of the switch. */
static int dscp_setdel(struct nm *m, const struct dcb_app *app, bool del)
{
        for (unsigned i = 0; i < m->n_devs; i++) {
                int err;

                if (m->devs[i].drv != &nm_sparx5)
                        continue;
                err = del ? nm_dcb_ieee_delapp(m, &m->devs[i], app) : nm_dcb_ieee_setapp(m, &m->devs[i], app);
                if (err)
                        return err;
        }
        return 0;
}

/* sparx5_dcb_ieee_delapp() */
static int sparx5_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        int err = app->selector == IEEE_8021QAZ_APP_SEL_DSCP ? dscp_setdel(m, app, true) :
                                                               nm_dcb_ieee_delapp(m, d, app);

        return err < 0 ? err : 0;       /* sparx5_dcb_app_update() */
}

/*
 * sparx5_dcb_ieee_setapp(): the current mapping is deleted first - but only when
 * dcb_getapp() answers nonzero, so an entry at priority 0 stays beside the new one.
 */
static int sparx5_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        uint8_t prio;
        int err = validate(app);

        if (err)
                return err;
        prio = getapp(m, d, app->selector, app->protocol);
        if (prio) {
                struct dcb_app old = *app;

                old.priority = prio;
                sparx5_delapp(m, d, &old);
        }
        return app->selector == IEEE_8021QAZ_APP_SEL_DSCP ? dscp_setdel(m, app, false) : nm_dcb_ieee_setapp(m, d, app);
}

/* sparx5_dcb_getapptrust() */
static int sparx5_getapptrust(struct nm *m, struct nm_dev *d, uint8_t *sel, int *n)
{
        const int t = P(d)->trust;

        memcpy(sel, policies[t].sel, (size_t)policies[t].n);
        *n = policies[t].n;
        return 0;
}

/* sparx5_dcb_apptrust_validate() + sparx5_dcb_setapptrust(): one of the four tables, else -EOPNOTSUPP. */
static int sparx5_setapptrust(struct nm *m, struct nm_dev *d, uint8_t *sel, int n)
{
        for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
                if (policies[i].n == n && !memcmp(policies[i].sel, sel, (size_t)n)) {
                        P(d)->trust = (int)i;
                        return 0;
                }
        return -EOPNOTSUPP;
}

/* sparx5_dcb_init(): every port trusts [dscp, pcp]. */
static int sparx5_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        if (*variant)
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 1500;
        P(d)->trust = 3;
        return 0;
}

/* The port's QoS as sparx5_dcb_app_update() computes it. */
static void sparx5_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        uint8_t dscp[DSCP_COUNT], pcp[PCP_DEI_COUNT], def = 0;

        for (unsigned i = 0; i < m->n_apps; i++)
                if (m->apps[i].ifindex == d->ifindex && m->apps[i].app.selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE &&
                    m->apps[i].app.priority > def)
                        def = m->apps[i].app.priority;  /* dcb_ieee_getapp_default_prio_mask(): the highest */
        for (unsigned i = 0; i < DSCP_COUNT; i++)
                dscp[i] = getapp(m, d, IEEE_8021QAZ_APP_SEL_DSCP, (uint16_t)i);
        for (unsigned i = 0; i < PCP_DEI_COUNT; i++)
                pcp[i] = getapp(m, d, SEL_PCP, (uint16_t)i);
        fprintf(f, "  apptrust %s default_prio %u\n", policies[P(d)->trust].name, def);
        fprintf(f, "  qos pcp %s", trusts(d, SEL_PCP) ? "on" : "off");
        nm_dump_u8s(f, "pcp_map", pcp, PCP_DEI_COUNT);
        fprintf(f, "\n  qos dscp %s", trusts(d, IEEE_8021QAZ_APP_SEL_DSCP) ? "on" : "off");
        nm_dump_u8s(f, "dscp_map", dscp, DSCP_COUNT);
        fprintf(f, "\n");
}

const struct nm_driver nm_sparx5 = {
        .name = "sparx5",
        .kernel_driver = "sparx5-switch",
        .priv_size = sizeof(struct sparx5),
        .init = sparx5_init,
        .has_dcbnl = true,
        .setapp = sparx5_setapp,
        .delapp = sparx5_delapp,
        .getapptrust = sparx5_getapptrust,
        .setapptrust = sparx5_setapptrust,
        .dump = sparx5_dump,
};
