/* SPDX-License-Identifier: MIT */
/*
 * A probe's parameters: defaults, mode names, the range check, and the control
 * connection they describe. The bottom of the probe engines: probe.c, probe_pin.c,
 * probe_tcp.c and probe_verbs.c call it, it calls only probe_net.c.
 */
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_net.h"

static const char *const mode_names[PROBE_MODE_MAX] = {
        [PROBE_MODE_AUTO] = "auto",
        [PROBE_MODE_VERBS] = "verbs",
        [PROBE_MODE_TCP] = "tcp",
};

void probe_params_init(struct probe_params *p)
{
        *p = (struct probe_params) {
                .duration_ms = 3000, .iterations = 1000, .message_size = 65536, .streams = 1,
                .gid_index = -1, .traffic_class = -1, .timeout_ms = 10000, .priority = -1,
        };
        snprintf(p->sysfs_root, sizeof(p->sysfs_root), "/sys");
}

const char *probe_mode_name(enum probe_mode m)
{
        return m < PROBE_MODE_MAX ? mode_names[m] : "unknown";
}

int probe_mode_from_string(const char *s, enum probe_mode *ret)
{
        for (unsigned m = 0; m < PROBE_MODE_MAX; m++)
                if (streq(s, mode_names[m])) {
                        *ret = (enum probe_mode)m;
                        return 0;
                }
        return -EINVAL;
}

int probe_params_check(const struct probe_params *p, struct errbuf *e)
{
        struct probe_addr a;
        int r;

        r = probe_net_parse(p->peer, "peer", &a, e);
        if (r < 0)
                return r;
        if (p->message_size < PROBE_MESSAGE_MIN || p->message_size > PROBE_MESSAGE_MAX)
                return errbuf_set(e, EINVAL, "message size", "%u out of range %u-%u",
                                  p->message_size, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX);
        if (p->streams < 1 || p->streams > PROBE_STREAMS_MAX)
                return errbuf_set(e, EINVAL, "streams", "%u out of range 1-%u", p->streams, PROBE_STREAMS_MAX);
        if (p->duration_ms > PROBE_DURATION_MAX_MS)
                return errbuf_set(e, EINVAL, "duration", "%u ms out of range 0-%u", p->duration_ms,
                                  PROBE_DURATION_MAX_MS);
        if (!p->duration_ms && (p->iterations < 1 || p->iterations > PROBE_ITERATIONS_MAX))
                return errbuf_set(e, EINVAL, "iterations", "%u out of range 1-%u", p->iterations,
                                  PROBE_ITERATIONS_MAX);
        if (p->traffic_class < -1 || p->traffic_class > 255)
                return errbuf_set(e, EINVAL, "traffic class", "%d out of range 0-255", p->traffic_class);
        if (p->gid_index < -1 || p->gid_index > 65535)
                return errbuf_set(e, EINVAL, "gid index", "%d out of range 0-65535", p->gid_index);
        if (p->priority < -1 || p->priority > 7)
                return errbuf_set(e, EINVAL, "priority", "%d out of range 0-7", p->priority);
        if (p->source[0] && probe_net_parse_host(p->source, &a) < 0)
                return errbuf_set(e, EINVAL, "source", "'%s' is not a numeric IP address", p->source);
        return 0;
}

#define UNANSWERED_WHERE "probe responder"

void probe_mark_unanswered(struct errbuf *e)
{
        if (e && !streq(e->where, "probe server"))
                snprintf(e->where, sizeof(e->where), "%s", UNANSWERED_WHERE);
}

bool probe_unanswered(const struct errbuf *e)
{
        return e && streq(e->where, UNANSWERED_WHERE);
}

unsigned probe_left_ms(uint64_t started_ns, unsigned timeout_ms)
{
        uint64_t spent = (probe_now_ns() - started_ns) / 1000000ull;

        return spent + 1 >= timeout_ms ? 1 : (unsigned)(timeout_ms - spent);
}

int probe_connect_control(const struct probe_params *p, struct probe_addr *ret_peer, struct errbuf *e)
{
        int r = probe_net_parse(p->peer, "probe peer", ret_peer, e);

        if (r < 0)
                return r;
        r = probe_net_connect(ret_peer, &(struct probe_sockopt){ .source = p->source, .netdev = p->netdev,
                                                                 .tos = -1, .priority = -1 },
                              p->timeout_ms, e);
        if (r < 0)
                probe_mark_unanswered(e);
        return r;
}

