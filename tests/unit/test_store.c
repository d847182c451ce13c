/* SPDX-License-Identifier: MIT */
/* The controller store on a real SQLite file: create, journal, reload, list, drift scans. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "controller/rollout/rollout.h"
#include "controller/rollout/rollout_internal.h"
#include "controller/store/store.h"

static char dir[64];
static char db[128];

static int setup(void)
{
        snprintf(dir, sizeof(dir), "/tmp/nettune-store-XXXXXX");
        if (!mkdtemp(dir))
                return -1;
        snprintf(db, sizeof(db), "%s/ctl.db", dir);
        return 0;
}

static int teardown(void)
{
        char path[160];

        for (const char *const *s = (const char *const[]) { "", "-wal", "-shm", NULL }; *s; s++) {
                snprintf(path, sizeof(path), "%s%s", db, *s);
                unlink(path);
        }
        rmdir(dir);
        return 0;
}

static struct rollout_rec *sample(unsigned n)
{
        struct inventory_node nodes[8] = { 0 };
        const struct inventory_node *ptrs[8];
        struct rollout_rec *r;
        struct rollout_opts o;

        rollout_opts_defaults(&o);
        o.wave_size = (struct rollout_count) { 3, false };
        o.max_unavailable = (struct rollout_count) { 10, true };
        o.halt_scope = ROLLOUT_HALT_ALL;
        for (unsigned i = 0; i < n; i++) {
                snprintf(nodes[i].name, sizeof(nodes[i].name), "node%u", i);
                snprintf(nodes[i].url, sizeof(nodes[i].url), "https://10.0.0.%u:7440", i + 1);
                ptrs[i] = &nodes[i];
        }
        r = rollout_rec_new("apply", "roce", "{\"apiVersion\":\"nettune/v1\"}", NULL, &o, ptrs, n);
        for (unsigned i = 0; r && i < n; i++)
                snprintf(r->nodes[i].group, sizeof(r->nodes[i].group), "g%u", i);
        return r;
}

static void test_opts_roundtrip(void)
{
        struct rollout_opts o, back;
        char *text;

        rollout_opts_defaults(&o);
        o.canary = 3;
        o.wave_size = (struct rollout_count) { 20, true };
        o.halt_scope = ROLLOUT_HALT_ALL;
        o.no_confirm = true;
        snprintf(o.canary_selector, sizeof(o.canary_selector), "canary=true");
        snprintf(o.wave_by, sizeof(o.wave_by), "rack");
        o.max_regression_pct = 35;
        o.probe_duration_ms = 1500;
        o.skip_unreachable = true;
        o.wave_interval_s = 30;
        o.promote_manual = true;
        snprintf(o.reason, sizeof(o.reason), "NET-1: \"jumbo\" frames");
        snprintf(o.user, sizeof(o.user), "root (sudo: alice)");
        snprintf(o.cert_cn, sizeof(o.cert_cn), "ops-ctl");
        snprintf(o.policy_sha256, sizeof(o.policy_sha256), "sha256:%064d", 0);
        snprintf(o.selector, sizeof(o.selector), "rack in (r1,r2); rack!=r2");
        text = rollout_opts_to_json(&o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT_EQUAL(rollout_opts_from_json(text, &back), 0);
        CU_ASSERT_EQUAL(back.canary, 3);
        CU_ASSERT_EQUAL(back.wave_size.value, 20);
        CU_ASSERT_TRUE(back.wave_size.pct);
        CU_ASSERT_FALSE(back.max_unavailable.pct);
        CU_ASSERT_EQUAL(back.confirm_timeout_s, 120);
        CU_ASSERT_EQUAL(back.halt_scope, ROLLOUT_HALT_ALL);
        CU_ASSERT_TRUE(back.no_confirm);
        CU_ASSERT_STRING_EQUAL(back.canary_selector, "canary=true");
        CU_ASSERT_STRING_EQUAL(back.wave_by, "rack");
        CU_ASSERT_EQUAL(back.max_regression_pct, 35);
        CU_ASSERT_EQUAL(back.probe_duration_ms, 1500);
        CU_ASSERT_TRUE(back.skip_unreachable);
        CU_ASSERT_EQUAL(back.wave_interval_s, 30);
        CU_ASSERT_TRUE(back.promote_manual);
        CU_ASSERT_STRING_EQUAL(back.reason, o.reason);
        CU_ASSERT_STRING_EQUAL(back.user, o.user);
        CU_ASSERT_STRING_EQUAL(back.cert_cn, o.cert_cn);
        CU_ASSERT_STRING_EQUAL(back.policy_sha256, o.policy_sha256);
        CU_ASSERT_STRING_EQUAL(back.selector, o.selector);
        CU_ASSERT_EQUAL(rollout_opts_from_json("{\"canary\":1}", &back), -EINVAL);
        free(text);
        /* Options recorded before the overrides existed: none of them. */
        CU_ASSERT_EQUAL(rollout_opts_from_json("{\"canary\":1,\"wave_size\":25,\"wave_size_pct\":true,"
                                               "\"max_unavailable\":0,\"max_unavailable_pct\":false,"
                                               "\"confirm_timeout_s\":120,\"rollback_on_halt\":\"wave\","
                                               "\"no_confirm\":false}", &back), 0);
        CU_ASSERT_EQUAL(back.max_regression_pct, -1);
        CU_ASSERT_EQUAL(back.probe_duration_ms, 0);
        CU_ASSERT_STRING_EQUAL(back.wave_by, "");
        CU_ASSERT_FALSE(back.skip_unreachable);
        CU_ASSERT_FALSE(back.promote_manual);
        CU_ASSERT_STRING_EQUAL(back.reason, "");
}

