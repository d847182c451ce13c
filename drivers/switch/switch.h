/* SPDX-License-Identifier: MIT */
/*
 * What the switch dialects (switch_nvue.c, switch_sonic.c, switch_eos.c) share:
 * unit and list parsing, the vendor limits check, the per-transaction session,
 * the ownership ledger (switch_ledger.c) and the one switch driver
 * (switch_txn.c, `switch_driver`) that every dialect plugs into through struct
 * switch_dialect. Adding a vendor = one file with one switch_dialect and one
 * line in switch_dialects[] (switch_txn.c).
 *
 * A switch is one target whose units are its configured ports: its state is one
 * struct state per port (trust, dscp_to_priority, pfc, ecn per queue, mtu), in
 * the order of the agent configuration. Each port is read as the switch applies
 * it to that port: a setting the vendor keeps per port is read per port, a shared
 * one (a profile, a map every port uses) is read once and shown on every port
 * that uses it. A dialect writes only the delta the plan computed
 * (struct driver_change): nothing for a port, queue or knob without a difference.
 *
 * Own only your own: a native pending change (NVUE revision awaiting confirmation,
 * EOS session, SONiC checkpoint) is committed, aborted or adopted after a crash
 * only when nettune made it (the session remembers it; switch_ledger.c keeps it
 * on disk across a crash). Someone else's pending change makes check refuse.
 *
 * A commit is saved to the switch's startup configuration (struct switch_dialect
 * .save): what the last commit or restore did about it is switch_last_save().
 * How a failed change was undone is kept per target: switch_last_restore_method().
 *
 * May call: drivers/driver.h, policies/, common/. Called by the agent (plan, txn, doctor).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "drivers/driver.h"
#include "drivers/switch/ssh_session.h"

#define SWITCH_FIELDS (STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) | \
                       STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | \
                       STATE_BIT(STATE_FIELD_ECN) | STATE_BIT(STATE_FIELD_CABLE_LEN) | \
                       STATE_BIT(STATE_FIELD_PFC_WATCHDOG))
#define SWITCH_TXID_MAX 48
#define SWITCH_REV_MAX 32
#define SWITCH_CMD_MAX 4096

enum switch_restore_method {
        SWITCH_RESTORE_NONE,            /* nothing was restored (yet) */
        SWITCH_RESTORE_VENDOR_ABORT,    /* the switch's own abort of the pending commit */
        SWITCH_RESTORE_VENDOR_TIMER,    /* unreachable: the switch's commit timer reverts it */
        SWITCH_RESTORE_CHECKPOINT,      /* the switch's checkpoint rollback (SONiC config rollback) */
        SWITCH_RESTORE_DRIVER,          /* the driver wrote the snapshot back */
        SWITCH_RESTORE_FAILED,          /* could not restore; see the error */
        SWITCH_RESTORE_MAX,
};

/* What a commit (or a restore that wrote the switch) did about the startup configuration. */
enum switch_save {
        SWITCH_SAVE_NONE,               /* nothing was committed or written */
        SWITCH_SAVE_SAVED,              /* saved: survives a reboot */
        SWITCH_SAVE_NOT_DURABLE,        /* the dialect cannot save here: lost on reboot (see save_how) */
        SWITCH_SAVE_MAX,
};

struct switch_limits {
        uint32_t mtu_min, mtu_max;
        uint32_t thr_min, thr_max;      /* ECN thresholds, bytes */
};

