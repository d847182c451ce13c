/* SPDX-License-Identifier: MIT */
/*
 * Transaction logic with the in-memory fake driver (tests/lib/fakedrv.c) and a
 * real SQLite journal: commit, nothing to do, refusal, every failure path
 * restoring what was touched, the gate, commit-confirm, recovery, rollback.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "policies/json/jsonw.h"
#include "tests/lib/fakedrv.h"

#define MTU_BIT STATE_BIT(STATE_FIELD_MTU)
#define ALL_CAPS (STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC))

static char dir[64];
static struct agent_config config;
static struct journal *journal;
static struct txn_env env;
static struct txn_request req;        /* the request each entry point gets: no key, no precondition unless a test sets one */

static int setup(void)
{
        struct errbuf e = { 0 };

        snprintf(dir, sizeof(dir), "/tmp/nettune-txn.XXXXXX");
        if (!mkdtemp(dir))
                return -1;
        memset(&config, 0, sizeof(config));
        snprintf(config.state_dir, sizeof(config.state_dir), "%s", dir);
        if (journal_open(dir, &journal, &e) < 0)
                return -1;
        memset(&env, 0, sizeof(env));
        txn_request_init(&req);
        env.config = &config;
        env.journal = journal;
        env.lock_fd = -1;
        env.no_watchdog = true;
        fakedrv_env(&env);
        fakedrv_reset();
        return 0;
}

static int teardown(void)
{
        char cmd[128];

        journal_close(journal);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static struct policy *make_policy(unsigned mtu, const char *verify)
{
        struct errbuf e = { 0 };
        struct policy *p = NULL;
        char doc[1024];

        snprintf(doc, sizeof(doc),
                 "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                 "\"targets\":{\"interfaces\":[\"fa\",\"fb\"]},\"spec\":{\"mtu\":%u},\"verify\":%s}",
                 mtu, verify ? verify : "{\"probe\":\"none\",\"settle_ms\":0}");
        CU_ASSERT_EQUAL(policy_parse_buffer(doc, strlen(doc), "test", &p, &e), 0);
        return p;
}

#define GATED "{\"probe\":\"tcp\",\"peer\":\"127.0.0.1:1\",\"settle_ms\":0,\"max_regression_pct\":20}"

static void fresh_devices(void)
{
        fakedrv_reset();
        fakedrv_add("fa", 1500, ALL_CAPS);
        fakedrv_add("fb", 1500, ALL_CAPS);
}

/* Run apply; return the result's exit code and keep the result in *r. */
static int apply(unsigned mtu, const char *verify, int confirm, struct txn_result *r)
{
        struct policy *p = make_policy(mtu, verify);

        txn_result_init(r);
        if (!p)
                return -1;
        txn_apply(&env, &req, p, confirm, r);
        policy_free(p);
        return r->exit_code;
}

static void test_commit_and_nothing_to_do(void)
{
        struct txn_result r;
        struct journal_tx t;
        struct errbuf e = { 0 };

        fresh_devices();
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_OK);
        CU_ASSERT_STRING_EQUAL(r.result, "committed");
        CU_ASSERT_EQUAL(r.state, TXN_COMMITTED);
        CU_ASSERT_EQUAL(r.n_changes, 2);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 9000);
        CU_ASSERT_EQUAL_FATAL(journal_get(journal, r.tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_COMMITTED);
        /* the answer names the revision the commit recorded, as the journal has it */
        CU_ASSERT(t.rev > 0);
        CU_ASSERT_EQUAL(r.rev, t.rev);
        journal_tx_done(&t);
        txn_result_done(&r);

        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_OK);
        CU_ASSERT_STRING_EQUAL(r.result, "nothing_to_do");
        CU_ASSERT_EQUAL(r.tx, 0);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, 1);
        txn_result_done(&r);
}

static void test_caps_refused(void)
{
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fb")->caps = STATE_BIT(STATE_FIELD_PFC);
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_INVALID);
        CU_ASSERT_EQUAL(r.tx, 0);
        CU_ASSERT_STRING_EQUAL(r.error.msg, "interface 'fb' (driver fake) does not support fake (needed for mtu); "
                                            "nothing was changed");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, 0);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        txn_result_done(&r);
}

static void test_apply_failure_restores_all(void)
{
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fb")->fail_apply = true;
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_EQUAL(r.state, TXN_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "error");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 1500);
        CU_ASSERT(fakedrv_find("fa")->restores >= 1);
        txn_result_done(&r);
}

static void test_readback_mismatch(void)
{
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fa")->ignore_apply = true;
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "readback");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "read-back of interface 'fa' differs"));
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 1500);
        txn_result_done(&r);
}

