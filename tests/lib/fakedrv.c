/* SPDX-License-Identifier: MIT */
#include "fakedrv.h"

struct fakedrv_device fakedrv_devices[FAKEDRV_DEVICES];
static double probes[16];
static unsigned n_probes, next_probe;

void fakedrv_reset(void)
{
        memset(fakedrv_devices, 0, sizeof(fakedrv_devices));
        n_probes = next_probe = 0;
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

static void copy_fields(struct state *to, const struct state *from, uint32_t fields)
{
        if (fields & STATE_BIT(STATE_FIELD_MTU))
                to->mtu = from->mtu;
        if (fields & STATE_BIT(STATE_FIELD_PFC))
                to->pfc_enabled = from->pfc_enabled;
        to->present |= fields & from->present;
}

static int fake_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        copy_fields(ret, &d->live, fields);
        return 0;
}

static int fake_apply(struct target *t, const struct state *want, uint32_t fields, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        d->applies++;
        if (d->fail_apply)
                return errbuf_set(e, EIO, t->name, "injected apply failure");
        if (!d->ignore_apply)
                copy_fields(&d->live, want, fields);
        return 0;
}

static int fake_restore(struct target *t, const struct state *snap, uint32_t fields, struct errbuf *e)
{
        struct fakedrv_device *d = fakedrv_find(t->name);

        if (!d)
                return errbuf_set(e, ENODEV, t->name, "no such device");
        d->restores++;
        if (d->fail_restore)
                return errbuf_set(e, EIO, t->name, "injected restore failure");
        copy_fields(&d->live, snap, fields);
        return 0;
}

const struct driver_ops fakedrv_ops = {
        .name = "fake",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC),
        .caps = fake_caps,
        .read = fake_read,
        .apply = fake_apply,
        .restore = fake_restore,
};

static int fake_resolve_one(struct txn_env *env, int kind, const char *name, uint32_t fields,
                            struct txn_target *ret, struct errbuf *e)
{
        uint32_t caps = 0;
        int r;

        memset(ret, 0, sizeof(*ret));
        ret->t.kind = (enum target_kind)kind;
        snprintf(ret->t.name, sizeof(ret->t.name), "%s", name);
        snprintf(ret->t.kernel_driver, sizeof(ret->t.kernel_driver), "fake");
        r = fake_caps(&ret->t, &caps, e);
        if (r < 0)
                return r;
        state_init(&ret->desired);
        state_init(&ret->before);
        ret->n_drivers = 1;
        ret->drivers[0] = &fakedrv_ops;
        ret->fields[0] = caps & fakedrv_ops.fields;
        return 0;
}

static int fake_resolve(struct txn_env *env, const struct policy *p, struct txn_target **ret,
                        unsigned *ret_n, struct errbuf *e)
{
        struct txn_target *tg = calloc(p->n_interfaces ? p->n_interfaces : 1, sizeof(*tg));

        if (!tg)
                return -ENOMEM;
        for (unsigned i = 0; i < p->n_interfaces; i++) {
                int r = fake_resolve_one(env, TARGET_INTERFACE, p->interfaces[i], 0, &tg[i], e);

                if (r < 0) {
                        free(tg);
                        return r;
                }
                tg[i].desired = p->spec;
        }
        *ret = tg;
        *ret_n = p->n_interfaces;
        return 0;
}

static int fake_probe(struct txn_env *env, const struct policy_verify *v, const char *phase,
                      struct txn_probe *ret, struct errbuf *e)
{
        double g;

        if (next_probe >= n_probes)
                return errbuf_set(e, EIO, NULL, "no fake probe result left");
        g = probes[next_probe++];
        if (g < 0)
                return errbuf_set(e, ECONNREFUSED, NULL, "fake peer unreachable");
        snprintf(ret->mode, sizeof(ret->mode), "fake");
        ret->runs[0] = g;
        ret->n_runs = 1;
        ret->gbps = g;
        return 0;
}

void fakedrv_hooks(struct txn_hooks *h)
{
        h->resolve = fake_resolve;
        h->resolve_one = fake_resolve_one;
        h->probe = fake_probe;
}
