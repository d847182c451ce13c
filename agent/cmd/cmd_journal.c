/* SPDX-License-Identifier: MIT */
/*
 * `journal-recover`: a journal SQLite finds damaged (serve refuses to start on one)
 * is salvaged into a fresh journal, which takes its place; the damaged file is kept.
 * Then, as after any crash, the unfinished transactions whose snapshots survived are
 * restored from them. A sound journal is left alone. A lost journal (missing, or
 * empty with no WAL, where the state directory's marker says one existed) cannot be
 * salvaged: its marker is kept beside (naming what it recorded in flight, for the
 * operator who checks those interfaces) and a new journal is started.
 */
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"

/* 1: the journal opens and passes quick_check (nothing to do); 0: damaged; < 0: another failure. */
static int sound(const struct agent_config *cf, struct errbuf *e)
{
        struct journal *j = NULL;
        int r = journal_open(cf->state_dir, &j, e);

        if (r >= 0)
                r = journal_check(j, e);
        journal_close(j);
        return r >= 0 ? 1 : r == -EBADMSG ? 0 : r;
}

static void report(const struct journal_recovery *rec, int restored)
{
        printf("the damaged journal is kept as %s\n", rec->damaged);
        if (rec->unreadable)
                printf("nothing of it could be read: the agent starts with an empty journal\n");
        for (unsigned i = 0; !rec->unreadable && i < rec->n_tables; i++)
                printf("  %-20s %llu rows kept%s\n", journal_recover_tables[i], rec->rows[i],
                       rec->lost[i] ? ", some could not be read" : "");
        printf("%d unfinished transaction(s) restored from their snapshots\n", restored);
}

/* Recovery as after a crash, on the new journal: what was left in flight is restored. */
static int restore_unfinished(struct cli *c, struct errbuf *e)
{
        struct journal *j = NULL;
        struct txn_env env;
        int r = journal_open(c->config.state_dir, &j, e);

        if (r >= 0) {
                txn_env_init(&env, &c->config, j);
                r = txn_lock_recovering(&env, false, e);
                if (r >= 0)
                        txn_unlock(&env);
        }
        journal_close(j);
        return r;
}

/* A lost journal: its marker kept beside, a new journal started. 1 when it was lost, 0 when not, or -errno. */
static int forget_lost(const struct agent_config *cf, struct errbuf *e)
{
        char what[768], kept[600];
        struct journal *j = NULL;
        int r;

        if (journal_lost(cf->state_dir, what, sizeof(what)) == 0)
                return 0;
        r = journal_marker_forget(cf->state_dir, kept, sizeof(kept), e);
        if (r >= 0)
                r = journal_open(cf->state_dir, &j, e);
        journal_close(j);
        if (r < 0)
                return r;
        printf("the journal %s/%s was lost; the last transaction its marker recorded in flight: %s\n"
               "those interfaces were not restored: check them ('nettune-agent state') and set them as they "
               "should be\n"
               "the marker is kept as %s; a new journal was started\n", cf->state_dir, JOURNAL_FILE, what, kept);
        return 1;
}

int cmd_journal_recover(struct cli *c)
{
        struct journal_recovery rec;
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int lock = -1, r;

        if (c->argc > 1)
                return cli_bad_arg(c, c->argv[1]), OUTCOME_INVALID;
        r = txlock_acquire(c->config.state_dir, false, &lock, &e);
        if (r >= 0 && (r = forget_lost(&c->config, &e)) == 1) {
                txlock_release(lock);
                return OUTCOME_OK;
        }
        if (r >= 0)
                r = sound(&c->config, &e);
        if (r == 1)
                printf("%s/%s is sound (quick_check: ok); nothing was changed\n", c->config.state_dir, JOURNAL_FILE);
        if (r == 0)
                r = journal_recover(c->config.state_dir, &rec, &e);
        txlock_release(lock);
        if (r == 0 && (r = restore_unfinished(c, &e)) >= 0)
                report(&rec, r);
        if (r < 0)
                fprintf(stderr, "%s: journal-recover: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
        return r < 0 ? outcome_of_errno(r) : OUTCOME_OK;
}