/* A rollout's hold: none said yet reads as zeros; what is set reads back from another handle. */
static void test_hold(void)
{
        struct store *s = NULL, *t = NULL;
        struct store_hold h = { .paused = true }, back;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL(store_hold_get(s, 77, &back, &e), 0);
        CU_ASSERT_FALSE(back.paused);
        CU_ASSERT_EQUAL(back.promoted, 0);
        h.promoted = 3;
        h.at = 1767225600;
        snprintf(h.by, sizeof(h.by), "alice");
        CU_ASSERT_EQUAL(store_hold_set(s, 77, &h, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_open(db, &t, &e), 0);
        CU_ASSERT_EQUAL(store_hold_get(t, 77, &back, &e), 0);
        CU_ASSERT_TRUE(back.paused);
        CU_ASSERT_EQUAL(back.promoted, 3);
        CU_ASSERT_EQUAL(back.at, 1767225600);
        CU_ASSERT_STRING_EQUAL(back.by, "alice");
        store_close(t);
        store_close(s);
}

static void test_create_update_load(void)
{
        struct store *s = NULL;
        struct rollout_rec *r = sample(7), *back = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(r->n_waves, 3);                 /* canary 1 | 3 | 3 */
        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_create(s, r, &e), 0);
        CU_ASSERT_TRUE(r->id > 0);
        r->nodes[0].state = RNODE_PENDING;
        snprintf(r->nodes[0].tx, sizeof(r->nodes[0].tx), "42");
        r->nodes[0].baseline_gbps = 10.5;
        r->nodes[0].post_gbps = 9.75;
        r->nodes[0].changes = 2;
        r->nodes[0].confirm_deadline_ms = 1767225630000LL;
        r->nodes[0].not_after_ms = 1767225610000LL;
        r->nodes[0].pre_rev = 4;
        r->nodes[0].rev = 5;
        snprintf(r->nodes[0].undo_tx, sizeof(r->nodes[0].undo_tx), "44");
        store_record_node(s, r, &r->nodes[0]);
        r->waves[0].state = RWAVE_PASSED;
        r->waves[0].deadline = 1234;
        store_record_wave(s, r, 0);
        r->state = ROLLOUT_HALTED;
        r->exit_code = 1;
        snprintf(r->message, sizeof(r->message), "halted: test");
        store_record_rollout(s, r);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);
        store_close(s);

        /* A fresh handle sees exactly what was journaled. */
        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_load(s, r->id, &back, &e), 0);
        CU_ASSERT_EQUAL(back->n_nodes, 7);
        CU_ASSERT_EQUAL(back->n_waves, 3);
        CU_ASSERT_EQUAL(back->state, ROLLOUT_HALTED);
        CU_ASSERT_EQUAL(back->exit_code, 1);
        CU_ASSERT_STRING_EQUAL(back->message, "halted: test");
        CU_ASSERT_STRING_EQUAL(back->policy_doc, "{\"apiVersion\":\"nettune/v1\"}");
        CU_ASSERT_EQUAL(back->opts.halt_scope, ROLLOUT_HALT_ALL);
        CU_ASSERT_EQUAL(back->opts.max_unavailable.value, 10);
        CU_ASSERT_EQUAL(back->nodes[0].state, RNODE_PENDING);
        CU_ASSERT_STRING_EQUAL(back->nodes[0].tx, "42");
        CU_ASSERT_EQUAL(back->nodes[0].confirm_deadline_ms, 1767225630000LL);
        CU_ASSERT_EQUAL(back->nodes[0].not_after_ms, 1767225610000LL);
        CU_ASSERT_EQUAL(back->nodes[1].confirm_deadline_ms, 0);
        CU_ASSERT_EQUAL(back->nodes[0].pre_rev, 4);
        CU_ASSERT_EQUAL(back->nodes[0].rev, 5);
        CU_ASSERT_STRING_EQUAL(back->nodes[0].undo_tx, "44");
        CU_ASSERT_STRING_EQUAL(back->nodes[3].group, "g3");
        CU_ASSERT_EQUAL(back->nodes[1].pre_rev, -1);
        CU_ASSERT_DOUBLE_EQUAL(back->nodes[0].post_gbps, 9.75, 1e-9);
        CU_ASSERT_TRUE(isnan(back->nodes[1].post_gbps));
        CU_ASSERT_EQUAL(back->nodes[6].wave, 2);
        CU_ASSERT_STRING_EQUAL(back->nodes[6].url, "https://10.0.0.7:7440");
        CU_ASSERT_EQUAL(back->waves[0].state, RWAVE_PASSED);
        CU_ASSERT_EQUAL(back->waves[0].deadline, 1234);
        rollout_rec_free(back);
        back = NULL;
        CU_ASSERT_EQUAL(store_rollout_load(s, 0, &back, &e), 0);  /* newest */
        CU_ASSERT_EQUAL(back ? back->id : 0, r->id);
        rollout_rec_free(back);
        CU_ASSERT_EQUAL(store_rollout_load(s, 9999, &back, &e), -ENOENT);
        CU_ASSERT_STRING_EQUAL(e.msg, "no rollout 9999");
        store_close(s);
        rollout_rec_free(r);
}

