/* SPDX-License-Identifier: MIT */
/*
 * The dcbnl layer and the "dcb" driver against the NIC behaviour models
 * (tests/nicmodel: mlx5, ice, bnxt and veth, written from the kernel drivers):
 *   - requests byte-for-byte equal to iproute2's (tests/data/dcb vectors);
 *   - the veth model answers iproute2's requests exactly like the traced kernel;
 *   - apply / read back / restore end to end, the model's state compared
 *     byte-for-byte with where it began; each driver's quirks.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/rtnetlink.h>
#include <sys/stat.h>
#include <time.h>

#include "drivers/host/dcb_app.h"
#include "drivers/host/dcb_driver.h"
#include "drivers/host/dcb_lldpad.h"
#include "drivers/host/dcb_nl.h"
#include "policies/state/field.h"
#include "tests/lib/drvtest.h"
#include "tests/lib/nltrace.h"
#include "tests/nicmodel/nm_transport.h"

static struct nm model;
static struct nm_transport xport;
static struct driver_env env;
static struct target tgt;
static char sysdir[64];

/* A model with one device "DRIVER:vA:3[:VARIANT]", its sysfs tree (RDMA port) and a target for it. */
static struct nm_dev *setup(const char *spec)
{
        struct nm_dev *d;

        snprintf(sysdir, sizeof(sysdir), "/tmp/nettune-sys.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(sysdir) != NULL);
        nm_init(&model);
        snprintf(model.sysfs_root, sizeof(model.sysfs_root), "%s", sysdir);
        model.flap_delay_ms = 30;
        model.link_up_ms = 60;
        model.rdma_lag_ms = 30;
        CU_ASSERT_FATAL(nm_add(&model, spec) == 0);
        d = &model.devs[0];
        nm_transport_init(&xport, &model);
        memset(&env, 0, sizeof(env));
        env.nl = nm_transport_get(&xport);
        env.settle_ms = 5000;
        env.flap_wait_ms = 300;
        env.rdma_wait_ms = 5000;
        snprintf(env.sysfs_root, sizeof(env.sysfs_root), "%s", sysdir);
        CU_ASSERT_FATAL(nm_sysfs_create(&model, d) == 0);
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "%s", d->name);
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "%s",
                 d->drv->kernel_driver ? d->drv->kernel_driver : d->drv->name);
        tgt.ifindex = d->ifindex;
        tgt.env = &env;
        return d;
}

static void teardown(void)
{
        char cmd[96];

        nm_transport_done(&xport);
        nm_done(&model);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysdir);
        CU_ASSERT(system(cmd) == 0);
}

/* The model's state as text (caller frees). */
static char *dump(void)
{
        return nm_transport_dump(&xport);
}

/* Arm a one-shot fault in the model's device. */
static void fail_next(enum nm_op op, int err)
{
        nm_transport_lock(&xport);
        model.devs[0].fail[op] = err;
        nm_transport_unlock(&xport);
}

static bool dump_has(const char *text)
{
        char *s = dump();
        bool r = s && strstr(s, text);

        free(s);
        return r;
}

/* The last logged request of this type/cmd (skip newer ones), or NULL. */
static const struct nm_logged *logged(uint16_t type, uint8_t cmd, unsigned skip)
{
        for (unsigned i = xport.n_log; i-- > 0;) {
                const struct nlmsghdr *nlh = (const void *)xport.log[i].buf;
                const struct dcbmsg *d = mnl_nlmsg_get_payload(nlh);

                if (nlh->nlmsg_type == type && d->cmd == cmd && skip-- == 0)
                        return &xport.log[i];
        }
        return NULL;
}

static bool same_as_vector(const struct nm_logged *got, const char *file, unsigned req)
{
        struct nltrace t;
        const struct nltrace_msg *want;

        if (!got || nltrace_load(file, &t) < 0 || !(want = nltrace_request(&t, req)))
                return false;
        return nltrace_equal_masked(got->buf, got->len, want->buf, want->len);
}

static struct nl *open_model(void)
{
        struct nl *nl = NULL;
        struct errbuf e;

        CU_ASSERT_FATAL(nl_open(nm_transport_get(&xport), NETLINK_ROUTE, &nl, &e) == 0);
        return nl;
}

