/* SPDX-License-Identifier: MIT */
/*
 * An in-memory driver for unit tests of transaction logic only (integration tests
 * use the real drivers). Devices are named states; faults can be injected per
 * device: fail apply, ignore apply (read-back mismatch), fail restore.
 */
#pragma once

#include "agent/txn/txn.h"
#include "drivers/driver.h"

#define FAKEDRV_DEVICES 8

struct fakedrv_device {
        char name[STATE_NAME_MAX];
        struct state live;
        uint32_t caps;                  /* fields supported */
        uint32_t max_mtu;               /* 0: any; else the check refuses a larger MTU, as a kernel does */
        bool fail_apply;
        bool ignore_apply;
        bool fail_restore;
        unsigned applies, restores;
};

extern const struct driver_ops fakedrv_ops;
extern struct fakedrv_device fakedrv_devices[FAKEDRV_DEVICES];

void fakedrv_reset(void);
/* A device with mtu present and the given caps; returns it. */
struct fakedrv_device *fakedrv_add(const char *name, uint32_t mtu, uint32_t caps);
struct fakedrv_device *fakedrv_find(const char *name);

/* Probe results the fake probe returns, in order (gbps; < 0 = fail). */
void fakedrv_set_probes(const double *gbps, unsigned n);

/*
 * The fake pin: the probe leaves by interface `netdev` (default: the first fake
 * device) in `mode` (default tcp; auto stays auto for the pin to resolve: tcp).
 * The fake probe reports the pinned path, except that from measurement number
 * `drift_at` on (0 = never) it reports `drift_mode` instead: a probe that did not
 * run what was pinned.
 */
void fakedrv_set_pin(const char *netdev, enum probe_mode mode);
void fakedrv_set_probe_drift(unsigned drift_at, enum probe_mode drift_mode);

/* A transaction env on the fakes: every fake device is an interface of the namespace,
 * served by the fake driver; probes return the list above. env->config must be set. */
void fakedrv_env(struct txn_env *env);