struct switch_session {
        const struct switch_dialect *d;
        const struct switch_config *sw;
        const struct driver_env *env;
        const struct target *t;         /* for driver_note() */
        struct ssh_session *ssh;
        char where[96];                 /* "switch 'leaf1' (nvue)" */
        char txid[SWITCH_TXID_MAX];     /* native session / checkpoint name of this transaction */
        char rev[SWITCH_REV_MAX];       /* NVUE: the revision nettune applied and awaits confirmation */
        long long base_rev;             /* NVUE: the newest revision before nettune's change (-1 unknown) */
        bool pending;                   /* a native change of ours awaits commit or abort */
        bool timer;                     /* ... and the switch reverts it by itself on expiry */
        bool staged;                    /* edits of ours are staged and not applied (NVUE: an open revision) */
        bool save_after_undo;           /* the native undo leaves the startup configuration stale: save it */
        unsigned timer_s;
        /*
         * When the switch's own commit timer runs out, on this host's monotonic clock
         * (ms; 0 unknown): counted from the moment the switch took the apply, read
         * from the switch itself (NVUE: `nv config apply --confirm-status`), never
         * from when nettune gave up waiting.
         */
        int64_t timer_end_ms;
        bool unanswered;                /* the apply got no answer: the switch may take it later */
        int64_t sent_ms;                /* when that apply was sent (monotonic ms) */
        bool dirty;                     /* something was written that is not saved yet */
        bool no_save;                   /* the dialect found it cannot save here (check) */
        enum switch_restore_method restore_method;
        enum switch_save save;
        char save_how[160];             /* the command that saved, or why the change is not durable */
        unsigned apply_commands;        /* commands the last apply sent (0: nothing to do) */
        json_t *native;                 /* dialect data of the last read (SONiC: CONFIG_DB), owned */
        json_t *extra;                  /* dialect data of the last read beyond it (NVUE: RoCE), owned */
};

/* What switch_ledger.c keeps on disk while a native change of ours is pending. */
struct switch_own {
        char txid[SWITCH_TXID_MAX];
        char rev[SWITCH_REV_MAX];       /* "" until known */
        long long base_rev;             /* -1 when the dialect has none */
};

struct switch_dialect {
        const char *name;                       /* agent.json "dialect" */
        struct switch_limits lim;
        /* Read every switch field of every configured port into units[i] (sw->ports[i], state_init'ed). */
        int (*read)(struct switch_session *s, struct state *units, struct errbuf *e);
        /*
         * Device checks before anything is touched (the plan runs them; apply again): what
         * the switch would refuse or what would fight the change, and someone else's pending
         * change. Needs the session's last read. May leave notes (switch_note).
         */
        int (*check)(struct switch_session *s, const struct driver_change *c, struct errbuf *e);
        /* Write c's delta as one native transaction; confirm_s > 0: with a timer. */
        int (*apply)(struct switch_session *s, const struct driver_change *c, unsigned confirm_s,
                     struct errbuf *e);
        /* Confirm the pending change of ours. */
        int (*commit)(struct switch_session *s, struct errbuf *e);
        /* Save the running configuration as the startup one: 1 saved, 0 cannot here (save_how says why). */
        int (*save)(struct switch_session *s, struct errbuf *e);
        /* Native undo of the pending change of ours; -EOPNOTSUPP when there is none. */
        int (*abort)(struct switch_session *s, struct errbuf *e);
        /*
         * Optional: the pending change an interrupted earlier session of ours left (the
         * ledger's record `own`): take it over (pending/timer, txid, rev) when the switch
         * still has it, so restore can abort it natively. 0 also when it is gone.
         */
        int (*adopt)(struct switch_session *s, const struct switch_own *own, struct errbuf *e);
};

/* Every dialect; NULL-terminated. */
extern const struct switch_dialect *const switch_dialects[];
/* The dialect of that name, or NULL. */
const struct switch_dialect *switch_dialect_find(const char *name);
/* The one driver of every switch target (it picks the target's dialect). */
extern const struct driver_ops switch_driver;

/* ---- switch_common.c: pure helpers (unit-tested, fuzzed) ---- */

