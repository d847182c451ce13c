/* SPDX-License-Identifier: MIT */
/*
 * The probe responder (probe-server): accepts TCP control connections, reads a
 * HELLO, and serves a tcp or verbs measurement. A few sessions run at once
 * (bounded); one more is answered with a "busy" ERROR. It runs in its own
 * threads so the agent's serve daemon can host it beside the API.
 */
#pragma once

#include <stddef.h>

#include "errbuf.h"
#include "probe_oob.h"

#define PROBE_SERVER_CLIENTS_DEFAULT 4
#define PROBE_SERVER_CLIENTS_MAX 16
/* A session that sends no HELLO within this time ends (and frees its slot). */
#define PROBE_SERVER_HELLO_TIMEOUT_MS 10000u

struct probe_server;

struct probe_server_options {
        const char *listen;             /* "ADDR:PORT"; port 0 = any free port */
        const char *sysfs_root;         /* NULL = "/sys" */
        unsigned max_clients;           /* concurrent sessions; 0 = default, at most _MAX */
        /* Called from a session thread when a session ends (r: 0 or -errno). May be NULL. */
        void (*on_session)(void *userdata, const char *peer, const char *mode, int r,
                           const struct errbuf *e);
        void *userdata;
};

/* Start listening and serving in background threads. *ret owned by the caller (probe_server_stop). */
int probe_server_start(const char *listen, struct probe_server **ret, struct errbuf *e);
int probe_server_start_opts(const struct probe_server_options *o, struct probe_server **ret,
                            struct errbuf *e);

/* The bound address ("10.0.0.2:18515"), with the real port when 0 was asked for. */
const char *probe_server_address(const struct probe_server *s, char *buf, size_t size);

/* Sessions served so far (ok, failed). */
void probe_server_counts(const struct probe_server *s, unsigned long *ret_ok, unsigned long *ret_failed);
/* Sessions running now (accepted, not yet ended). */
unsigned probe_server_running(const struct probe_server *s);

/* Stop: close the listener, end running sessions, join every thread, free. Accepts NULL. */
void probe_server_stop(struct probe_server *s);

/* One session after its HELLO: what the server calls per mode (drivers-internal). */
struct probe_session {
        int fd;                                 /* the control connection */
        const char *sysfs_root;
        const struct probe_oob_msg *hello;
};

int probe_tcp_serve(const struct probe_session *s, struct errbuf *e);
int probe_verbs_serve(const struct probe_session *s, struct errbuf *e);
