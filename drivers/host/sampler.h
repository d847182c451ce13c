/* SPDX-License-Identifier: MIT */
/*
 * The counter sampler: the congestion counters of a set of interfaces read every
 * period (counters.sample_ms, default 10 ms, 1-1000), so that a burst of tens of
 * milliseconds is seen that a poll of whole seconds averages away.
 *
 * What it reads, per interface, with handles kept open between samples (no process,
 * no socket and no file opened per sample):
 *   - the ethtool statistics the driver names as congestion counters (counters.h:
 *     pause per priority, pause duration, ECN marks, CNPs, discards, out of buffer):
 *     the string set is read once and again when the count changes or once a second
 *     (a set can change its names at the same count: mlx5 names the PFC priorities),
 *     every sample is one ETHTOOL_GSTATS whose count must be the one the names were
 *     read at (else the names are read again and the sample left out: race-free);
 *   - the RDMA hw_counters of the same table (counters.h), each file kept open and
 *     read again from offset 0 (sysfs shows the value anew on every read at 0);
 *   - the link's own drop counters (RTM_GETSTATS, IFLA_STATS_LINK_64: rx_dropped,
 *     tx_dropped, rx_missed_errors; what a veth has): one dump of every link when the
 *     sampled interfaces are at least half of them, else a GET each in one batch.
 *
 * Per counter it keeps: a histogram of its rate per sample since the sampler started
 * (events per second; a pause duration counter as the share of the sample it was
 * paused), the peak rate of the current and the last window (window_ms, 1 s: the poll
 * it replaces) with when it was seen and the window's mean, and for pause counters the
 * bursts: consecutive samples at or above SAMPLER_BURST_PPS pause frames per second (or
 * paused SAMPLER_BURST_SHARE of the sample), each with its start (wall clock), length,
 * count and peak, the last SAMPLER_BURSTS_MAX kept.
 *
 * The sampler is not thread-safe by itself; sampler_run() runs it on a thread of its
 * own and takes s->lock around every sample; readers take it too (sampler_lock()).
 */
#pragma once

#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/host/nl.h"
#include "policies/doctor/doctor.h"

#define SAMPLER_PERIOD_MS_DEFAULT 10
#define SAMPLER_PERIOD_MS_MIN 1
#define SAMPLER_PERIOD_MS_MAX 1000
#define SAMPLER_WINDOW_MS 1000          /* the window peaks and means are kept over */
#define SAMPLER_IFS_MAX 64
#define SAMPLER_SERIES_MAX 4096
#define SAMPLER_BURSTS_MAX 64
#define SAMPLER_BURST_PPS 1000.0        /* pause frames/s in one sample: doctor's pause_storm bound */
#define SAMPLER_BURST_SHARE 0.5         /* a pause duration counter: paused half of the sample or more */
#define SAMPLER_STRINGS_EVERY_MS 1000   /* the ethtool names are read again at least this often */
#define SAMPLER_BUCKETS 7

/* The histogram's upper bounds (Prometheus "le"): rates per second, and paused shares. */
extern const double sampler_rate_bounds[SAMPLER_BUCKETS];
extern const double sampler_share_bounds[SAMPLER_BUCKETS];

/* One counter of one interface. */
struct sampler_series {
        char ifname[IF_NAMESIZE];
        char name[48];                  /* the source's name: "rx_prio3_pause", "np_cnp_sent rdma:mlx5_0/1" */
        uint8_t kind;                   /* enum doctor_counter */
        int8_t prio;                    /* priority or queue, DOCTOR_PRIO_ANY */
        bool duration;                  /* counts microseconds paused (mlx5 rx_prioN_pause_duration) */
        bool have;
        uint64_t last;
        int64_t last_ns;                /* CLOCK_MONOTONIC of the last value */
        uint64_t resets;                /* times it went back (cleared): that sample left out */
        /* the histogram since start: per-sample rates (shares for a duration) */
        uint64_t bucket[SAMPLER_BUCKETS + 1];   /* not cumulative: bucket i counts bounds[i-1] < x <= bounds[i]; the last +Inf */
        uint64_t count;
        double sum;
        uint64_t total;                 /* what it counted since start */
        double max;                     /* the highest rate of one sample since start ... */
        int64_t max_ms;                 /* ... and when that sample began (wall clock ms) */
        /* the window now and the one before */
        int64_t w_start_ns;
        uint64_t w_delta;
        double w_dt, w_peak;
        int64_t w_peak_ms;              /* wall clock ms of the peak sample's start */
        bool last_window;               /* the one before is complete */
        double lw_peak, lw_mean;
        int64_t lw_peak_ms;
        /* a burst under way */
        bool in_burst;
        int64_t b_start_ns, b_end_ns, b_start_ms;
        uint64_t b_count;
        double b_peak;
        uint64_t bursts;                /* bursts ended since start */
};

