/* SPDX-License-Identifier: MIT */
#include "policies/state/field.h"
#include "tests/lib/fakedrv.h"

struct fakedrv_device fakedrv_devices[FAKEDRV_DEVICES];
static double probes[16];
static unsigned n_probes, next_probe;
static char pin_netdev[16];
static enum probe_mode pin_mode = PROBE_MODE_TCP, drift_mode;
static unsigned drift_at;

void fakedrv_reset(void)
{
        memset(fakedrv_devices, 0, sizeof(fakedrv_devices));
        n_probes = next_probe = 0;
        pin_netdev[0] = '\0';
        pin_mode = PROBE_MODE_TCP;
        drift_at = 0;
}

void fakedrv_set_pin(const char *netdev, enum probe_mode mode)
{
        snprintf(pin_netdev, sizeof(pin_netdev), "%s", netdev ? netdev : "");
        pin_mode = mode;
}

void fakedrv_set_probe_drift(unsigned at, enum probe_mode mode)
{
        drift_at = at;
        drift_mode = mode;
}

struct fakedrv_device *fakedrv_find(const char *name)
{
        for (unsigned i = 0; i < FAKEDRV_DEVICES; i++)
                if (streq(fakedrv_devices[i].name, name))
                        return &fakedrv_devices[i];
        return NULL;
}

struct fakedrv_device *fakedrv_add(const char *name, uint32_t mtu, uint32_t caps)
{
        for (unsigned i = 0; i < FAKEDRV_DEVICES; i++) {
                struct fakedrv_device *d = &fakedrv_devices[i];

                if (d->name[0])
                        continue;
                snprintf(d->name, sizeof(d->name), "%s", name);
                state_init(&d->live);
                d->live.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC);
                d->live.mtu = mtu;
                d->caps = caps;
                return d;
        }
        return NULL;
}

void fakedrv_set_probes(const double *gbps, unsigned n)
{
        n_probes = n < 16 ? n : 16;
        memcpy(probes, gbps, n_probes * sizeof(*gbps));
        next_probe = 0;
}

static int fake_caps(struct target *t, uint32_t *ret, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        *ret = d->caps;
        return 0;
}

static int fake_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        state_copy_fields(ret, &d->live, fields);
        return 0;
}

static int fake_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (d && d->max_mtu && (c->fields & STATE_BIT(STATE_FIELD_MTU)) && c->desired[0].mtu > d->max_mtu)
                return errbuf_set(e, ERANGE, t->name, "mtu %u above %u; nothing was changed", c->desired[0].mtu,
                                  d->max_mtu);
        return 0;
}

static int fake_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        d->applies++;
        if (d->fail_apply)
                return errbuf_set(e, EIO, t->name, "injected apply failure");
        if (!d->ignore_apply)
                state_copy_fields(&d->live, &c->desired[0], c->delta[0]);
        return 0;
}

static int fake_restore(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        d->restores++;
        if (d->fail_restore)
                return errbuf_set(e, EIO, t->name, "injected restore failure");
        state_copy_fields(&d->live, &c->desired[0], c->delta[0]);
        return 0;
}

const struct driver_ops fakedrv_ops = {
        .name = "fake",
        .kind = TARGET_INTERFACE,
        .fields = STATE_ALL_FIELDS,             /* what a device serves is its caps */
        .caps = fake_caps,
        .check = fake_check,
        .read = fake_read,
        .apply = fake_apply,
        .restore = fake_restore,
};

static const struct driver_ops *const fake_table[] = { &fakedrv_ops, NULL };

/* Every fake device is an interface of the namespace. */
static int fake_interfaces(const struct agent_config *c, struct iface **ret, unsigned *ret_n, struct errbuf *e)
{
        struct iface *v = calloc(FAKEDRV_DEVICES, sizeof(*v));
        unsigned n = 0;

        if (!v)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < FAKEDRV_DEVICES; i++) {
                if (!fakedrv_devices[i].name[0])
                        continue;
                snprintf(v[n].name, sizeof(v[n].name), "%.*s", (int)sizeof(v[n].name) - 1, fakedrv_devices[i].name);
                snprintf(v[n].kernel_driver, sizeof(v[n].kernel_driver), "fake");
                v[n].ifindex = (int)i + 1;
                n++;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* The route is the fake's: the interface asked for, else the pin's, else the first device. */
static int fake_pin(const struct probe_params *p, enum probe_mode m, struct probe_params *ret,
                    struct probe_path *ret_path, char *warning, size_t wsize, struct errbuf *e)
{
        struct probe_path path = { .mode = m == PROBE_MODE_AUTO ? PROBE_MODE_TCP : m, .gid_index = -1,
                                   .dscp = -1, .priority = -1, .streams = p->streams,
                                   .message_size = p->message_size };
        const char *nd = p->netdev[0] ? p->netdev : pin_netdev[0] ? pin_netdev : fakedrv_devices[0].name;

        if (pin_mode != PROBE_MODE_TCP && m == PROBE_MODE_AUTO)
                path.mode = pin_mode;
        snprintf(path.peer, sizeof(path.peer), "%s", p->peer);
        snprintf(path.source, sizeof(path.source), "192.0.2.1");
        snprintf(path.netdev, sizeof(path.netdev), "%.15s", nd);
        if (path.mode == PROBE_MODE_VERBS) {
                snprintf(path.device, sizeof(path.device), "fake_rdma0");
                path.gid_index = 1;
                snprintf(path.gid, sizeof(path.gid), "::ffff:192.0.2.1");
        }
        if (warning && wsize)
                warning[0] = '\0';
        *ret = *p;
        *ret_path = path;
        return 0;
}

static int fake_probe(struct txn_env *env, const struct plan_probe *pin, const char *phase,
                      struct txn_probe *ret, struct errbuf *e)
{
        double g;

        if (next_probe >= n_probes)
                return errbuf_set(e, EIO, NULL, "no fake probe result left");
        g = probes[next_probe++];
        ret->path = pin->path;
        if (drift_at && next_probe >= drift_at)
                ret->path.mode = drift_mode;
        if (g < 0)
                return errbuf_set(e, ECONNREFUSED, NULL, "fake peer unreachable");
        snprintf(ret->mode, sizeof(ret->mode), "%s", probe_mode_name(ret->path.mode));
        ret->runs[0] = g;
        ret->n_runs = 1;
        ret->gbps = g;
        return 0;
}

void fakedrv_env(struct txn_env *env)
{
        env->plan.config = env->config;
        env->plan.drivers = fake_table;
        env->plan.interfaces = fake_interfaces;
        env->plan.pin = fake_pin;
        env->hooks.probe = fake_probe;
}
