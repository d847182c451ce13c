/* SPDX-License-Identifier: MIT */
/* The counter sampler: congestion counters every period, peaks, histograms and bursts (see sampler.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "drivers/host/counters.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/iface.h"
#include "drivers/host/link.h"
#include "common/clock.h"
#include "drivers/host/sampler.h"
#include "drivers/host/sysfs.h"

#define ETHTOOL_STATS_MAX 16384         /* as counters.c: a device reporting more is not believed */
#define ETHTOOL_SLACK_MIN 256
#define IF_COUNTERS_MAX 128             /* sampled counters per interface, each source */
#define RTNL_COUNTERS 3

const double sampler_rate_bounds[SAMPLER_BUCKETS] = { 0, 10, 100, 1000, 10000, 100000, 1000000 };
const double sampler_share_bounds[SAMPLER_BUCKETS] = { 0, 0.01, 0.1, 0.25, 0.5, 0.75, 1 };

struct sampler_if {
        char name[IF_NAMESIZE];
        char kdrv[32];
        int ifindex;                    /* 0: not known (no link counters) */
        /* ethtool: the names read at n_stats entries; the wanted ones by index */
        uint32_t n_stats;               /* the count the names were read at */
        int64_t names_ns;               /* when they were read, 0 never */
        bool stale;                     /* a GSTATS answered another count: read them again */
        unsigned n_et;
        uint32_t et_idx[IF_COUNTERS_MAX];
        unsigned et_series[IF_COUNTERS_MAX];
        /* RDMA hw_counters: files kept open */
        unsigned n_rd;
        int rd_fd[IF_COUNTERS_MAX];
        unsigned rd_series[IF_COUNTERS_MAX];
        /* the link's drops (RTM_GETSTATS) */
        unsigned st_series[RTNL_COUNTERS];
        bool st_mapped;
};

unsigned sampler_bucket(const double *bounds, double x)
{
        unsigned i = 0;

        while (i < SAMPLER_BUCKETS && x > bounds[i])
                i++;
        return i;
}

void sampler_lock(struct sampler *s)
{
        pthread_mutex_lock(&s->lock);
}

void sampler_unlock(struct sampler *s)
{
        pthread_mutex_unlock(&s->lock);
}

/* ---- the accounting ---- */

static bool pause_kind(const struct sampler_series *x)
{
        return x->kind == DOCTOR_PAUSE_RX || x->kind == DOCTOR_PAUSE_TX;
}

static void burst_of(const struct sampler_series *x, struct doctor_burst *b)
{
        double len_s = (double)(x->b_end_ns - x->b_start_ns) / 1e9;

        *b = (struct doctor_burst){ .kind = x->kind, .prio = x->prio, .duration = x->duration,
                                    .start_ms = x->b_start_ms, .count = x->b_count, .peak_per_s = x->b_peak,
                                    .length_ms = (uint32_t)(len_s * 1000 + 0.5) };
        snprintf(b->name, sizeof(b->name), "%s", x->name);
}

static void burst_end(struct sampler *s, struct sampler_series *x)
{
        struct sampler_burst *r = &s->ring[s->n_bursts % SAMPLER_BURSTS_MAX];

        snprintf(r->ifname, sizeof(r->ifname), "%s", x->ifname);
        burst_of(x, &r->b);
        s->n_bursts++;
        x->bursts++;
        x->in_burst = false;
}