/* The result's probe.gate is drivers/probe/probe_gate.c's report. */
static void check_gate_json(const struct txn_result *r, const char *verdict, double threshold)
{
        json_t *j = txn_result_to_json(r);
        const json_t *g = json_object_get(json_object_get(j, "probe"), "gate");

        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g, "verdict")), verdict);
        CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(g, "threshold_gbps")), threshold, 1e-9);
        json_decref(j);
}

static void test_gate(void)
{
        static const double pass[] = { 10.0, 9.0 }, regress[] = { 10.0, 5.0 }, nobase[] = { -1 };
        struct txn_result r;

        fresh_devices();
        fakedrv_set_probes(regress, 2);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_DOUBLE_EQUAL(r.baseline.gbps, 10.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(r.post.gbps, 5.0, 1e-9);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "post-change rate 5.000 Gb/s is 50.0% below the baseline 10.000 Gb/s"));
        CU_ASSERT_TRUE(r.gated);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_FAIL_REGRESSION);
        check_gate_json(&r, "regression", 8.0);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        txn_result_done(&r);

        fakedrv_set_probes(nobase, 1);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_STRING_EQUAL(r.result, "aborted");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, 1);
        txn_result_done(&r);

        fakedrv_set_probes(pass, 2);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 9000);
        check_gate_json(&r, "pass", 8.0);
        txn_result_done(&r);
}

/*
 * Baseline and post run the one pinned probe; when a measurement reports another
 * path (here: the post phase's mode), the gate refuses to compare and rolls back.
 */
static void test_pinned_probe(void)
{
        static const double same[] = { 10.0, 10.0 };
        struct txn_result r;
        json_t *j, *pr;

        fresh_devices();
        fakedrv_set_probes(same, 2);
        fakedrv_set_pin("fb", PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_OK);
        CU_ASSERT_STRING_EQUAL(r.pin.path.netdev, "fb");
        j = txn_result_to_json(&r);
        pr = json_object_get(j, "probe");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(pr, "pinned"), "interface")), "fb");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(json_object_get(pr, "post"), "path"),
                                                           "streams")), 1);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(json_object_get(pr, "baseline"),
                                                                                 "path"), "mode")), "tcp");
        json_decref(j);
        txn_result_done(&r);

        fresh_devices();
        fakedrv_set_probes(same, 2);
        fakedrv_set_probe_drift(2, PROBE_MODE_VERBS);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_ROLLED_BACK);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_FAIL_MISMATCH);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "mode: 'tcp' vs 'verbs'"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        txn_result_done(&r);

        /* the probe would leave by an interface the policy does not target: refused, nothing applied */
        fresh_devices();
        fakedrv_add("fc", 1500, ALL_CAPS);
        fakedrv_set_probes(same, 2);
        fakedrv_set_pin("fc", PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_INVALID);
        CU_ASSERT_STRING_EQUAL(r.result, "refused");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "leaves by interface 'fc'"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies + fakedrv_find("fb")->applies, 0);
        CU_ASSERT_EQUAL(r.tx, 0);
        txn_result_done(&r);
}

/* ---- the gate under load: the agent's other CPU use while it measures ---- */

#define BURNERS 16
static atomic_bool burn_stop;
static unsigned busy_posts;             /* the first N post measurements run beside burning threads */
static int (*inner_probe)(struct txn_env *, const struct plan_probe *, const char *, struct txn_probe *,
                          struct errbuf *);

static void *burn(void *arg)
{
        volatile unsigned long x = 0;

        while (!atomic_load(&burn_stop))
                x++;
        return NULL;
}

