/* SPDX-License-Identifier: MIT */
/*
 * nettunectl inventory --from-kubernetes FILE|- [--address-type TYPE] [--url-template T]
 *                      [--agent-label KEY[=VALUE]] [--label-prefix P]... [--all-labels]
 *                      [--tls-ca F] [--tls-cert F] [--tls-key F] [--out FILE]
 *
 * The inventory of the nodes Kubernetes already knows: `kubectl get nodes -o json`
 * turned into an inventory (controller/fleet/inventory_k8s.c) and validated as a
 * hand-written one; printed, or written to --out. Nodes without the agent's label
 * are left out and named on stderr. Reads no cluster: kubectl does, with the
 * operator's credentials. Bad input exits 2 naming the node; nothing is written.
 */
#include <stdio.h>
#include <unistd.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "policies/json/jsonv.h"

struct inv_args {
        const char *from, *out, *agent;
        struct inventory_k8s_opts o;
};

/* stdin, read to its end (at most INVENTORY_K8S_DOC_MAX bytes). */
static int read_stdin(char **ret, size_t *ret_len, struct errbuf *e)
{
        size_t len = 0, cap = 1 << 16;
        char *buf = malloc(cap), *b;
        ssize_t n;

        while (buf) {
                if (len + 1 >= cap) {
                        if (cap >= INVENTORY_K8S_DOC_MAX) {
                                free(buf);
                                return errbuf_set(e, EFBIG, "-", "standard input is larger than %u bytes",
                                                  INVENTORY_K8S_DOC_MAX);
                        }
                        b = realloc(buf, cap * 2);
                        if (!b)
                                break;
                        buf = b;
                        cap *= 2;
                }
                n = read(STDIN_FILENO, buf + len, cap - len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int err = errno;

                        free(buf);
                        return errbuf_set(e, err, "-", "cannot read standard input: %s", strerror(err));
                }
                if (n == 0) {
                        buf[len] = '\0';
                        *ret = buf;
                        *ret_len = len;
                        return 0;
                }
                len += (size_t)n;
        }
        free(buf);
        return errbuf_set(e, ENOMEM, "-", "out of memory");
}

static int parse_args(struct ctl *c, struct inv_args *a)
{
        a->o = (struct inventory_k8s_opts){ .address_type = "InternalIP", .url_template = "https://{address}:7440",
                                            .agent_label = "nettune.io/agent", .ca = "ca.crt",
                                            .cert = "controller.crt", .key = "controller.key" };
        for (int i = 0; i < c->argc; i++) {
                const char *f = c->argv[i], *v = i + 1 < c->argc ? c->argv[i + 1] : NULL;

                if (streq(f, "--all-labels")) {
                        a->o.all_labels = true;
                        continue;
                }
                if (!v || f[0] != '-' || f[1] != '-')
                        return ctl_bad_arg(c, f);
                i++;
                if (streq(f, "--from-kubernetes"))
                        a->from = v;
                else if (streq(f, "--out"))
                        a->out = v;
                else if (streq(f, "--address-type"))
                        a->o.address_type = v;
                else if (streq(f, "--url-template"))
                        a->o.url_template = v;
                else if (streq(f, "--agent-label"))
                        a->agent = v;
                else if (streq(f, "--tls-ca"))
                        a->o.ca = v;
                else if (streq(f, "--tls-cert"))
                        a->o.cert = v;
                else if (streq(f, "--tls-key"))
                        a->o.key = v;
                else if (streq(f, "--label-prefix") && a->o.n_prefixes < INVENTORY_K8S_PREFIXES_MAX)
                        a->o.prefixes[a->o.n_prefixes++] = v;
                else if (streq(f, "--label-prefix"))
                        return log_err("--label-prefix: at most %u", INVENTORY_K8S_PREFIXES_MAX), -EINVAL;
                else
                        return ctl_bad_arg(c, f);
        }
        if (!a->from)
                return log_err("inventory: --from-kubernetes FILE|- is required (the output of 'kubectl get nodes "
                               "-o json')"), -EINVAL;
        if (!strstr(a->o.url_template, "{address}") && !strstr(a->o.url_template, "{name}"))
                return log_err("--url-template '%s': it names no {address} or {name}", a->o.url_template), -EINVAL;
        return 0;
}

/* --agent-label KEY[=VALUE] ("" every node); the key lives in a->agent's copy. */
static void agent_label(struct inv_args *a, char *buf, size_t size)
{
        char *eq;

        if (!a->agent)
                return;
        snprintf(buf, size, "%s", a->agent);
        eq = strchr(buf, '=');
        if (eq)
                *eq = '\0';
        a->o.agent_label = buf;
        a->o.agent_value = eq ? eq + 1 : NULL;
}

static int write_out(const char *path, const char *text)
{
        FILE *f = path ? fopen(path, "we") : stdout;

        if (!f || fprintf(f, "%s\n", text) < 0 || (path ? fclose(f) : fflush(f)) != 0) {
                log_err("inventory: cannot write '%s': %s", path ? path : "standard output", strerror(errno));
                return -EIO;
        }
        return 0;
}

int ctl_cmd_inventory(struct ctl *c)
{
        _cleanup_free_ char *buf = NULL;
        struct inventory_k8s res;
        struct inv_args a = { 0 };
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX], label[256];
        size_t len = 0;
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        agent_label(&a, label, sizeof(label));
        a.o.e = &e;
        r = streq(a.from, "-") ? read_stdin(&buf, &len, &e) : jsonv_read_file(a.from, INVENTORY_K8S_DOC_MAX, &buf,
                                                                                &len, &e);
        if (r >= 0)
                r = inventory_from_kubernetes(buf, len, streq(a.from, "-") ? "-" : a.from, &a.o, &res);
        if (r < 0) {
                log_err("%s", errbuf_str(&e, msg, sizeof(msg)));
                return r == -ENOMEM || r == -EIO ? OUTCOME_RUNTIME : OUTCOME_INVALID;
        }
        r = write_out(a.out, res.text);
        free(res.text);
        if (res.n_left_out) {
                int n = snprintf(msg, sizeof(msg), "inventory: %u node%s of %u left out (no label '%s'%s%s): ",
                                 res.n_left_out, res.n_left_out == 1 ? "" : "s", res.n_items, a.o.agent_label,
                                 a.o.agent_value ? " = " : "", a.o.agent_value ? a.o.agent_value : "");

                for (unsigned i = 0; i < res.n_left_out && i < INVENTORY_K8S_NAMED_MAX && n > 0 &&
                     (size_t)n < sizeof(msg); i++)
                        n += snprintf(msg + n, sizeof(msg) - (size_t)n, "%s'%s'", i ? ", " : "", res.left_out[i]);
                if (n > 0 && (size_t)n < sizeof(msg) && res.n_left_out > INVENTORY_K8S_NAMED_MAX)
                        snprintf(msg + n, sizeof(msg) - (size_t)n, " and %u more",
                                 res.n_left_out - INVENTORY_K8S_NAMED_MAX);
                log_warn("%s", msg);
        }
        if (r >= 0 && a.out)
                printf("inventory: %u nodes written to '%s'\n", res.n_nodes, a.out);
        return r < 0 ? OUTCOME_RUNTIME : OUTCOME_OK;
}
