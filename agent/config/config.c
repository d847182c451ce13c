/* SPDX-License-Identifier: MIT */
/* The agent configuration file: defaults, validation tables, relative paths. */
#include <arpa/inet.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <linux/pkt_sched.h>

#include "agent/config/config.h"
#include "drivers/host/qdisc_tree.h"
#include "drivers/host/sampler.h"
#include "drivers/host/tc_nl.h"
#include "drivers/probe/probe_net.h"
#include "policies/json/jsonv.h"

#define CONFIG_DOC_MAX (1u << 20)

static const char *const drift_names[] = { "report", "enforce", NULL };
static const char *const dialect_names[] = { "nvue", "sonic", "eos", NULL };
static const char *const role_names[] = { "host", "switch", NULL };

/* The defaults that are not zero, into a configuration that is all zero. */
static void nonzero_defaults(struct agent_config *c)
{
        snprintf(c->listen, sizeof(c->listen), "0.0.0.0:7440");
        snprintf(c->state_dir, sizeof(c->state_dir), "/var/lib/nettune");
        snprintf(c->env.state_dir, sizeof(c->env.state_dir), "%s", c->state_dir);
        snprintf(c->probe_listen, sizeof(c->probe_listen), "0.0.0.0:18515");
        snprintf(c->env.sysfs_root, sizeof(c->env.sysfs_root), "/sys");
        snprintf(c->env.debugfs_root, sizeof(c->env.debugfs_root), "/sys/kernel/debug");
        snprintf(c->env.configfs_root, sizeof(c->env.configfs_root), "/sys/kernel/config");
        snprintf(c->env.nccl_conf, sizeof(c->env.nccl_conf), "/etc/nccl.conf");
        snprintf(c->proc_root, sizeof(c->proc_root), "/proc");
        c->env.settle_ms = 3000;
        c->env.link_up_max_ms = 30000;
        c->env.flap_wait_ms = 1000;
        c->env.rdma_wait_ms = 10000;
        c->probe_runs = 3;
        c->probe_max_clients = 4;
        c->drift_interval_s = 60;
        c->counters_sample_ms = SAMPLER_PERIOD_MS_DEFAULT;
        c->drift_mode = DRIFT_MODE_REPORT;
        c->max_body_bytes = 1u << 20;
        c->request_timeout_s = 30;
        c->header_timeout_s = 5;
}

void config_defaults(struct agent_config *c)
{
        memset(c, 0, sizeof(*c));
        nonzero_defaults(c);
}

static int check_listen(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_hostport(v, "listen address", json_string_value(j));
}

/* Where peers reach the responder: a numeric address (not a wildcard) and a port. */
static int check_advertise(struct jsonv *v, const json_t *j, void *obj)
{
        char q[80];

        if (jsonv_check_hostport(v, "advertise address", json_string_value(j)) < 0)
                return -EINVAL;
        if (!config_host_numeric(json_string_value(j), NULL, 0))
                return jsonv_error(v, "advertise address '%s': expected the numeric ADDR:PORT peers reach the "
                                   "responder at, not a name or a wildcard", jsonv_quote(json_string_value(j), q, sizeof(q)));
        return 0;
}

bool config_host_numeric(const char *hostport, char *ret_host, size_t size)
{
        const char *colon = strrchr(hostport, ':');
        unsigned char a[16], zero[16] = { 0 };
        char host[64];
        size_t n;

        if (!colon)
                return false;
        n = (size_t)(colon - hostport);
        if (hostport[0] == '[' && n >= 2 && hostport[n - 1] == ']')
                snprintf(host, sizeof(host), "%.*s", (int)(n - 2), hostport + 1);
        else
                snprintf(host, sizeof(host), "%.*s", (int)n, hostport);
        if (inet_pton(AF_INET, host, a) == 1) {
                if (!memcmp(a, zero, 4))
                        return false;
        } else if (inet_pton(AF_INET6, host, a) != 1 || !memcmp(a, zero, 16)) {
                return false;
        }
        if (ret_host)
                snprintf(ret_host, size, "%s", host);
        return true;
}

static int check_dialect(struct jsonv *v, const json_t *j, void *obj)
{
        unsigned i;

        return jsonv_enum(v, j, "dialect", dialect_names, &i);
}