/* roce-lossless's host part: trust dscp, {26:3, 48:6}, PFC on 3, ETS 50/50 on TC0/TC3, the rest strict. */
static void desired_lossless(struct state *d)
{
        state_init(d);
        d->present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_TRUST) |
                     STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_ETS);
        d->pfc_enabled = 0x08;
        d->trust = STATE_TRUST_DSCP;
        d->dscp_prio[26] = 3;
        d->dscp_prio[48] = 6;
        d->dscp_unlisted_zero = true;
        for (unsigned i = 0; i < 8; i++) {
                d->ets.prio_tc[i] = (uint8_t)i;
                d->ets.tc_tsa[i] = STATE_TSA_STRICT;
        }
        d->ets.tc_bw_pct[0] = d->ets.tc_bw_pct[3] = 50;
        d->ets.tc_tsa[0] = d->ets.tc_tsa[3] = STATE_TSA_ETS;
}

/* Read what `want` manages; true when nothing differs (the diff's own rules). */
static bool reads_as(const struct state *want)
{
        struct state live;
        struct diff d = { 0 };
        struct errbuf e;
        bool same;

        state_init(&live);
        if (dcb_driver.read(&tgt, want->present, &live, &e) < 0 || state_diff(want, &live, &d) < 0)
                return false;
        same = diff_empty(&d);
        for (unsigned i = 0; i < d.n; i++)
                fprintf(stderr, "test_dcb: %s: %s is %s, wanted %s\n", tgt.name, d.entries[i].key,
                        d.entries[i].from, d.entries[i].to);
        diff_done(&d);
        return same;
}

/* Snapshot, apply roce-lossless, check, re-apply (no write), restore: the model ends where it began. */
static void lossless_round_trip(struct state *before)
{
        char *start = dump(), *end;
        struct state want;
        struct errbuf e;
        unsigned sets;

        state_init(before);
        CU_ASSERT_FATAL(dcb_driver.read(&tgt, STATE_ALL_FIELDS, before, &e) == 0);
        CU_ASSERT(before->dcb.present && before->dcb.has_dcbx);
        desired_lossless(&want);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        sets = model.devs[0].n_sets;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(model.devs[0].n_sets, sets);            /* idempotent: nothing written again */
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, before, &e) == 0);
        CU_ASSERT(reads_as(before));
        end = dump();
        CU_ASSERT_FATAL(start && end);
        if (strcmp(start, end))
                fprintf(stderr, "test_dcb: the model did not end where it began:\n--- start\n%s--- end\n%s", start, end);
        CU_ASSERT_STRING_EQUAL(end, start);
        free(start);
        free(end);
}

static void test_vectors_encoding(void)
{
        struct dcb_app add[] = { { 5, 3, 26 }, { 5, 6, 48 } }, del[] = { { 5, 3, 26 } };
        struct dcb_nl_ieee cur;
        struct ieee_ets ets;
        struct ieee_pfc pfc;
        struct errbuf e;
        struct nl *nl;

        setup("mlx5:vA:3");
        nl = open_model();
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_GETDCB, DCB_CMD_IEEE_GET, 0), "02-pfc-show.shim.trace", 0));
        pfc = cur.pfc;
        pfc.pfc_en = 0x08;
        pfc.delay = 0;
        CU_ASSERT(dcb_nl_set_pfc(nl, "vA", &pfc, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "01-pfc-set.shim.trace", 1));
        pfc.pfc_en = 0x18;
        CU_ASSERT(dcb_nl_set_pfc(nl, "vA", &pfc, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "12-pfc-set-multi.shim.trace", 1));
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, add, 2, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "03-app-add.trace", 0));
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_DEL, del, 1, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_DEL, 0), "11-app-del.trace", 0));
        memset(&ets, 0, sizeof(ets));
        ets.ets_cap = 8;
        memset(ets.tc_tsa, IEEE_8021QAZ_TSA_ETS, 8);
        ets.tc_tx_bw[0] = ets.tc_tx_bw[1] = 50;
        CU_ASSERT(dcb_nl_set_ets(nl, "vA", &ets, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "05-ets-set.shim.trace", 1));
        memset(&ets, 0, sizeof(ets));
        ets.ets_cap = 8;
        ets.prio_tc[3] = ets.prio_tc[4] = 1;
        CU_ASSERT(dcb_nl_set_ets(nl, "vA", &ets, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "13-ets-set-prio-tc.shim.trace", 1));
        nl_close(nl);
        teardown();
}