void sampler_account(struct sampler *s, struct sampler_series *x, uint64_t v, int64_t now_ns, int64_t now_ms)
{
        uint64_t delta;
        double dt, rate, hist;
        int64_t start_ms;
        bool hot;

        if (!x->have || v < x->last || now_ns <= x->last_ns) {
                if (x->have && v < x->last) {
                        x->resets++;
                        if (x->in_burst)
                                burst_end(s, x);
                }
                x->have = true;
                x->last = v;
                x->last_ns = now_ns;
                if (!x->w_start_ns)
                        x->w_start_ns = now_ns;
                return;
        }
        delta = v - x->last;
        dt = (double)(now_ns - x->last_ns) / 1e9;
        start_ms = now_ms - (int64_t)(dt * 1000 + 0.5);         /* the sample's interval began then */
        rate = (double)delta / dt;
        hist = x->duration ? (double)delta / 1e6 / dt : rate;   /* microseconds paused per second: the share */
        x->bucket[sampler_bucket(x->duration ? sampler_share_bounds : sampler_rate_bounds, hist)]++;
        x->count++;
        x->sum += hist;
        x->total += delta;
        if (now_ns - x->w_start_ns >= (int64_t)SAMPLER_WINDOW_MS * 1000000) {
                x->last_window = true;
                x->lw_peak = x->w_peak;
                x->lw_peak_ms = x->w_peak_ms;
                x->lw_mean = x->w_dt > 0 ? (double)x->w_delta / x->w_dt : 0;
                x->w_start_ns = x->last_ns;
                x->w_delta = 0;
                x->w_dt = x->w_peak = 0;
                x->w_peak_ms = 0;
        }
        x->w_delta += delta;
        x->w_dt += dt;
        if (rate > x->max || !x->max_ms) {
                x->max = rate;
                x->max_ms = start_ms;
        }
        if (rate > x->w_peak || !x->w_peak_ms) {
                x->w_peak = rate;
                x->w_peak_ms = start_ms;
        }
        hot = pause_kind(x) && (x->duration ? hist >= SAMPLER_BURST_SHARE : rate >= SAMPLER_BURST_PPS);
        if (hot) {
                if (!x->in_burst) {
                        x->in_burst = true;
                        x->b_start_ns = x->last_ns;
                        x->b_start_ms = start_ms;
                        x->b_count = 0;
                        x->b_peak = 0;
                }
                x->b_count += delta;
                x->b_end_ns = now_ns;
                if (hist > x->b_peak)
                        x->b_peak = hist;
        } else if (x->in_burst) {
                burst_end(s, x);
        }
        x->last = v;
        x->last_ns = now_ns;
}

struct sampler_series *sampler_series_get(struct sampler *s, const char *ifname, const char *name, int kind,
                                          int prio, bool duration)
{
        struct sampler_series *x;

        for (unsigned i = 0; i < s->n; i++)
                if (s->v[i].prio == prio && streq(s->v[i].name, name) && streq(s->v[i].ifname, ifname))
                        return &s->v[i];
        if (s->n >= SAMPLER_SERIES_MAX)
                return NULL;
        x = &s->v[s->n++];
        *x = (struct sampler_series){ .kind = (uint8_t)kind, .prio = (int8_t)prio, .duration = duration };
        snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
        snprintf(x->name, sizeof(x->name), "%s", name);
        return x;
}

unsigned sampler_bursts(const struct sampler *s, const char *ifname, int64_t since_ms, struct doctor_burst *ret,
                        unsigned max)
{
        unsigned n = 0, first = s->n_bursts > SAMPLER_BURSTS_MAX ? s->n_bursts - SAMPLER_BURSTS_MAX : 0;

        for (unsigned i = first; i < s->n_bursts && n < max; i++) {
                const struct sampler_burst *r = &s->ring[i % SAMPLER_BURSTS_MAX];

                if (r->b.start_ms >= since_ms && (!ifname || streq(r->ifname, ifname)))
                        ret[n++] = r->b;
        }
        for (unsigned i = 0; i < s->n && n < max; i++) {
                const struct sampler_series *x = &s->v[i];

                if (x->in_burst && x->b_start_ms >= since_ms && (!ifname || streq(x->ifname, ifname)))
                        burst_of(x, &ret[n++]);
        }
        return n;
}

/* ---- ethtool: names once, values every sample ---- */

/* The kernel's SIOCETHTOOL, or the test seam. */
static int et_call(struct sampler *s, const char *ifname, void *cmd)
{
        return ethtool_call(s->fd, ifname, cmd, 0);
}