static int check_host(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_chars(v, "host", json_string_value(j), "-_.:%");
}

static int check_switch_name(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_switch_name(v, json_string_value(j));
}

static int check_user(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_chars(v, "user", json_string_value(j), "-_.");
}


static int parse_ports(struct jsonv *v, const json_t *j, void *obj)
{
        struct switch_config *sw = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "port", STATE_PORTS_MAX, sw->ports[0], sizeof(sw->ports[0]), &n,
                                   jsonv_check_port_name);

        sw->n_ports = r < 0 ? 0 : (unsigned)n;
        return r;
}

#define SW_STR(k, m, fn) { .key = (k), .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY, \
                           JSONV_MEMBER(struct switch_config, m), .parse = (fn) }

static const struct jsonv_field switch_fields[] = {
        SW_STR("name", name, check_switch_name),
        SW_STR("dialect", dialect, check_dialect),
        SW_STR("host", host, check_host),
        JSONV_UINT("port", struct switch_config, port, 1, 65535),
        SW_STR("user", user, check_user),
        SW_STR("key", key, NULL),
        SW_STR("known_hosts", known_hosts, NULL),
        JSONV_CUSTOM("ports", JSONV_ARRAY, 0, parse_ports),
        JSONV_UINT("connect_timeout_ms", struct switch_config, connect_timeout_ms, 100, 600000),
        JSONV_UINT("command_timeout_ms", struct switch_config, command_timeout_ms, 100, 600000),
        { 0 },
};

static int parse_switch(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct agent_config *c = ctx;
        struct switch_config *sw = &c->switches[i];
        char q[80];
        int r;

        *sw = (struct switch_config){ .port = 22, .connect_timeout_ms = 5000, .command_timeout_ms = 30000 };
        r = jsonv_object(v, j, switch_fields, sw);
        if (r < 0)
                return r;
        c->n_switches = (unsigned)i + 1;
        for (unsigned k = 0; k < i; k++)
                if (streq(c->switches[k].name, sw->name)) {
                        jsonv_push_key(v, "name");
                        r = jsonv_error(v, "duplicate switch '%s'", jsonv_quote(sw->name, q, sizeof(q)));
                        jsonv_pop(v);
                        return r;
                }
        return 0;
}

static int parse_switches(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "switch", "switches", 0, CONFIG_SWITCHES_MAX, parse_switch, obj);
}

/* An exact client name, or "*.suffix": printable ASCII, '*' only as the leading label. */
static int check_client_name(struct jsonv *v, const char *s)
{
        const char *star = strchr(s, '*');
        char q[80];

        for (const char *p = s; *p; p++)
                if (*p < ' ' || *p > '~')
                        return jsonv_error(v, "client name '%s' has a character that is not printable ASCII",
                                           jsonv_quote(s, q, sizeof(q)));
        if (star && (star != s || s[1] != '.' || !s[2] || strchr(s + 1, '*') || s[2] == '.'))
                return jsonv_error(v, "client name '%s': '*' is allowed only as a leading '*.' before a suffix"
                                   " ('*.ops.example.com')", jsonv_quote(s, q, sizeof(q)));
        return 0;
}

/* A list of client names (tls.allowed_clients, tls.roles.operate, tls.roles.read). */
static int parse_names(struct jsonv *v, const json_t *j, char (*list)[CONFIG_CLIENT_NAME_MAX], unsigned *ret_n)
{
        size_t n;
        int r = jsonv_string_array(v, j, "client name", CONFIG_ALLOWED_CLIENTS_MAX, list[0], sizeof(list[0]), &n,
                                   check_client_name);

        *ret_n = r < 0 ? 0 : (unsigned)n;
        return r;
}

static int parse_allowed_clients(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        return parse_names(v, j, c->allowed_clients, &c->n_allowed_clients);
}

static int parse_role_operate(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        return parse_names(v, j, c->role_operate, &c->n_role_operate);
}

static int parse_role_read(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        return parse_names(v, j, c->role_read, &c->n_role_read);
}