/* The veth model answers iproute2's requests like the traced kernel did (EOPNOTSUPP, ENODEV). */
static void test_veth_replays_kernel(void)
{
        static const char *const veth[] = { "01-pfc-set.trace", "03-app-add.trace", "08-dcbx-show.trace",
                                            "10-pfc-show-nodev.trace", "11-app-del.trace" };
        static struct nm_out out;

        for (size_t f = 0; f < ARRAY_SIZE(veth); f++) {
                const struct nltrace_msg *req, *want;
                struct nltrace t;

                setup("veth:vA:3");
                CU_ASSERT_FATAL(nltrace_load(veth[f], &t) == 0);
                for (unsigned i = 0; (req = nltrace_request(&t, i)); i++) {
                        nm_request(&model, req->buf, req->len, &out);
                        CU_ASSERT_FATAL(out.n > 0);
                        want = nltrace_reply(&t, i);
                        if (want && !nltrace_equal_masked(out.buf[0], out.len[0], want->buf, want->len)) {
                                fprintf(stderr, "test_dcb: %s: reply %u differs from the kernel's\n", veth[f], i);
                                CU_FAIL("veth model reply differs from the traced kernel reply");
                        }
                }
                teardown();
        }
}

/* mlx5 at driver load: vendor TSA, firmware DCBX; strict TCs read back at 100%; all restored. */
static void test_mlx5_round_trip(void)
{
        struct ieee_ets raw;
        struct dcb_nl_ieee cur;
        struct state before;
        struct errbuf e;
        struct nl *nl;

        setup("mlx5:vA:3");
        lossless_round_trip(&before);
        CU_ASSERT_EQUAL(before.trust, STATE_TRUST_PCP);
        CU_ASSERT_EQUAL(before.ets.tc_tsa[0], STATE_TSA_VENDOR);
        CU_ASSERT_EQUAL(before.dcb.dcbx, DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
        /* apply again and look at the device: strict classes at 100%, every code point mapped */
        {
                struct state want;

                desired_lossless(&want);
                CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        }
        nl = open_model();
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        raw = cur.ets;
        CU_ASSERT_EQUAL(raw.tc_tx_bw[1], 100);                  /* mlx5e_build_tc_tx_bw() */
        CU_ASSERT_EQUAL(raw.tc_tx_bw[0], 50);
        CU_ASSERT_EQUAL(cur.n_apps, 64);
        CU_ASSERT_EQUAL(cur.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
        CU_ASSERT(dump_has("trust dscp dscp_app_cnt 64 dscp2prio 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0"));
        nl_close(nl);
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        CU_ASSERT(dump_has("dcbx cap 0x0c firmware auto"));
        CU_ASSERT(dump_has("tc_tsa 255,255,255,255,255,255,255,255"));
        teardown();
}

/* A port that trusts DSCP at driver load (64 firmware entries, dscp >> 3): every one put back. */
static void test_mlx5_dscp_at_load(void)
{
        struct state before;

        setup("mlx5:vA:3:dscp");
        lossless_round_trip(&before);
        CU_ASSERT_EQUAL(before.trust, STATE_TRUST_DSCP);
        CU_ASSERT_EQUAL(before.dscp_prio[27], 3);
        CU_ASSERT_EQUAL(before.dcb.n_apps, 64);
        teardown();
}

/* ice: willing ETS, DSCP mode resets ETS, at most 63 DSCP entries, delete-then-add remaps. */
static void test_ice_round_trip(void)
{
        struct state before, want;
        struct dcb_nl_ieee cur;
        struct errbuf e;
        struct nl *nl;

        setup("ice:vA:3");
        lossless_round_trip(&before);
        CU_ASSERT(before.ets.willing);
        CU_ASSERT_EQUAL(model.n_corrupt, 0);
        desired_lossless(&want);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        nl = open_model();
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        CU_ASSERT_EQUAL(cur.n_apps, 63);                        /* DSCP 0 left to the driver: 0 either way */
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("mode dscp"));
        /* remap 26 3 -> 5: ice refuses a second entry, so delete then add */
        want.dscp_prio[26] = 5;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has(" 5:26:5 "));
        CU_ASSERT_EQUAL(model.n_corrupt, 0);
        nl_close(nl);
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        CU_ASSERT(dump_has("mode vlan"));
        CU_ASSERT(dump_has("etscfg willing 1"));
        teardown();
}

/* ice answers a remap by add with "already user mapped" (-EINVAL in-band). */
static void test_ice_refuses_second_entry(void)
{
        struct dcb_app a = { 5, 3, 26 }, b = { 5, 5, 26 };
        struct errbuf e;
        struct nl *nl;

        setup("ice:vA:3");
        nl = open_model();
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, &a, 1, &e) == 0);
        CU_ASSERT_EQUAL(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, &b, 1, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the device driver refused it"));
        CU_ASSERT(dump_has("app 5:26:3\n"));
        nl_close(nl);
        teardown();
}

