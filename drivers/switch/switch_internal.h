/* SPDX-License-Identifier: MIT */
/*
 * drivers/switch, inside the module: what a dialect split over two files shares.
 *
 * NVUE: switch_nvue.c (read, check, render, apply, commit, save, abort, adopt) calls
 * switch_nvue_rev.c (NVUE's revisions: which open or applied revision is whose, the
 * revision nettune staged and its detach, someone else's pending change, the confirm
 * status, auto-save), never the other way; both call switch_txn.c (switch_run).
 */
#pragma once

#include "drivers/switch/switch.h"

/* `text` as a JSON object, or -EBADMSG naming `cmd` ("'nv config revision -o json' printed invalid JSON ..."). */
int nvue_load(const char *text, const char *where, const char *cmd, json_t **ret, struct errbuf *e);

/* What `nv config revision -o json` says. */
struct nvue_revs {
        long long max;                  /* the newest numbered revision, 0 none */
        long long confirm;              /* applied, awaiting confirmation; -1 none */
        long long pending;              /* open: edits staged and not applied; -1 none */
};
int nvue_revisions(struct switch_session *s, struct nvue_revs *ret, struct errbuf *e);

/*
 * Someone else's change in the way, before nettune edits (check): an apply awaiting
 * confirmation, an open revision (even one whose edits changed nothing: nettune's
 * would join it), edits set but not applied, or a confirm status nettune cannot read.
 */
int nvue_check_foreign(struct switch_session *s, struct errbuf *e);

/* Auto-save (`nv show system config auto-save`): read into the session's dialect data; a note when unknown. */
void nvue_read_auto_save(struct switch_session *s);
bool nvue_auto_save(const struct switch_session *s);

/* After nettune's first edit: the revision it opened is the staged one (recorded), or -EBUSY naming whose it joined. */
int nvue_take_staged(struct switch_session *s, struct errbuf *e);
/* Detach the revision nettune staged while it is still open (any path that ends without an apply); 0 when none is. */
int nvue_detach_staged(struct switch_session *s, struct errbuf *e);
/* After `nv config apply --confirm`: the revision awaiting confirmation is the staged one. */
int nvue_take_applied(struct switch_session *s, struct errbuf *e);
/* 0 when the revision awaiting confirmation is nettune's; `what` is "confirm" or "cancel". */
int nvue_ours(struct switch_session *s, const char *what, struct errbuf *e);
/* An interrupted session's record: its revision awaiting confirmation, or the one it staged, taken over. */
int nvue_adopt_revision(struct switch_session *s, const struct switch_own *own, struct errbuf *e);
/* The ledger's record of this session (switch_ledger.c). */
int nvue_record(struct switch_session *s, struct errbuf *e);