static const struct jsonv_field role_fields[] = {
        JSONV_CUSTOM("operate", JSONV_ARRAY, 0, parse_role_operate),
        JSONV_CUSTOM("read", JSONV_ARRAY, 0, parse_role_read),
        { 0 },
};

static int parse_roles(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        c->tls_roles = true;
        return jsonv_object(v, j, role_fields, obj);
}

#define CF_STR(k, m, fn) { .key = (k), .type = JSONV_STRING, .flags = JSONV_NONEMPTY, \
                           JSONV_MEMBER(struct agent_config, m), .parse = (fn) }

static const struct jsonv_field tls_fields[] = {
        CF_STR("cert", tls_cert, NULL),
        CF_STR("key", tls_key, NULL),
        CF_STR("client_ca", tls_client_ca, NULL),
        JSONV_CUSTOM("allowed_clients", JSONV_ARRAY, 0, parse_allowed_clients),
        JSONV_CUSTOM("roles", JSONV_OBJECT, 0, parse_roles),
        { 0 },
};

static int check_cidr(struct jsonv *v, const char *s)
{
        struct probe_cidr c;
        struct errbuf e = { .msg = "" };

        if (probe_cidr_parse(s, NULL, &c, &e) < 0)
                return jsonv_error(v, "%s", e.msg);
        return 0;
}

/* A list of networks (probe.allow, probe.peers). */
static int parse_cidrs(struct jsonv *v, const json_t *j, char (*list)[64], unsigned *ret_n)
{
        size_t n;
        int r = jsonv_string_array(v, j, "network", CONFIG_PROBE_ALLOW_MAX, list[0], sizeof(list[0]), &n, check_cidr);

        *ret_n = r < 0 ? 0 : (unsigned)n;
        return r;
}

static int parse_probe_allow(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        return parse_cidrs(v, j, c->probe_allow, &c->n_probe_allow);
}

static int parse_probe_peers(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;

        return parse_cidrs(v, j, c->probe_peers, &c->n_probe_peers);
}

static const struct jsonv_field probe_fields[] = {
        CF_STR("listen", probe_listen, check_listen),
        JSONV_UINT("runs", struct agent_config, probe_runs, 1, 15),
        JSONV_CUSTOM("allow", JSONV_ARRAY, 0, parse_probe_allow),
        JSONV_CUSTOM("peers", JSONV_ARRAY, 0, parse_probe_peers),
        JSONV_UINT("max_clients", struct agent_config, probe_max_clients, 1, 16),
        CF_STR("advertise", probe_advertise, check_advertise),
        { 0 },
};

static const struct jsonv_field counters_fields[] = {
        JSONV_UINT("sample_ms", struct agent_config, counters_sample_ms, SAMPLER_PERIOD_MS_MIN, SAMPLER_PERIOD_MS_MAX),
        { 0 },
};

static int parse_counters(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, counters_fields, obj);
}

static const struct jsonv_field drift_fields[] = {
        JSONV_UINT("interval_s", struct agent_config, drift_interval_s, 0, 86400),
        JSONV_ENUM("mode", struct agent_config, drift_mode, drift_names, 0),
        { 0 },
};

/* tls.allowed_clients means operate; with tls.roles the names belong there (one list of who may do what). */
static int parse_tls(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;
        int r = jsonv_object(v, j, tls_fields, obj);

        if (r >= 0 && c->tls_roles && json_object_get(j, "allowed_clients")) {
                jsonv_push_key(v, "roles");
                r = jsonv_error(v, "tls.roles and tls.allowed_clients are both given: tls.allowed_clients means "
                                "operate; put its names into tls.roles.operate and remove it");
                jsonv_pop(v);
        }
        return r;
}

static int parse_probe(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, probe_fields, obj);
}

static int parse_drift(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, drift_fields, obj);
}

/* "qdisc_parents": { "swp5": "1:1" }: interface glob -> the tc class nettune's ets tree goes under. */
static bool bad_parent(const char *s, uint32_t *h)
{
        if (tc_nl_handle_parse(s, h) < 0)
                return true;
        return *h != TC_H_ROOT && !TC_H_MIN(*h);
}