/* bnxt: add-then-delete clears the firmware entry; the driver's delete-then-add keeps it. */
static void test_bnxt_delete_clears_firmware(void)
{
        struct dcb_app a = { 5, 3, 26 }, b = { 5, 5, 26 };
        struct state before, want;
        struct errbuf e;
        struct nl *nl;

        setup("bnxt:vA:3");
        nl = open_model();
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, &a, 1, &e) == 0);
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, &b, 1, &e) == 0);
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_DEL, &a, 1, &e) == 0);
        CU_ASSERT(dump_has("app 5:26:5\n"));                   /* the kernel list says 5 ... */
        CU_ASSERT(dump_has(",-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-,-"));
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_DEL, &b, 1, &e) == 0);
        /* bnxt_ets_validate(): a vendor TSA is the kernel-internal -ENOTSUPP, which the in-band u8 turns into 244 */
        {
                struct ieee_ets ets = { .ets_cap = 8 };

                memset(ets.tc_tsa, IEEE_8021QAZ_TSA_VENDOR, 8);
                CU_ASSERT_EQUAL(dcb_nl_set_ets(nl, "vA", &ets, &e), -ENOMEM);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "kernel-internal ENOTSUPP"));
        }
        nl_close(nl);
        teardown();

        setup("bnxt:vA:3");
        lossless_round_trip(&before);
        desired_lossless(&want);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        want.dscp_prio[26] = 5;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        /* ... and the firmware too: code point 26 at 5 */
        CU_ASSERT(dump_has("firmware dscp2pri 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,5,"));
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        teardown();
}

/* In-band codes: 0, ice's 1 and 2 (success), a truncated -errno, nonsense. */
static void test_inband_codes(void)
{
        _Alignas(8) unsigned char buf[64] = { 0 };
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        struct nlattr *a;
        int r = 99;

        nlh->nlmsg_type = RTM_SETDCB;
        ((struct dcbmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct dcbmsg)))->cmd = DCB_CMD_IEEE_SET;
        mnl_attr_put_u8(nlh, DCB_ATTR_IEEE, 0);
        a = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct dcbmsg));
        CU_ASSERT(dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &r) == 0 && r == 0);
        *(uint8_t *)mnl_attr_get_payload(a) = 1;
        CU_ASSERT(dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &r) == 0 && r == 1);
        *(uint8_t *)mnl_attr_get_payload(a) = 2;
        CU_ASSERT(dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &r) == 0 && r == 2);
        *(uint8_t *)mnl_attr_get_payload(a) = (uint8_t)-EINVAL;
        CU_ASSERT(dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &r) == 0 && r == -EINVAL);
        *(uint8_t *)mnl_attr_get_payload(a) = 50;
        CU_ASSERT(dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &r) == 0 && r == -EPROTO);
}

/*
 * ice answers 1 (ICE_DCB_NO_HW_CHG) when its firmware refused a configuration,
 * and the kernel stops the APP request there: the driver reads back and goes on.
 */
static void test_ice_stops_midway(void)
{
        struct state want;
        struct errbuf e;
        struct nl *nl;
        struct dcb_nl_ieee cur;

        setup("ice:vA:3");
        desired_lossless(&want);
        want.present = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP);
        fail_next(NM_OP_FWCFG, EIO);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        nl = open_model();
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        CU_ASSERT_EQUAL(cur.n_apps, 63);
        CU_ASSERT(model.devs[0].n_sets >= 2);                   /* the first request was cut short */
        nl_close(nl);
        teardown();
}

/* The firmware's LLDP agent owns DCBX: refused with what to do, nothing changed. */
static void test_fw_lldp_refused(void)
{
        struct state want;
        struct errbuf e;
        char *start;

        setup("ice:vA:3:fw-lldp");
        start = dump();
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "DCBX is managed by the NIC firmware's LLDP agent"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "fw-lldp-agent off"));
        CU_ASSERT_EQUAL(model.devs[0].n_sets, 0);
        {
                char *end = dump();

                CU_ASSERT_STRING_EQUAL(end, start);
                free(end);
        }
        free(start);
        teardown();
}

