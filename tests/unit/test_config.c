/* SPDX-License-Identifier: MIT */
/* Agent configuration: defaults, loading, relative paths, validation errors. */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/pkt_sched.h>

#include "agent/config/config.h"
#include "drivers/host/qdisc_ets.h"
#include "drivers/probe/probe_net.h"

static char dir[PATH_MAX];

static int setup(void)
{
        char tmpl[] = "/tmp/nettune-config-test.XXXXXX";
        char *d = mkdtemp(tmpl);

        if (!d || !realpath(d, dir))
                return -1;
        return 0;
}

static int teardown(void)
{
        char path[PATH_MAX + 16];

        snprintf(path, sizeof(path), "%s/agent.json", dir);
        unlink(path);
        return rmdir(dir);
}

static const char *write_config(const char *text)
{
        static char path[PATH_MAX + 16];
        FILE *f;

        snprintf(path, sizeof(path), "%s/agent.json", dir);
        f = fopen(path, "we");
        if (!f)
                return NULL;
        fputs(text, f);
        fclose(f);
        return path;
}

static void test_defaults(void)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };

        config_defaults(&c);
        CU_ASSERT_STRING_EQUAL(c.listen, "0.0.0.0:7440");
        CU_ASSERT_STRING_EQUAL(c.state_dir, "/var/lib/nettune");
        CU_ASSERT_STRING_EQUAL(c.env.sysfs_root, "/sys");
        CU_ASSERT_STRING_EQUAL(c.env.debugfs_root, "/sys/kernel/debug");
        CU_ASSERT_STRING_EQUAL(c.env.configfs_root, "/sys/kernel/config");
        CU_ASSERT_STRING_EQUAL(c.probe_listen, "0.0.0.0:18515");
        CU_ASSERT_EQUAL(c.drift_interval_s, 60);
        CU_ASSERT_EQUAL(c.drift_mode, DRIFT_MODE_REPORT);
        CU_ASSERT_EQUAL(c.env.settle_ms, 3000);
        CU_ASSERT_EQUAL(c.env.link_up_max_ms, 30000);
        CU_ASSERT_EQUAL(c.max_body_bytes, 1u << 20);
        CU_ASSERT_EQUAL(c.request_timeout_s, 30);
        CU_ASSERT_EQUAL(c.probe_runs, 3);
        CU_ASSERT_EQUAL(c.n_switches, 0);
        CU_ASSERT_EQUAL(config_load(NULL, &c, &e), 0);
        CU_ASSERT_STRING_EQUAL(c.path, "");
}

static void test_load(void)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };
        const char *path = write_config(
                "{\"listen\":\"127.0.0.1:7441\",\"tls\":{\"cert\":\"a.crt\",\"key\":\"/etc/k.key\",\"client_ca\":\"ca.crt\"},"
                "\"state_dir\":\"state\",\"probe\":{\"listen\":\"[::1]:18516\",\"runs\":5},"
                "\"drift\":{\"interval_s\":0,\"mode\":\"enforce\"},\"settle_ms\":100,"
                "\"switches\":[{\"name\":\"leaf1\",\"dialect\":\"nvue\",\"host\":\"127.0.0.1\",\"port\":2222,"
                "\"user\":\"nettune\",\"key\":\"id_ed25519\",\"known_hosts\":\"kh\",\"ports\":[\"swp1\",\"swp2\"]},"
                "{\"name\":\"leaf2\",\"dialect\":\"sonic\",\"host\":\"h\",\"user\":\"u\",\"key\":\"/k\","
                "\"known_hosts\":\"/kh\",\"command_timeout_ms\":1000}]}");
        char want[PATH_MAX + 32];

        CU_ASSERT_PTR_NOT_NULL_FATAL(path);
        CU_ASSERT_EQUAL_FATAL(config_load(path, &c, &e), 0);
        CU_ASSERT_STRING_EQUAL(c.path, path);
        CU_ASSERT_STRING_EQUAL(c.listen, "127.0.0.1:7441");
        snprintf(want, sizeof(want), "%s/a.crt", dir);
        CU_ASSERT_STRING_EQUAL(c.tls_cert, want);
        CU_ASSERT_STRING_EQUAL(c.tls_key, "/etc/k.key");
        snprintf(want, sizeof(want), "%s/state", dir);
        CU_ASSERT_STRING_EQUAL(c.state_dir, want);
        CU_ASSERT_STRING_EQUAL(c.probe_listen, "[::1]:18516");
        CU_ASSERT_EQUAL(c.probe_runs, 5);
        CU_ASSERT_EQUAL(c.drift_interval_s, 0);
        CU_ASSERT_EQUAL(c.drift_mode, DRIFT_MODE_ENFORCE);
        CU_ASSERT_EQUAL(c.env.settle_ms, 100);
        CU_ASSERT_EQUAL(c.n_switches, 2);
        CU_ASSERT_EQUAL(c.switches[0].port, 2222);
        CU_ASSERT_EQUAL(c.switches[0].n_ports, 2);
        CU_ASSERT_STRING_EQUAL(c.switches[0].ports[1], "swp2");
        snprintf(want, sizeof(want), "%s/id_ed25519", dir);
        CU_ASSERT_STRING_EQUAL(c.switches[0].key, want);
        CU_ASSERT_EQUAL(c.switches[1].port, 22);
        CU_ASSERT_EQUAL(c.switches[1].connect_timeout_ms, 5000);
        CU_ASSERT_EQUAL(c.switches[1].command_timeout_ms, 1000);
        CU_ASSERT_PTR_EQUAL(config_find_switch(&c, "leaf2"), &c.switches[1]);
        CU_ASSERT_PTR_NULL(config_find_switch(&c, "leaf3"));
}