static bool inside_ours(uint32_t h)
{
        uint32_t maj = TC_H_MAJ(h) >> 16;

        return h != TC_H_ROOT && (maj == QDISC_ETS_MAJOR || (maj >= QDISC_RED_MAJOR(0) && maj <= QDISC_RED_MAJOR(7)));
}

static int parse_parent(struct jsonv *v, const char *glob, const json_t *val, struct driver_qdisc_parent *p)
{
        const char *s = json_string_value(val);
        uint32_t h = TC_H_ROOT;
        char q[80];
        int r = jsonv_check_glob(v, "interface glob", glob, sizeof(p->glob) - 1);

        if (r < 0)
                return r;
        jsonv_push_key(v, glob);
        r = jsonv_check_type(v, val, JSONV_STRING);
        if (r < 0)
                ;
        else if (bad_parent(s, &h))
                r = jsonv_error(v, "parent '%s' is not 'root' or a class 'MAJOR:MINOR' (hexadecimal, 1-ffff each)",
                                jsonv_quote(s, q, sizeof(q)));
        else if (inside_ours(h))
                r = jsonv_error(v, "parent '%s' is inside nettune's own qdisc tree (4e54:, 4e60: to 4e67:)",
                                jsonv_quote(s, q, sizeof(q)));
        jsonv_pop(v);
        if (r < 0)
                return r;
        snprintf(p->glob, sizeof(p->glob), "%s", glob);
        p->parent = h;
        return 0;
}

static int parse_qdisc_parents(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;
        const char *key;
        json_t *val;

        if (json_object_size(j) > DRIVER_QDISC_PARENTS_MAX)
                return jsonv_error(v, "expected at most %d interface globs, found %zu", DRIVER_QDISC_PARENTS_MAX,
                                   json_object_size(j));
        c->env.n_qdisc_parents = 0;
        json_object_foreach((json_t *)j, key, val) {
                int r = parse_parent(v, key, val, &c->env.qdisc_parents[c->env.n_qdisc_parents]);

                if (r < 0)
                        return r;
                c->env.n_qdisc_parents++;
        }
        return 0;
}

/* "links": { "eth0": "leaf1:swp1" }: the switch port each interface is cabled to. */
static int parse_link(struct jsonv *v, const char *ifname, const json_t *val, struct config_link *l)
{
        const char *s = json_string_value(val), *colon = s ? strchr(s, ':') : NULL;
        char q[80];
        int r = jsonv_check_ifname(v, ifname);

        if (r >= 0 && strlen(ifname) >= 16)
                r = jsonv_error(v, "interface name '%s' is longer than 15 characters", jsonv_quote(ifname, q, sizeof(q)));
        if (r < 0)
                return r;
        jsonv_push_key(v, ifname);
        r = jsonv_check_type(v, val, JSONV_STRING);
        if (r >= 0 && (!colon || colon == s || !colon[1] || (size_t)(colon - s) >= sizeof(l->sw) ||
                       strlen(colon + 1) >= sizeof(l->port)))
                r = jsonv_error(v, "'%s' is not 'SWITCH:PORT' (each 1-%zu characters)", jsonv_quote(s, q, sizeof(q)),
                                sizeof(l->port) - 1);
        if (r >= 0) {
                snprintf(l->iface, sizeof(l->iface), "%s", ifname);
                snprintf(l->sw, sizeof(l->sw), "%.*s", (int)(colon - s), s);
                snprintf(l->port, sizeof(l->port), "%s", colon + 1);
                r = jsonv_check_switch_name(v, l->sw);
        }
        if (r >= 0)
                r = jsonv_check_port_name(v, l->port);
        jsonv_pop(v);
        return r;
}

static int parse_links(struct jsonv *v, const json_t *j, void *obj)
{
        struct agent_config *c = obj;
        const char *key;
        json_t *val;

        if (json_object_size(j) > CONFIG_LINKS_MAX)
                return jsonv_error(v, "expected at most %d links, found %zu", CONFIG_LINKS_MAX, json_object_size(j));
        c->n_links = 0;
        json_object_foreach((json_t *)j, key, val) {
                int r = parse_link(v, key, val, &c->links[c->n_links]);

                if (r < 0)
                        return r;
                c->n_links++;
        }
        return 0;
}