static long long cpu_us_of(int who)
{
        struct rusage r;

        getrusage(who, &r);
        return (long long)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000 + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

static long long now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * The fake probe; a post measurement among the first busy_posts also keeps BURNERS
 * threads busy, for 400 ms at least and until they have used three times the share
 * of a CPU the gate calls loaded (measure.c counts the agent's CPU besides the
 * measuring thread over the measurement): on a busy machine they run longer, never
 * less loaded. 20 s at most.
 */
static int loaded_probe(struct txn_env *e, const struct plan_probe *v, const char *phase, struct txn_probe *ret,
                        struct errbuf *err)
{
        struct timespec tick = { 0, 20 * 1000000L };
        long long t0 = now_us(), other0 = cpu_us_of(RUSAGE_SELF) - cpu_us_of(RUSAGE_THREAD), wall, other;
        pthread_t t[BURNERS];

        if (strcmp(phase, "post") != 0 || busy_posts == 0)
                return inner_probe(e, v, phase, ret, err);
        busy_posts--;
        atomic_store(&burn_stop, false);
        for (unsigned i = 0; i < BURNERS; i++)
                pthread_create(&t[i], NULL, burn, NULL);
        do {
                nanosleep(&tick, NULL);
                wall = now_us() - t0;
                other = cpu_us_of(RUSAGE_SELF) - cpu_us_of(RUSAGE_THREAD) - other0;
        } while ((wall < 400000 || (double)other * 100.0 < 3 * MEASURE_LOAD_DELTA_MAX * (double)wall) &&
                 wall < 20000000);
        atomic_store(&burn_stop, true);
        for (unsigned i = 0; i < BURNERS; i++)
                pthread_join(t[i], NULL);
        return inner_probe(e, v, phase, ret, err);
}

#define GATED_FAIL "{\"probe\":\"tcp\",\"peer\":\"127.0.0.1:1\",\"settle_ms\":0,\"on_inconclusive\":\"fail\"}"

static void test_gate_under_load(void)
{
        static const double same[] = { 10.0, 10.0, 10.0, 10.0 };
        struct txn_result r;

        fresh_devices();
        inner_probe = env.hooks.probe;
        env.hooks.probe = loaded_probe;

        /* retry (the default): the loaded post measurement is taken again, calm, and passes */
        fakedrv_set_probes(same, 3);
        busy_posts = 1;
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(r.post.attempts, 2);
        CU_ASSERT_TRUE(r.baseline.load.measured && r.post.load.measured);
        CU_ASSERT(r.baseline.load.agent_cpu_pct < MEASURE_LOAD_DELTA_MAX);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_PASS);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        /* fail: one loaded post measurement is enough to roll back, verdict inconclusive */
        fakedrv_set_probes(same, 2);
        busy_posts = 1;
        CU_ASSERT_EQUAL(apply(4000, GATED_FAIL, -1, &r), OUTCOME_ROLLED_BACK);
        CU_ASSERT_EQUAL(r.post.attempts, 1);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_INCONCLUSIVE);
        CU_ASSERT(r.post.load.agent_cpu_pct > MEASURE_LOAD_DELTA_MAX);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "verification failed: inconclusive: besides the probe the agent used"));
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        /* retry, loaded every time: three measurements, then inconclusive */
        fakedrv_set_probes(same, 4);
        busy_posts = 3;
        CU_ASSERT_EQUAL(apply(4000, GATED, -1, &r), OUTCOME_ROLLED_BACK);
        CU_ASSERT_EQUAL(r.post.attempts, 3);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_INCONCLUSIVE);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.gate.reason, "also when measured again"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        busy_posts = 0;
        env.hooks.probe = inner_probe;
}

static void test_restore_failure_is_failed(void)
{
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fb")->fail_apply = true;
        fakedrv_find("fa")->fail_restore = true;
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_EQUAL(r.state, TXN_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "RESTORE FAILED"));
        txn_result_done(&r);
}

/* Restore is best effort: a target that cannot be restored does not stop the others, and is named. */
static void test_restore_goes_on_past_a_failure(void)
{
        static const double probes[] = { 10.0, 2.0 };
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fa")->fail_restore = true;
        fakedrv_set_probes(probes, 2);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_EQUAL(r.state, TXN_FAILED);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->restores, 1);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 1500);            /* restored */
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);            /* could not be */
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "RESTORE FAILED: fa: injected restore failure"));
        txn_result_done(&r);
}

/* What a driver's check refuses, the plan refuses before anything is touched: exit 2, no transaction. */
static void test_check_refuses_before_anything(void)
{
        struct txn_result r;

        fresh_devices();
        fakedrv_find("fb")->max_mtu = 4000;
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_INVALID);
        CU_ASSERT_STRING_EQUAL(r.result, "refused");
        CU_ASSERT_EQUAL(r.tx, 0);
        CU_ASSERT_STRING_EQUAL(r.error.msg, "mtu 9000 above 4000; nothing was changed");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, 0);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->applies, 0);
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_OK);           /* within the limit: applied */
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 4000);
        txn_result_done(&r);
}

