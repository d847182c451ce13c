/* SPDX-License-Identifier: MIT */
/*
 * switchsim --dialect nvue|sonic|eos --state FILE [--init --ports a,b [--variant v,w]]
 *           [--dump] [--tick] [--advance SECONDS] [--freeze-clock] [--reboot] [--traffic SPEC,...]
 *           [-- COMMAND...]
 *
 * --traffic PORT:NAME=RATE,...: the data plane's counters climb at RATE per second of the
 * switch's clock from now on; PORT:link=up|down, PORT:speed=25G (traffic.c).
 * --advance: the switch's own clock moves ahead (its commit-confirm timers run out
 * when the test says so, never on the wall clock). --variant: documented variants
 * of the factory state, each named and sourced in its dialect's file (nvue.c,
 * sonic.c, eos.c). --reboot: the switch restarts: the running configuration is lost
 * and the saved (startup) one is loaded, pending changes and timers are gone.
 *
 * Without "-- COMMAND" the command comes from SSH_ORIGINAL_COMMAND (ForceCommand)
 * and faults from FILE.faults apply:
 *   {"drop_after": N, "drop_repeat": false, "drop_match": "pattern", "drop_after_run": false,
 *    "drop_all_after": false, "slow_ms": M, "slow_match": "nv show", "reject": "pattern",
 *    "bad_json": "pattern", "reword": "pattern"}
 * drop_after: once N commands ran since the faults file was written, the next
 * command kills this SSH connection before it runs (once, or every time with
 * drop_repeat). drop_match: drop at the first command containing the pattern, before it
 * runs, or after it ran with drop_after_run (the reply is lost); drop_all_after: and
 * every command after that. slow_ms (with slow_match, the commands it holds): the command
 * waits that long holding the switch's state lock before it runs, so every other command
 * waits behind it — an `nv config apply` queued behind another apply: nvued takes the CLI's
 * apply as a request of its own (NVUE API page, CL 5.11: "The NVUE CLI also communicates with
 * the nvued service using internal APIs"), and it runs, arming its commit timer then (nvue.c),
 * even after the client that sent it gave up. bad_json: the command's output cut in the middle; reword: its
 * output replaced by a line no vendor prints ("Confirmation state: unknown"), for the
 * driver's "cannot understand" path. "-- COMMAND" runs a command locally (hand edits,
 * drift tests).
 *
 * The switch's clock is the wall clock plus "clock_offset_s" of the state file; after
 * --freeze-clock it stands still ("clock_frozen_at") and moves only with --advance, so that
 * what happens on the switch's clock (the PFC watchdog's polls, watchdog.c) does not depend
 * on how fast the machine runs the test.
 * --advance S moves it S seconds ahead and fires every timer that is then due (a
 * commit-confirm runs out), so a test makes time pass on the switch explicitly
 * instead of sleeping against a short timer.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "tests/switchsim/sim.h"

struct opts {
        const char *dialect, *state, *ports, *variants, *traffic;
        bool init, dump, tick, reboot, freeze;
        double advance;                 /* --advance: seconds to move the clock ahead */
        char cmd[8192];
        bool local;
};

int sim_split(char *line, char **argv, int max)
{
        int n = 0;
        char *p = line, *w;

        for (;;) {
                while (*p == ' ' || *p == '\t')
                        p++;
                if (!*p)
                        return n;
                if (n >= max)
                        return -1;
                w = p;
                argv[n++] = w;
                while (*p && *p != ' ' && *p != '\t') {
                        if (*p == '"' || *p == '\'') {
                                char q = *p++;
                                while (*p && *p != q)
                                        *w++ = *p++;
                                if (!*p)
                                        return -1;
                                p++;
                        } else {
                                *w++ = *p++;
                        }
                }
                if (*p)
                        p++;
                *w = '\0';
        }
}

int sim_fail(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return 1;
}

/* The switch's clock: wall clock (or the frozen instant) + the state's clock_offset_s (set by run_locked). */
static double clock_offset_s, clock_frozen_at;

static double wall_now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double sim_now(void)
{
        return (clock_frozen_at > 0 ? clock_frozen_at : wall_now()) + clock_offset_s;
}

void sim_print_json(const json_t *j)
{
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);

        if (s)
                printf("%s\n", s);
        free(s);
}

json_t *sim_obj(json_t *parent, const char *key)
{
        json_t *o = json_object_get(parent, key);

        if (!json_is_object(o)) {
                o = json_object();
                json_object_set_new(parent, key, o);
        }
        return o;
}