static void bad(const char *text, const char *where_path, const char *msg)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };
        const char *path = write_config(text);
        char where[PATH_MAX + 64];

        CU_ASSERT_PTR_NOT_NULL_FATAL(path);
        memset(&c, 0x5a, sizeof(c));
        CU_ASSERT_EQUAL(config_load(path, &c, &e), -EINVAL);
        CU_ASSERT_EQUAL(c.n_switches, 0);               /* the defaults, never half the file */
        CU_ASSERT_STRING_EQUAL(c.state_dir, "/var/lib/nettune");
        snprintf(where, sizeof(where), "%s%s%s", path, *where_path == ':' ? "" : ": ", where_path);
        if (strcmp(e.where, where) || strcmp(e.msg, msg))
                fprintf(stderr, "\n  got: %s: %s\n", e.where, e.msg);
        CU_ASSERT_STRING_EQUAL(e.where, where);
        CU_ASSERT_STRING_EQUAL(e.msg, msg);
}

static void test_errors(void)
{
        bad("{\"lisen\":\"x\"}", "$", "unknown key 'lisen' (did you mean 'listen'?)");
        bad("{\"listen\":\"localhost\"}", "$.listen", "listen address 'localhost' is not host:port");
        bad("{\"drift\":{\"mode\":\"fix\"}}", "$.drift.mode", "mode 'fix' is not one of 'report', 'enforce'");
        bad("{\"probe\":{\"runs\":16}}", "$.probe.runs", "runs 16 out of range 1-15");
        bad("{\"switches\":[{\"name\":\"s\",\"dialect\":\"ios\",\"host\":\"h\",\"user\":\"u\",\"key\":\"k\","
            "\"known_hosts\":\"kh\"}]}", "$.switches[0].dialect", "dialect 'ios' is not one of 'nvue', 'sonic', 'eos'");
        bad("{\"switches\":[{\"name\":\"s\",\"dialect\":\"eos\",\"host\":\"h\",\"user\":\"u\",\"key\":\"k\"}]}",
            "$.switches[0]", "missing required key 'known_hosts'");
        bad("{\"switches\":[{\"name\":\"s\",\"dialect\":\"eos\",\"host\":\"h\",\"user\":\"u\",\"key\":\"k\","
            "\"known_hosts\":\"kh\",\"port\":0}]}", "$.switches[0].port", "port 0 out of range 1-65535");
        bad("{\"switches\":[{\"name\":\"s\",\"dialect\":\"eos\",\"host\":\"h\",\"user\":\"u\",\"key\":\"k\","
            "\"known_hosts\":\"kh\"},{\"name\":\"s\",\"dialect\":\"eos\",\"host\":\"h\",\"user\":\"u\",\"key\":\"k\","
            "\"known_hosts\":\"kh\"}]}", "$.switches[1].name", "duplicate switch 's'");
        bad("{\"max_body_bytes\":10}", "$.max_body_bytes", "max_body_bytes 10 out of range 1024-67108864");
        bad("{\"listen\":1,}", ":1:13", "string or '}' expected near '}'");
        bad("{\"role\":\"leaf\"}", "$.role", "role 'leaf' is not one of 'host', 'switch'");
        bad("{\"qdisc_parents\":{\"swp5\":\"1:\"}}", "$.qdisc_parents.swp5",
            "parent '1:' is not 'root' or a class 'MAJOR:MINOR' (hexadecimal, 1-ffff each)");
        bad("{\"qdisc_parents\":{\"swp5\":\"4e54:1\"}}", "$.qdisc_parents.swp5",
            "parent '4e54:1' is inside nettune's own qdisc tree (4e54:, 4e60: to 4e67:)");
        bad("{\"qdisc_parents\":{\"swp5\":2}}", "$.qdisc_parents.swp5", "expected string, found integer");
}