static void test_confirm(void)
{
        struct txn_result r, c;
        struct journal_result expire = { .confirm_deadline_ms = 1 };
        struct errbuf e = { 0 };
        int64_t tx;

        fresh_devices();
        CU_ASSERT_EQUAL(apply(9000, NULL, 60, &r), OUTCOME_PENDING);
        CU_ASSERT_EQUAL(r.state, TXN_PENDING_CONFIRM);
        CU_ASSERT(r.confirm_deadline_ms > journal_now_ms());
        tx = r.tx;
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_RUNTIME);
        CU_ASSERT_STRING_EQUAL(r.result, "busy");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_confirm(&env, tx, journal_now_ms() + 60000, &c), 0);   /* within the caller's deadline */
        CU_ASSERT_EQUAL(c.state, TXN_COMMITTED);
        CU_ASSERT(c.rev > 0);                   /* the confirm's answer names its revision */
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&c);

        /* A deadline in the past: confirm finds it expired and restores. */
        CU_ASSERT_EQUAL(apply(4000, NULL, 60, &r), OUTCOME_PENDING);
        tx = r.tx;
        txn_result_done(&r);
        CU_ASSERT_EQUAL(journal_record(journal, tx, TXN_PENDING_CONFIRM, &expire, &e), 0);
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_confirm(&env, tx, 0, &c), -ETIME);
        CU_ASSERT_EQUAL(c.state, TXN_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(c.restored_by, "confirm-timeout");
        CU_ASSERT_PTR_NOT_NULL(strstr(c.error.msg, "was not confirmed in time: its confirm deadline 1 passed"));
        CU_ASSERT_PTR_NOT_NULL(strstr(c.error.msg, "the change was rolled back"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&c);
        txn_result_init(&c);
        CU_ASSERT(txn_confirm(&env, tx, 0, &c) < 0);                   /* and again: already rolled back */
        CU_ASSERT_PTR_NOT_NULL(strstr(c.error.msg, "already rolled back"));
        txn_result_done(&c);

        /* The caller's not_after_ms has passed, the agent's own deadline has not: refused and restored. */
        CU_ASSERT_EQUAL(apply(4000, NULL, 60, &r), OUTCOME_PENDING);
        tx = r.tx;
        txn_result_done(&r);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 4000);
        txn_result_init(&c);
        {       /* a deadline after the transaction started (else it is the caller's cancel), then passed */
                int64_t not_after = journal_now_ms();

                while (journal_now_ms() <= not_after)
                        usleep(1000);
                CU_ASSERT_EQUAL(txn_confirm(&env, tx, not_after, &c), -ETIME);
        }
        CU_ASSERT_EQUAL(c.state, TXN_ROLLED_BACK);
        CU_ASSERT_EQUAL(c.exit_code, OUTCOME_ROLLED_BACK);
        CU_ASSERT_PTR_NOT_NULL(strstr(c.error.msg, "after the caller's not_after_ms"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&c);
}

/* A transaction interrupted while applying is restored by the next lock holder. */
static void test_recovery(void)
{
        struct errbuf e = { 0 };
        struct journal_snapshot snap = { .target = "fa", .kind = TARGET_INTERFACE, .fields = MTU_BIT,
                                         .state_json = (char *)"{\"mtu\":1500}" };
        struct journal_tx t;
        int64_t tx = 0;

        fresh_devices();
        CU_ASSERT_EQUAL(journal_begin(journal, "apply", "crashed", "{}", "[]", &tx, &e), 0);
        CU_ASSERT_EQUAL(journal_snapshot(journal, tx, &snap, 1, &e), 0);
        CU_ASSERT_EQUAL(journal_record(journal, tx, TXN_APPLYING, NULL, &e), 0);
        fakedrv_find("fa")->live.mtu = 7000;      /* the half-done apply */
        CU_ASSERT_EQUAL(txn_lock(&env, false, &e), 0);
        txn_unlock(&env);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        CU_ASSERT_EQUAL_FATAL(journal_get(journal, tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(t.restored_by, "recovery");
        journal_tx_done(&t);
}

static void test_lock_excludes(void)
{
        struct errbuf e = { 0 };
        struct txn_env other = env;

        CU_ASSERT_EQUAL(txn_lock(&env, false, &e), 0);
        other.lock_fd = -1;
        CU_ASSERT_EQUAL(txn_lock(&other, false, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "another transaction is running"));
        txn_unlock(&env);
        CU_ASSERT_EQUAL(txn_lock(&other, false, &e), 0);
        txn_unlock(&other);
}

static void test_rollback(void)
{
        static const double pass[] = { 10.0, 9.0 }, regress[] = { 10.0, 5.0 };
        struct txn_result r;

        fresh_devices();
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_OK);
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_OK);
        txn_result_done(&r);
        txn_result_init(&r);
        txn_rollback(&env, &req, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(r.state, TXN_COMMITTED);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 9000);
        txn_result_done(&r);

        /*
         * Undoing 4000 over a gated 2000 revision: the way back is gated by 2000's verify
         * settings. It regresses, so 4000 stays, and the error names the revision whose
         * gate that was.
         */
        fakedrv_set_probes(pass, 2);
        CU_ASSERT_EQUAL(apply(2000, GATED, -1, &r), OUTCOME_OK);
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_OK);
        txn_result_done(&r);
        fakedrv_set_probes(regress, 2);
        txn_result_init(&r);
        txn_rollback(&env, &req, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 4000);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 4000);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "(a rollback is gated by the verify settings of the revision it "
                                      "returns to: policy 't')"));
        txn_result_done(&r);
        fakedrv_set_probes(pass, 2);
}

