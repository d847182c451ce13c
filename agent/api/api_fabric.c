/* SPDX-License-Identifier: MIT */
/* GET /v1/fabric and POST /v1/fabric/flows: a node's clock and responder, and its flows of a pattern. */
#include <arpa/inet.h>
#include <ifaddrs.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "drivers/host/sysfs.h"
#include "drivers/probe/probe_flows.h"

/* A fabric run's handshakes after its flows' duration, counted in its measurement's end. */
#define FABRIC_SLACK_MS 5000

/* Where peers reach the responder: probe.advertise, else probe.listen unless it is a wildcard. */
static bool advertised(const struct agent_config *c, char *ret_hostport, size_t size, char *ret_host, size_t hsize)
{
        const char *a = c->probe_advertise[0] ? c->probe_advertise : c->probe_listen;

        if (!c->probe_listen[0] || !config_host_numeric(a, ret_host, hsize))
                return false;
        snprintf(ret_hostport, size, "%s", a);
        return true;
}

/* The interface that holds address `host` (getifaddrs), or false. */
static bool ifname_of(const char *host, char *buf, size_t size)
{
        unsigned char want[16], have[16];
        int family = inet_pton(AF_INET, host, want) == 1 ? AF_INET :
                     inet_pton(AF_INET6, host, want) == 1 ? AF_INET6 : AF_UNSPEC;
        struct ifaddrs *list = NULL;
        bool found = false;

        if (family == AF_UNSPEC || getifaddrs(&list) < 0)
                return false;
        for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
                if (!i->ifa_addr || i->ifa_addr->sa_family != family)
                        continue;
                if (family == AF_INET)
                        memcpy(have, &((const struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
                else
                        memcpy(have, &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
                if (!memcmp(want, have, family == AF_INET ? 4 : 16)) {
                        snprintf(buf, size, "%s", i->ifa_name);
                        found = true;
                }
        }
        freeifaddrs(list);
        return found;
}

/* The link speed in Mb/s as the driver reports it (SYSFS/class/net/IF/speed); 0 when unknown. */
static long link_speed_mbps(const struct agent_config *c, const char *ifname)
{
        char path[512], line[32], *end;
        long v;

        snprintf(path, sizeof(path), "%s/class/net/%s/speed", c->env.sysfs_root[0] ? c->env.sysfs_root : "/sys",
                 ifname);
        if (sysfs_read_line(path, line, sizeof(line)) < 0)
                return 0;
        v = strtol(line, &end, 10);
        return end != line && !*end && v > 0 && v < 100000000 ? v : 0;
}

void api_fabric_info(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        const struct agent_config *c = a->config;
        char addr[128] = "", host[64] = "", ifname[64] = "";
        bool adv = advertised(c, addr, sizeof(addr), host, sizeof(host));
        bool has_if = adv && ifname_of(host, ifname, sizeof(ifname));
        long speed = has_if ? link_speed_mbps(c, ifname) : 0;
        json_t *allow = json_array();
        json_t *probe;

        for (unsigned i = 0; allow && i < c->n_probe_allow; i++)
                json_array_append_new(allow, json_string(c->probe_allow[i]));
        probe = json_pack("{s:o, s:o, s:i, s:o, s:o, s:o}",
                                  "listen", c->probe_listen[0] ? json_string(c->probe_listen) : json_null(),
                                  "address", adv ? json_string(addr) : json_null(),
                                  "max_clients", (int)c->probe_max_clients,
                                  "interface", has_if ? json_string(ifname) : json_null(),
                                  "speed_mbps", speed > 0 ? json_integer(speed) : json_null(),
                                  "allow", allow ? allow : json_null());

        api_reply_json(resp, 200, json_pack("{s:I, s:o, s:i, s:i}", "now_ms", (json_int_t)probe_flows_now_ms(),
                                   "probe", probe, "flows_max", PROBE_FLOWS_MAX,
                                   "start_ahead_max_ms", PROBE_FLOWS_AHEAD_MAX_MS));
}

/* The start must lie ahead, and not too far. 0, or the answer has been written. */
static int check_start(const struct probe_flows *f, struct http_response *resp)
{
        int64_t now = probe_flows_now_ms();

        if (f->start_at_ms < now) {
                http_error(resp, 409, "late", "$.start_at_ms", "start_at_ms %lld passed %lld ms ago on this agent's "
                           "clock (now %lld); no flow was run", (long long)f->start_at_ms,
                           (long long)(now - f->start_at_ms), (long long)now);
                return -ETIME;
        }
        if (f->start_at_ms - now > PROBE_FLOWS_AHEAD_MAX_MS) {
                http_error(resp, 400, "invalid", "$.start_at_ms", "start_at_ms %lld is %lld ms ahead of this agent's "
                           "clock, at most %d; no flow was run", (long long)f->start_at_ms,
                           (long long)(f->start_at_ms - now), PROBE_FLOWS_AHEAD_MAX_MS);
                return -ERANGE;
        }
        return 0;
}

static json_t *load_json(const struct measure_load *l)
{
        return json_pack("{s:f, s:f, s:f, s:b}", "agent_cpu_pct", l->agent_cpu_pct, "host_busy_pct",
                         l->host_busy_pct, "loadavg_1m", l->loadavg_1m, "priority_raised", l->priority_raised);
}

static void run(struct probe_flows *f, struct http_response *resp)
{
        struct measure_span span;
        struct measure_load load;
        struct errbuf e = { 0 };
        int ok;

        measure_begin(&span);
        ok = probe_flows_run(f, &e);
        measure_end(&span, &load);
        if (ok < 0) {
                http_error(resp, 500, "runtime", NULL, "%s", e.msg);
                return;
        }
        api_reply_json(resp, 200, json_pack("{s:I, s:I, s:i, s:i, s:o, s:o}", "now_ms", (json_int_t)probe_flows_now_ms(),
                                   "start_at_ms", (json_int_t)f->start_at_ms, "duration_ms", (int)f->duration_ms,
                                   "ok", ok, "flows", probe_flows_to_json(f), "load", load_json(&load)));
}

void api_fabric_flows(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        _cleanup_free_ struct probe_flows *f = malloc(sizeof(*f));
        struct measure_info busy;
        struct errbuf e = { 0 };

        if (!f) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        if (probe_flows_request_parse(req->body, req->body_len, f, &e) < 0) {
                const char *path = strchr(e.where, '$');

                http_error(resp, 400, "invalid", path ? path : e.where, "%s; no flow was run", e.msg);
                return;
        }
        /*
         * One measurement per node, fabric runs included: from this request to the end
         * of its flows (its wait for start_at_ms too), refused at once while another runs.
         */
        for (unsigned i = 0; i < f->n; i++) {
                char path[48];

                snprintf(path, sizeof(path), "$.flows[%u].peer", i);
                if (api_peer_allowed(a, req, f->v[i].params.peer, path, resp) < 0)
                        return;
        }
        if (check_start(f, resp) < 0)
                return;
        if (measure_claim("fabric", f->start_at_ms + f->duration_ms + FABRIC_SLACK_MS, NULL, &busy) < 0) {
                api_reply_busy(resp, &busy);
                return;
        }
        run(f, resp);
        measure_release();
        measure_give_back();
}