static int usage(void)
{
        fprintf(stderr, "usage: switchsim --dialect nvue|sonic|eos --state FILE [--init --ports a,b "
                        "[--variant v,w]] [--dump] [--tick] [--advance SECONDS] [--freeze-clock] [--reboot] "
                        "[--traffic SPEC,...] [-- COMMAND...]\n");
        return 2;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--dialect") && i + 1 < argc)
                        o->dialect = argv[++i];
                else if (!strcmp(argv[i], "--state") && i + 1 < argc)
                        o->state = argv[++i];
                else if (!strcmp(argv[i], "--ports") && i + 1 < argc)
                        o->ports = argv[++i];
                else if (!strcmp(argv[i], "--init"))
                        o->init = true;
                else if (!strcmp(argv[i], "--dump"))
                        o->dump = true;
                else if (!strcmp(argv[i], "--tick"))
                        o->tick = true;
                else if (!strcmp(argv[i], "--advance") && i + 1 < argc) {
                        char *end;
                        o->advance = strtod(argv[++i], &end);
                        if (*end || !(o->advance > 0 && o->advance < 1e7))
                                return -1;
                        o->tick = true;
                }
                else if (!strcmp(argv[i], "--reboot"))
                        o->reboot = true;
                else if (!strcmp(argv[i], "--freeze-clock"))
                        o->freeze = o->tick = true;
                else if (!strcmp(argv[i], "--variant") && i + 1 < argc)
                        o->variants = argv[++i];
                else if (!strcmp(argv[i], "--traffic") && i + 1 < argc) {
                        o->traffic = argv[++i];
                        o->tick = true;
                }
                else if (!strcmp(argv[i], "--")) {
                        size_t off = 0;
                        for (i++; i < argc; i++)
                                off += (size_t)snprintf(o->cmd + off, sizeof(o->cmd) - off, "%s%s",
                                                        off ? " " : "", argv[i]);
                        o->local = true;
                } else
                        return -1;
        }
        if (!o->dialect || !o->state)
                return -1;
        if (strcmp(o->dialect, "nvue") && strcmp(o->dialect, "sonic") && strcmp(o->dialect, "eos"))
                return -1;
        return 0;
}

static json_t *load_json(const char *path)
{
        json_error_t err;

        return json_load_file(path, JSON_REJECT_DUPLICATES, &err);
}

static int save_json(const char *path, json_t *j)
{
        char tmp[4096];

        snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
        if (json_dump_file(j, tmp, JSON_INDENT(1) | JSON_SORT_KEYS) < 0)
                return -1;
        return rename(tmp, path);
}

static json_t *words(const char *list)
{
        json_t *a = json_array();
        char buf[1024], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", list ? list : "");
        for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
                json_array_append_new(a, json_string(p));
        return a;
}

bool sim_variant(const json_t *st, const char *name)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_object_get(st, "variants"), i, v)
                if (!strcmp(json_string_value(v), name))
                        return true;
        return false;
}

static json_t *init_state(const struct opts *o)
{
        json_t *st = json_object(), *ports = words(o->ports);

        json_object_set_new(st, "dialect", json_string(o->dialect));
        json_object_set(st, "ports", ports);
        json_object_set_new(st, "variants", words(o->variants));
        json_object_set_new(st, "commands", json_integer(0));
        json_object_set_new(st, "mutations", json_integer(0));
        json_object_set_new(st, "log", json_array());
        if (!strcmp(o->dialect, "nvue"))
                json_object_set_new(st, "nvue", nvue_init(ports, st));
        else if (!strcmp(o->dialect, "sonic"))
                json_object_set_new(st, "sonic", sonic_init(ports, st));
        else
                json_object_set_new(st, "eos", eos_init(ports, st));
        json_decref(ports);
        return st;
}

static void reboot(struct sim *s)
{
        if (!strcmp(s->dialect, "nvue"))
                nvue_reboot(s);
        else if (!strcmp(s->dialect, "sonic"))
                sonic_reboot(s);
        else
                eos_reboot(s);
        json_object_set_new(s->st, "reboots", json_integer(json_integer_value(json_object_get(s->st, "reboots")) + 1));
}