/* The revision number a committed apply recorded. */
static int64_t rev_of(int64_t tx)
{
        struct errbuf e = { 0 };
        struct journal_tx t;
        int64_t rev;

        CU_ASSERT_EQUAL_FATAL(journal_get(journal, tx, &t, &e), 0);
        rev = t.rev;
        journal_tx_done(&t);
        return rev;
}

static void test_rollback_to(void)
{
        static const double pass[] = { 10.0, 9.0 }, regress[] = { 10.0, 5.0 };
        struct txn_result r;
        struct journal_tx t;
        struct errbuf e = { 0 };
        int64_t rev9000, rev2000;
        unsigned applies;

        fresh_devices();
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_OK);
        rev9000 = rev_of(r.tx);
        CU_ASSERT(rev9000 > 0);
        txn_result_done(&r);
        fakedrv_set_probes(pass, 2);
        CU_ASSERT_EQUAL(apply(2000, GATED, -1, &r), OUTCOME_OK);
        rev2000 = rev_of(r.tx);
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_OK);
        txn_result_done(&r);

        /* Unknown revision: refused, nothing touched. */
        applies = fakedrv_find("fa")->applies;
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback_to(&env, &req, 99999, &r), -ENOENT);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_INVALID);
        CU_ASSERT_STRING_EQUAL(r.result, "refused");
        CU_ASSERT_EQUAL(r.tx, 0);
        CU_ASSERT_STRING_EQUAL(r.error.msg, "revision 99999 does not exist: no committed revision has that number; "
                               "nothing was changed");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, applies);
        txn_result_done(&r);

        /* Back to 9000: a full transaction of kind rollback, recorded as a new revision. */
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback_to(&env, &req, rev9000, &r), 0);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 9000);
        CU_ASSERT_EQUAL_FATAL(journal_get(journal, r.tx, &t, &e), 0);
        CU_ASSERT_STRING_EQUAL(t.kind, "rollback");
        CU_ASSERT_STRING_EQUAL(t.policy_name, "t");
        CU_ASSERT(t.rev > rev2000);
        journal_tx_done(&t);
        txn_result_done(&r);

        /* The 2000 revision carries a gate: a regression undoes the rollback itself. */
        fakedrv_set_probes(regress, 2);
        txn_result_init(&r);
        txn_rollback_to(&env, &req, rev2000, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        /* ... and says whose gate it was: the revision it returns to, not the one it undoes. */
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "post-change rate 5.000 Gb/s is 50.0% below"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "(a rollback is gated by the verify settings of the revision it "
                                      "returns to: policy 't')"));
        txn_result_done(&r);
        fakedrv_set_probes(pass, 2);
        txn_result_init(&r);
        txn_rollback_to(&env, &req, rev2000, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 2000);
        txn_result_done(&r);
}

/*
 * D3: a rollback (or an apply) that names the revision it believes current is refused
 * when another is current: two callers that both undo "the newest revision" cannot
 * undo each other. Checked under the lock before anything is touched.
 */
static void test_expect_revision(void)
{
        struct txn_result r;
        int64_t rev4000;
        unsigned applies;

        fresh_devices();
        CU_ASSERT_EQUAL(apply(9000, NULL, -1, &r), OUTCOME_OK);
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(4000, NULL, -1, &r), OUTCOME_OK);
        rev4000 = rev_of(r.tx);
        txn_result_done(&r);

        /* The first caller undoes rev4000, naming it. */
        txn_result_init(&r);
        req.expect_revision = rev4000;
        CU_ASSERT_EQUAL(txn_rollback(&env, &req, &r), 0);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        /* The second, which also read rev4000 as the newest: refused, nothing touched. */
        applies = fakedrv_find("fa")->applies;
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback(&env, &req, &r), -ESTALE);
        CU_ASSERT_STRING_EQUAL(r.result, "precondition_failed");
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_INVALID);
        CU_ASSERT_EQUAL(r.tx, 0);
        CU_ASSERT_EQUAL(r.current_revision, rev4000 + 1);
        CU_ASSERT_STRING_EQUAL(r.error.where, "$.expect_revision");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, ", rollback), not the expected"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "nothing was changed"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, applies);
        txn_result_done(&r);

        /* The same for rollback to a revision, and for an apply. */
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback_to(&env, &req, rev4000, &r), -ESTALE);
        CU_ASSERT_STRING_EQUAL(r.result, "precondition_failed");
        txn_result_done(&r);
        CU_ASSERT_EQUAL(apply(2000, NULL, -1, &r), OUTCOME_INVALID);
        CU_ASSERT_STRING_EQUAL(r.result, "precondition_failed");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies, applies);
        txn_result_done(&r);

        /* Naming the current one: it runs. */
        req.expect_revision = rev4000 + 1;
        CU_ASSERT_EQUAL(apply(2000, NULL, -1, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 2000);
        txn_result_done(&r);
        req.expect_revision = -1;
}

