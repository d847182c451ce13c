/* SPDX-License-Identifier: MIT */
/*
 * Shared by journal.c (writes), journal_read.c (queries), journal_recover.c
 * (salvage) and journal_marker.c (the state directory's record that a journal
 * exists); not for other modules. Calls go one way: journal_read.c and
 * journal_recover.c -> journal.c -> journal_marker.c.
 */
#pragma once

#include "agent/journal/journal.h"
#include "common/db.h"

struct db *journal_db(struct journal *j);
/* journal_open() of another file of the state directory (the recovery's new journal). */
int journal_open_named(const char *state_dir, const char *name, struct journal **ret, struct errbuf *e);
/* ---- journal_marker.c: the state directory's record that a journal exists ---- */
/* -ENODATA naming the in-flight transaction and the recovery when the journal was lost; else 0. */
int journal_marker_check(const char *state_dir, struct errbuf *e);
/* The marker of a journal just opened, when there is none yet (durable): 0 or -errno. */
int journal_marker_create(const char *state_dir, struct errbuf *e);
/* A transaction began / ended: the marker rewritten (best effort, not synced). */
void journal_marker_begin(const char *state_dir, int64_t tx, const char *kind, const char *policy,
                          const char *changes_json);
void journal_marker_end(const char *state_dir, int64_t tx);
/* journal_unfinished()'s query (journal.c: journal_warm() prepares it too). */
extern const char journal_sql_unfinished[];
/* journal_layers.c, inside the writes of journal.c: a commit's layer version; a snapshot's values before. */
int journal_layer_commit(struct db *d, int64_t tx, struct errbuf *e);
int journal_originals_record(struct db *d, int64_t tx, struct errbuf *e);
/* journal_set_layer()'s write, as a record of journal.c's batch. */
int journal_layer_set(struct db *d, int64_t tx, const char *layer, int64_t prev, struct errbuf *e);