/* A refusal the driver would answer in the middle of the change is said before any SET (dcb_refuse.c). */
static void refused_before_any_set(const char *spec, int err, const char *const *says)
{
        struct state want;
        struct errbuf e;
        char *start, *end;

        setup(spec);
        start = dump();
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), err);
        for (; *says; says++)
                if (!strstr(e.msg, *says)) {
                        fprintf(stderr, "%s: '%s' not in '%s'\n", spec, *says, e.msg);
                        CU_FAIL("the refusal does not say it");
                }
        CU_ASSERT_EQUAL(model.devs[0].n_sets, 0);
        end = dump();
        CU_ASSERT_STRING_EQUAL(end, start);
        free(end);
        free(start);
        teardown();
}

static void test_driver_refusals_at_plan(void)
{
        static const char *const custom_tx[] = { "custom Tx scheduler is on (devlink-rate pci/", "tx_max 125000000",
                                                 "-EBUSY", "devlink dev reload", NULL };
        static const char *const cee_dscp[] = { "DCBX is 0x05", "DSCP configuration is not DCBx negotiated",
                                                "dcb app del dev vA dscp-prio 26:3", NULL };
        static const char *const vf[] = { "DCBX is 0x08, IEEE without host mode", "bnxt_dcb_init()", NULL };

        refused_before_any_set("ice:vA:3:custom-tx", -EBUSY, custom_tx);
        refused_before_any_set("ice:vA:3:cee-dscp", -EBUSY, cee_dscp);
        refused_before_any_set("bnxt:vA:3:vf", -EBUSY, vf);
        refused_before_any_set("bnxt:vA:3:lldp-only", -EBUSY, vf + 1);
}

/* A restore that fails on one part still restores the others and names the failed one. */
static void test_restore_best_effort(void)
{
        struct state before, want;
        struct errbuf e;

        setup("mlx5:vA:3");
        state_init(&before);
        CU_ASSERT_FATAL(dcb_driver.read(&tgt, STATE_ALL_FIELDS, &before, &e) == 0);
        desired_lossless(&want);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        fail_next(NM_OP_SETETS, EIO);
        CU_ASSERT_EQUAL(drvtest_restore(&dcb_driver, &tgt, &before, &e), -EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "ets: set ets: the device driver refused it"));
        CU_ASSERT(dump_has("trust pcp dscp_app_cnt 0"));         /* the APP table was restored */
        CU_ASSERT(dump_has("pfc en 0x00"));                      /* PFC after the failed ETS */
        CU_ASSERT(dump_has("dcbx cap 0x0c firmware auto"));      /* and DCBX, last */
        CU_ASSERT(dump_has("tc_tsa 2,0,0,2"));                   /* ETS is what was left */
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        teardown();
}

static bool rdma_active(const char *root)
{
        char path[PATH_MAX], line[32] = "";
        FILE *f;

        snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_0/ports/1/state", root);
        f = fopen(path, "re");
        if (!f)
                return false;
        if (!fgets(line, sizeof(line), f))
                line[0] = '\0';
        fclose(f);
        return line[0] == '4';
}

/* mlx5's PFC change drops carrier after the SET returned: apply returns once carrier and RDMA are back. */
static void test_flap_wait(void)
{
        struct nm_dev *d = setup("mlx5:vA:3");
        const char *dir = sysdir;
        struct state want;
        struct errbuf e;
        uint32_t downs;

        CU_ASSERT(rdma_active(dir));
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_PFC);
        want.pfc_enabled = 0x08;
        downs = d->carrier_down_count;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        nm_transport_lock(&xport);
        CU_ASSERT_EQUAL(d->carrier_down_count, downs + 1);       /* it did flap, after the reply */
        CU_ASSERT(d->carrier);
        nm_transport_unlock(&xport);
        CU_ASSERT(rdma_active(dir));
        /* no carrier within settle_ms */
        nm_transport_lock(&xport);
        model.link_up_ms = 3000;
        nm_transport_unlock(&xport);
        env.settle_ms = 200;
        env.link_up_max_ms = 200;               /* the ceiling over the 100G bound */
        want.pfc_enabled = 0x18;
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -ETIMEDOUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no carrier"));
        /* carrier back, the RDMA port not ACTIVE within rdma_wait_ms */
        while (!rdma_active(dir))
                nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
        nm_transport_lock(&xport);
        model.link_up_ms = 50;
        model.rdma_lag_ms = 3000;
        nm_transport_unlock(&xport);
        env.settle_ms = 5000;
        env.link_up_max_ms = 0;
        env.rdma_wait_ms = 200;
        want.pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -ETIMEDOUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "RDMA port"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "mlx5_0/ports/1/state"));
        teardown();
}