/* A confirm (or cancel) of a pending transaction that is not the node's current pending one changes nothing. */
static void test_confirm_not_current(void)
{
        struct errbuf e = { 0 };
        struct journal_snapshot snap = { .target = "fa", .kind = TARGET_INTERFACE, .fields = MTU_BIT,
                                         .state_json = (char *)"{\"mtu\":1500}" };
        struct journal_result pending = { .result = "pending_confirm", .exit_code = OUTCOME_PENDING,
                                          .confirm_deadline_ms = journal_now_ms() + 600000 };
        struct journal_tx t;
        struct txn_result c;
        int64_t old = 0, cur = 0;

        fresh_devices();
        /* An older pending row, as an operator's hand or a lost WAL could leave one behind a newer one. */
        CU_ASSERT_EQUAL(journal_begin(journal, "apply", "old", "{}", "[]", &old, &e), 0);
        CU_ASSERT_EQUAL(journal_snapshot(journal, old, &snap, 1, &e), 0);
        CU_ASSERT_EQUAL(journal_record(journal, old, TXN_PENDING_CONFIRM, &pending, &e), 0);
        CU_ASSERT_EQUAL(journal_begin(journal, "apply", "new", "{}", "[]", &cur, &e), 0);
        CU_ASSERT_EQUAL(journal_snapshot(journal, cur, &snap, 1, &e), 0);
        CU_ASSERT_EQUAL(journal_record(journal, cur, TXN_PENDING_CONFIRM, &pending, &e), 0);
        fakedrv_find("fa")->live.mtu = 7000;
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_confirm(&env, old, 1, &c), -ESTALE);        /* a cancel of the older one */
        CU_ASSERT_PTR_NOT_NULL(strstr(c.error.msg, "is not the node's current pending transaction"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 7000);
        CU_ASSERT_EQUAL_FATAL(journal_get(journal, old, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_PENDING_CONFIRM);
        journal_tx_done(&t);
        txn_result_done(&c);
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_confirm(&env, old, 0, &c), -ESTALE);        /* a confirm of it */
        CU_ASSERT_EQUAL_FATAL(journal_get(journal, old, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_PENDING_CONFIRM);
        journal_tx_done(&t);
        txn_result_done(&c);
        /* The current one confirms. */
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_confirm(&env, cur, 0, &c), 0);
        CU_ASSERT_EQUAL(c.state, TXN_COMMITTED);
        txn_result_done(&c);
        /* Clean up for the next cases: the old row restored. */
        txn_result_init(&c);
        CU_ASSERT_EQUAL(txn_restore_tx(&env, old, "operator", &c), 0);
        txn_result_done(&c);
}

/* The journal's change list, written directly, is the bytes jsonw_dumps() (and jansson) write of its JSON. */
static void test_changes_text(void)
{
        static const char *const values[] = { "9000", "unset", "a\"b\\c", "tab\there\nnl\x01\x1f", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                                              "/", "" };
        struct txn_change ch[ARRAY_SIZE(values)];
        struct txn_result r;
        json_t *j;
        char *text, *want, *jansson;

        txn_result_init(&r);
        memset(ch, 0, sizeof(ch));
        for (unsigned i = 0; i < ARRAY_SIZE(values); i++) {
                snprintf(ch[i].target, sizeof(ch[i].target), "if%u", i);
                ch[i].d.field = i % 2 ? STATE_FIELD_MTU : STATE_FIELD_PFC;
                snprintf(ch[i].d.key, sizeof(ch[i].d.key), "k.%s", values[i]);
                snprintf(ch[i].d.from, sizeof(ch[i].d.from), "%s", values[i]);
                snprintf(ch[i].d.to, sizeof(ch[i].d.to), "%s", values[ARRAY_SIZE(values) - 1 - i]);
        }
        r.changes = ch;
        for (unsigned n = 0; n <= ARRAY_SIZE(values); n++) {
                r.n_changes = n;
                j = txn_changes_json(&r);
                CU_ASSERT_PTR_NOT_NULL_FATAL(j);
                CU_ASSERT_EQUAL(json_array_size(j), n);
                text = txn_changes_text(&r);
                want = jsonw_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
                jansson = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
                CU_ASSERT_PTR_NOT_NULL_FATAL(text);
                CU_ASSERT_STRING_EQUAL(text, want);
                CU_ASSERT_STRING_EQUAL(text, jansson);
                free(text);
                free(want);
                free(jansson);
                json_decref(j);
        }
        /* What json_string() refuses (overlong, surrogate, truncated UTF-8), the text refuses too. */
        static const char *const bad[] = { "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf5\x80\x80\x80", "\xff" };
        for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
                snprintf(ch[0].d.to, sizeof(ch[0].d.to), "%s", bad[i]);
                r.n_changes = 1;
                CU_ASSERT_PTR_NULL(json_string(bad[i]));
                j = txn_changes_json(&r);
                CU_ASSERT_PTR_NULL(j);
                json_decref(j);
                CU_ASSERT_PTR_NULL(txn_changes_text(&r));
        }
        r.changes = NULL;
        r.n_changes = 0;
        txn_result_done(&r);
}

