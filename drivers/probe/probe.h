/* SPDX-License-Identifier: MIT */
/*
 * drivers/probe: bandwidth probes, a second small vtable beside driver_ops. "verbs"
 * moves RDMA WRITEs over an RC QP (ib_write_bw class), "tcp" streams over TCP where
 * no RDMA device backs the interface. Both measure against a peer running
 * probe-server (probe_server.h).
 *
 * Owns: parameters (probe_params.c), pinning (probe_pin.c), measurements
 * (probe.c), the engines (probe_tcp.c, probe_verbs*.c), the responder, the gate, the
 * API's probe and fabric bodies. Calls go down: probe.c -> probe_pin.c, the engines
 * -> probe_params.c -> probe_net.c; the responder -> the engines' serve functions.
 * May call: drivers/driver.h, drivers/host (nl.h routes, sysfs.h GIDs), policies/ (the
 * JSON validator), common/.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/errbuf.h"

#define PROBE_PEER_MAX 128
#define PROBE_STREAMS_MAX 16            /* TCP streams or verbs QPs per probe */
#define PROBE_RUNS_MAX 15               /* runs per measurement (median of N) */
#define PROBE_MESSAGE_MIN 1
#define PROBE_MESSAGE_MAX (16u << 20)   /* bytes per message / RDMA WRITE */
#define PROBE_DURATION_MAX_MS 600000u
#define PROBE_ITERATIONS_MAX 100000000u
#define PROBE_TCP_ITERATION_BOUND_MS 120000u    /* bound of a tcp run counted in iterations */
#define PROBE_VERBS_ITERATION_BOUND_MS 300000u  /* bound of a verbs run counted in iterations */
#define PROBE_DEFAULT_PORT 18515
#define PROBE_NETDEV_MAX 16             /* IF_NAMESIZE */
#define PROBE_ADDR_MAX 48               /* INET6_ADDRSTRLEN and a zone */

enum probe_mode {
        PROBE_MODE_AUTO,
        PROBE_MODE_VERBS,
        PROBE_MODE_TCP,
        PROBE_MODE_MAX,
};

struct probe_params {
        char peer[PROBE_PEER_MAX];      /* "host:port" of the peer's probe-server */
        unsigned duration_ms;           /* measure for this long (0: use iterations) */
        unsigned iterations;            /* verbs: RDMA WRITEs per QP when duration_ms is 0 */
        unsigned message_size;          /* bytes per message / write */
        unsigned streams;               /* TCP streams or verbs QPs, >= 1 */
        int gid_index;                  /* verbs: -1 = choose the RoCEv2 GID of the local IP */
        int traffic_class;              /* verbs/tcp: IP TOS byte (DSCP << 2), -1 = leave */
        char device[64];                /* verbs: RDMA device name, "" = the one backing the route */
        /* Extensions (probe_params_init sets them): */
        char source[64];                /* local address to bind, "" = the route's choice */
        char sysfs_root[256];           /* "/sys"; a fake tree in unit tests */
        unsigned timeout_ms;            /* connect and handshake bound (default 10000) */
        int priority;                   /* tcp: SO_PRIORITY, verbs: the address handle's SL; 0-7, -1 = leave */
        char netdev[PROBE_NETDEV_MAX];  /* local interface to leave by (SO_BINDTODEVICE), "" = the route's */
        /*
         * A measurement for a client of the API: a failure before the peer's responder
         * answered (no route, no connection, no probe hello back) reads only
         * PROBE_NO_RESPONDER and ends timeout_ms after its run began, whatever the
         * cause: a closed port, a silent host, another service and an unreachable
         * network look and last the same. The log and the agent's own CLI keep the cause.
         */
        bool opaque;
        /*
         * How long a run waits its turn at a responder that answers busy (its sessions
         * or its memory taken: ERROR EBUSY), asking again every PROBE_BUSY_RETRY_MS;
         * 0: a busy responder fails the run at once. A transaction's gate waits
         * PROBE_BUSY_WAIT_MS, so a fleet rollback whose nodes probe one peer together
         * is not defeated by its own congestion.
         */
        unsigned busy_wait_ms;
};

#define PROBE_BUSY_WAIT_MS 60000u
#define PROBE_BUSY_RETRY_MS 500u

#define PROBE_NO_RESPONDER "no probe responder answered"