static void test_switch_role(void)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };
        const char *path = write_config("{ \"role\": \"switch\", \"qdisc_parents\": { \"swp5\": \"1:1\", "
                                        "\"swp[6-9]\": \"root\" } }");

        CU_ASSERT_EQUAL_FATAL(config_load(path, &c, &e), 0);
        CU_ASSERT_EQUAL(c.role, AGENT_ROLE_SWITCH);
        CU_ASSERT(c.env.switch_role);
        CU_ASSERT_EQUAL(c.env.n_qdisc_parents, 2);
        CU_ASSERT_EQUAL(driver_env_qdisc_parent(&c.env, "swp5"), 0x10001);
        CU_ASSERT_EQUAL(driver_env_qdisc_parent(&c.env, "swp7"), TC_H_ROOT);
        CU_ASSERT_EQUAL(driver_env_qdisc_parent(&c.env, "swp1"), TC_H_ROOT);
        CU_ASSERT_EQUAL_FATAL(config_load(NULL, &c, &e), 0);
        CU_ASSERT_EQUAL(c.role, AGENT_ROLE_HOST);
        CU_ASSERT_FALSE(c.env.switch_role);
}

/* probe.allow: the responder's client networks, checked at load. */
static void test_probe_allow(void)
{
        struct agent_config c;
        struct probe_cidr nets[CONFIG_PROBE_ALLOW_MAX];
        struct errbuf e = { .where = "" };
        const char *path = write_config("{\"probe\":{\"listen\":\"0.0.0.0:18515\","
                                        "\"allow\":[\"10.0.0.0/24\",\"fd00::7\"]}}");

        CU_ASSERT_EQUAL_FATAL(config_load(path, &c, &e), 0);
        CU_ASSERT_EQUAL(c.n_probe_allow, 2);
        CU_ASSERT_EQUAL(config_probe_allow(&c, nets), 2);
        CU_ASSERT_EQUAL(nets[0].prefix, 24);
        CU_ASSERT_EQUAL(nets[1].prefix, 128);
        config_defaults(&c);
        CU_ASSERT_EQUAL(config_probe_allow(&c, nets), 0);       /* none: this host only */
        bad("{\"probe\":{\"allow\":[\"10.0.0.1/24\"]}}", "$.probe.allow[0]",
            "'10.0.0.1/24' has host bits set beyond /24");
        bad("{\"probe\":{\"allow\":[\"gpu01\"]}}", "$.probe.allow[0]", "'gpu01' is not an IPv4 or IPv6 address");
        bad("{\"probe\":{\"allow\":\"10.0.0.0/8\"}}", "$.probe.allow", "expected array, found string");
}

/* "links": the switch port each interface is cabled to (doctor's path). */
static void test_links(void)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };
        const char *path = write_config("{\"links\":{\"ens1f0np0\":\"leaf1:swp1\",\"eth0\":\"leaf-2:Ethernet1/1\"},"
                                        "\"lldpd_socket\":\"lldpd.sock\",\"proc_root\":\"/tmp\"}");

        CU_ASSERT_EQUAL_FATAL(config_load(path, &c, &e), 0);
        CU_ASSERT_EQUAL_FATAL(c.n_links, 2);
        CU_ASSERT_STRING_EQUAL(c.links[0].iface, "ens1f0np0");
        CU_ASSERT_STRING_EQUAL(c.links[0].sw, "leaf1");
        CU_ASSERT_STRING_EQUAL(c.links[0].port, "swp1");
        CU_ASSERT_STRING_EQUAL(c.links[1].sw, "leaf-2");
        CU_ASSERT_STRING_EQUAL(c.links[1].port, "Ethernet1/1");
        CU_ASSERT_PTR_NOT_NULL(strstr(c.lldpd_socket, "/lldpd.sock"));  /* resolved against the file's directory */
        CU_ASSERT_STRING_EQUAL(c.proc_root, "/tmp");
        config_defaults(&c);
        CU_ASSERT_EQUAL(c.n_links, 0);
        CU_ASSERT_STRING_EQUAL(c.proc_root, "/proc");
        bad("{\"links\":{\"eth0\":\"leaf1\"}}", "$.links.eth0", "'leaf1' is not 'SWITCH:PORT' (each 1-63 characters)");
        bad("{\"links\":{\"eth0\":\":swp1\"}}", "$.links.eth0", "':swp1' is not 'SWITCH:PORT' (each 1-63 characters)");
        bad("{\"links\":{\"eth0\":7}}", "$.links.eth0", "expected string, found integer");
        bad("{\"links\":{\"eth 0\":\"leaf1:swp1\"}}", "$.links", "interface name 'eth 0' has character ' '; "
            "allowed: letters, digits and '-_.@+'");
}

static void test_missing_file(void)
{
        struct agent_config c;
        struct errbuf e = { .where = "" };

        CU_ASSERT_EQUAL(config_load("/nonexistent/agent.json", &c, &e), -ENOENT);
        CU_ASSERT_STRING_EQUAL(e.where, "/nonexistent/agent.json");
}

int suite_config(void);
int suite_config(void)
{
        CU_pSuite s = CU_add_suite("config", setup, teardown);

        if (!s || !CU_add_test(s, "defaults", test_defaults) || !CU_add_test(s, "load", test_load) ||
            !CU_add_test(s, "errors", test_errors) || !CU_add_test(s, "switch_role", test_switch_role) ||
            !CU_add_test(s, "missing_file", test_missing_file) || !CU_add_test(s, "links", test_links) || !CU_add_test(s, "probe_allow", test_probe_allow))
                return -1;
        return 0;
}