/* A policy's spec as a document over fa and fb. */
static struct policy *spec_policy(const char *spec)
{
        struct errbuf e = { 0 };
        struct policy *p = NULL;
        char doc[1024];

        snprintf(doc, sizeof(doc),
                 "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                 "\"targets\":{\"interfaces\":[\"fa\",\"fb\"]},\"spec\":%s,\"verify\":{\"probe\":\"none\"}}", spec);
        if (policy_parse_buffer(doc, strlen(doc), "test", &p, &e) < 0)
                fprintf(stderr, "spec_policy: %s: %s\n", e.where, e.msg);
        return p;
}

/* Lossless on priority 3 with DCQCN; the RDMA default ToS 0 (no policy sets it here). */
static void lossless_devices(void)
{
        const uint32_t caps = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                              STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                              STATE_BIT(STATE_FIELD_HOST_ECN) | STATE_BIT(STATE_FIELD_ROCE_TOS);

        fakedrv_reset();
        for (unsigned i = 0; i < 2; i++) {
                struct fakedrv_device *d = fakedrv_add(i ? "fb" : "fa", 1500, caps);

                d->live.present = caps;
                d->live.trust = STATE_TRUST_DSCP;
                for (unsigned c = 0; c < STATE_DSCP_COUNT; c++)
                        d->live.dscp_prio[c] = 0;
                d->live.dscp_prio[26] = 3;
                d->live.pfc_enabled = 1u << 3;
                d->live.host_ecn = (struct state_host_ecn){ .prios = 0xff, .rp_enabled = 0x08, .np_enabled = 0x08 };
                d->live.roce_tos = 0;
        }
}

/*
 * The lossless class on the live state a change leaves: DCQCN off on the lossless priority
 * is refused with nothing applied; a change that keeps the class goes through, whatever
 * the device's RDMA default ToS (doctor's to judge); the way back is never refused.
 */
static void test_lossless_class(void)
{
        struct policy *off = spec_policy("{\"host_ecn\":{\"priorities\":[3],\"reaction_point\":false}}");
        struct policy *keep = spec_policy("{\"mtu\":9000,\"pfc\":{\"priorities\":[3]}}");
        struct txn_result r;

        CU_ASSERT_FATAL(off && keep);
        lossless_devices();
        txn_result_init(&r);
        txn_apply(&env, &req, off, -1, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_INVALID);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "interface 'fa': $.spec.host_ecn.reaction_point: "
                                                  "host_ecn_priority_mismatch: DCQCN is off for priority 3"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "nothing was changed"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->applies + fakedrv_find("fb")->applies, 0);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.host_ecn.rp_enabled, 0x08);
        txn_result_done(&r);

        txn_result_init(&r);
        txn_apply(&env, &req, keep, -1, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        /* waived: DCQCN goes off; undoing that puts it back on, and undoing the undo is never refused */
        off->checks_allow = LOSSLESS_BIT(LOSSLESS_HOST_ECN);
        txn_result_init(&r);
        txn_apply(&env, &req, off, -1, &r);
        CU_ASSERT_EQUAL(r.exit_code, OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.host_ecn.rp_enabled, 0);
        txn_result_done(&r);
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback(&env, &req, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.host_ecn.rp_enabled, 0x08);
        txn_result_done(&r);
        policy_free(off);
        policy_free(keep);
}

/*
 * The gate checks the class its own probe rode: on ports lossless on priority 3
 * (DSCP 26 -> 3), a probe told verify.dscp 0 rides priority 0 after the change: a
 * rate that passes proves nothing of the class, the gate fails and the change is
 * rolled back. Derived from the map (DSCP 26), the same change commits.
 */