/* An exact byte count: "40000", "40000 B". Anything with another unit is refused (-EINVAL). */
int switch_parse_bytes(const char *s, uint64_t *ret);
/* "3,4", "0-3,5-7", "" -> bitmap of values 0..max (max <= 63). */
int switch_parse_list(const char *s, unsigned max, uint64_t *ret);
/* Bitmap -> "3,4" (no ranges). Returns buf. */
char *switch_format_list(uint64_t bits, char *buf, size_t size);
/* Strict decimal in [min,max]. */
int switch_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* A JSON number or a decimal string. */
int switch_json_uint(const json_t *j, uint64_t max, uint64_t *ret);
/* The object member `key` of j (which must be an object), or NULL. */
json_t *switch_member(const json_t *j, const char *key);

/* Vendor limits on the desired values of c's delta; names switch, dialect, port and knob. */
int switch_check_limits(const struct switch_dialect *d, const struct switch_config *sw,
                        const struct driver_change *c, struct errbuf *e);
/* Copy `fields` of one switch-wide state into every unit. */
void switch_units_fill(struct state *units, unsigned n, const struct state *all, uint32_t fields);
/* Mark every queue 0-7 of a unit as described (a queue not set up reads as not marking). */
void switch_ecn_all_queues(struct state *u);
/* The ECN queues of unit u the delta writes: listed by the policy and different live. */
uint8_t switch_ecn_changed(const struct driver_change *c, unsigned u);

/* ---- switch_wd.c: the PFC watchdog of every dialect ---- */

/* Does unit u's delta change its watchdog? */
bool switch_wd_changed(const struct driver_change *c, unsigned u);
/* The watchdog unit u is to have: the policy's members, the live value of every other (see switch_wd.c). */
void switch_wd_target(const struct driver_change *c, unsigned u, struct state_pfc_wd *ret);
/* The switch-wide poll interval a change writes (*ret_dflt: back to the device's default): true when one. */
bool switch_wd_poll_change(const struct driver_change *c, uint32_t *ret_ms, bool *ret_dflt);
/* The poll interval the switch runs now (the last read), 0 unknown. */
uint32_t switch_wd_poll_now(const struct driver_change *c);
/* v within the dialect's min-max, else ERANGE naming port, member, range and the command (how). */
int switch_wd_range(const struct switch_session *s, const char *port, const char *member, uint32_t v, uint32_t min,
                    uint32_t max, const char *how, struct errbuf *e);

/* A list of commands built before anything is sent (heap: switch_cmds_new/free). */
#define SWITCH_CMDS_MAX 256
#define SWITCH_LINE_MAX 512
struct switch_cmds {
        unsigned n;
        bool overflow;
        char line[SWITCH_CMDS_MAX][SWITCH_LINE_MAX];
};
struct switch_cmds *switch_cmds_new(void);
void switch_cmds_free(struct switch_cmds *c);
void switch_cmds_add(struct switch_cmds *c, const char *fmt, ...) _printf_(2, 3);
/* Ports whose delta has mtu, grouped by desired MTU: calls add(mtu, "p1,p2") per group (sep between ports). */
void switch_mtu_groups(const struct switch_config *sw, const struct driver_change *c, char sep,
                       void (*add)(void *ctx, uint32_t mtu, const char *ports), void *ctx);

/* ---- dialect output parsers (pure; unit-tested and fuzzed) ---- */

/* NVUE RoCE mode as `nv show --applied qos roce -o json` says it. */
struct switch_nvue_roce {
        bool on;
        char mode[32];                  /* "lossless", "lossy", "lossless-single-ipool", "" */
};
/*
 * NVUE, the applied view: `nv show --applied qos -o json` (profiles), `nv show --applied
 * interface -o json` (each port's MTU and profile bindings) and `nv show interface -o json`
 * (operational: which ports exist) into units[i]. Refuses a layout it does not know,
 * naming the command and the member.
 */
int switch_nvue_parse(const char *qos, const char *ifs_applied, const char *ifs_oper, const char *where,
                      const struct switch_config *sw, struct state *units, struct errbuf *e);
/*
 * NVUE's PFC watchdog from the same applied views (qos "pfc-watchdog", each port's qos
 * pfc-watchdog state) and `nv show system -o json` (product-release: 5.19 has
 * recovery-interval) into units[i].pfc_wd; the ports' pfc must be read already (the
 * watchdog covers their lossless priorities).
 */
