/* SPDX-License-Identifier: MIT */
/*
 * Pinning a probe (probe.h: probe_pin): the route, the mode, the RDMA device and
 * GID, resolved once so that every run of every measurement takes the same path;
 * and comparing two paths.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "drivers/probe/probe.h"
#include "drivers/probe/probe_gid.h"
#include "drivers/probe/probe_route.h"
#include "policies/json/jsonv.h"

/* Device and GID for verbs: given (device + index), else the GID carrying the route's source. */
static int pin_gid(const struct probe_params *p, const struct probe_route *rt, struct probe_gid *ret,
                   struct errbuf *e)
{
        if (p->device[0] && p->gid_index >= 0) {
                if (probe_gid_read(p->sysfs_root, p->device, 1, (unsigned)p->gid_index, ret) < 0)
                        return errbuf_set(e, ENODEV, NULL, "RDMA device '%s' has no GID index %d", p->device,
                                          p->gid_index);
                return 0;
        }
        return probe_gid_find(p->sysfs_root, p->device, (const struct sockaddr *)&rt->source.ss, ret, e);
}

static void auto_warning(const struct probe_params *p, const struct probe_route *rt, const char *why,
                         char *warning, size_t wsize)
{
        char names[256];

        if (!warning || !probe_gid_devices(p->sysfs_root, names, sizeof(names))[0])
                return;
        snprintf(warning, wsize, "probe 'auto' resolved to tcp on '%s' although this node has RDMA device%s %s (%s): "
                 "the gate measures TCP, not RDMA", rt->netdev, strchr(names, ',') ? "s" : "", names, why);
}

/* The mode: auto resolved by the GID table; verbs needs a GID. *g is set for verbs. */
static int pin_mode(const struct probe_params *p, enum probe_mode m, const struct probe_route *rt,
                    struct probe_gid *g, enum probe_mode *ret, char *warning, size_t wsize, struct errbuf *e)
{
        struct errbuf ge = { .msg = "" };

        if (m == PROBE_MODE_TCP) {
                *ret = m;
                return 0;
        }
        if (m == PROBE_MODE_VERBS) {
                int r = pin_gid(p, rt, g, e);

                if (r < 0)
                        return r;
                *ret = m;
                return 0;
        }
        if (pin_gid(p, rt, g, &ge) >= 0) {
                *ret = PROBE_MODE_VERBS;
                return 0;
        }
        auto_warning(p, rt, ge.msg, warning, wsize);
        *ret = PROBE_MODE_TCP;
        return 0;
}

/* Verbs: the GID's interface is where RoCE traffic leaves; it must be the one asked for. */
static int pin_verbs_netdev(const struct probe_params *p, const struct probe_route *rt, const struct probe_gid *g,
                            struct probe_path *path, struct errbuf *e)
{
        const char *nd = g->netdev[0] ? g->netdev : rt->netdev;

        if (p->netdev[0] && !streq(p->netdev, nd))
                return errbuf_set(e, EINVAL, NULL, "GID %u of RDMA device '%s' belongs to interface '%s', not '%s'",
                                  g->index, g->device, nd, p->netdev);
        snprintf(path->netdev, sizeof(path->netdev), "%s", nd);
        snprintf(path->device, sizeof(path->device), "%s", g->device);
        path->gid_index = (int)g->index;
        if (!inet_ntop(AF_INET6, g->gid, path->gid, sizeof(path->gid)))
                path->gid[0] = '\0';
        return 0;
}

int probe_pin(const struct probe_params *p, enum probe_mode m, struct probe_params *ret,
              struct probe_path *ret_path, char *warning, size_t wsize, struct errbuf *e)
{
        struct probe_path path = {
                .gid_index = -1, .dscp = p->traffic_class < 0 ? -1 : p->traffic_class >> 2,
                .priority = p->priority, .streams = p->streams, .message_size = p->message_size,
        };
        struct probe_params q = *p;
        struct probe_route rt;
        struct probe_addr peer;
        struct probe_gid g = { .port = 1 };
        int r;

        if (warning && wsize)
                warning[0] = '\0';
        r = probe_params_check(p, e);
        if (r >= 0)
                r = probe_net_parse(p->peer, "probe peer", &peer, e);
        if (r >= 0 && (r = probe_route_get(&peer, p->netdev, p->source, &rt, e)) < 0 && r != -ENODEV &&
            r != -EINVAL)
                probe_mark_unanswered(e);       /* no route to the peer: as if it never answered */
        if (r >= 0)
                r = pin_mode(p, m, &rt, &g, &path.mode, warning, wsize, e);
        if (r >= 0 && path.mode == PROBE_MODE_VERBS)
                r = pin_verbs_netdev(p, &rt, &g, &path, e);
        if (r < 0)
                return r;
        if (path.mode == PROBE_MODE_TCP)
                snprintf(path.netdev, sizeof(path.netdev), "%s", rt.netdev);
        snprintf(path.peer, sizeof(path.peer), "%s", p->peer);
        probe_net_host(&rt.source, path.source, sizeof(path.source));
        snprintf(q.source, sizeof(q.source), "%s", path.source);
        /* Bound to its interface, unless the peer is local: a socket bound to lo reaches no local address. */
        snprintf(q.netdev, sizeof(q.netdev), "%s", rt.local && !p->netdev[0] ? "" : path.netdev);
        snprintf(q.device, sizeof(q.device), "%s", path.device);
        q.gid_index = path.gid_index;
        *ret = q;
        *ret_path = path;
        return 0;
}