/*
 * What a measurement runs on, resolved once (probe_pin): two measurements are
 * comparable only when their paths are equal (probe_path_diff).
 */
struct probe_path {
        enum probe_mode mode;                   /* verbs or tcp, never auto */
        char peer[PROBE_PEER_MAX];              /* the probe-server, as given */
        char source[PROBE_ADDR_MAX];            /* local address */
        char netdev[PROBE_NETDEV_MAX];          /* local interface the probe leaves by */
        char device[64];                        /* verbs: RDMA device, "" for tcp */
        int gid_index;                          /* verbs: local GID index, -1 for tcp */
        char gid[PROBE_ADDR_MAX];               /* verbs: the local GID, "" for tcp */
        int dscp;                               /* 0-63, -1 = TOS left as the kernel sets it */
        int priority;                           /* 0-7, -1 = left */
        unsigned streams;
        unsigned message_size;
};

struct probe_result {
        char mode[8];                   /* "verbs" or "tcp" */
        double gbps;                    /* bytes * 8 / seconds / 1e9 */
        uint64_t bytes;
        double seconds;
        unsigned iterations;
        unsigned streams;               /* streams or QPs actually used */
        char device[64];                /* verbs: RDMA device used */
        int gid_index;                  /* verbs: local GID index used, -1 for tcp */
        char gid[PROBE_ADDR_MAX];       /* verbs: the local GID used */
        char source[PROBE_ADDR_MAX];    /* the local address the run used */
        int dscp;                       /* as the kernel reports it for the data path: TOS >> 2 (tcp, */
        int priority;                   /* getsockopt) or GRH traffic class >> 2 and SL (verbs, ibv_query_qp) */
        double rtt_ms;                  /* the path's base round trip (TCP_INFO min_rtt of the data streams, or of
                                           the control connection for verbs), 0 = unknown */
};

struct probe_ops {
        const char *name;
        /* Can this host run the probe? (verbs: an RDMA device exists.) */
        bool (*available)(const struct probe_params *p);
        int (*run)(const struct probe_params *p, struct probe_result *ret, struct errbuf *e);
};

/*
 * All runs of one measurement, for the gate and the journal. The median is over
 * the runs; a measurement is good only when every run succeeded.
 */
struct probe_measurement {
        enum probe_mode mode;                   /* the mode that ran (auto resolved) */
        struct probe_path path;                 /* what every run ran on (pinned before the first) */
        unsigned n_runs;                        /* runs attempted */
        unsigned n_ok;                          /* runs that succeeded */
        struct probe_result runs[PROBE_RUNS_MAX];
        int run_error[PROBE_RUNS_MAX];          /* 0 or -errno, per run */
        double median_gbps;                     /* meaningful when ok */
        bool ok;                                /* every run succeeded */
        char error[512];                        /* the first failure, "" when ok */
        /* params.opaque: no responder answered (error is PROBE_NO_RESPONDER); cause: why, for the log */
        bool unanswered;
        char cause[256];
};

extern const struct probe_ops probe_tcp_ops;
extern const struct probe_ops probe_verbs_ops;

/* Defaults: 3000 ms, 65536-byte messages, 1 stream, automatic GID, TOS and priority untouched. */
void probe_params_init(struct probe_params *p);

/* "auto", "verbs", "tcp" <-> enum. from_string returns -EINVAL for anything else. */
const char *probe_mode_name(enum probe_mode m);
int probe_mode_from_string(const char *s, enum probe_mode *ret);

/* The probe for a concrete mode (verbs, tcp); NULL for auto. */
const struct probe_ops *probe_ops_for(enum probe_mode m);

/* Validate params (ranges, peer syntax). -EINVAL with the offending option in e. */
int probe_params_check(const struct probe_params *p, struct errbuf *e);

/*
 * Pin a probe once, before any traffic: the route to the peer (source address and
 * interface; p->netdev and p->source constrain it), the mode (`auto`: verbs when a
 * RoCE GID of an RDMA device carries the source address, else tcp) and for verbs
 * the device and GID index. *ret are params that run exactly that path, *ret_path
 * says what it is. When `auto` resolves to tcp although this node has an RDMA
 * device, warning[0..wsize) says so ("" otherwise; warning may be NULL). Returns 0
 * or -errno with e filled (no route, no GID for verbs, a device that is not the
 * interface of the source).
 */