/* external_owners[i]: {"owner", "interfaces": [GLOB], "switches": [GLOB], "fields": [spec field names]} */
static int check_owner_glob(struct jsonv *v, const char *s)
{
        return jsonv_check_glob(v, "name", s, STATE_NAME_MAX - 1);
}

static int parse_eo_interfaces(struct jsonv *v, const json_t *j, void *obj)
{
        struct config_external_owner *o = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "interface glob", CONFIG_EXTERNAL_GLOBS_MAX, o->interfaces[0],
                                   sizeof(o->interfaces[0]), &n, check_owner_glob);

        o->n_interfaces = r < 0 ? 0 : (unsigned)n;
        return r;
}

static int parse_eo_switches(struct jsonv *v, const json_t *j, void *obj)
{
        struct config_external_owner *o = obj;
        size_t n;
        int r = jsonv_string_array(v, j, "switch glob", CONFIG_EXTERNAL_GLOBS_MAX, o->switches[0],
                                   sizeof(o->switches[0]), &n, check_owner_glob);

        o->n_switches = r < 0 ? 0 : (unsigned)n;
        return r;
}

static int parse_eo_fields(struct jsonv *v, const json_t *j, void *obj)
{
        struct config_external_owner *o = obj;
        char names[STATE_FIELD_MAX][32], allowed[400] = "", q[80];
        size_t n, len = 0;
        int r = jsonv_string_array(v, j, "field name", STATE_FIELD_MAX, names[0], sizeof(names[0]), &n, NULL);

        for (int f = 0; f < STATE_FIELD_MAX; f++)
                len += (size_t)snprintf(allowed + len, sizeof(allowed) - len, "%s%s", f ? ", " : "",
                                        state_field_name((enum state_field)f));
        for (size_t i = 0; r >= 0 && i < n; i++) {
                int f = state_field_from_name(names[i]);

                if (f >= 0) {
                        o->fields |= STATE_BIT(f);
                        continue;
                }
                jsonv_push_index(v, i);
                r = jsonv_error(v, "unknown field '%s'; one of %s", jsonv_quote(names[i], q, sizeof(q)), allowed);
                jsonv_pop(v);
        }
        return r;
}

static const struct jsonv_field external_owner_fields[] = {
        { .key = "owner", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct config_external_owner, owner) },
        JSONV_CUSTOM("interfaces", JSONV_ARRAY, 0, parse_eo_interfaces),
        JSONV_CUSTOM("switches", JSONV_ARRAY, 0, parse_eo_switches),
        JSONV_CUSTOM("fields", JSONV_ARRAY, JSONV_REQUIRED, parse_eo_fields),
        { 0 },
};

static int parse_external_owner(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct agent_config *c = ctx;
        struct config_external_owner *o = &c->external_owners[i];
        int r;

        memset(o, 0, sizeof(*o));
        r = jsonv_object(v, j, external_owner_fields, o);
        if (r >= 0)
                c->n_external_owners = (unsigned)i + 1;
        return r;
}

static int parse_external_owners(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "external owner", "external owners", 0, CONFIG_EXTERNAL_OWNERS_MAX,
                                  parse_external_owner, obj);
}

static const struct jsonv_field second_writer_fields[] = {
        JSONV_UINT("restores", struct agent_config, second_writer_restores, 2, 100),
        JSONV_UINT("window_s", struct agent_config, second_writer_window_s, 10, 86400),
        { 0 },
};

static int parse_second_writer(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, second_writer_fields, obj);
}

const struct config_external_owner *config_external_owner(const struct agent_config *c, int kind, const char *name,
                                                          int f)
{
        for (unsigned i = 0; i < c->n_external_owners; i++) {
                const struct config_external_owner *o = &c->external_owners[i];
                unsigned n = kind == TARGET_SWITCH ? o->n_switches : o->n_interfaces;

                if (!(o->fields & STATE_BIT(f)))
                        continue;
                for (unsigned k = 0; k < n; k++)
                        if (fnmatch(kind == TARGET_SWITCH ? o->switches[k] : o->interfaces[k], name, 0) == 0)
                                return o;
        }
        return NULL;
}

