/* SPDX-License-Identifier: MIT */
/*
 * The dcbnl layer and the "dcb" driver:
 *   - requests byte-for-byte equal to iproute2's (tests/data/dcb vectors);
 *   - the device model replays iproute2's requests and answers exactly like the
 *     traced replies (zero config), so tests through it are honest;
 *   - read/apply/restore end to end through the real driver against the model.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/rtnetlink.h>
#include <sys/stat.h>
#include <time.h>

#include "dcb_app.h"
#include "dcb_driver.h"
#include "drvtest.h"
#include "dcb_lldpad.h"
#include "dcb_model.h"
#include "dcb_nl.h"
#include "nltrace.h"

static struct dcb_model model;
static struct driver_env env;
static struct target tgt;

static struct dcb_model_dev *setup(bool dcb)
{
        struct dcb_model_dev *d;

        dcb_model_init(&model);
        d = dcb ? dcb_model_add_mlx5(&model, "vA", 3) : dcb_model_add_plain(&model, "vA", 3);
        memset(&env, 0, sizeof(env));
        env.nl = dcb_model_transport(&model);
        env.settle_ms = 2000;
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "vA");
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "%s", dcb ? "mlx5_core" : "veth");
        tgt.ifindex = 3;
        tgt.env = &env;
        return d;
}

/* The last logged request of this type/cmd, or NULL. */
static const struct dcb_model_msg *logged(uint16_t type, uint8_t cmd, unsigned skip)
{
        for (unsigned i = model.n_log; i-- > 0;) {
                const struct nlmsghdr *nlh = (const void *)model.log[i].buf;
                const struct dcbmsg *d = mnl_nlmsg_get_payload(nlh);

                if (nlh->nlmsg_type == type && d->cmd == cmd && skip-- == 0)
                        return &model.log[i];
        }
        return NULL;
}

static bool same_as_vector(const struct dcb_model_msg *got, const char *file, unsigned req)
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

        CU_ASSERT_FATAL(nl_open(dcb_model_transport(&model), NETLINK_ROUTE, &nl, &e) == 0);
        return nl;
}

static void test_vectors_encoding(void)
{
        struct dcb_app add[] = { { 5, 3, 26 }, { 5, 6, 48 } }, del[] = { { 5, 3, 26 } };
        struct dcb_nl_ieee cur;
        struct ieee_ets ets;
        struct ieee_pfc pfc;
        struct errbuf e;
        struct nl *nl;

        setup(true);
        nl = open_model();
        CU_ASSERT(dcb_nl_get(nl, "vA", &cur, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_GETDCB, DCB_CMD_IEEE_GET, 0), "02-pfc-show.shim.trace", 0));
        pfc = cur.pfc;
        pfc.pfc_en = 0x08;
        CU_ASSERT(dcb_nl_set_pfc(nl, "vA", &pfc, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "01-pfc-set.shim.trace", 1));
        pfc.pfc_en = 0x18;
        CU_ASSERT(dcb_nl_set_pfc(nl, "vA", &pfc, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "12-pfc-set-multi.shim.trace", 1));
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_SET, add, 2, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "03-app-add.trace", 0));
        CU_ASSERT(dcb_nl_apps(nl, "vA", DCB_CMD_IEEE_DEL, del, 1, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_DEL, 0), "11-app-del.trace", 0));
        ets = cur.ets;
        memset(ets.tc_tsa, IEEE_8021QAZ_TSA_ETS, 8);
        ets.tc_tx_bw[0] = ets.tc_tx_bw[1] = 50;
        CU_ASSERT(dcb_nl_set_ets(nl, "vA", &ets, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "05-ets-set.shim.trace", 1));
        ets = cur.ets;
        ets.prio_tc[3] = ets.prio_tc[4] = 1;
        CU_ASSERT(dcb_nl_set_ets(nl, "vA", &ets, &e) == 0);
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "13-ets-set-prio-tc.shim.trace", 1));
        nl_close(nl);
        dcb_model_done(&model);
}

/* Feed every request of a trace to a fresh model; its replies must equal the traced ones. */
static void replay(const char *file, bool dcb, bool compare_all)
{
        struct nltrace t;
        const struct nltrace_msg *req, *want;

        setup(dcb);
        CU_ASSERT_FATAL(nltrace_load(file, &t) == 0);
        for (unsigned i = 0; (req = nltrace_request(&t, i)); i++) {
                unsigned char *got = NULL;
                size_t len = 0;

                CU_ASSERT(dcb_model_request(&model, req->buf, req->len) > 0);
                CU_ASSERT_FATAL(dcb_model_pop(&model, &got, &len) == 0);
                want = nltrace_reply(&t, i);
                if (want && (compare_all || ((const struct nlmsghdr *)got)->nlmsg_type == RTM_GETDCB) &&
                    !nltrace_equal_masked(got, len, want->buf, want->len)) {
                        fprintf(stderr, "test_dcb: %s: reply %u differs from the traced one\n", file, i);
                        CU_FAIL("model reply differs from the traced reply");
                }
                if (((const struct nlmsghdr *)got)->nlmsg_type == RTM_SETDCB)
                        CU_ASSERT(len >= 28 && got[24] == 0);           /* in-band result: accepted */
                free(got);
                while (dcb_model_pop(&model, &got, &len) == 0) {        /* the ACK that follows */
                        CU_ASSERT(((const struct nlmsghdr *)got)->nlmsg_type == NLMSG_ERROR);
                        free(got);
                }
        }
        dcb_model_done(&model);
}