static void test_unsupported_device(void)
{
        struct state want, live;
        struct errbuf e;
        uint32_t caps = 1;

        setup("veth:vA:3");
        CU_ASSERT(dcb_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, 0);
        state_init(&live);
        CU_ASSERT_EQUAL(dcb_driver.read(&tgt, STATE_BIT(STATE_FIELD_PFC), &live, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        CU_ASSERT_EQUAL(model.devs[0].n_sets, 0);
        CU_ASSERT_EQUAL(model.devs[0].mtu, 1500);
        teardown();
}

/*
 * A software link's answer in a batch of GETs is written, not asked: the error and
 * the message are the ones asking gives (the veth model replays the kernel's reply
 * to a device without dcbnl_ops), and no request goes out for it.
 */
static void test_cache_software_link(void)
{
        static const char names[1][16] = { "vA" };
        struct dcb_cache *asked = NULL, *written = NULL;
        struct dcb_nl_ieee ieee;
        struct errbuf e = { 0 }, ea = { 0 }, ew = { 0 };
        struct nl *nl = NULL;
        unsigned before;
        int ra, rw;

        setup("veth:vA:3");
        CU_ASSERT_FATAL(nl_open(env.nl, NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT_FATAL(dcb_cache_fill(nl, names, (const bool[]){ false }, 1, &asked, &e) == 0);
        before = xport.n_log;
        CU_ASSERT(before > 0);
        CU_ASSERT_FATAL(dcb_cache_fill(nl, names, (const bool[]){ true }, 1, &written, &e) == 0);
        CU_ASSERT_EQUAL(xport.n_log, before);
        ra = dcb_cache_get(asked, nl, "vA", &ieee, &ea);
        rw = dcb_cache_get(written, nl, "vA", &ieee, &ew);
        CU_ASSERT_EQUAL(ra, -EOPNOTSUPP);
        CU_ASSERT_EQUAL(rw, ra);
        CU_ASSERT_STRING_EQUAL(ew.msg, ea.msg);
        CU_ASSERT_EQUAL(dcb_cache_get(written, nl, "vB", &ieee, &ew), 1);     /* not in the batch */
        dcb_cache_free(asked);
        dcb_cache_free(written);
        nl_close(nl);
        teardown();
}

static void test_lldpad_refused(void)
{
        char dir[] = "/tmp/nettune-proc.XXXXXX", path[128];
        struct state want;
        struct errbuf e;
        pid_t pid = 0;
        FILE *f;

        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        CU_ASSERT(dcb_lldpad_find(dir, &pid) == 0);
        snprintf(path, sizeof(path), "%s/4242", dir);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/4242/comm", dir);
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fputs("lldpad\n", f);
        fclose(f);
        CU_ASSERT(dcb_lldpad_find(dir, &pid) == 1);
        CU_ASSERT_EQUAL(pid, 4242);
        setup("mlx5:vA:3");
        dcb_driver_proc_root = dir;
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "lldpad (pid 4242)"));
        for (unsigned i = 0; i < xport.n_log; i++)      /* nothing was set: the driver's check refused first */
                CU_ASSERT_NOT_EQUAL(((const struct nlmsghdr *)xport.log[i].buf)->nlmsg_type, RTM_SETDCB);
        dcb_driver_proc_root = "/proc";
        teardown();
        unlink(path);
        snprintf(path, sizeof(path), "%s/4242", dir);
        rmdir(path);
        rmdir(dir);
}

static void test_app_plan_rules(void)
{
        const struct dcb_quirks *q = dcb_quirks_for("mlx5_core");
        struct dcb_nl_ieee cur = { 0 };
        struct dcb_app_target tg;
        struct state d;
        struct errbuf e;

        state_init(&d);
        d.present = STATE_BIT(STATE_FIELD_TRUST);
        d.trust = STATE_TRUST_DSCP;
        CU_ASSERT_EQUAL(dcb_app_target(&d, d.present, &cur, q, &tg, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs at least one dscp_to_priority entry"));
        d.present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
        d.trust = STATE_TRUST_PCP;
        d.dscp_prio[1] = 1;
        CU_ASSERT_EQUAL(dcb_app_target(&d, d.present, &cur, q, &tg, &e), -EINVAL);
        /* the map is exact: the code points it does not list go to priority 0 */
        d.trust = STATE_TRUST_DSCP;
        d.dscp_unlisted_zero = true;
        CU_ASSERT(dcb_app_target(&d, d.present, &cur, q, &tg, &e) == 0);
        CU_ASSERT(tg.map[1] == 1 && tg.map[0] == 0 && tg.map[63] == 0 && !tg.set_trust);
        /* ice holds 63: a code point its driver maps to the same priority anyway is left out */
        CU_ASSERT(dcb_app_target(&d, d.present, &cur, dcb_quirks_for("ice"), &tg, &e) == 0);
        CU_ASSERT(tg.map[0] == STATE_DSCP_UNMAPPED && tg.map[9] == 0);
        /* a trust table: trust is written there, DSCP first then PCP */
        cur.has_trust = true;
        CU_ASSERT(dcb_app_target(&d, d.present, &cur, q, &tg, &e) == 0);
        CU_ASSERT(tg.set_trust && tg.n_trust == 2 && tg.trust[0] == IEEE_8021QAZ_APP_SEL_DSCP &&
                  tg.trust[1] == DCB_NL_SEL_PCP);
        /* an empty trust table trusts nothing; DSCP first means DSCP */
        dcb_app_read(&cur, q, &d);
        CU_ASSERT_EQUAL(d.trust, STATE_TRUST_NONE);
        cur.n_trust = 2;
        cur.trust[0] = IEEE_8021QAZ_APP_SEL_DSCP;
        cur.trust[1] = DCB_NL_SEL_PCP;
        dcb_app_read(&cur, q, &d);
        CU_ASSERT_EQUAL(d.trust, STATE_TRUST_DSCP);
        CU_ASSERT(d.dcb.has_trust_table && d.dcb.n_trust == 2);
}

/* The trust table goes out as DCB_ATTR_DCB_APP_TRUST_TABLE with typed selectors. */
static void test_trust_table_encoding(void)
{
        const uint8_t sel[] = { IEEE_8021QAZ_APP_SEL_DSCP, DCB_NL_SEL_PCP };
        const struct nm_logged *got;
        const struct nlattr *a, *nest = NULL, *table = NULL;
        const struct nlmsghdr *req;
        struct errbuf e;
        unsigned n = 0;
        struct nl *nl;

        setup("mlx5:vA:3");
        nl = open_model();
        /* mlx5 has no dcbnl_setapptrust: dcbnl_ieee_set answers -EOPNOTSUPP in-band */
        CU_ASSERT_EQUAL(dcb_nl_set_trust(nl, "vA", sel, 2, &e), -EOPNOTSUPP);
        got = logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0);
        CU_ASSERT_FATAL(got != NULL);
        req = (const struct nlmsghdr *)got->buf;
        mnl_attr_for_each(a, req, sizeof(struct dcbmsg))
                if (mnl_attr_get_type(a) == DCB_ATTR_IEEE)
                        nest = a;
        CU_ASSERT_FATAL(nest != NULL);
        mnl_attr_for_each_nested(a, nest)
                if (mnl_attr_get_type(a) == DCB_ATTR_DCB_APP_TRUST_TABLE)
                        table = a;
        CU_ASSERT_FATAL(table != NULL);
        mnl_attr_for_each_nested(a, table) {
                CU_ASSERT_EQUAL(mnl_attr_get_type(a), n == 0 ? DCB_ATTR_IEEE_APP : DCB_NL_APP_ATTR_DCB);
                CU_ASSERT_EQUAL(mnl_attr_get_u8(a), sel[n]);
                n++;
        }
        CU_ASSERT_EQUAL(n, 2);
        nl_close(nl);
        teardown();
}

/*
 * A driver with an APP trust table (sparx5, 6.3+): trust is written there, the
 * exact map too, and the restore puts the switch's default [dscp, pcp] back.
 */
static void test_trust_table_driver(void)
{
        struct state before, want, live;
        struct dcb_nl_ieee cur;
        struct errbuf e;
        struct nl *nl;
        uint32_t caps = 0;

        setup("sparx5:vA:3");
        CU_ASSERT(dcb_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP));  /* no ETS/PFC ops */
        state_init(&before);
        CU_ASSERT_FATAL(dcb_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT_EQUAL(before.trust, STATE_TRUST_DSCP);                /* [dscp, pcp] at init */
        CU_ASSERT(before.dcb.has_trust_table && before.dcb.n_trust == 2);
        /* trust pcp with a map: the trust table says pcp, the entries stay */
        state_init(&want);
        want.present = caps;
        want.trust = STATE_TRUST_PCP;
        want.dscp_prio[26] = 3;
        want.dscp_unlisted_zero = true;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(dump_has("apptrust pcp"));
        CU_ASSERT(reads_as(&want));
        /* trust dscp: [dscp, pcp] */
        want.trust = STATE_TRUST_DSCP;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(dump_has("apptrust dscp pcp"));
        CU_ASSERT(dump_has("qos dscp on dscp_map 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0"));
        /* an empty table trusts nothing, and reads so */
        nl = open_model();
        CU_ASSERT(dcb_nl_set_trust(nl, "vA", NULL, 0, &e) == 0);
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        CU_ASSERT(cur.has_trust && cur.n_trust == 0);
        state_init(&live);
        CU_ASSERT(dcb_driver.read(&tgt, caps, &live, &e) == 0);
        CU_ASSERT_EQUAL(live.trust, STATE_TRUST_NONE);
        /* a table the switch cannot do is refused in-band */
        {
                const uint8_t pcp_dscp[] = { DCB_NL_SEL_PCP, IEEE_8021QAZ_APP_SEL_DSCP };

                CU_ASSERT_EQUAL(dcb_nl_set_trust(nl, "vA", pcp_dscp, 2, &e), -EOPNOTSUPP);
        }
        nl_close(nl);
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        CU_ASSERT(dump_has("apptrust dscp pcp"));
        CU_ASSERT(dump_has("app -"));
        teardown();
}

static void test_parse_rejects_garbage(void)
{
        struct nltrace t;
        struct dcb_nl_ieee ieee;
        unsigned char buf[NLTRACE_BYTES_MAX];
        const struct nltrace_msg *m;
        size_t len;

        CU_ASSERT_FATAL(nltrace_load("02-pfc-show.shim.trace", &t) == 0);
        m = nltrace_reply(&t, 0);
        CU_ASSERT_FATAL(m != NULL);
        CU_ASSERT(dcb_nl_parse_ieee((const void *)m->buf, &ieee) == 0);
        CU_ASSERT(ieee.has_pfc && ieee.pfc.pfc_cap == 8 && ieee.has_ets && ieee.ets.ets_cap == 8);
        CU_ASSERT(ieee.has_dcbx && ieee.dcbx == 9 && ieee.has_apps && ieee.n_apps == 0);
        CU_ASSERT_FALSE(ieee.has_trust);
        /* a PFC attribute one byte short is refused, not read past */
        len = m->len;
        memcpy(buf, m->buf, len);
        buf[0xa4] = 0x8b;
        CU_ASSERT(dcb_nl_parse_ieee((const void *)buf, &ieee) < 0);
}

int suite_dcb(void);
int suite_dcb(void)
{
        CU_pSuite s = CU_add_suite("dcb", NULL, NULL);

        if (!s || !CU_add_test(s, "vectors_encoding", test_vectors_encoding) ||
            !CU_add_test(s, "veth_replays_kernel", test_veth_replays_kernel) ||
            !CU_add_test(s, "mlx5_round_trip", test_mlx5_round_trip) ||
            !CU_add_test(s, "mlx5_dscp_at_load", test_mlx5_dscp_at_load) ||
            !CU_add_test(s, "ice_round_trip", test_ice_round_trip) ||
            !CU_add_test(s, "ice_refuses_second_entry", test_ice_refuses_second_entry) ||
            !CU_add_test(s, "bnxt_delete_clears_firmware", test_bnxt_delete_clears_firmware) ||
            !CU_add_test(s, "inband_codes", test_inband_codes) ||
            !CU_add_test(s, "ice_stops_midway", test_ice_stops_midway) ||
            !CU_add_test(s, "fw_lldp_refused", test_fw_lldp_refused) ||
            !CU_add_test(s, "driver_refusals_at_plan", test_driver_refusals_at_plan) ||
            !CU_add_test(s, "restore_best_effort", test_restore_best_effort) ||
            !CU_add_test(s, "flap_wait", test_flap_wait) ||
            !CU_add_test(s, "unsupported_device", test_unsupported_device) ||
            !CU_add_test(s, "cache_software_link", test_cache_software_link) ||
            !CU_add_test(s, "lldpad_refused", test_lldpad_refused) ||
            !CU_add_test(s, "app_plan_rules", test_app_plan_rules) ||
            !CU_add_test(s, "trust_table_encoding", test_trust_table_encoding) ||
            !CU_add_test(s, "trust_table_driver", test_trust_table_driver) ||
            !CU_add_test(s, "parse_rejects_garbage", test_parse_rejects_garbage))
                return -1;
        return 0;
}
