/* SPDX-License-Identifier: MIT */
/*
 * A model behind a struct nl_transport, in process (unit tests): the driver
 * code talks to it exactly as to the kernel or to the seam. Every request is
 * kept for byte comparisons.
 */
#pragma once

#include <pthread.h>

#include "drivers/host/nl.h"
#include "tests/nicmodel/nicmodel.h"

#define NM_LOG_MAX 512

struct nm_logged {
        size_t len;
        unsigned char *buf;
};

struct nm_transport {
        struct nm *m;
        struct nl_transport t;
        struct nl_transport_ops ops;
        unsigned n_log;
        struct nm_logged log[NM_LOG_MAX];       /* requests, oldest first */
        /* a thread moves the model's timeline on, as the server's poll loop does */
        pthread_mutex_t lock;
        pthread_t ticker;
        bool stop;
};

void nm_transport_init(struct nm_transport *x, struct nm *m);
void nm_transport_done(struct nm_transport *x);
/* Hold the model still (the ticker and requests wait) while a test looks at or changes it. */
void nm_transport_lock(struct nm_transport *x);
void nm_transport_unlock(struct nm_transport *x);
/* The model's state as text (nm_dump, the model held still); caller frees, NULL on ENOMEM. */
char *nm_transport_dump(struct nm_transport *x);
static inline const struct nl_transport *nm_transport_get(struct nm_transport *x)
{
        return &x->t;
}