static int et_count(struct sampler *s, const char *ifname, uint32_t *ret)
{
        union {
                struct ethtool_sset_info hdr;
                unsigned char raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
        } x = { 0 };
        int r;

        x.hdr.cmd = ETHTOOL_GSSET_INFO;
        x.hdr.sset_mask = 1ull << ETH_SS_STATS;
        r = et_call(s, ifname, &x);
        if (r < 0)
                return r;
        *ret = (x.hdr.sset_mask & (1ull << ETH_SS_STATS)) ? x.hdr.data[0] : 0;
        return 0;
}

/* Room for n entries and their slack in the shared GSTATS buffer. */
static int et_room(struct sampler *s, uint32_t n)
{
        uint32_t cap = n + (n > ETHTOOL_SLACK_MIN ? n : ETHTOOL_SLACK_MIN);
        void *p;

        if (cap <= s->ebuf_n)
                return 0;
        p = realloc(s->ebuf, sizeof(struct ethtool_gstrings) + (size_t)cap * ETH_GSTRING_LEN);
        if (!p)
                return -ENOMEM;
        s->ebuf = p;
        s->ebuf_n = cap;
        return 0;
}

/* Which of the driver's names the sampler follows: its congestion counters and pause durations. */
static int wanted(const char *kdrv, const char *name, int *ret_prio, bool *ret_duration)
{
        int prio, tc, kind;

        *ret_duration = false;
        if (!counters_match(kdrv, name, &prio, &tc))
                return -1;
        if ((kind = counters_duration(name, ret_prio)) >= 0) {
                *ret_duration = true;
                return kind;
        }
        kind = counters_kind(name, &prio, &tc);
        if (kind < 0 || kind == DOCTOR_PRIO_BYTES || kind == DOCTOR_RDMA_BYTES)
                return -1;
        *ret_prio = tc >= 0 ? tc : prio;        /* doctor's index: a per-TC counter's TC */
        return kind;
}

/* The names at n entries: which index is which series. 0 with f->n_stats = n, -EAGAIN when n moved. */
static int et_names(struct sampler *s, struct sampler_if *f, uint32_t n)
{
        struct ethtool_gstrings *g;
        char name[ETH_GSTRING_LEN + 1];
        int r;

        f->n_et = 0;
        f->n_stats = 0;
        if (n == 0 || n > ETHTOOL_STATS_MAX)
                return n ? -E2BIG : 0;
        if ((r = et_room(s, n)) < 0)
                return r;
        g = s->ebuf;
        *g = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n };
        if ((r = et_call(s, f->name, g)) < 0)
                return r;
        if (g->len != n)
                return -EAGAIN;
        for (uint32_t i = 0; i < n && f->n_et < IF_COUNTERS_MAX; i++) {
                struct sampler_series *x;
                bool duration;
                size_t len;
                int prio, kind;

                memcpy(name, g->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                name[ETH_GSTRING_LEN] = '\0';
                len = strlen(name);
                while (len && name[len - 1] == ' ')     /* mlx5 @ 9ac669fc: a trailing space (counters.c) */
                        name[--len] = '\0';
                if ((kind = wanted(f->kdrv, name, &prio, &duration)) < 0 ||
                    !(x = sampler_series_get(s, f->name, name, kind, prio, duration)))
                        continue;
                f->et_idx[f->n_et] = i;
                f->et_series[f->n_et++] = (unsigned)(x - s->v);
        }
        f->n_stats = n;
        return 0;
}

static void et_sample(struct sampler *s, struct sampler_if *f, int64_t now_ns)
{
        struct ethtool_stats *st;
        uint32_t n = 0;
        int64_t now_wall;

        /* the names: at the start, once a second, and at once when the count moved (no retry a sample) */
        if (!f->names_ns || f->stale || now_ns - f->names_ns >= (int64_t)SAMPLER_STRINGS_EVERY_MS * 1000000) {
                f->names_ns = now_ns;
                f->stale = false;
                if (et_count(s, f->name, &n) < 0)
                        return;         /* no statistics (-EOPNOTSUPP): asked again in a second */
                if (et_names(s, f, n) == -EAGAIN)
                        f->stale = true;
                if (!f->n_et)
                        return;
        }
        if (!f->n_et)
                return;
        st = s->ebuf;
        *st = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = f->n_stats };
        if (et_call(s, f->name, st) < 0)
                return;
        now_ns = clock_mono_ns();
        now_wall = clock_wall_ms();
        if (st->n_stats != f->n_stats) {        /* the set changed under us: names first, this sample left out */
                f->stale = true;
                return;
        }
        for (unsigned i = 0; i < f->n_et; i++)
                sampler_account(s, &s->v[f->et_series[i]], st->data[f->et_idx[i]], now_ns, now_wall);
}