static void test_gate_class(void)
{
        static const double same[] = { 10.0, 10.0 };
        struct txn_result r;
        json_t *j;
        const json_t *g;

        lossless_devices();
        fakedrv_set_probes(same, 2);
        CU_ASSERT_EQUAL(apply(9000, "{\"probe\":\"tcp\",\"peer\":\"127.0.0.1:1\",\"settle_ms\":0,\"dscp\":0}", -1,
                              &r), OUTCOME_ROLLED_BACK);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_FAIL_LOSSY_CLASS);
        CU_ASSERT_STRING_EQUAL(r.restored_by, "gate");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.error.msg, "verification failed: the probe's traffic rode priority 0, not the "
                                                   "lossless 3: the change is not what the workload will see (DSCP 0 "
                                                   "through the DSCP map of 'fa' (trust dscp))"));
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 1500);
        CU_ASSERT_EQUAL(fakedrv_find("fb")->live.mtu, 1500);
        j = txn_result_to_json(&r);
        g = json_object_get(json_object_get(j, "probe"), "gate");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(g, "verdict")), "lossy_class");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(g, "rode_priority")), 0);
        json_decref(j);
        txn_result_done(&r);

        fakedrv_set_probes(same, 2);
        CU_ASSERT_EQUAL(apply(9000, GATED, -1, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_PASS);
        CU_ASSERT_EQUAL(r.gate.rode_priority, 3);
        CU_ASSERT_STRING_EQUAL(r.gate.rode, "DSCP 26 through the DSCP map of 'fa' (trust dscp)");
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        txn_result_done(&r);

        /*
         * The way back is never refused for the class: committed on ports without PFC (nothing
         * to judge), PFC on 3 turned on by hand with no DSCP mapped to it, then rolled back with
         * the probe on DSCP 0: the gate says the probe proves nothing of the class, and the
         * rollback goes through.
         */
        lossless_devices();
        fakedrv_find("fa")->live.pfc_enabled = fakedrv_find("fb")->live.pfc_enabled = 0;
        fakedrv_set_probes(same, 2);
        CU_ASSERT_EQUAL(apply(1400, "{\"probe\":\"tcp\",\"peer\":\"127.0.0.1:1\",\"settle_ms\":0,\"dscp\":0}", -1,
                              &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(r.gate.rode_priority, -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.gate.rode, "'fa' has no PFC priority"));
        txn_result_done(&r);
        fakedrv_find("fa")->live.pfc_enabled = fakedrv_find("fb")->live.pfc_enabled = 1u << 3;
        fakedrv_find("fa")->live.dscp_prio[26] = fakedrv_find("fb")->live.dscp_prio[26] = 0;   /* no DSCP rides 3 */
        fakedrv_set_probes(same, 2);
        txn_result_init(&r);
        CU_ASSERT_EQUAL(txn_rollback(&env, NULL, &r), OUTCOME_OK);
        CU_ASSERT_EQUAL(fakedrv_find("fa")->live.mtu, 9000);
        CU_ASSERT_TRUE(r.gated);
        if (r.gated) {
                CU_ASSERT_EQUAL(r.gate.verdict, PROBE_GATE_PASS);
                CU_ASSERT_PTR_NOT_NULL(strstr(r.gate.reason, "not counted as proof of the lossless class: the "
                                                             "probe's traffic rode priority 0, not the lossless 3"));
        }
        txn_result_done(&r);
}

int suite_txn(void);
int suite_txn(void)
{
        CU_pSuite s = CU_add_suite("txn", setup, teardown);

        if (!s ||
            !CU_add_test(s, "commit_and_nothing_to_do", test_commit_and_nothing_to_do) ||
            !CU_add_test(s, "changes_text", test_changes_text) ||
            !CU_add_test(s, "caps_refused", test_caps_refused) ||
            !CU_add_test(s, "apply_failure_restores_all", test_apply_failure_restores_all) ||
            !CU_add_test(s, "readback_mismatch", test_readback_mismatch) ||
            !CU_add_test(s, "gate", test_gate) ||
            !CU_add_test(s, "pinned_probe", test_pinned_probe) ||
            !CU_add_test(s, "gate_under_load", test_gate_under_load) ||
            !CU_add_test(s, "restore_failure_is_failed", test_restore_failure_is_failed) ||
            !CU_add_test(s, "restore_goes_on_past_a_failure", test_restore_goes_on_past_a_failure) ||
            !CU_add_test(s, "check_refuses_before_anything", test_check_refuses_before_anything) ||
            !CU_add_test(s, "confirm", test_confirm) ||
            !CU_add_test(s, "recovery", test_recovery) ||
            !CU_add_test(s, "lock_excludes", test_lock_excludes) ||
            !CU_add_test(s, "rollback", test_rollback) ||
            !CU_add_test(s, "rollback_to", test_rollback_to) ||
            !CU_add_test(s, "expect_revision", test_expect_revision) ||
            !CU_add_test(s, "confirm_not_current", test_confirm_not_current) ||
            !CU_add_test(s, "lossless_class", test_lossless_class) ||
            !CU_add_test(s, "gate_class", test_gate_class))
                return -1;
        return 0;
}