static void test_model_replays_vectors(void)
{
        static const char *const shim[] = { "01-pfc-set.shim.trace", "02-pfc-show.shim.trace",
                                            "04-app-show.shim.trace", "05-ets-set.shim.trace",
                                            "06-buffer-show.shim.trace", "12-pfc-set-multi.shim.trace",
                                            "13-ets-set-prio-tc.shim.trace", "14-maxrate-set.shim.trace" };
        static const char *const veth[] = { "01-pfc-set.trace", "03-app-add.trace", "08-dcbx-show.trace",
                                            "10-pfc-show-nodev.trace", "11-app-del.trace" };

        for (size_t i = 0; i < ARRAY_SIZE(shim); i++)
                replay(shim[i], true, true);
        /* Without DCB the model answers like the kernel did for veth: EOPNOTSUPP / ENODEV. */
        for (size_t i = 0; i < ARRAY_SIZE(veth); i++)
                replay(veth[i], false, true);
}

static void desired_lossless(struct state *d)
{
        state_init(d);
        d->present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_TRUST) |
                     STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_ETS);
        d->pfc_enabled = 0x08;
        d->trust = STATE_TRUST_DSCP;
        d->dscp_prio[26] = 3;
        d->dscp_prio[48] = 6;
        for (unsigned i = 0; i < 8; i++) {
                d->ets.prio_tc[i] = (uint8_t)i;
                d->ets.tc_tsa[i] = STATE_TSA_STRICT;
        }
        d->ets.tc_bw_pct[0] = d->ets.tc_bw_pct[3] = 50;
        d->ets.tc_tsa[0] = d->ets.tc_tsa[3] = STATE_TSA_ETS;
}

static bool read_equals(const struct state *want)
{
        struct state live;
        struct errbuf e;

        state_init(&live);
        if (dcb_driver.read(&tgt, want->present, &live, &e) < 0)
                return false;
        if (live.present != want->present)
                return false;
        if (state_has(want, STATE_FIELD_PFC) && live.pfc_enabled != want->pfc_enabled)
                return false;
        if (state_has(want, STATE_FIELD_TRUST) && live.trust != want->trust)
                return false;
        if (state_has(want, STATE_FIELD_DSCP_MAP) && memcmp(live.dscp_prio, want->dscp_prio, 64))
                return false;
        return !state_has(want, STATE_FIELD_ETS) || !memcmp(&live.ets, &want->ets, sizeof(live.ets));
}

static void test_driver_apply_restore(void)
{
        struct state before, want;
        struct errbuf e;
        uint32_t caps = 0;
        unsigned sets;

        setup(true);
        CU_ASSERT(dcb_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) |
                              STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS));
        state_init(&before);
        CU_ASSERT(dcb_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT_EQUAL(before.trust, STATE_TRUST_PCP);
        CU_ASSERT_EQUAL(before.pfc_enabled, 0);
        desired_lossless(&want);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(read_equals(&want));
        CU_ASSERT(model.devs[0].trust_dscp);
        /* the PFC SET and the APP add are iproute2's bytes */
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 0), "03-app-add.trace", 0));
        CU_ASSERT(same_as_vector(logged(RTM_SETDCB, DCB_CMD_IEEE_SET, 1), "01-pfc-set.shim.trace", 1));
        /* idempotent: nothing is written again */
        sets = model.n_setets + model.n_setpfc + model.n_setapp + model.n_delapp;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(model.n_setets + model.n_setpfc + model.n_setapp + model.n_delapp, sets);
        /* restore: back to PCP trust and zero config */
        CU_ASSERT(drvtest_restore(&dcb_driver, &tgt, &before, &e) == 0);
        CU_ASSERT(read_equals(&before));
        CU_ASSERT_FALSE(model.devs[0].trust_dscp);
        CU_ASSERT_EQUAL(model.devs[0].n_apps, 0);
        dcb_model_done(&model);
}

