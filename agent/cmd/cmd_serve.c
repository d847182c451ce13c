/* SPDX-License-Identifier: MIT */
/*
 * `serve`: the daemon. Recovers interrupted transactions before anything else,
 * then serves the HTTPS API, answers bandwidth probes on probe.listen, restores
 * expired confirmations and checks drift on a timer. SIGTERM/SIGINT stop it
 * gracefully; pending confirmations stay in the journal for the next start.
 */
#include <malloc.h>
#include <signal.h>
#include <time.h>

#include "agent/api/api.h"
#include "agent/cmd/cmd.h"
#include "agent/measure/measure.h"
#include "agent/txn/txn.h"
#include "common/log.h"
#include "drivers/probe/probe_server.h"

static void check_drift(struct txn_env *env, enum drift_mode mode)
{
        struct errbuf e = { 0 };
        struct measure_info busy;
        struct txn_result res;
        struct plan plan;
        char buf[ERRBUF_STR_MAX];
        int r = drift_check(env, &plan, &e);

        if (r >= 0)
                metrics_set_drift(&plan);
        plan_free(&plan);
        if (r < 0) {
                if (r != -ENOENT)
                        log_warn("drift check failed: %s", errbuf_str(&e, buf, sizeof(buf)));
                return;
        }
        if (r > 0)
                log_warn("drift: %d field(s) differ from the committed policies%s", r,
                         mode == DRIFT_MODE_ENFORCE ? "; re-applying them" : "");
        if (r > 0 && mode == DRIFT_MODE_ENFORCE && measure_txn_enter(&busy) >= 0) {
                if (txn_lock(env, false, &e) < 0) {
                        measure_txn_leave();
                        return;
                }
                txn_result_init(&res);
                txn_enforce(env, &res);
                txn_unlock(env);
                measure_txn_leave();
                metrics_record(&res);
                log_info("drift enforcement: transaction %lld %s", (long long)res.tx, res.result);
                txn_result_done(&res);
        }
}

/*
 * Between timer runs the daemon holds nothing it needs: the journal's page cache
 * goes back to the heap and the heap's free pages to the kernel (an idle agent on
 * every node of a fleet should weigh little).
 */
static void idle_trim(struct journal *j)
{
        journal_release_memory(j);
        malloc_trim(0);
}

static int serve_loop(struct cli *c, struct journal *j)
{
        struct txn_env env;
        struct timespec tick = { 1, 0 };
        time_t next_drift = time(NULL) + (time_t)c->config.drift_interval_s;
        sigset_t set;
        int sig;

        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        txn_env_init(&env, &c->config, j);
        env.no_watchdog = true;
        for (;;) {
                sig = sigtimedwait(&set, NULL, &tick);
                if (sig == SIGTERM || sig == SIGINT)
                        break;
                /* Expired confirmations (and anything left in flight) are restored. */
                if (txn_recover_due(&env) > 0)
                        log_info("restored transaction(s) whose confirmation expired");
                /* A drift check is the agent's own work: never beside a measurement (the next second after it). */
                if (c->config.drift_interval_s && time(NULL) >= next_drift && !measure_running(NULL)) {
                        check_drift(&env, c->config.drift_mode);
                        next_drift = time(NULL) + (time_t)c->config.drift_interval_s;
                        idle_trim(j);
                }
        }
        log_info("stopping on signal %d; pending confirmations stay in the journal", sig);
        return OUTCOME_OK;
}

static int parse_args(struct cli *c, bool *insecure)
{
        for (int i = 1; i < c->argc; i++) {
                if (streq(c->argv[i], "--insecure-loopback")) {
                        *insecure = true;
                } else {
                        return cli_bad_arg(c, c->argv[i]);
                }
        }
        return 0;
}

/* tls.roles; or tls.allowed_clients, which means operate; or neither: every client operates. */
static void serve_roles(const struct agent_config *cf, struct http_roles *ret)
{
        if (cf->tls_roles)
                *ret = (struct http_roles){ .key = "tls.roles", .operate = cf->role_operate,
                                            .n_operate = cf->n_role_operate, .read = cf->role_read,
                                            .n_read = cf->n_role_read };
        else if (cf->n_allowed_clients)
                *ret = (struct http_roles){ .key = "tls.allowed_clients", .operate = cf->allowed_clients,
                                            .n_operate = cf->n_allowed_clients };
        else
                *ret = (struct http_roles){ 0 };
}

/* Before serving anything: restore whatever an earlier run left in flight. */
static int recover(struct cli *c, struct journal *j, struct errbuf *e)
{
        struct txn_env env;
        int r;

        txn_env_init(&env, &c->config, j);
        r = txn_lock(&env, true, e);
        if (r >= 0)
                txn_unlock(&env);
        return r;
}

/* The responder on probe.listen, serving the clients probe.allow names (none: this host only). */
static int start_probe_server(const struct agent_config *cf, struct probe_server **ret, struct errbuf *e)
{
        struct probe_cidr allow[CONFIG_PROBE_ALLOW_MAX];
        struct probe_server_options o = {
                .listen = cf->probe_listen, .sysfs_root = cf->env.sysfs_root[0] ? cf->env.sysfs_root : NULL,
                .allow = allow, .n_allow = config_probe_allow(cf, allow), .max_clients = cf->probe_max_clients,
        };

        if (!o.n_allow)
                log_info("probe responder: probe.allow is not set, answering this host only");
        return probe_server_start_opts(&o, ret, e);
}

int cmd_serve(struct cli *c)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        struct http_server *http = NULL;
        struct probe_server *probe = NULL;
        struct api api = { &c->config, NULL };
        struct http_options o = {
                .listen = c->config.listen, .cert = c->config.tls_cert, .key = c->config.tls_key,
                .client_ca = c->config.tls_client_ca, .max_body = c->config.max_body_bytes,
                .timeout_s = c->config.request_timeout_s, .header_timeout_s = c->config.header_timeout_s,
                .handler = api_handle, .userdata = &api,
        };
        sigset_t set;
        char buf[ERRBUF_STR_MAX];
        int r, rc = OUTCOME_RUNTIME;

        serve_roles(&c->config, &o.roles);
        r = parse_args(c, &o.insecure_loopback);
        if (r)
                return r > 0 ? OUTCOME_OK : OUTCOME_INVALID;
        signal(SIGPIPE, SIG_IGN);
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_BLOCK, &set, NULL);        /* every thread inherits it */
        r = o.insecure_loopback ? 0 : config_check_tls(&c->config, &e);
        if (r >= 0)
                r = journal_open(c->config.state_dir, &j, &e);
        /* A damaged journal could not say what was left in flight: refuse it, naming the recovery. */
        if (r >= 0)
                r = journal_check(j, &e);
        if (r >= 0)
                r = recover(c, j, &e);
        api.journal = j;
        if (r >= 0 && c->config.probe_listen[0])
                r = start_probe_server(&c->config, &probe, &e);
        if (r >= 0)
                r = http_start(&o, &http, &e);
        if (r < 0) {
                fprintf(stderr, "%s: serve: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                rc = outcome_of_errno(r);
        } else {
                log_info("serving %s on %s%s", o.insecure_loopback ? "plain HTTP" : "HTTPS (client certificates required)",
                         c->config.listen, probe ? "; probe responder started" : "");
                if (api_sampler_sync(&api, &e) < 0)
                        log_warn("counter sampler not started: %s", errbuf_str(&e, buf, sizeof(buf)));
                rc = serve_loop(c, j);
        }
        http_stop(http);
        metrics_sampler_close();
        probe_server_stop(probe);
        journal_close(j);
        return rc;
}