static const struct jsonv_field config_fields[] = {
        JSONV_ENUM("role", struct agent_config, role, role_names, 0),
        CF_STR("listen", listen, check_listen),
        JSONV_CUSTOM("tls", JSONV_OBJECT, 0, parse_tls),
        CF_STR("state_dir", state_dir, NULL),
        CF_STR("sysfs_root", env.sysfs_root, NULL),
        CF_STR("debugfs_root", env.debugfs_root, NULL),
        CF_STR("configfs_root", env.configfs_root, NULL),
        CF_STR("nccl_conf", env.nccl_conf, NULL),
        JSONV_CUSTOM("probe", JSONV_OBJECT, 0, parse_probe),
        JSONV_CUSTOM("drift", JSONV_OBJECT, 0, parse_drift),
        JSONV_UINT("settle_ms", struct agent_config, env.settle_ms, 0, 120000),
        JSONV_UINT("link_up_max_ms", struct agent_config, env.link_up_max_ms, 1000, 600000),
        JSONV_UINT("flap_wait_ms", struct agent_config, env.flap_wait_ms, 0, 60000),
        JSONV_UINT("rdma_wait_ms", struct agent_config, env.rdma_wait_ms, 0, 120000),
        JSONV_UINT("max_body_bytes", struct agent_config, max_body_bytes, 1024, 64u << 20),
        JSONV_UINT("request_timeout_s", struct agent_config, request_timeout_s, 1, 3600),
        JSONV_UINT("header_timeout_s", struct agent_config, header_timeout_s, 1, 60),
        JSONV_CUSTOM("switches", JSONV_ARRAY, 0, parse_switches),
        JSONV_CUSTOM("qdisc_parents", JSONV_OBJECT, 0, parse_qdisc_parents),
        JSONV_CUSTOM("links", JSONV_OBJECT, 0, parse_links),
        CF_STR("lldpd_socket", lldpd_socket, NULL),
        CF_STR("proc_root", proc_root, NULL),
        JSONV_CUSTOM("external_owners", JSONV_ARRAY, 0, parse_external_owners),
        JSONV_CUSTOM("second_writer", JSONV_OBJECT, 0, parse_second_writer),
        JSONV_CUSTOM("counters", JSONV_OBJECT, 0, parse_counters),
        { 0 },
};

/* Make the path in p[size] absolute against dir ("" and absolute paths stay). */
static int resolve(const char *file, const char *key, char *p, size_t size, const char *dir,
                   struct errbuf *e)
{
        char buf[PATH_MAX + CONFIG_PATH_MAX];

        if (!p[0] || p[0] == '/')
                return 0;
        snprintf(buf, sizeof(buf), "%s/%s", dir, p);
        if (strlen(buf) >= size)
                return errbuf_set(e, EINVAL, file, "%s: '%s' is too long once resolved against '%s' (max %zu bytes)",
                                  key, p, dir, size - 1);
        snprintf(p, size, "%s", buf);
        return 0;
}

static int resolve_switch(struct agent_config *c, unsigned i, const char *dir, struct errbuf *e)
{
        struct switch_config *sw = &c->switches[i];
        char key[64];
        int r;

        snprintf(key, sizeof(key), "$.switches[%u].key", i);
        r = resolve(c->path, key, sw->key, sizeof(sw->key), dir, e);
        snprintf(key, sizeof(key), "$.switches[%u].known_hosts", i);
        return r < 0 ? r : resolve(c->path, key, sw->known_hosts, sizeof(sw->known_hosts), dir, e);
}