static void test_dscp_replace_never_empty(void)
{
        struct state want;
        struct errbuf e;

        setup(true);
        desired_lossless(&want);
        want.present = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP);
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        /* 26 moves to priority 5, 48 goes away, 10 is new */
        memset(want.dscp_prio, STATE_DSCP_UNMAPPED, sizeof(want.dscp_prio));
        want.dscp_prio[26] = 5;
        want.dscp_prio[10] = 1;
        model.min_dscp_entries_seen = UINT_MAX;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(model.min_dscp_entries_seen >= 1);
        CU_ASSERT(read_equals(&want));
        CU_ASSERT_EQUAL(model.devs[0].n_apps, 2);
        CU_ASSERT(model.devs[0].trust_dscp);
        dcb_model_done(&model);
}

static bool now_carrier_ok(const struct dcb_model_dev *d)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 >= d->carrier_back_ms;
}

static void test_inband_error_and_flap(void)
{
        struct dcb_model_dev *d = setup(true);
        struct state want;
        struct errbuf e;

        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_PFC);
        want.pfc_enabled = 0x08;
        d->fail_pfc = EINVAL;           /* clean ACK, but the driver said -EINVAL in-band */
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "set pfc: the device driver refused it"));
        CU_ASSERT_EQUAL(d->pfc.pfc_en, 0);
        /* a PFC change flaps the link; apply waits for carrier within settle_ms */
        d->flap_ms = 200;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT(now_carrier_ok(d));
        want.pfc_enabled = 0x18;
        d->flap_ms = 3600 * 1000;       /* the carrier does not come back within the test */
        env.settle_ms = 100;
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -ETIMEDOUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no carrier"));
        dcb_model_done(&model);
}

static void test_dcbx_host_mode(void)
{
        struct dcb_model_dev *d = setup(true);
        struct state want;
        struct errbuf e;

        d->dcbx = DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;         /* firmware-managed */
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_PFC);
        want.pfc_enabled = 0x08;
        CU_ASSERT(drvtest_apply(&dcb_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(d->dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
        CU_ASSERT_EQUAL(model.n_setdcbx, 1);
        dcb_model_done(&model);
}

static void test_unsupported_device(void)
{
        struct state want, live;
        struct errbuf e;
        uint32_t caps = 1;

        setup(false);
        CU_ASSERT(dcb_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, 0);
        state_init(&live);
        CU_ASSERT_EQUAL(dcb_driver.read(&tgt, STATE_BIT(STATE_FIELD_PFC), &live, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        CU_ASSERT_EQUAL(model.n_setmtu, 0);
        CU_ASSERT_EQUAL(model.devs[0].mtu, 1500);
        dcb_model_done(&model);
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
        setup(true);
        dcb_driver_proc_root = dir;
        desired_lossless(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &want, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "lldpad (pid 4242)"));
        for (unsigned i = 0; i < model.n_log; i++)   /* nothing was set */
                CU_ASSERT_NOT_EQUAL(((const struct nlmsghdr *)model.log[i].buf)->nlmsg_type, RTM_SETDCB);
        dcb_driver_proc_root = "/proc";
        dcb_model_done(&model);
        unlink(path);
        snprintf(path, sizeof(path), "%s/4242", dir);
        rmdir(path);
        rmdir(dir);
}

static void test_app_plan_rules(void)
{
        struct dcb_nl_ieee cur = { 0 };
        uint8_t map[64];
        struct state d;
        struct errbuf e;

        state_init(&d);
        d.present = STATE_BIT(STATE_FIELD_TRUST);
        d.trust = STATE_TRUST_DSCP;
        CU_ASSERT_EQUAL(dcb_app_target(&d, d.present, &cur, map, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs at least one dscp_to_priority entry"));
        d.present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
        d.trust = STATE_TRUST_PCP;
        d.dscp_prio[1] = 1;
        CU_ASSERT_EQUAL(dcb_app_target(&d, d.present, &cur, map, &e), -EINVAL);
        /* a trust table listing DSCP first means DSCP trust even without entries */
        cur.has_trust = true;
        cur.n_trust = 2;
        cur.trust[0] = IEEE_8021QAZ_APP_SEL_DSCP;
        cur.trust[1] = DCB_NL_SEL_PCP;
        dcb_app_read(&cur, &d);
        CU_ASSERT_EQUAL(d.trust, STATE_TRUST_DSCP);
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
            !CU_add_test(s, "model_replays_vectors", test_model_replays_vectors) ||
            !CU_add_test(s, "driver_apply_restore", test_driver_apply_restore) ||
            !CU_add_test(s, "dscp_replace_never_empty", test_dscp_replace_never_empty) ||
            !CU_add_test(s, "inband_error_and_flap", test_inband_error_and_flap) ||
            !CU_add_test(s, "dcbx_host_mode", test_dcbx_host_mode) ||
            !CU_add_test(s, "unsupported_device", test_unsupported_device) ||
            !CU_add_test(s, "lldpad_refused", test_lldpad_refused) ||
            !CU_add_test(s, "app_plan_rules", test_app_plan_rules) ||
            !CU_add_test(s, "parse_rejects_garbage", test_parse_rejects_garbage))
                return -1;
        return 0;
}