/* ---- RDMA hw_counters: files kept open, read again at offset 0 ---- */

struct rd_ctx {
        struct sampler *s;
        struct sampler_if *f;
        const char *root;
};

static void rd_port(const char *dev, const char *port, void *data)
{
        struct rd_ctx *c = data;
        char dir[PATH_MAX], path[PATH_MAX + 256], name[48];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%s/hw_counters", c->root, dev, port);
        if (!(d = opendir(dir)))
                return;
        while ((de = readdir(d)) && c->f->n_rd < IF_COUNTERS_MAX) {
                struct sampler_series *x;
                bool duration;
                int prio, kind, fd;

                if (de->d_name[0] == '.' || (kind = wanted(c->f->kdrv, de->d_name, &prio, &duration)) < 0 ||
                    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
                        continue;
                snprintf(name, sizeof(name), "%.24s rdma:%.10s/%.4s", de->d_name, dev, port);
                if (!(x = sampler_series_get(c->s, c->f->name, name, kind, prio, duration)))
                        continue;
                if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                        continue;
                c->f->rd_fd[c->f->n_rd] = fd;
                c->f->rd_series[c->f->n_rd++] = (unsigned)(x - c->s->v);
        }
        closedir(d);
}

static void rd_sample(struct sampler *s, struct sampler_if *f)
{
        for (unsigned i = 0; i < f->n_rd; i++) {
                char buf[32];
                ssize_t k = pread(f->rd_fd[i], buf, sizeof(buf) - 1, 0);
                char *end;
                unsigned long long v;

                if (k <= 0)
                        continue;
                buf[k] = '\0';
                v = strtoull(buf, &end, 10);
                if (end != buf)
                        sampler_account(s, &s->v[f->rd_series[i]], v, clock_mono_ns(), clock_wall_ms());
        }
}

/*
 * ---- the links' drops: RTM_GETSTATS ----
 * One dump of every link when the sampled interfaces are at least half the links of the
 * namespace (a switch's ports), else a GET per interface in one batch (a container
 * host's hundreds of veths are not read for its two NICs): whichever asks the kernel
 * for fewer links. Measured in bench/counter_sampler.sh.
 */

static const char *const st_names[RTNL_COUNTERS] = { "rx_dropped", "tx_dropped", "rx_missed_errors" };

struct st_ctx {
        struct sampler *s;
        const unsigned *asked;          /* the k-th request's interface */
        int64_t now_ns, now_ms;
};

static int st_reply(const struct nlmsghdr *nlh, unsigned k, void *data)
{
        struct st_ctx *c = data;
        struct sampler_if *f = &c->s->ifs[c->asked[k]];
        const struct if_stats_msg *m = mnl_nlmsg_get_payload(nlh);
        const struct nlattr *a;

        if (nlh->nlmsg_type != RTM_NEWSTATS || mnl_nlmsg_get_payload_len(nlh) < sizeof(*m) ||
            (int)m->ifindex != f->ifindex)
                return 0;
        mnl_attr_for_each(a, nlh, sizeof(*m)) {
                struct rtnl_link_stats64 st;
                uint64_t v[RTNL_COUNTERS];

                if (mnl_attr_get_type(a) != IFLA_STATS_LINK_64 || mnl_attr_get_payload_len(a) < sizeof(st))
                        continue;
                memcpy(&st, mnl_attr_get_payload(a), sizeof(st));
                v[0] = st.rx_dropped;
                v[1] = st.tx_dropped;
                v[2] = st.rx_missed_errors;
                for (unsigned i = 0; i < RTNL_COUNTERS; i++)
                        sampler_account(c->s, &c->s->v[f->st_series[i]], v[i], c->now_ns, c->now_ms);
        }
        return 0;
}

/* The dump's replies: every link, the sampled ones accounted. */
static int st_dump_cb(const struct nlmsghdr *nlh, void *data)
{
        struct st_ctx *c = data;
        const struct if_stats_msg *m = mnl_nlmsg_get_payload(nlh);

        if (nlh->nlmsg_type != RTM_NEWSTATS || mnl_nlmsg_get_payload_len(nlh) < sizeof(*m))
                return MNL_CB_OK;
        for (unsigned i = 0; i < c->s->n_ifs; i++)
                if (c->s->ifs[i].st_mapped && c->s->ifs[i].ifindex == (int)m->ifindex) {
                        unsigned k = i;

                        c->asked = &k;
                        st_reply(nlh, 0, c);
                        c->asked = NULL;
                        break;
                }
        return MNL_CB_OK;
}

static void st_dump(struct sampler *s)
{
        struct st_ctx c = { s, NULL, clock_mono_ns(), clock_wall_ms() };
        struct nlmsghdr *nlh = nl_msg_new(s->nl, RTM_GETSTATS, NLM_F_DUMP);
        struct if_stats_msg *m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
        struct errbuf e = { 0 };

        m->family = AF_UNSPEC;
        m->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
        if (nl_talk(s->nl, nlh, st_dump_cb, &c, "link statistics", &e) < 0) {
                nl_close(s->nl);        /* not offered here (a model): not asked again */
                s->nl = NULL;
        }
}

static void st_sample(struct sampler *s)
{
        unsigned asked[SAMPLER_IFS_MAX], n = 0;
        int err[SAMPLER_IFS_MAX];
        struct st_ctx c = { s, asked, 0, 0 };
        struct errbuf e = { 0 };
        int r = 0;

        if (s->nl && s->st_dump)
                return st_dump(s);
        for (unsigned i = 0; s->nl && r >= 0 && i < s->n_ifs; i++) {
                struct nlmsghdr *nlh;
                struct if_stats_msg *m;

                if (!s->ifs[i].st_mapped)
                        continue;
                nlh = nl_msg_new(s->nl, RTM_GETSTATS, 0);
                m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
                m->family = AF_UNSPEC;
                m->ifindex = (uint32_t)s->ifs[i].ifindex;
                m->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
                r = nl_batch_add(s->nl, nlh, &e);
                asked[n++] = i;
        }
        if (!n)
                return;
        c.now_ns = clock_mono_ns();
        c.now_ms = clock_wall_ms();
        if (r >= 0)
                r = nl_batch_run(s->nl, "link statistics", st_reply, &c, err, NULL, &e);
        if (r < 0 || err[0] == -EOPNOTSUPP || err[0] == -EINVAL) {
                nl_close(s->nl);        /* not offered here (a model): not asked again */
                s->nl = NULL;
        }
}

/* ---- the sampler ---- */

static void open_if(struct sampler *s, struct sampler_if *f, const char *root)
{
        struct rd_ctx c = { s, f, root };
        struct link_info l;
        struct errbuf e = { 0 };

        iface_kernel_driver(f->name, root, NULL, f->kdrv, sizeof(f->kdrv));
        if (s->nl && link_rtnl_get(s->nl, 0, f->name, &l, &e) >= 0)
                f->ifindex = l.ifindex;
        if (f->ifindex > 0) {
                f->st_mapped = true;
                for (unsigned k = 0; k < RTNL_COUNTERS; k++) {
                        struct sampler_series *x = sampler_series_get(s, f->name, st_names[k], DOCTOR_DISCARD,
                                                                      DOCTOR_PRIO_ANY, false);

                        if (!x) {
                                f->st_mapped = false;
                                break;
                        }
                        f->st_series[k] = (unsigned)(x - s->v);
                }
        }
        sysfs_rdma_ports(root, f->name, rd_port, &c);
}

static int count_link(const struct link_info *l, void *data)
{
        ++*(unsigned *)data;
        return 0;
}

int sampler_open(struct sampler *s, const struct sampler_opts *o, const char (*ifnames)[IF_NAMESIZE], unsigned n,
                 struct errbuf *e)
{
        const char *root;

        *s = (struct sampler){ .o = *o, .fd = -1 };
        pthread_mutex_init(&s->lock, NULL);
        if (!s->o.period_ms)
                s->o.period_ms = SAMPLER_PERIOD_MS_DEFAULT;
        if (s->o.period_ms < SAMPLER_PERIOD_MS_MIN || s->o.period_ms > SAMPLER_PERIOD_MS_MAX || n > SAMPLER_IFS_MAX)
                return errbuf_set(e, EINVAL, NULL, "counter sampler: period %u ms (allowed %d-%d), %u interfaces "
                                  "(at most %d)", s->o.period_ms, SAMPLER_PERIOD_MS_MIN, SAMPLER_PERIOD_MS_MAX, n,
                                  SAMPLER_IFS_MAX);
        root = s->o.sysfs_root && *s->o.sysfs_root ? s->o.sysfs_root : "/sys";
        s->v = calloc(SAMPLER_SERIES_MAX, sizeof(*s->v));
        s->ifs = calloc(n ? n : 1, sizeof(*s->ifs));
        if (!s->v || !s->ifs) {
                sampler_close(s);
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        }
        s->fd = counters_socket();
        if (nl_open(s->o.nl, NETLINK_ROUTE, &s->nl, e) < 0)
                s->nl = NULL;           /* no link counters; the others still */
        for (unsigned i = 0; i < n; i++) {
                snprintf(s->ifs[i].name, sizeof(s->ifs[i].name), "%s", ifnames[i]);
                open_if(s, &s->ifs[s->n_ifs++], root);
        }
        if (s->nl) {
                unsigned links = 0, mapped = 0;
                struct errbuf le = { 0 };

                for (unsigned i = 0; i < s->n_ifs; i++)
                        mapped += s->ifs[i].st_mapped;
                s->st_dump = link_rtnl_dump(s->nl, count_link, &links, &le) >= 0 && mapped * 2 >= links;
        }
        return 0;
}

void sampler_sample(struct sampler *s)
{
        sampler_lock(s);
        for (unsigned i = 0; i < s->n_ifs; i++) {
                et_sample(s, &s->ifs[i], clock_mono_ns());
                rd_sample(s, &s->ifs[i]);
        }
        st_sample(s);
        s->samples++;
        sampler_unlock(s);
}

static void *run(void *arg)
{
        struct sampler *s = arg;
        int64_t period = (int64_t)s->o.period_ms * 1000000, next = clock_mono_ns();

        while (!s->stop) {
                struct timespec ts;
                int64_t now;

                sampler_sample(s);
                next += period;
                now = clock_mono_ns();
                if (now > next) {               /* the sample took longer than the period: start again from now */
                        sampler_lock(s);
                        s->overruns += (uint64_t)((now - next) / period) + 1;
                        sampler_unlock(s);
                        next = now + period;
                }
                ts = (struct timespec){ .tv_sec = next / 1000000000, .tv_nsec = next % 1000000000 };
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !s->stop)
                        ;
        }
        return NULL;
}

int sampler_start(struct sampler *s)
{
        int r;

        s->stop = false;
        r = pthread_create(&s->th, NULL, run, s);
        if (r)
                return -r;
        s->running = true;
        return 0;
}

void sampler_stop(struct sampler *s)
{
        if (!s->running)
                return;
        s->stop = true;
        pthread_join(s->th, NULL);
        s->running = false;
}

void sampler_close(struct sampler *s)
{
        sampler_stop(s);
        for (unsigned i = 0; s->ifs && i < s->n_ifs; i++)
                for (unsigned k = 0; k < s->ifs[i].n_rd; k++)
                        close(s->ifs[i].rd_fd[k]);
        if (s->fd >= 0)
                close(s->fd);
        nl_close(s->nl);
        free(s->ebuf);
        free(s->ifs);
        free(s->v);
        s->ifs = NULL;
        s->v = NULL;
        s->nl = NULL;
        s->ebuf = NULL;
        s->fd = -1;
        s->n = s->n_ifs = 0;
        pthread_mutex_destroy(&s->lock);
}