int probe_pin(const struct probe_params *p, enum probe_mode m, struct probe_params *ret,
              struct probe_path *ret_path, char *warning, size_t wsize, struct errbuf *e);

/*
 * Do two paths differ in anything that makes their rates incomparable (mode,
 * peer, interface, device, GID index and GID, DSCP, priority, streams, message
 * size)? Writes the first difference into buf ("mode: verbs vs tcp") and returns
 * true; false when equal.
 */
bool probe_path_diff(const struct probe_path *a, const struct probe_path *b, char *buf, size_t size);

/* {"mode","peer","source","interface","device","gid_index","gid","dscp","priority","streams",
 *  "message_size"} (device/gid null for tcp, dscp/priority null when left). New reference. */
json_t *probe_path_to_json(const struct probe_path *p);

/* The same object back (the validator's path stack names errors: "$.measurement.path.mode"). */
struct jsonv;
int probe_path_from_json(struct jsonv *v, const json_t *j, struct probe_path *ret);

struct probe_addr;

/*
 * The engines' first step: parse p->peer and open the control connection to the
 * peer's probe-server (bound to p->source, within p->timeout_ms). Returns the fd
 * (the caller closes it) and fills *ret_peer, or -errno with e filled.
 */
int probe_connect_control(const struct probe_params *p, struct probe_addr *ret_peer, struct errbuf *e);

/*
 * A failure before the peer's responder said anything (the route, the connection,
 * the hello and its first answer): mark e so (its where becomes "probe responder",
 * the cause stays in its message); unanswered tells such a failure. A failure the
 * responder itself reported (a PROBE_OOB_ERROR, where "probe server") is not one.
 */
void probe_mark_unanswered(struct errbuf *e);
bool probe_unanswered(const struct errbuf *e);

/* What is left of timeout_ms since started_ns (probe_now_ns), at least 1 ms. */
unsigned probe_left_ms(uint64_t started_ns, unsigned timeout_ms);

/* One run in `mode` (auto resolved first). *ret written on success only. */
int probe_run(const struct probe_params *p, enum probe_mode mode,
              struct probe_result *ret, struct errbuf *e);

/*
 * Who wants to hear of each run as it ends (a program's progress line): run_done
 * is called after run i (0-based) of runs with its result (r: 0 or -errno; res is
 * meaningful when r is 0). The probe itself never prints.
 */
struct probe_observer {
        void (*run_done)(void *userdata, unsigned i, unsigned runs, const struct probe_result *res, int r);
        void *userdata;
};

/* probe_measure, telling obs (may be NULL) of every run. */
int probe_measure_observed(const struct probe_params *p, enum probe_mode mode, unsigned runs,
                           const struct probe_observer *obs, struct probe_measurement *ret,
                           struct errbuf *e);

/*
 * `runs` runs (1..PROBE_RUNS_MAX) and their median, pinned first (probe_pin).
 * Returns 0 when every run succeeded, else the first -errno with e filled. *ret
 * is written in both cases (failed runs are part of the journal's record).
 */
int probe_measure(const struct probe_params *p, enum probe_mode mode, unsigned runs,
                  struct probe_measurement *ret, struct errbuf *e);

/*
 * The same over params probe_pin() returned and their path: the transaction pins
 * once and measures its baseline and post-change with this. A run that did not
 * run on `path` (another device, GID, source, DSCP) fails. obs (may be NULL) hears
 * of every run.
 */
int probe_measure_pinned(const struct probe_params *pinned, const struct probe_path *path, unsigned runs,
                         const struct probe_observer *obs, struct probe_measurement *ret, struct errbuf *e);

/* The median of n values (n >= 1); v is not modified. NAN when n is 0. */
double probe_median(const double *v, unsigned n);

/* A rate as JSON: the number, or null when it is not finite (not measured). New reference. */
json_t *probe_json_gbps(double v);
/* A round trip in ms, to the microsecond, or null when unknown (0). */
json_t *probe_json_rtt(double ms);
/* The lowest base round trip of a measurement's runs, ms; 0 when none said. */
double probe_measurement_rtt_ms(const struct probe_measurement *m);

/* {"mode","path":{...},"ok","median_gbps","runs":[{"gbps","bytes","seconds",...}|{"error"}],"error"}. New reference. */
json_t *probe_measurement_to_json(const struct probe_measurement *m);