static int resolve_all(struct agent_config *c, const char *dir, struct errbuf *e)
{
        struct { const char *key; char *p; size_t size; } paths[] = {
                { "$.tls.cert", c->tls_cert, sizeof(c->tls_cert) },
                { "$.tls.key", c->tls_key, sizeof(c->tls_key) },
                { "$.tls.client_ca", c->tls_client_ca, sizeof(c->tls_client_ca) },
                { "$.state_dir", c->state_dir, sizeof(c->state_dir) },
                { "$.sysfs_root", c->env.sysfs_root, sizeof(c->env.sysfs_root) },
                { "$.debugfs_root", c->env.debugfs_root, sizeof(c->env.debugfs_root) },
                { "$.configfs_root", c->env.configfs_root, sizeof(c->env.configfs_root) },
                { "$.nccl_conf", c->env.nccl_conf, sizeof(c->env.nccl_conf) },
                { "$.lldpd_socket", c->lldpd_socket, sizeof(c->lldpd_socket) },
                { "$.proc_root", c->proc_root, sizeof(c->proc_root) },
        };
        int r = 0;

        for (size_t i = 0; i < ARRAY_SIZE(paths) && r >= 0; i++)
                r = resolve(c->path, paths[i].key, paths[i].p, paths[i].size, dir, e);
        for (unsigned i = 0; i < c->n_switches && r >= 0; i++)
                r = resolve_switch(c, i, dir, e);
        return r;
}

static int config_dir(const char *path, char *ret, size_t size, struct errbuf *e)
{
        char copy[PATH_MAX], real[PATH_MAX];

        snprintf(copy, sizeof(copy), "%s", path);
        if (!realpath(dirname(copy), real))
                return errbuf_set(e, errno, path, "cannot resolve its directory: %s", strerror(errno));
        snprintf(ret, size, "%s", real);
        return 0;
}

/* Into c (defaults first; zeroed: c is all zero already): 0, or the error with c half-filled. */
static int load(const char *path, struct agent_config *c, bool zeroed, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL;
        json_auto_t *root = NULL;
        char dir[PATH_MAX];
        struct jsonv v;
        size_t len;
        int r;

        if (zeroed)
                nonzero_defaults(c);
        else
                config_defaults(c);
        if (!path)
                return 0;
        if (strlen(path) >= sizeof(c->path))
                return errbuf_set(e, ENAMETOOLONG, path, "file name is too long");
        snprintf(c->path, sizeof(c->path), "%s", path);
        r = jsonv_read_file(path, CONFIG_DOC_MAX, &buf, &len, e);
        if (r >= 0)
                r = jsonv_parse(buf, len, path, CONFIG_DOC_MAX, &root, e);
        if (r < 0)
                return r;
        jsonv_init(&v, path, e);
        r = jsonv_object(&v, root, config_fields, c);
        c->env.switch_role = c->role == AGENT_ROLE_SWITCH;
        if (r >= 0)
                r = config_dir(path, dir, sizeof(dir), e);
        if (r >= 0)
                r = resolve_all(c, dir, e);
        if (r < 0)
                return r;
        snprintf(c->env.state_dir, sizeof(c->env.state_dir), "%s", c->state_dir);
        return 0;
}

int config_load(const char *path, struct agent_config *ret, struct errbuf *e)
{
        int r = load(path, ret, false, e);

        if (r < 0)
                config_defaults(ret);   /* never half a file */
        return r;
}

int config_load_zeroed(const char *path, struct agent_config *ret, struct errbuf *e)
{
        int r = load(path, ret, true, e);

        if (r < 0)
                config_defaults(ret);   /* never half a file */
        return r;
}

unsigned config_probe_allow(const struct agent_config *c, struct probe_cidr *ret)
{
        unsigned n = 0;

        for (unsigned i = 0; i < c->n_probe_allow; i++)
                if (probe_cidr_parse(c->probe_allow[i], NULL, &ret[n], NULL) == 0)     /* checked at load */
                        n++;
        return n;
}

void config_probe_peers(const struct agent_config *c, struct probe_cidr *cidrs, struct probe_peers *ret)
{
        const char (*list)[64] = c->n_probe_peers ? c->probe_peers : c->probe_allow;
        unsigned n = c->n_probe_peers ? c->n_probe_peers : c->n_probe_allow, k = 0;

        for (unsigned i = 0; i < n; i++)
                if (probe_cidr_parse(list[i], NULL, &cidrs[k], NULL) == 0)     /* checked at load */
                        k++;
        *ret = (struct probe_peers){ .v = cidrs, .n = k };
}

const struct switch_config *config_find_switch(const struct agent_config *c, const char *name)
{
        for (unsigned i = 0; i < c->n_switches; i++)
                if (streq(c->switches[i].name, name))
                        return &c->switches[i];
        return NULL;
}
