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
int sonic_run(struct sim *s);
void sonic_tick(struct sim *s);
void sonic_reboot(struct sim *s);
/* What buffermgrd leaves in APPL_DB for a CONFIG_DB (sonic_buffer.c): BUFFER_PG_TABLE, BUFFER_PROFILE_TABLE. */
json_t *sonic_appl_db(const json_t *db);
json_t *eos_init(json_t *ports, const json_t *st);
int eos_run(struct sim *s);
void eos_tick(struct sim *s);
void eos_reboot(struct sim *s);
