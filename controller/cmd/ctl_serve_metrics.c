/* SPDX-License-Identifier: MIT */
/* GET /metrics of `nettunectl serve` over libmicrohttpd. */
#include <microhttpd.h>
#include <stdio.h>

#include "common/netaddr.h"
#include "common/version.h"
#include "controller/cmd/ctl.h"

struct serve_metrics {
        struct MHD_Daemon *d;
        struct serve_counters *c;
};

char *serve_metrics_render(struct serve_counters *c)
{
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);

        if (!f)
                return NULL;
        fprintf(f, "# HELP nettune_ctl_info nettunectl serve\n# TYPE nettune_ctl_info gauge\n"
                   "nettune_ctl_info{version=\"%s\"} 1\n", NETTUNE_VERSION);
        fprintf(f, "# HELP nettune_ctl_leader 1 while this replica leads\n# TYPE nettune_ctl_leader gauge\n"
                   "nettune_ctl_leader %d\n", atomic_load(&c->leader));
        fprintf(f, "# TYPE nettune_ctl_leader_changes_total counter\nnettune_ctl_leader_changes_total %llu\n",
                atomic_load(&c->leader_changes));
        fprintf(f, "# TYPE nettune_ctl_rollouts_total counter\n"
                   "nettune_ctl_rollouts_total{result=\"ok\"} %llu\n"
                   "nettune_ctl_rollouts_total{result=\"failed\"} %llu\n"
                   "nettune_ctl_rollouts_total{result=\"interrupted\"} %llu\n",
                atomic_load(&c->rollouts_run) - atomic_load(&c->rollouts_failed), atomic_load(&c->rollouts_failed),
                atomic_load(&c->rollouts_interrupted));
        fprintf(f, "# TYPE nettune_ctl_drift_scans_total counter\nnettune_ctl_drift_scans_total %llu\n",
                atomic_load(&c->drift_scans));
        fprintf(f, "# HELP nettune_ctl_drift_nodes nodes of the newest drift scan by outcome\n"
                   "# TYPE nettune_ctl_drift_nodes gauge\n"
                   "nettune_ctl_drift_nodes{outcome=\"scanned\"} %u\n"
                   "nettune_ctl_drift_nodes{outcome=\"drifted\"} %u\n"
                   "nettune_ctl_drift_nodes{outcome=\"unreachable\"} %u\n",
                atomic_load(&c->drift_nodes), atomic_load(&c->drift_drifted), atomic_load(&c->drift_unreachable));
        fprintf(f, "# TYPE nettune_ctl_drift_last_scan_seconds gauge\nnettune_ctl_drift_last_scan_seconds %lld\n",
                atomic_load(&c->last_scan_at));
        fprintf(f, "# TYPE nettune_ctl_enforce_rollouts_total counter\nnettune_ctl_enforce_rollouts_total %llu\n",
                atomic_load(&c->enforce_rollouts));
        fprintf(f, "# HELP nettune_ctl_store_writes_total writes (etcd txns) this replica made\n"
                   "# TYPE nettune_ctl_store_writes_total counter\nnettune_ctl_store_writes_total %llu\n",
                atomic_load(&c->store_writes));
        fclose(f);
        return out;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
        struct serve_metrics *m = cls;
        bool get = streq(method, "GET");
        char *body = get && streq(url, "/metrics") ? serve_metrics_render(m->c) : NULL;
        static char not_found[] = "not found\n";
        struct MHD_Response *resp;
        enum MHD_Result r;

        if (*upload_size)
                *upload_size = 0;
        if (body)
                resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
        else
                resp = MHD_create_response_from_buffer(strlen(not_found), not_found, MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, "Content-Type", body ? "text/plain; version=0.0.4" : "text/plain");
        r = MHD_queue_response(conn, body ? MHD_HTTP_OK : MHD_HTTP_NOT_FOUND, resp);
        MHD_destroy_response(resp);
        return r;
}

int serve_metrics_start(const char *listen, struct serve_counters *c, struct serve_metrics **ret, struct errbuf *e)
{
        union netaddr a;
        struct serve_metrics *m;
        int r = netaddr_parse(listen, "--metrics", &a, NULL, e);

        if (r < 0)
                return r;
        m = calloc(1, sizeof(*m));
        if (!m)
                return errbuf_set(e, ENOMEM, "--metrics", "out of memory");
        m->c = c;
        m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (a.sa.sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                                0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, &a.sa,
                                MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
        if (!m->d) {
                free(m);
                return errbuf_set(e, EADDRINUSE, "--metrics", "cannot listen on '%s'", listen);
        }
        *ret = m;
        return 0;
}

void serve_metrics_stop(struct serve_metrics *m)
{
        if (!m)
                return;
        MHD_stop_daemon(m->d);
        free(m);
}
