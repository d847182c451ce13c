/* SPDX-License-Identifier: MIT */
/* What ice and bnxt_en would refuse in the middle of a DCB change, said at plan time (see dcb_refuse.h). */
#include "common/util.h"
#include "drivers/host/dcb_refuse.h"
#include "drivers/host/devlink.h"
#include "drivers/host/link.h"

/* ice_dcb_get_num_tc(): the TCs the priority table uses from TC 0 on, 1 when they are not contiguous. */
static unsigned ice_num_tc(const uint8_t prio_tc[8])
{
        unsigned used = 0, n = 0;
        bool gap = false;

        for (int i = 0; i < 8; i++)
                used |= 1u << (prio_tc[i] & 7);
        for (int i = 0; i < 8; i++) {
                if (!(used & (1u << i))) {
                        gap = true;
                        continue;
                }
                if (gap)
                        return 1;
                n++;
        }
        return n ? n : 1;
}

/* The DSCP APP entries as "26:3 46:5", dcb(8)'s dscp-prio words. Returns their count. */
static unsigned dscp_words(const struct dcb_nl_ieee *cur, char *buf, size_t size)
{
        unsigned n = 0;
        size_t len = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < cur->n_apps; i++) {
                const struct dcb_app *a = &cur->apps[i];

                if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP)
                        continue;
                if (len + 12 < size)
                        len += (size_t)snprintf(buf + len, size - len, "%s%u:%u", n ? " " : "", a->protocol,
                                                a->priority);
                else if (len + 4 < size && !strstr(buf, "..."))
                        len += (size_t)snprintf(buf + len, size - len, " ...");
                n++;
        }
        return n;
}

/* "DCB changes not allowed when in a bond" (ice_dcb_nl.c, every setter, Linux 6.6+). */
static int ice_bond(struct target *t, struct nl *nl, struct errbuf *e)
{
        struct link_info l, up;
        struct errbuf pe = { 0 };
        const char *bond = "?";

        if (link_rtnl_read(t, nl, &l, &pe) < 0 || !streq(l.upper_kind, "bond") || nl_kernel_older(nl, 6, 6))
                return 0;
        if (l.master > 0 && link_rtnl_get(nl, l.master, NULL, &up, &pe) == 0)
                bond = up.name;
        return errbuf_set(e, EBUSY, NULL,
                          "interface '%s' (driver ice) is a port of bond '%s', and ice refuses every DCB change "
                          "on a bonded port (ice_dcb_nl.c since Linux 6.6: \"DCB changes not allowed when in a "
                          "bond\"); take it out of the bond (ip link set %s nomaster), apply, and enslave it "
                          "again, or leave the DCB fields out of the policy",
                          t->name, bond, t->name);
}

/* ice_dcbnl_setdcbx() since v5.16: in DSCP mode no DCBX change at all. */
static int ice_dscp_dcbx(struct target *t, const struct dcb_nl_ieee *cur, const struct dcb_refuse_plan *p,
                         struct errbuf *e)
{
        char words[160];
        unsigned n;

        if (!p->set_dcbx || !(n = dscp_words(cur, words, sizeof(words))))
                return 0;
        return errbuf_set(e, EBUSY, NULL,
                          "interface '%s' (driver ice): DCBX is 0x%02x and must become host + IEEE (0x09) first, "
                          "which ice refuses while the port is in DSCP mode (ice_dcbnl_setdcbx(): \"DSCP "
                          "configuration is not DCBx negotiated\"; %u DSCP APP entr%s: %s); delete them "
                          "(dcb app del dev %s dscp-prio %s) so the port returns to VLAN mode, then apply",
                          t->name, cur->dcbx, n, n == 1 ? "y" : "ies", words, t->name, words);
}

/* The devlink-rate objects of t's PCI function; -errno when they cannot be read (no refusal then). */
static int read_rates(struct target *t, struct devlink_rates *r, char *pci, size_t size)
{
        _cleanup_nl_ struct nl *gnl = NULL;
        struct errbuf pe = { 0 };
        int k;

        if (link_rtnl_device(t, pci, size) < 0)
                return -ENODEV;
        k = nl_open(t->env ? t->env->nl : NULL, NETLINK_GENERIC, &gnl, &pe);
        return k < 0 ? k : devlink_rates_read(gnl, "pci", pci, r, &pe);
}

