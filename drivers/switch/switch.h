/* SPDX-License-Identifier: MIT */
/*
 * What the switch dialects (switch_nvue.c, switch_sonic.c, switch_eos.c) share:
 * unit and list parsing, the vendor limits check, the per-transaction session,
 * and the one switch driver (switch_txn.c, `switch_driver`) that every dialect
 * plugs into through struct switch_dialect. Adding a vendor = one file with one
 * switch_dialect and one line in switch_dialects[] (switch_txn.c).
 *
 * A switch is one target whose units are its configured ports: its state is one
 * struct state per port (trust, dscp_to_priority, pfc, ecn per queue, mtu), in
 * the order of the agent configuration. A switch maps DSCP to a switch priority /
 * traffic class; nettune's priority is that value. A dialect reads every port;
 * it writes only the delta the plan computed (struct driver_change).
 *
 * How a failed change was undone is kept per target: switch_last_restore_method().
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "driver.h"
#include "ssh_session.h"

#define SWITCH_FIELDS (STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) | \
                       STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | \
                       STATE_BIT(STATE_FIELD_ECN))
#define SWITCH_TXID_MAX 48
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

struct switch_limits {
        uint32_t mtu_min, mtu_max;
        uint32_t thr_min, thr_max;      /* ECN thresholds, bytes */
};

struct switch_session {
        const struct switch_dialect *d;
        const struct switch_config *sw;
        const struct driver_env *env;
        struct ssh_session *ssh;
        char where[96];                 /* "switch 'leaf1' (nvue)" */
        char txid[SWITCH_TXID_MAX];     /* native session / checkpoint name of this transaction */
        bool pending;                   /* a native change awaits commit or abort */
        bool timer;                     /* ... and the switch reverts it by itself on expiry */
        unsigned timer_s;
        enum switch_restore_method restore_method;
        unsigned apply_commands;        /* commands the last apply sent (0: nothing to do) */
        json_t *native;                 /* dialect data of the last read (SONiC: CONFIG_DB), owned */
        json_t *saved;                  /* dialect data to undo outside the native path, owned */
};

struct switch_dialect {
        const char *name;                       /* agent.json "dialect" */
        struct switch_limits lim;
        /* Read every switch field of every configured port into units[i] (sw->ports[i], state_init'ed). */
        int (*read)(struct switch_session *s, struct state *units, struct errbuf *e);
        /* Optional device checks before anything is touched (the plan runs them; apply again). */
        int (*check)(struct switch_session *s, const struct driver_change *c, struct errbuf *e);
        /* Write c's delta as one native transaction; confirm_s > 0: with a timer. */
        int (*apply)(struct switch_session *s, const struct driver_change *c, unsigned confirm_s,
                     struct errbuf *e);
        int (*commit)(struct switch_session *s, struct errbuf *e);
        /* Native undo of the pending change; -EOPNOTSUPP when there is none. */
        int (*abort)(struct switch_session *s, struct errbuf *e);
        /* Optional: find a timed change an interrupted earlier session left pending (a
         * crashed agent) and take it over (set pending/timer, txid), so restore can
         * abort it natively. 0 also when there is none. */
        int (*adopt)(struct switch_session *s, struct errbuf *e);
};

/* Every dialect; NULL-terminated. */
extern const struct switch_dialect *const switch_dialects[];
/* The dialect of that name, or NULL. */
const struct switch_dialect *switch_dialect_find(const char *name);
/* The one driver of every switch target (it picks the target's dialect). */
extern const struct driver_ops switch_driver;

/* ---- switch_common.c: pure helpers (unit-tested, fuzzed) ---- */

/* "40000", "40000 B", "146.48 KB", "1.43 MB" (1 KB = 1024 B), rounded to bytes. */
int switch_parse_bytes(const char *s, uint64_t *ret);
/* "3,4", "0-3,5-7", "" -> bitmap of values 0..max (max <= 63). */
int switch_parse_list(const char *s, unsigned max, uint64_t *ret);
/* Bitmap -> "3,4" (no ranges). Returns buf. */
char *switch_format_list(uint64_t bits, char *buf, size_t size);
/* Strict decimal in [min,max]. */
int switch_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
/* A JSON number or a decimal string. */
int switch_json_uint(const json_t *j, uint64_t max, uint64_t *ret);

/* Vendor limits on the desired values of c's delta; names switch, dialect, port and knob. */
int switch_check_limits(const struct switch_dialect *d, const struct switch_config *sw,
                        const struct driver_change *c, struct errbuf *e);
/* Copy `fields` of one switch-wide state into every unit. */
void switch_units_fill(struct state *units, unsigned n, const struct state *all, uint32_t fields);

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
/* `nv show qos -o json`: the switch-wide trust, DSCP map, PFC and ECN into *ret. */
int switch_nvue_parse_qos(const char *text, const char *where, struct state *ret, struct errbuf *e);
/* `nv show interface -o json`: each configured port's mtu into units[i]. */
int switch_nvue_parse_interfaces(const char *text, const char *where, const struct switch_config *sw,
                                 struct state *units, struct errbuf *e);
/* CONFIG_DB into units[i]; *ret_db (may be NULL) receives the parsed CONFIG_DB, owned by the caller. */
int switch_sonic_parse(const char *text, const char *where, const struct switch_config *sw,
                       struct state *units, json_t **ret_db, struct errbuf *e);
/* `show running-config | json` into units[i]. */
int switch_eos_parse(const char *text, const char *where, const struct switch_config *sw,
                     struct state *units, struct errbuf *e);

/* ---- switch_txn.c: sessions, commands, the generic driver flow ---- */

int switch_run(struct switch_session *s, const char *cmd, const char *input, char **ret_out,
               struct errbuf *e);
int switch_runf(struct switch_session *s, char **ret_out, struct errbuf *e, const char *fmt, ...)
        _printf_(4, 5);

/* How the last restore on this target's session put the switch back ("none" without a session). */
enum switch_restore_method switch_restore_method(const struct target *t);
const char *switch_last_restore_method(const struct target *t);
const char *switch_restore_method_name(enum switch_restore_method m);
/* Commands the last apply sent (0 when there was nothing to do). */
unsigned switch_last_apply_commands(const struct target *t);