/* One burst that ended: its counter and interface, and struct doctor_burst's figures. */
struct sampler_burst {
        char ifname[IF_NAMESIZE];
        struct doctor_burst b;
};

struct sampler_if;

struct sampler_opts {
        unsigned period_ms;             /* 0: SAMPLER_PERIOD_MS_DEFAULT */
        const char *sysfs_root;         /* NULL: "/sys" */
        const struct nl_transport *nl;  /* NULL: the kernel */
};

struct sampler {
        pthread_mutex_t lock;
        struct sampler_opts o;
        unsigned n_ifs;
        struct sampler_if *ifs;         /* owned */
        unsigned n;
        struct sampler_series *v;       /* owned, SAMPLER_SERIES_MAX */
        unsigned n_bursts;              /* bursts recorded (the last SAMPLER_BURSTS_MAX kept in ring) */
        struct sampler_burst ring[SAMPLER_BURSTS_MAX];
        uint64_t samples, overruns;     /* samples taken; periods a sample did not fit in */
        int fd;                         /* the ethtool socket */
        struct nl *nl;                  /* the RTM_GETSTATS handle, NULL when it could not be opened */
        bool st_dump;                   /* one dump of every link (most are sampled), else a GET each */
        void *ebuf;                     /* the ETHTOOL_GSTATS buffer */
        uint32_t ebuf_n;
        /* sampler_run's thread */
        pthread_t th;
        bool running;
        volatile bool stop;
};

/* A sampler over ifnames[0..n) (at most SAMPLER_IFS_MAX). 0 or -errno with e set. */
int sampler_open(struct sampler *s, const struct sampler_opts *o, const char (*ifnames)[IF_NAMESIZE], unsigned n,
                 struct errbuf *e);
void sampler_close(struct sampler *s);

/* One sample of every interface now (the caller holds no lock: sampler_sample takes it). */
void sampler_sample(struct sampler *s);

/* Sample every period on a thread of its own until sampler_stop(). 0 or -errno. */
int sampler_start(struct sampler *s);
void sampler_stop(struct sampler *s);

void sampler_lock(struct sampler *s);
void sampler_unlock(struct sampler *s);

/*
 * The accounting, for one value of a series read at mono_ns (CLOCK_MONOTONIC) and
 * wall_ms (the epoch): pure, so that tests drive it with a clock of their own. A burst
 * that ends is appended to s's ring.
 */
void sampler_account(struct sampler *s, struct sampler_series *x, uint64_t v, int64_t mono_ns, int64_t wall_ms);
/* The series of ifname/name/prio, added when new (NULL: full). */
struct sampler_series *sampler_series_get(struct sampler *s, const char *ifname, const char *name, int kind,
                                          int prio, bool duration);
/*
 * Bursts of ifname that began at or after since_ms (wall clock), into ret[0..max), newest last;
 * a burst still under way counts with what it has so far. Returns how many. Caller holds the lock.
 */
unsigned sampler_bursts(const struct sampler *s, const char *ifname, int64_t since_ms, struct doctor_burst *ret,
                        unsigned max);
/* The bucket of x (0..SAMPLER_BUCKETS; SAMPLER_BUCKETS: above the last bound). */
unsigned sampler_bucket(const double *bounds, double x);
