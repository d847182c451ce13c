/* SPDX-License-Identifier: MIT */
/*
 * switchsim: a fake switch shell for tests, run as the ForceCommand of a
 * private sshd. It speaks the subset of NVUE, SONiC and EOS commands the
 * nettune switch drivers use, keeps the switch in a JSON state file (flock'd),
 * runs native commit-confirm timers lazily, models a reboot (the running
 * configuration lost, the saved one loaded), and injects faults from a file
 * beside the state (STATE.faults). Every behaviour names the vendor page or
 * source it mirrors; the factory state has documented variants (--variant).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#define SIM_ARGV_MAX 1024
#define SIM_INPUT_MAX (1u << 20)

struct sim {
        const char *dialect;
        const char *state_path;
        json_t *st;             /* whole state file; st[dialect] is the dialect's part */
        json_t *d;              /* borrowed: st[dialect] */
        const char *cmd;        /* the command line as received */
        int argc;
        char *argv[SIM_ARGV_MAX];
        bool mutated;           /* this command changed the switch */
};

/* Split a command line into words (quotes '...' and "..." group). Returns argc or -1. */
int sim_split(char *line, char **argv, int max);
/* Print an error the way the vendor would (to stderr) and return 1 (the exit status). */
int sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double sim_now(void);
/* Print JSON (indent 2, sorted keys) and a newline to stdout. */
void sim_print_json(const json_t *j);
/* Get or create an object member. */
json_t *sim_obj(json_t *parent, const char *key);

/* The data plane (traffic.c): counters that climb at a rate on the switch's clock, links. */
uint64_t sim_counter(const json_t *st, const char *port, const char *name);
/* The rate a counter climbs at now (0: it does not). */
double sim_rate(const json_t *st, const char *port, const char *name);
/* The rate at time t, *ret_next when it changes next by itself (a choppy stream; INFINITY: never). */
double sim_rate_at(const json_t *st, const char *port, const char *name, double t, double *ret_next);
void sim_link(const json_t *st, const char *port, bool *ret_up, const char **ret_speed);
/* --traffic PORT:NAME=RATE,...: 0, or 1 with the error printed. */
int sim_traffic_set(json_t *st, const char *specs);
#define SIM_TABLE_COLS 12
/* Print cells[0..rows) (row 0 the header) as tabulate's "simple" table, each line after indent. */
void sim_table(const char *indent, unsigned rows, unsigned cols, char cells[][SIM_TABLE_COLS][64]);

/*
 * A table of 8 rows (priorities or queues 0-7) of one port: head[] the header, spec[] one
 * per column: "#" the row's number, "UC#" a prefix and it, "@" the port, "=TEXT" a
 * constant, "NAME" the model counter NAME.<row>, "NAME Bytes" the same with that suffix.
 */
void sim_rows(const json_t *st, const char *port, const char *indent, unsigned cols, const char *const *head,
              const char *const *spec);

/*
 * The PFC watchdog (watchdog.c): each dialect maps its configuration of one queue onto
 * the machine (sim_wd_config: nvue.c, sonic.c, eos.c); sim_watchdog_advance() runs the
 * polls up to the switch's clock (before every command: main.c tick); the dialects'
 * show commands print sim_wd_stats().
 */
enum { SIM_WD_DROP, SIM_WD_FORWARD, SIM_WD_ALERT };
struct sim_wd {
        bool on;                        /* the watchdog watches this queue */
        double poll_s;                  /* the switch's poll interval */
        unsigned detect_polls;          /* consecutive storm polls to detect */
        unsigned restore_polls;         /* consecutive pause-free polls to restore; 0: never */
        int action;                     /* SIM_WD_* */
};
struct sim_wd_stats {
        bool watched, stormed;
        uint64_t detected, restored;
        uint64_t tx_ok, tx_drop, tx_ok_last, tx_drop_last;
};
void sim_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret);
void sim_watchdog_advance(struct sim *s);
void sim_wd_stats(const json_t *st, const char *port, unsigned prio, struct sim_wd_stats *ret);
/* Seconds the queue of that port and priority did not send (paused, dropped, or held by a storm elsewhere). */
double sim_blocked_s(const json_t *st, const char *port, unsigned prio);
void nvue_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret);
void sonic_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret);
void eos_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret);
/* tabulate's "simple" table with every column right-aligned (stralign='right', numalign='right'). */
void sim_table_right(unsigned rows, unsigned cols, char cells[][SIM_TABLE_COLS][64]);

/* Is variant `name` of the factory state on (state file "variants")? */
bool sim_variant(const json_t *st, const char *name);

/*
 * Per dialect: create the factory state (st: the whole state, for its variants), run
 * one command (exit status), expire timers, restart (running lost, startup loaded).
 */
json_t *nvue_init(json_t *ports, const json_t *st);
int nvue_run(struct sim *s);
void nvue_tick(struct sim *s);
void nvue_reboot(struct sim *s);
json_t *sonic_init(json_t *ports, const json_t *st);
/* sonic_pfcwd.c: `config pfcwd`/`pfcwd` start|stop|interval (argv[at] the verb), `show pfcwd` config|stats. */
int sonic_pfcwd_config(struct sim *s, int at, bool from_config);
int sonic_pfcwd_show(struct sim *s, int at);
int sonic_run(struct sim *s);
void sonic_tick(struct sim *s);
void sonic_reboot(struct sim *s);
/* What buffermgrd leaves in APPL_DB for a CONFIG_DB (sonic_buffer.c): BUFFER_PG_TABLE, BUFFER_PROFILE_TABLE. */
json_t *sonic_appl_db(const json_t *db);
json_t *eos_init(json_t *ports, const json_t *st);
/* A block's lines (eos.c): drop those starting with prefix; put line in place of them. */
void eos_del_prefix(json_t *node, const char *prefix);
void eos_set_line(json_t *node, const char *prefix, const char *line);
/* eos_pfcwd.c: a `priority-flow-control pause watchdog ...` line into node (0, or -1 invalid); the counters. */
int eos_wd_line(json_t *node, char **w, int n, bool no, const char *line, bool global);
int eos_wd_counters(struct sim *s);
int eos_run(struct sim *s);
void eos_tick(struct sim *s);
void eos_reboot(struct sim *s);