/* ice_pf_dcb_cfg(): more than one TC under the custom Tx scheduler is -EBUSY; without it the rate tree goes. */
static int ice_custom_tx(struct target *t, const struct dcb_nl_ieee *cur, const struct dcb_refuse_plan *p,
                         struct errbuf *e)
{
        static const uint8_t identity[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
        /* entering DSCP mode sets the priority table to the identity (ice_dcbnl_setapp()) */
        unsigned tcs = ice_num_tc(p->dscp_after ? identity : p->prio_tc_after);
        struct devlink_rates r;
        char pci[LINK_DEVICE_MAX];

        if (tcs <= 1 || read_rates(t, &r, pci, sizeof(pci)) < 0 || !r.n)
                return 0;
        if (!r.configured) {
                if (ice_num_tc(cur->ets.prio_tc) <= 1)
                        driver_note(t, "interface '%s' (driver ice): DCB with %u traffic classes removes the "
                                    "port's devlink-rate tree (%u object%s of pci/%s; "
                                    "ice_tear_down_devlink_rate_tree()), and a rollback does not bring it back",
                                    t->name, tcs, r.n, r.n == 1 ? "" : "s", pci);
                return 0;
        }
        return errbuf_set(e, EBUSY, NULL,
                          "interface '%s' (driver ice): the custom Tx scheduler is on (devlink-rate pci/%s: %s has "
                          "tx_share %llu, tx_max %llu), and ice refuses DCB of more than one traffic class beside it "
                          "(ice_pf_dcb_cfg(): \"Custom Tx scheduler feature enabled, can't configure DCB\", "
                          "-EBUSY; this change gives the port %u); the driver keeps the scheduler until it is "
                          "initialised again: remove the devlink-rate settings and the VFs, reload it (devlink dev "
                          "reload pci/%s), then apply - or give the policy a single traffic class",
                          t->name, pci, r.first, (unsigned long long)r.first_tx_share,
                          (unsigned long long)r.first_tx_max, tcs, pci);
}

static int ice_check(struct target *t, struct nl *nl, const struct dcb_nl_ieee *cur,
                     const struct dcb_refuse_plan *p, struct errbuf *e)
{
        int r = ice_bond(t, nl, e);

        if (r >= 0)
                r = ice_dscp_dcbx(t, cur, p, e);
        if (r >= 0)
                r = ice_custom_tx(t, cur, p, e);
        return r;
}

/* The priorities of mask as "3" or "3, 4". */
static void prio_list(uint8_t mask, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < 8; i++)
                if (mask & (1u << i))
                        len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%s%u", len ? ", " : "", i);
}

static int bnxt_check(struct target *t, const struct dcb_nl_ieee *cur, const struct dcb_refuse_plan *p,
                      struct errbuf *e)
{
        char prios[32];

        /* bnxt_dcb_init(): a VF, or the firmware's LLDP agent without its DCBX agent */
        if (cur->has_dcbx && (cur->dcbx & DCB_CAP_DCBX_VER_IEEE) &&
            !(cur->dcbx & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED)))
                return errbuf_set(e, EBUSY, NULL,
                                  "interface '%s' (driver bnxt_en): DCBX is 0x%02x, IEEE without host mode: the port "
                                  "is a VF, or the NIC firmware runs its LLDP agent without the DCBX agent "
                                  "(bnxt_dcb_init()), and bnxt_en then refuses every DCB change (-EINVAL) and "
                                  "host mode (bnxt_dcbnl_setdcbx()); configure DCB on the PF or in the NIC "
                                  "firmware's settings, or leave the DCB fields out of the policy",
                                  t->name, cur->dcbx);
        if (p->pfc_gain) {
                prio_list(p->pfc_gain, prios, sizeof(prios));
                driver_note(t, "interface '%s' (driver bnxt_en): PFC on priority %s may close and reopen the NIC "
                            "(bnxt_queue_remap(), when a lossless traffic class sits on a queue the firmware did "
                            "not give the lossless profile): carrier drops for a moment, and nettune waits for it",
                            t->name, prios);
        }
        return 0;
}

int dcb_refuse_check(struct target *t, struct nl *nl, const struct dcb_nl_ieee *cur,
                     const struct dcb_refuse_plan *p, struct errbuf *e)
{
        if (streq(t->kernel_driver, "ice"))
                return ice_check(t, nl, cur, p, e);
        if (streq(t->kernel_driver, "bnxt_en"))
                return bnxt_check(t, cur, p, e);
        return 0;
}
