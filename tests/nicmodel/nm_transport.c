/* SPDX-License-Identifier: MIT */
/* A model as an in-process netlink transport (see nm_transport.h). */
#include <time.h>

#include "common/util.h"
#include "tests/nicmodel/nm_transport.h"

#define TICK_MS 5

struct conn {
        struct nm_transport *x;
        struct nm_out *out;
        unsigned next;
};

static int t_open(void *userdata, int protocol, void **ret_ctx)
{
        struct conn *c;

        if (protocol != NETLINK_ROUTE)
                return -EPROTONOSUPPORT;
        c = calloc(1, sizeof(*c));
        if (!c || !(c->out = calloc(1, sizeof(*c->out)))) {
                free(c);
                return -ENOMEM;
        }
        c->x = userdata;
        *ret_ctx = c;
        return 0;
}

static ssize_t t_send(void *ctx, const void *buf, size_t len)
{
        struct conn *c = ctx;
        struct nm_transport *x = c->x;

        pthread_mutex_lock(&x->lock);
        if (x->n_log < NM_LOG_MAX && (x->log[x->n_log].buf = malloc(len))) {
                memcpy(x->log[x->n_log].buf, buf, len);
                x->log[x->n_log++].len = len;
        }
        nm_request(x->m, buf, len, c->out);
        pthread_mutex_unlock(&x->lock);
        c->next = 0;
        return (ssize_t)len;
}

static ssize_t t_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        struct conn *c = ctx;
        size_t len;

        if (c->next >= c->out->n)
                return -ETIMEDOUT;
        len = c->out->len[c->next];
        if (len > size)
                len = size;
        memcpy(buf, c->out->buf[c->next++], len);
        return (ssize_t)len;
}

static void t_close(void *ctx)
{
        struct conn *c = ctx;

        free(c->out);
        free(c);
}

static void *tick_loop(void *arg)
{
        struct nm_transport *x = arg;

        for (;;) {
                pthread_mutex_lock(&x->lock);
                if (x->stop) {
                        pthread_mutex_unlock(&x->lock);
                        return NULL;
                }
                nm_tick(x->m);
                pthread_mutex_unlock(&x->lock);
                nanosleep(&(struct timespec){ .tv_nsec = TICK_MS * 1000000L }, NULL);
        }
}

void nm_transport_init(struct nm_transport *x, struct nm *m)
{
        memset(x, 0, sizeof(*x));
        x->m = m;
        x->ops = (struct nl_transport_ops){ .name = "nicmodel", .open = t_open, .send = t_send,
                                            .recv = t_recv, .close = t_close };
        x->t = (struct nl_transport){ .ops = &x->ops, .userdata = x };
        pthread_mutex_init(&x->lock, NULL);
        if (pthread_create(&x->ticker, NULL, tick_loop, x) != 0)
                abort();
}

void nm_transport_lock(struct nm_transport *x)
{
        pthread_mutex_lock(&x->lock);
}

void nm_transport_unlock(struct nm_transport *x)
{
        pthread_mutex_unlock(&x->lock);
}

void nm_transport_done(struct nm_transport *x)
{
        pthread_mutex_lock(&x->lock);
        x->stop = true;
        pthread_mutex_unlock(&x->lock);
        pthread_join(x->ticker, NULL);
        pthread_mutex_destroy(&x->lock);
        for (unsigned i = 0; i < x->n_log; i++)
                free(x->log[i].buf);
        x->n_log = 0;
}

char *nm_transport_dump(struct nm_transport *x)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return NULL;
        nm_transport_lock(x);
        nm_dump(x->m, f);
        nm_transport_unlock(x);
        fclose(f);
        return buf;
}