void sim_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret)
{
        *ret = (struct sim_wd){ 0 };
        if (!strcmp(s->dialect, "nvue"))
                nvue_wd_config(s, port, prio, ret);
        else if (!strcmp(s->dialect, "sonic"))
                sonic_wd_config(s, port, prio, ret);
        else
                eos_wd_config(s, port, prio, ret);
}

/* The data plane runs up to now on the configuration it had, then the switch's timers fire. */
static void tick(struct sim *s)
{
        sim_watchdog_advance(s);
        if (!strcmp(s->dialect, "nvue"))
                nvue_tick(s);
        else if (!strcmp(s->dialect, "sonic"))
                sonic_tick(s);
        else
                eos_tick(s);
}

/* Kill the sshd process serving this connection: the client sees the session drop. */
static void drop_connection(void)
{
        pid_t pid = getppid();

        for (int depth = 0; depth < 8 && pid > 1; depth++) {
                char path[64], buf[512], comm[64] = "";
                int ppid = 0;
                FILE *f;

                snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
                f = fopen(path, "re");
                if (!f)
                        break;
                if (!fgets(buf, sizeof(buf), f))
                        buf[0] = '\0';
                fclose(f);
                char *l = strchr(buf, '('), *r = strrchr(buf, ')');
                if (l && r && r > l) {
                        snprintf(comm, sizeof(comm), "%.*s", (int)(r - l - 1), l + 1);
                        sscanf(r + 2, "%*c %d", &ppid);
                }
                if (!strncmp(comm, "sshd", 4)) {
                        kill(pid, SIGKILL);
                        break;
                }
                pid = ppid;
        }
        fprintf(stderr, "connection dropped\n");
        exit(255);
}

static bool matches(const json_t *faults, const char *key, const char *cmd)
{
        const char *pat = json_string_value(json_object_get(faults, key));

        return pat && *pat && strstr(cmd, pat);
}

/* Faults that act before the command; returns an exit status >= 0 to stop, -1 to go on. */
static int faults_before(const char *path, const char *cmd, int *bad_json)
{
        json_t *f = load_json(path);
        int rc = -1;

        if (!f)
                return -1;
        json_int_t seen = json_integer_value(json_object_get(f, "seen"));
        json_t *drop = json_object_get(f, "drop_after");
        json_object_set_new(f, "seen", json_integer(seen + 1));
        if (matches(f, "drop_match", cmd) && !json_is_true(json_object_get(f, "drop_after_run"))) {
                json_object_del(f, "drop_match");
                drop = json_integer(0);
                json_object_set_new(f, "drop_after", drop);
        }
        if (json_is_integer(drop) && seen >= json_integer_value(drop)) {
                if (!json_is_true(json_object_get(f, "drop_repeat")))
                        json_object_del(f, "drop_after");
                save_json(path, f);
                json_decref(f);
                drop_connection();
        }
        save_json(path, f);
        if (matches(f, "reject", cmd))
                rc = sim_fail("Error: command rejected by policy: '%s'", cmd);
        *bad_json = matches(f, "bad_json", cmd) ? 1 : matches(f, "reword", cmd) ? 2 : 0;
        json_int_t slow = json_integer_value(json_object_get(f, "slow_ms"));
        const char *slow_match = json_string_value(json_object_get(f, "slow_match"));
        bool slow_here = slow > 0 && (!slow_match || strstr(cmd, slow_match));
        json_decref(f);
        if (rc < 0 && slow_here) {
                struct timespec ts = { .tv_sec = slow / 1000, .tv_nsec = (slow % 1000) * 1000000 };
                nanosleep(&ts, NULL);
        }
        return rc;
}

/* drop_match + drop_after_run: the command ran, its reply is lost; with
 * drop_all_after, every later command drops too (the switch stays unreachable). */
static void faults_after(const char *path, const char *cmd)
{
        json_t *f = load_json(path);

        if (!f || !matches(f, "drop_match", cmd) || !json_is_true(json_object_get(f, "drop_after_run"))) {
                json_decref(f);
                return;
        }
        json_object_del(f, "drop_match");
        if (json_is_true(json_object_get(f, "drop_all_after"))) {
                json_object_set_new(f, "drop_after", json_integer(0));
                json_object_set_new(f, "drop_repeat", json_true());
        }
        save_json(path, f);
        json_decref(f);
        fflush(stdout);
        drop_connection();
}

