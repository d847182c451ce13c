/* SPDX-License-Identifier: MIT */
/*
 * The control commands of a model (one line each; build/nicmodel ctl SOCKET ...):
 *   dump                         the state of every device (nm_dump), stable text
 *   stats                        requests seen (and of them ETHTOOL_GSTATS), SETs that reached each driver,
 *                                carrier changes
 *   settled                      "settled" when no link flap is pending or under way, else "busy"
 *   pfc DEV MASK                 a hand change: the driver's setpfc with pfc_en = MASK
 *   app-add DEV DSCP PRIO        a hand change: an IEEE APP entry, through the driver's setapp
 *   app-del DEV DSCP PRIO        a hand change: through the driver's delapp
 *   mtu DEV N                    a hand change: dev_set_mtu()
 *   tunable DEV MS               a hand change: ethtool --set-tunable DEV pfc-prevention-tout MS
 *                                (through the driver's set_tunable)
 *   stall DEV on|off             the device's receive path stalls (it keeps sending pause) or recovers
 *   burst DEV PRIO PPS MS        the link partner pauses priority PRIO: PPS PFC XOFF frames a second for
 *                                MS ms on the model's clock (nm_pause.c); burst-tx: the device sends them
 *   delay DEV N                  a hand change: the driver's setpfc with the current pfc_en and delay = N
 *   speed DEV MBPS               the link renegotiated at MBPS (0: unknown); SYSFS/class/net/DEV/speed follows
 *   qdisc DEV root|none          a root qdisc offloaded to the port, or removed (mlxsw's headroom mode)
 *   master DEV BOND|none         a hand change: DEV joins the bond BOND (ip link set DEV master BOND),
 *                                or leaves it
 *   fail DEV OP ERRNO [SKIP]     the next OP (setets setpfc setapp delapp setdcbx setmtu, or fwcfg:
 *                                ice's firmware refusing a DCB configuration) fails with -ERRNO,
 *                                after SKIP more calls have gone through
 * Hand changes go through the same driver functions as a dcbnl or rtnetlink SET.
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

static const char *const op_names[NM_OP_MAX] = {
        [NM_OP_SETETS] = "setets", [NM_OP_SETPFC] = "setpfc", [NM_OP_SETAPP] = "setapp",
        [NM_OP_DELAPP] = "delapp", [NM_OP_SETDCBX] = "setdcbx", [NM_OP_SETMTU] = "setmtu",
        [NM_OP_FWCFG] = "fwcfg", [NM_OP_SETBUFFER] = "setbuffer",
};

static int stats(struct nm *m, FILE *f)
{
        nm_tick(m);
        fprintf(f, "requests %u\ngstats %u\n", m->n_requests, m->n_gstats);
        for (unsigned i = 0; i < m->n_devs; i++)
                fprintf(f, "%s sets %u carrier_changes %u\n", m->devs[i].name, m->devs[i].n_sets,
                        m->devs[i].carrier_up_count + m->devs[i].carrier_down_count);
        return 0;
}

static int settled(struct nm *m, FILE *f)
{
        bool busy = nm_tick(m) != 0;

        for (unsigned i = 0; i < m->n_devs; i++)
                busy |= !m->devs[i].carrier || (m->devs[i].rdma[0] && !m->devs[i].rdma_active);
        fprintf(f, "%s\n", busy ? "busy" : "settled");
        return 0;
}

static int hand_pfc(struct nm *m, struct nm_dev *d, int mask, int delay)
{
        struct ieee_pfc pfc = { 0 };
        int r;

        if (!d->drv->getpfc || !d->drv->setpfc)
                return -EOPNOTSUPP;
        d->drv->getpfc(m, d, &pfc);
        if (mask >= 0)
                pfc.pfc_en = (uint8_t)mask;
        if (delay >= 0)
                pfc.delay = (uint16_t)delay;
        r = d->drv->setpfc(m, d, &pfc);
        d->n_sets++;
        return r;
}

static int hand_app(struct nm *m, struct nm_dev *d, bool add, unsigned dscp, unsigned prio)
{
        struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = (uint8_t)prio,
                               .protocol = (uint16_t)dscp };

        if (!d->drv->has_dcbnl)
                return -EOPNOTSUPP;
        d->n_sets++;
        return add ? nm_ieee_setapp(m, d, &app) : nm_ieee_delapp(m, d, &app);
}

/* bond_enslave() / bond_release(): the port's upper is the bond (ice_lag sees lag->bonded). */
static int hand_master(struct nm *m, struct nm_dev *d, const char *bond)
{
        struct nm_dev *up = streq(bond, "none") ? NULL : nm_dev_by_name(m, bond);

        if (!streq(bond, "none") && (!up || up->drv != &nm_bond || up == d))
                return -EINVAL;
        d->master = up ? up->ifindex : 0;
        return 0;
}

