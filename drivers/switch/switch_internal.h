/* SPDX-License-Identifier: MIT */
/*
 * Internal to drivers/switch/: what a dialect split over several files shares.
 *
 * NVUE: switch_nvue.c (read, check, render, apply, commit, save, abort, adopt) calls
 * switch_nvue_rev.c (NVUE's revisions: which open or applied revision is whose, the
 * revision nettune staged and its detach, someone else's pending change, the confirm
 * status, auto-save) and switch_nvue_wd.c (its PFC watchdog), never the other way.
 * SONiC: switch_sonic.c calls switch_sonic_wd.c (`show pfcwd config`, `config pfcwd
 * ...`) around its GCU patch; EOS: switch_eos.c calls switch_eos_wd.c. All call
 * switch_session.c (switch_run, switch_note), as switch_txn.c does; none calls
 * switch_txn.c, which holds the dialects' table.
 */
#pragma once

#include "drivers/switch/switch.h"

/* switch_session.c: (re)connect the session's SSH connection to its switch; errors name the switch. */
int switch_session_connect(struct switch_session *s, struct errbuf *e);
/* This host's monotonic clock in ms (the session's timer_end_ms, sent_ms). */
int64_t switch_now_ms(void);

/* After the CONFIG_DB read (s->native): every port's watchdog into units. A switch without the CLI: a note. */
int sonic_wd_read(struct switch_session *s, struct state *units, struct errbuf *e);
/* Ranges, a restoration the CLI cannot keep, the poll interval against every row. */
int sonic_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e);
/* The patch's part: unit u's pfcwd_sw_enable must become *ret_prios. */
bool sonic_wd_cover(const struct driver_change *c, unsigned u, uint8_t *ret_prios);
/* Does the change rewrite or delete unit u's PFC_WD row (for the unsaved-change check)? */
bool sonic_wd_touches(const struct driver_change *c, unsigned u);
/* The watchdog commands, after the patch. */
int sonic_wd_apply(struct switch_session *s, const struct driver_change *c, struct errbuf *e);

/*
 * switch_nvue_wd.c: NVUE's PFC watchdog. read: after the applied qos and interface views
 * (their texts) were read, with `nv show system -o json` for the release (kept in s->extra
 * "release"); check: what NVUE cannot express; render: its nv set/unset lines.
 */
int nvue_wd_read(struct switch_session *s, const char *qos, const char *ifs, struct state *units, struct errbuf *e);
int nvue_wd_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e);
void nvue_wd_render(struct switch_cmds *cmds, const struct switch_session *s, const struct driver_change *c);

/*
 * switch_eos_wd.c: EOS's PFC watchdog: check, and the lines of one port inside its
 * interface block (render_port in switch_eos.c).
 */
int eos_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e);
void eos_wd_render_port(struct switch_cmds *cmds, const struct driver_change *c, unsigned u);
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
/*
 * An apply that got no answer: 1 when the revision nettune staged is still open (the
 * switch never took the apply) and is detached now, so that nothing is left for a late
 * apply to take; 0 when the switch took it (or it is gone); -errno.
 */
int nvue_untaken(struct switch_session *s, struct errbuf *e);
/* 0 when the revision awaiting confirmation is nettune's; `what` is "confirm" or "cancel". */
int nvue_ours(struct switch_session *s, const char *what, struct errbuf *e);
/* An interrupted session's record: its revision awaiting confirmation, or the one it staged, taken over. */
int nvue_adopt_revision(struct switch_session *s, const struct switch_own *own, struct errbuf *e);
/* The ledger's record of this session (switch_ledger.c). */
int nvue_record(struct switch_session *s, struct errbuf *e);