int switch_nvue_parse_wd(const char *qos_text, const char *ifs_text, const char *system_text, const char *where,
                         const struct switch_config *sw, struct state *units, struct errbuf *e);
/* `nv show --applied qos roce -o json`. */
int switch_nvue_parse_roce(const char *text, const char *where, struct switch_nvue_roce *ret, struct errbuf *e);
/*
 * `nv config apply --confirm-status`, whose text NVIDIA documents only by its meaning
 * ("shows the amount of time left before the automatic rollback"): 0 nothing awaits
 * confirmation, 1 an apply does (*ret_left: seconds left, 0 when not said), -EBADMSG
 * when the text says neither.
 */
int switch_nvue_confirm_status(const char *text, unsigned long *ret_left);
/* `nv show system config auto-save -o json`: `enable on|off` (up to 5.9) or `state enabled|disabled` (5.10+). */
int switch_nvue_parse_auto_save(const char *text, bool *ret_on);
/* CONFIG_DB into units[i]; *ret_db (may be NULL) receives the parsed CONFIG_DB, owned by the caller. */
int switch_sonic_parse(const char *text, const char *where, const struct switch_config *sw,
                       struct state *units, json_t **ret_db, struct errbuf *e);
/*
 * `show pfcwd config` (sonic-utilities pfcwd/main.py: with or without the HISTORY column)
 * over CONFIG_DB (db: PORT_QOS_MAP pfcwd_sw_enable, the priorities the watchdog covers,
 * and which fields a PFC_WD row leaves to orchagent's defaults) into units[i].pfc_wd.
 */
int switch_sonic_parse_pfcwd(const char *text, const char *where, const struct switch_config *sw, const json_t *db,
                             struct state *units, struct errbuf *e);
/* `show running-config | json` into units[i]. */
int switch_eos_parse(const char *text, const char *where, const struct switch_config *sw,
                     struct state *units, struct errbuf *e);
/* The PFC watchdog lines of the same running-config (per port over its service-profile, switch-wide defaults). */
int switch_eos_parse_wd(const char *text, const char *where, const struct switch_config *sw, struct state *units,
                        struct errbuf *e);

/* ---- switch_ledger.c: nettune's pending native change, on disk (state_dir) ---- */

/* Record it before the switch can hold it (fsync'd); -errno when it cannot be written. */
int switch_ledger_write(const struct switch_session *s, const struct switch_own *own, struct errbuf *e);
/* 1 with *ret filled when a record of this switch exists, 0 when none. */
int switch_ledger_read(const struct switch_session *s, struct switch_own *ret);
void switch_ledger_clear(const struct switch_session *s);

/* ---- switch_session.c: a session's commands and notes ---- */

int switch_run(struct switch_session *s, const char *cmd, const char *input, char **ret_out,
               struct errbuf *e);
int switch_runf(struct switch_session *s, char **ret_out, struct errbuf *e, const char *fmt, ...)
        _printf_(4, 5);
/* A note for the plan's and state's reader, prefixed with the switch. */
void switch_note(struct switch_session *s, const char *fmt, ...) _printf_(2, 3);
/* The policy the request applies ("" when none, e.g. a restore). */
const char *switch_policy(const struct switch_session *s);

/* ---- switch_txn.c: the generic driver flow ---- */

/* How the last restore on this target's session put the switch back ("none" without a session). */
enum switch_restore_method switch_restore_method(const struct target *t);
const char *switch_last_restore_method(const struct target *t);
const char *switch_restore_method_name(enum switch_restore_method m);
/* Commands the last apply sent (0 when there was nothing to do). */
unsigned switch_last_apply_commands(const struct target *t);
/* What the last commit or restore did about the startup configuration; *ret_how (may be NULL): how. */
enum switch_save switch_last_save(const struct target *t, const char **ret_how);
const char *switch_save_name(enum switch_save v);       /* "none", "saved", "not-durable" */