/* What a second handle (another process's view) reads of node i and wave w now. */
static void peek(long long id, unsigned i, unsigned w, enum rnode_state *ret_node, enum rwave_state *ret_wave)
{
        struct rollout_rec *back = NULL;
        struct store *t = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(store_open(db, &t, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_load(t, id, &back, &e), 0);
        *ret_node = back->nodes[i].state;
        *ret_wave = back->waves[w].state;
        rollout_rec_free(back);
        store_close(t);
}

/*
 * Record, then barrier: nothing is written until the barrier, then every record noted
 * as it is in memory then, each once; records of two rollouts are both written; a
 * record of something that is not the rollout's is refused at the barrier.
 */
static void test_record_barrier(void)
{
        struct rollout_rec *r = sample(7), *q = sample(2);
        struct store *s = NULL;
        struct errbuf e = { 0 };
        unsigned long long w0;
        enum rnode_state ns;
        enum rwave_state ws;

        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_create(s, r, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_create(s, q, &e), 0);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);               /* nothing noted: nothing written */
        w0 = store_writes(s);
        CU_ASSERT_EQUAL(store_writes(s), w0);
        r->nodes[3].state = RNODE_APPLYING;
        store_record_node(s, r, &r->nodes[3]);
        store_record_node(s, r, &r->nodes[3]);
        r->waves[1].state = RWAVE_APPLYING;
        store_record_wave(s, r, 1);
        CU_ASSERT_EQUAL(store_unflushed(s), 2);                 /* each record once */
        peek(r->id, 3, 1, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_PLANNED);                     /* noted, not written */
        CU_ASSERT_EQUAL(ws, RWAVE_PLANNED);
        r->nodes[3].state = RNODE_PENDING;                      /* written as it is at the barrier */
        q->nodes[1].state = RNODE_FAILED;
        store_record_node(s, q, &q->nodes[1]);                  /* another rollout's, noted beside */
        CU_ASSERT_EQUAL(store_unflushed(s), 3);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);
        CU_ASSERT_EQUAL(store_unflushed(s), 0);
        CU_ASSERT_EQUAL(store_writes(s), w0 + 2);               /* one transaction per rollout */
        peek(r->id, 3, 1, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_PENDING);
        CU_ASSERT_EQUAL(ws, RWAVE_APPLYING);
        peek(q->id, 1, 0, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_FAILED);
        /* Not one of r's: the barrier refuses it, drops what was noted and writes nothing. */
        r->nodes[5].state = RNODE_UNREACHABLE;
        store_record_node(s, r, &r->nodes[5]);
        store_record_node(s, r, &q->nodes[0]);
        store_record_wave(s, r, 9);
        CU_ASSERT_EQUAL(store_barrier(s, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a record of a node that is not one of its own"));
        CU_ASSERT_EQUAL(store_unflushed(s), 0);
        peek(r->id, 5, 0, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_PLANNED);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);               /* the next one is clean */
        store_close(s);
        rollout_rec_free(r);
        rollout_rec_free(q);
}

