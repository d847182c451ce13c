/* SPDX-License-Identifier: MIT */
/*
 * Shared by journal.c (writes), journal_read.c (queries) and journal_recover.c
 * (salvage); not for other modules. Calls go one way: journal_read.c and
 * journal_recover.c -> journal.c.
 */
#pragma once

#include "agent/journal/journal.h"
#include "common/db.h"

struct db *journal_db(struct journal *j);
/* journal_open() of another file of the state directory (the recovery's new journal). */
int journal_open_named(const char *state_dir, const char *name, struct journal **ret, struct errbuf *e);
/* journal_unfinished()'s query (journal.c: journal_warm() prepares it too). */
extern const char journal_sql_unfinished[];
/* journal_layers.c, inside the writes of journal.c: a commit's layer version; a snapshot's values before. */
int journal_layer_commit(struct db *d, int64_t tx, struct errbuf *e);
int journal_originals_record(struct db *d, int64_t tx, struct errbuf *e);