static int hand_speed(struct nm *m, struct nm_dev *d, unsigned mbps)
{
        d->speed_mbps = mbps;
        nm_sysfs_speed(m, d);
        return 0;
}

static int fail(struct nm_dev *d, const char *op, int err, unsigned skip)
{
        for (int i = 0; i < NM_OP_MAX; i++)
                if (streq(op_names[i], op)) {
                        d->fail[i] = err;
                        d->fail_skip[i] = skip;
                        return 0;
                }
        return -EINVAL;
}

int nm_control(struct nm *m, const char *line, FILE *f)
{
        char cmd[16] = "", dev[IF_NAMESIZE + 1] = "", arg[16] = "";
        unsigned a = 0, b = 0, c = 0;
        const char *extack = NULL;
        struct nm_dev *d;
        int n = sscanf(line, "%15s %16s %15s %u %u", cmd, dev, arg, &b, &c), r;

        nm_tick(m);
        if (streq(cmd, "dump"))
                return nm_dump(m, f), 0;
        if (streq(cmd, "stats"))
                return stats(m, f);
        if (streq(cmd, "settled"))
                return settled(m, f);
        if (n < 3 || !(d = nm_dev_by_name(m, dev))) {
                fprintf(f, "error: expected dump, stats or COMMAND DEV ARGS with a known device\n");
                return -EINVAL;
        }
        a = (unsigned)strtoul(arg, NULL, 0);
        if (streq(cmd, "pfc"))
                r = hand_pfc(m, d, (int)a, -1);
        else if (streq(cmd, "delay"))
                r = hand_pfc(m, d, -1, (int)(a & 0xffff));
        else if (streq(cmd, "speed"))
                r = hand_speed(m, d, a);
        else if (streq(cmd, "qdisc") && (streq(arg, "root") || streq(arg, "none")))
                r = nm_tc_hand_root(m, d, streq(arg, "root"));
        else if (streq(cmd, "app-add") && n == 4)
                r = hand_app(m, d, true, a, b);
        else if (streq(cmd, "app-del") && n == 4)
                r = hand_app(m, d, false, a, b);
        else if (streq(cmd, "master"))
                r = hand_master(m, d, arg);
        else if (streq(cmd, "mtu"))
                r = nm_set_mtu(m, d, a, &extack);
        else if (streq(cmd, "fail") && n >= 4)
                r = fail(d, arg, (int)b, c);
        else if (streq(cmd, "tunable"))
                r = d->drv->set_tunable ? (d->n_sets++, d->drv->set_tunable(m, d, 3, (uint16_t)a)) : -EOPNOTSUPP;
        else if ((streq(cmd, "burst") || streq(cmd, "burst-tx")) && n == 5)
                r = nm_pause_burst(m, d, streq(cmd, "burst-tx"), a, b, c);
        else if (streq(cmd, "stall") && (streq(arg, "on") || streq(arg, "off")))
                r = d->drv->stall ? d->drv->stall(m, d, streq(arg, "on")) : -EOPNOTSUPP;
        else
                r = -EINVAL;
        nm_logf(m, "control: %s -> %d", line, r);
        if (r < 0)
                fprintf(f, "error: %s: %d%s%s\n", line, r, extack ? " " : "", extack ? extack : "");
        else
                fprintf(f, "ok\n");
        return r < 0 ? r : 0;
}