/*
 * A fan-out's answers on SQLite: each published as it comes, visible to another
 * reader (`status` while a wave runs), still unflushed until the barrier syncs them.
 */
static void test_publish(void)
{
        struct rollout_rec *r = sample(5);
        struct errbuf e = { 0 };
        struct store *s = NULL;
        enum rnode_state ns;
        enum rwave_state ws;

        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_create(s, r, &e), 0);
        r->nodes[2].state = RNODE_PENDING;
        store_record_node(s, r, &r->nodes[2]);
        peek(r->id, 2, 0, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_PLANNED);
        store_publish(s);
        peek(r->id, 2, 0, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_PENDING);                     /* visible */
        CU_ASSERT_EQUAL(store_unflushed(s), 1);                 /* not durable yet */
        r->nodes[3].state = RNODE_COMMITTED;
        store_record_node(s, r, &r->nodes[3]);
        store_publish(s);
        CU_ASSERT_EQUAL(store_unflushed(s), 2);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);               /* a sync: nothing else to write */
        CU_ASSERT_EQUAL(store_unflushed(s), 0);
        peek(r->id, 3, 0, &ns, &ws);
        CU_ASSERT_EQUAL(ns, RNODE_COMMITTED);
        store_close(s);
        rollout_rec_free(r);
}

/*
 * The debug build's check (rollout_internal.h): a fan-out that starts with a record
 * noted and not made durable aborts the controller; after the barrier it goes on.
 */
static int written_ahead_child(bool barrier)
{
        struct rollout_rec *r = sample(3);
        struct errbuf e = { 0 };
        struct store *s = NULL;
        int status = 0;
        pid_t pid;

        if (!r || store_open(db, &s, &e) < 0 || store_rollout_create(s, r, &e) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                signal(SIGABRT, SIG_DFL);
                fclose(stderr);                                 /* the assertion's message */
                r->nodes[0].state = RNODE_APPLYING;
                store_record_node(s, r, &r->nodes[0]);
                if (barrier && store_barrier(s, &e) < 0)
                        _exit(2);
                STEP_WRITTEN_AHEAD(s);
                _exit(0);
        }
        waitpid(pid, &status, 0);
        store_close(s);
        rollout_rec_free(r);
        return status;
}