static void log_command(struct sim *s)
{
        json_t *log = json_object_get(s->st, "log");

        json_object_set_new(s->st, "commands",
                            json_integer(json_integer_value(json_object_get(s->st, "commands")) + 1));
        if (s->mutated)
                json_object_set_new(s->st, "mutations",
                                    json_integer(json_integer_value(json_object_get(s->st, "mutations")) + 1));
        if (!json_is_array(log))
                return;
        json_array_append_new(log, json_string(s->cmd));
        while (json_array_size(log) > 200)
                json_array_remove(log, 0);
}

static int dispatch(struct sim *s)
{
        if (!strcmp(s->dialect, "nvue"))
                return nvue_run(s);
        if (!strcmp(s->dialect, "sonic"))
                return sonic_run(s);
        return eos_run(s);
}

/* Run one command with output captured, so a bad_json fault can mangle it. */
static int run_command(struct sim *s, char *line, int bad_json)
{
        char *out = NULL;
        size_t len = 0;
        FILE *mem = NULL, *saved = stdout;
        int rc;

        s->argc = sim_split(line, s->argv, SIM_ARGV_MAX);
        if (s->argc <= 0)
                return sim_fail("%% Invalid input");
        if (bad_json && (mem = open_memstream(&out, &len)))
                stdout = mem;
        rc = dispatch(s);
        if (mem) {
                fclose(mem);
                stdout = saved;
                if (bad_json == 2)
                        printf("Confirmation state: unknown\n");
                else
                        fwrite(out, 1, len / 2, stdout);        /* cut in the middle: not JSON any more */
                free(out);
        }
        return rc;
}

static int run_locked(const struct opts *o, const char *cmd, int bad_json)
{
        struct sim s = { .dialect = o->dialect, .state_path = o->state, .cmd = cmd };
        char *line = strdup(cmd);
        int rc;

        s.st = load_json(o->state);
        if (!s.st || !line) {
                free(line);
                return sim_fail("switchsim: cannot load state '%s'", o->state);
        }
        s.d = json_object_get(s.st, o->dialect);
        clock_frozen_at = json_number_value(json_object_get(s.st, "clock_frozen_at"));
        if (o->freeze && clock_frozen_at <= 0) {
                clock_frozen_at = wall_now();
                json_object_set_new(s.st, "clock_frozen_at", json_real(clock_frozen_at));
        }
        clock_offset_s = json_number_value(json_object_get(s.st, "clock_offset_s")) + o->advance;
        if (o->advance > 0)
                json_object_set_new(s.st, "clock_offset_s", json_real(clock_offset_s));
        tick(&s);
        if (o->tick || o->dump || o->reboot) {
                if (o->reboot)
                        reboot(&s);
                rc = o->traffic ? sim_traffic_set(s.st, o->traffic) : 0;
                if (o->dump)
                        sim_print_json(s.st);
        } else {
                rc = run_command(&s, line, bad_json);
                log_command(&s);
        }
        if (save_json(o->state, s.st) < 0)
                rc = sim_fail("switchsim: cannot save state '%s'", o->state);
        json_decref(s.st);
        free(line);
        return rc;
}

int main(int argc, char **argv)
{
        struct opts o = { 0 };
        char lockpath[4096], faultpath[4096];
        const char *cmd;
        int bad_json = 0;
        int fd, rc;

        if (parse_args(argc, argv, &o) < 0)
                return usage();
        if (o.init) {
                json_t *st = init_state(&o);
                rc = save_json(o.state, st) < 0 ? sim_fail("switchsim: cannot write '%s'", o.state) : 0;
                json_decref(st);
                return rc;
        }
        cmd = o.local ? o.cmd : getenv("SSH_ORIGINAL_COMMAND");
        if (!o.tick && !o.dump && !o.reboot && (!cmd || !*cmd))
                return sim_fail("switchsim: no command (interactive shells are not supported)");
        snprintf(faultpath, sizeof(faultpath), "%s.faults", o.state);
        snprintf(lockpath, sizeof(lockpath), "%s.lock", o.state);
        fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) < 0)
                return sim_fail("switchsim: cannot lock '%s': %s", lockpath, strerror(errno));
        rc = -1;
        if (!o.local && !o.tick && !o.dump && !o.reboot)
                rc = faults_before(faultpath, cmd, &bad_json);
        if (rc < 0)
                rc = run_locked(&o, cmd ? cmd : "", bad_json);
        if (!o.local && !o.tick && !o.dump && !o.reboot)
                faults_after(faultpath, cmd);
        close(fd);
        return rc;
}