static bool differ_str(const char *what, const char *a, const char *b, char *buf, size_t size)
{
        if (streq(a, b))
                return false;
        snprintf(buf, size, "%s: '%s' vs '%s'", what, a, b);
        return true;
}

static bool differ_int(const char *what, long long a, long long b, char *buf, size_t size)
{
        if (a == b)
                return false;
        snprintf(buf, size, "%s: %lld vs %lld", what, a, b);
        return true;
}

bool probe_path_diff(const struct probe_path *a, const struct probe_path *b, char *buf, size_t size)
{
        return differ_str("mode", probe_mode_name(a->mode), probe_mode_name(b->mode), buf, size) ||
               differ_str("peer", a->peer, b->peer, buf, size) ||
               differ_str("interface", a->netdev, b->netdev, buf, size) ||
               differ_str("source", a->source, b->source, buf, size) ||
               differ_str("device", a->device, b->device, buf, size) ||
               differ_int("gid index", a->gid_index, b->gid_index, buf, size) ||
               differ_str("gid", a->gid, b->gid, buf, size) ||
               differ_int("dscp", a->dscp, b->dscp, buf, size) ||
               differ_int("priority", a->priority, b->priority, buf, size) ||
               differ_int("streams", a->streams, b->streams, buf, size) ||
               differ_int("message size", a->message_size, b->message_size, buf, size);
}

static json_t *int_or_null(int v)
{
        return v < 0 ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
        return s[0] ? json_string(s) : json_null();
}

json_t *probe_path_to_json(const struct probe_path *p)
{
        return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:i}", "mode", probe_mode_name(p->mode),
                         "peer", p->peer, "source", p->source, "interface", p->netdev,
                         "device", str_or_null(p->device), "gid_index", int_or_null(p->gid_index),
                         "gid", str_or_null(p->gid), "dscp", int_or_null(p->dscp),
                         "priority", int_or_null(p->priority), "streams", (int)p->streams,
                         "message_size", (int)p->message_size);
}

/* ---- a path read back from JSON (a baseline kept in a file) ---- */

static const char *const path_modes[] = { "auto", "verbs", "tcp", NULL };

/* null, or an integer in [min, max] stored as int (null: -1). */
static int nullable_int(struct jsonv *v, const json_t *j, const char *what, long long min, long long max, int *ret)
{
        long long x;
        int r;

        if (json_is_null(j)) {
                *ret = -1;
                return 0;
        }
        r = jsonv_int(v, j, what, min, max, &x);
        if (r >= 0)
                *ret = (int)x;
        return r;
}

static int nullable_str(struct jsonv *v, const json_t *j, const char *what, char *buf, size_t size)
{
        if (json_is_null(j)) {
                buf[0] = '\0';
                return 0;
        }
        return jsonv_string(v, j, what, buf, size);
}

static int p_device(struct jsonv *v, const json_t *j, void *o)
{
        return nullable_str(v, j, "device", ((struct probe_path *)o)->device, sizeof(((struct probe_path *)o)->device));
}

static int p_gid(struct jsonv *v, const json_t *j, void *o)
{
        return nullable_str(v, j, "gid", ((struct probe_path *)o)->gid, sizeof(((struct probe_path *)o)->gid));
}

static int p_gid_index(struct jsonv *v, const json_t *j, void *o)
{
        return nullable_int(v, j, "gid_index", 0, 65535, &((struct probe_path *)o)->gid_index);
}

static int p_dscp(struct jsonv *v, const json_t *j, void *o)
{
        return nullable_int(v, j, "dscp", 0, 63, &((struct probe_path *)o)->dscp);
}

static int p_priority(struct jsonv *v, const json_t *j, void *o)
{
        return nullable_int(v, j, "priority", 0, 7, &((struct probe_path *)o)->priority);
}

static const struct jsonv_field path_fields[] = {
        JSONV_ENUM("mode", struct probe_path, mode, path_modes, JSONV_REQUIRED),
        JSONV_STR("peer", struct probe_path, peer, JSONV_REQUIRED),
        JSONV_STR("source", struct probe_path, source, JSONV_REQUIRED),
        JSONV_STR("interface", struct probe_path, netdev, JSONV_REQUIRED),
        JSONV_CUSTOM("device", JSONV_ANY, JSONV_REQUIRED, p_device),
        JSONV_CUSTOM("gid_index", JSONV_ANY, JSONV_REQUIRED, p_gid_index),
        JSONV_CUSTOM("gid", JSONV_ANY, JSONV_REQUIRED, p_gid),
        JSONV_CUSTOM("dscp", JSONV_ANY, JSONV_REQUIRED, p_dscp),
        JSONV_CUSTOM("priority", JSONV_ANY, JSONV_REQUIRED, p_priority),
        JSONV_UINT_REQ("streams", struct probe_path, streams, 1, PROBE_STREAMS_MAX),
        JSONV_UINT_REQ("message_size", struct probe_path, message_size, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX),
        { 0 },
};

int probe_path_from_json(struct jsonv *v, const json_t *j, struct probe_path *ret)
{
        struct probe_path p = { .gid_index = -1, .dscp = -1, .priority = -1 };
        int r = jsonv_object(v, j, path_fields, &p);

        if (r >= 0 && p.mode == PROBE_MODE_AUTO)
                r = jsonv_error(v, "mode 'auto' is not a path; expected 'verbs' or 'tcp'");
        if (r >= 0)
                *ret = p;
        return r;
}