static void test_written_ahead(void)
{
        int status = written_ahead_child(false);

        CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
        status = written_ahead_child(true);
        CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int count_cb(const struct rollout_rec *r, void *ud)
{
        (*(unsigned *)ud)++;
        return 0;
}

static void test_list_and_drift(void)
{
        struct store *s = NULL;
        struct errbuf e = { 0 };
        struct rollout_rec *r = sample(2);
        struct drift_node dn[2] = { { .name = "a", .reached = true, .drifted = true, .report = "{\"drifted\":true}" },
                                    { .name = "b", .error = "unreachable" } };
        struct drift_scan scan = { .at = 77, .n_nodes = 2, .n_drifted = 1, .n_unreachable = 1, .nodes = dn };
        struct drift_scan last;
        unsigned n = 0;

        CU_ASSERT_EQUAL_FATAL(store_open(db, &s, &e), 0);
        CU_ASSERT_EQUAL(store_rollout_create(s, r, &e), 0);
        CU_ASSERT_EQUAL(store_rollout_list(s, 100, count_cb, &n, &e), 0);
        CU_ASSERT_EQUAL(n, 2);                          /* with the rollout of the previous test */
        n = 0;
        CU_ASSERT_EQUAL(store_rollout_list(s, 1, count_cb, &n, &e), 0);
        CU_ASSERT_EQUAL(n, 1);
        CU_ASSERT_EQUAL(store_drift_save(s, &scan, &e), 0);
        CU_ASSERT_TRUE(scan.id > 0);
        CU_ASSERT_EQUAL(store_drift_last(s, &last, &e), 0);
        CU_ASSERT_EQUAL(last.n_drifted, 1);
        CU_ASSERT_EQUAL(last.n_unreachable, 1);
        CU_ASSERT_EQUAL(last.at, 77);
        store_close(s);
        rollout_rec_free(r);
}

static void test_open_fails(void)
{
        struct store *s = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL(store_open("/nonexistent/dir/x.db", &s, &e), -EIO);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "cannot open the database"));
}

/*
 * A database written before revisions were kept (schema version 4, as a
 * controller of that time left it): opened, it is upgraded in place and its
 * rollout reads back with every node's revision not recorded (-1).
 */
static void test_migrate_v4(void)
{
        static const char v4[] =
                "CREATE TABLE rollouts (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
                " policy_name TEXT NOT NULL, policy_doc TEXT, args TEXT, opts TEXT NOT NULL, state TEXT NOT NULL,"
                " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, exit_code INTEGER NOT NULL,"
                " message TEXT NOT NULL DEFAULT '');"
                "CREATE TABLE waves (rollout_id INTEGER NOT NULL REFERENCES rollouts(id), idx INTEGER NOT NULL,"
                " state TEXT NOT NULL, started_at INTEGER NOT NULL, deadline INTEGER NOT NULL,"
                " PRIMARY KEY (rollout_id, idx));"
                "CREATE TABLE nodes (rollout_id INTEGER NOT NULL REFERENCES rollouts(id), seq INTEGER NOT NULL,"
                " name TEXT NOT NULL, url TEXT NOT NULL, wave INTEGER NOT NULL, state TEXT NOT NULL,"
                " tx TEXT NOT NULL, exit_code INTEGER NOT NULL, changes INTEGER NOT NULL,"
                " baseline_gbps REAL, post_gbps REAL, error TEXT NOT NULL, updated_at INTEGER NOT NULL,"
                " ikey TEXT NOT NULL DEFAULT '', confirm_deadline_ms INTEGER NOT NULL DEFAULT 0,"
                " not_after_ms INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (rollout_id, name));"
                "CREATE TABLE drift_scans (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,"
                " nodes INTEGER NOT NULL, drifted INTEGER NOT NULL, unreachable INTEGER NOT NULL);"
                "CREATE TABLE drift_nodes (scan_id INTEGER NOT NULL REFERENCES drift_scans(id), name TEXT NOT NULL,"
                " reached INTEGER NOT NULL, drifted INTEGER NOT NULL, report TEXT, error TEXT NOT NULL,"
                " PRIMARY KEY (scan_id, name));"
                "CREATE TABLE lease (id INTEGER PRIMARY KEY CHECK (id = 1), rollout_id INTEGER NOT NULL,"
                " pid INTEGER NOT NULL, host TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat INTEGER NOT NULL);"
                "INSERT INTO rollouts VALUES (1, 'apply', 'old', '{}', NULL, '{\"canary\":1,\"wave_size\":25,"
                "\"wave_size_pct\":true,\"max_unavailable\":0,\"max_unavailable_pct\":false,"
                "\"confirm_timeout_s\":120,\"rollback_on_halt\":\"wave\",\"no_confirm\":false}',"
                " 'halted', 1, 2, 1, 'halted: old');"
                "INSERT INTO waves VALUES (1, 0, 'halted', 1, 2);"
                "INSERT INTO nodes VALUES (1, 0, 'node0', 'https://10.0.0.1:7440', 0, 'committed', '12', 0, 1,"
                " NULL, NULL, '', 2, '1-0-0-0badcafe', 0, 0);"
                "PRAGMA user_version = 4;";
        struct rollout_rec *back = NULL;
        struct store *s = NULL;
        struct errbuf e = { 0 };
        sqlite3 *h = NULL;
        char path[160];

        snprintf(path, sizeof(path), "%s/v4.db", dir);
        CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &h), SQLITE_OK);
        CU_ASSERT_EQUAL(sqlite3_exec(h, v4, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(h);
        CU_ASSERT_EQUAL_FATAL(store_open(path, &s, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_rollout_load(s, 1, &back, &e), 0);
        CU_ASSERT_STRING_EQUAL(back->nodes[0].tx, "12");
        CU_ASSERT_EQUAL(back->nodes[0].pre_rev, -1);
        CU_ASSERT_EQUAL(back->nodes[0].rev, 0);
        CU_ASSERT_STRING_EQUAL(back->nodes[0].undo_tx, "");
        CU_ASSERT_EQUAL(back->opts.max_regression_pct, -1);
        /* and the upgraded file takes the new fields */
        back->nodes[0].pre_rev = 3;
        store_record_node(s, back, &back->nodes[0]);
        CU_ASSERT_EQUAL(store_barrier(s, &e), 0);
        rollout_rec_free(back);
        back = NULL;
        CU_ASSERT_EQUAL(store_rollout_load(s, 1, &back, &e), 0);
        CU_ASSERT_EQUAL(back ? back->nodes[0].pre_rev : 0, 3);
        rollout_rec_free(back);
        store_close(s);
        for (const char *const *x = (const char *const[]) { "", "-wal", "-shm", NULL }; *x; x++) {
                snprintf(path, sizeof(path), "%s/v4.db%s", dir, *x);
                unlink(path);
        }
}

static void lease_db(char *buf, size_t size)
{
        snprintf(buf, size, "%s/lease.db", dir);
}

static void lease_db_remove(void)
{
        char path[160];

        for (const char *const *s = (const char *const[]) { "", "-wal", "-shm", NULL }; *s; s++) {
                snprintf(path, sizeof(path), "%s/lease.db%s", dir, *s);
                unlink(path);
        }
}

/* A pid that ran on this host and is gone (a reaped child). */
static pid_t dead_pid(void)
{
        pid_t pid = fork();

        if (pid == 0)
                _exit(0);
        CU_ASSERT_FATAL(pid > 0);
        CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
        return pid;
}

/* Two controllers (two connections): the second is refused while the first holds it. */
static void test_lease_take_refuse(void)
{
        struct store *a = NULL, *b = NULL;
        struct store_lease other, me, holder = { 0 }, cur;
        struct errbuf e = { 0 };
        char path[160];

        lease_db(path, sizeof(path));
        CU_ASSERT_EQUAL_FATAL(store_open(path, &a, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_open(path, &b, &e), 0);
        CU_ASSERT_EQUAL(store_lease_get(a, &cur, &e), -ENOENT);
        /* "other" is a live process on this host: our parent */
        store_lease_self(&other, 7);
        other.pid = getppid();
        CU_ASSERT_EQUAL(store_lease_take(a, &other, &holder, &e), 0);
        store_lease_self(&me, 0);
        CU_ASSERT_EQUAL(store_lease_take(b, &me, &holder, &e), -EBUSY);
        CU_ASSERT_EQUAL(holder.pid, getppid());
        CU_ASSERT_EQUAL(holder.rollout_id, 7);
        CU_ASSERT_STRING_EQUAL(holder.host, me.host);
        /* the refusal wrote nothing */
        CU_ASSERT_EQUAL(store_lease_get(b, &cur, &e), 0);
        CU_ASSERT_EQUAL(cur.pid, getppid());
        /* the same owner may take it again */
        CU_ASSERT_EQUAL(store_lease_take(a, &other, &holder, &e), 0);
        /* released: the second one gets it, and a new rollout's id lands in the lease */
        CU_ASSERT_EQUAL(store_lease_release(a, &e), 0);
        CU_ASSERT_EQUAL(store_lease_get(b, &cur, &e), -ENOENT);
        CU_ASSERT_EQUAL(store_lease_take(b, &me, &holder, &e), 0);
        struct rollout_rec *r = sample(2);

        CU_ASSERT_EQUAL_FATAL(store_rollout_create(b, r, &e), 0);
        CU_ASSERT_EQUAL(store_lease_get(a, &cur, &e), 0);
        CU_ASSERT_EQUAL(cur.rollout_id, r->id);
        CU_ASSERT_EQUAL(cur.pid, getpid());
        CU_ASSERT_EQUAL(store_lease_take(a, &other, &holder, &e), -EBUSY);
        rollout_rec_free(r);
        /* closing releases */
        store_close(b);
        CU_ASSERT_EQUAL(store_lease_get(a, &cur, &e), -ENOENT);
        store_close(a);
        lease_db_remove();
}

/* A lease whose pid is gone on this host, or whose heartbeat is too old, is taken over. */
static void test_lease_stale_takeover(void)
{
        struct store *a = NULL, *b = NULL;
        struct store_lease gone, far, me, holder, cur;
        struct errbuf e = { 0 };
        char path[160];
        long long now = (long long)time(NULL);

        lease_db(path, sizeof(path));
        CU_ASSERT_EQUAL_FATAL(store_open(path, &a, &e), 0);
        CU_ASSERT_EQUAL_FATAL(store_open(path, &b, &e), 0);
        store_lease_self(&me, 3);
        store_lease_self(&gone, 3);
        gone.pid = dead_pid();
        CU_ASSERT_TRUE(store_lease_stale(&gone, now));
        CU_ASSERT_EQUAL(store_lease_take(a, &gone, &holder, &e), 0);
        CU_ASSERT_EQUAL(store_lease_take(b, &me, &holder, &e), 0);
        CU_ASSERT_EQUAL(store_lease_get(a, &cur, &e), 0);
        CU_ASSERT_EQUAL(cur.pid, getpid());
        CU_ASSERT_EQUAL(store_lease_release(b, &e), 0);

        /* another host: the pid cannot be checked, only the heartbeat counts */
        far = (struct store_lease) { .rollout_id = 4, .pid = getpid(), .host = "ctl-elsewhere.invalid",
                                     .started_at = now, .heartbeat = now };
        CU_ASSERT_FALSE(store_lease_stale(&far, now));
        CU_ASSERT_EQUAL(store_lease_take(a, &far, &holder, &e), 0);
        CU_ASSERT_EQUAL(store_lease_take(b, &me, &holder, &e), -EBUSY);
        CU_ASSERT_STRING_EQUAL(holder.host, "ctl-elsewhere.invalid");
        CU_ASSERT_EQUAL(store_lease_release(a, &e), 0);
        far.heartbeat = now - STORE_LEASE_STALE_S - 5;
        CU_ASSERT_TRUE(store_lease_stale(&far, now));
        CU_ASSERT_FALSE(store_lease_stale(&far, now - 10));
        CU_ASSERT_EQUAL(store_lease_take(a, &far, &holder, &e), 0);
        CU_ASSERT_EQUAL(store_lease_take(b, &me, &holder, &e), 0);
        CU_ASSERT_EQUAL(store_lease_get(a, &cur, &e), 0);
        CU_ASSERT_STRING_EQUAL(cur.host, me.host);
        store_close(a);
        store_close(b);
        lease_db_remove();
}

int suite_store(void);
int suite_store(void)
{
        CU_pSuite s = CU_add_suite("store", setup, teardown);

        if (!s ||
            !CU_add_test(s, "opts_roundtrip", test_opts_roundtrip) ||
            !CU_add_test(s, "create_update_load", test_create_update_load) ||
            !CU_add_test(s, "list_and_drift", test_list_and_drift) ||
            !CU_add_test(s, "record_barrier", test_record_barrier) ||
            !CU_add_test(s, "publish", test_publish) ||
            !CU_add_test(s, "written_ahead", test_written_ahead) ||
            !CU_add_test(s, "open_fails", test_open_fails) ||
            !CU_add_test(s, "migrate_v4", test_migrate_v4) ||
            !CU_add_test(s, "lease_take_refuse", test_lease_take_refuse) ||
            !CU_add_test(s, "lease_stale_takeover", test_lease_stale_takeover) ||
            !CU_add_test(s, "hold", test_hold))
                return -1;
        return 0;
}
