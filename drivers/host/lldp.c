/* SPDX-License-Identifier: MIT */
/* LLDP neighbours from lldpd (lldpcli json0) or lldpad (lldptool), see lldp.h. */
#include <ctype.h>
#include <jansson.h>

#include "common/subproc.h"
#include "common/util.h"
#include "drivers/host/lldp.h"

#define LLDP_OUT_MAX (1u << 20)

/* json0: {"key": [{"value": "x"}]} -> "x" (the first one). */
static const char *first_value(const json_t *o, const char *key)
{
        return json_string_value(json_object_get(json_array_get(json_object_get(o, key), 0), "value"));
}

static void copy(char *dst, const char *src)
{
        snprintf(dst, LLDP_NAME_MAX, "%s", src ? src : "");
}

/* The port: its id when that is an interface name (subtype ifname or local), else its description. */
static const char *port_name(const json_t *port)
{
        const json_t *id = json_array_get(json_object_get(port, "id"), 0);
        const char *type = json_string_value(json_object_get(id, "type"));

        if (streq(type, "ifname") || streq(type, "local"))
                return json_string_value(json_object_get(id, "value"));
        return first_value(port, "descr");
}

int lldp_parse_lldpcli(const char *json, struct lldp_neighbour *ret, unsigned max, unsigned *ret_n,
                       struct errbuf *e)
{
        json_error_t err;
        json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &err), *lldp, *ifc;
        unsigned n = 0;
        size_t i, k;

        if (!json_is_object(root)) {
                json_decref(root);
                return errbuf_set(e, EBADMSG, "lldpcli", "not the json0 form of 'show neighbors': %s", err.text);
        }
        json_array_foreach(json_object_get(root, "lldp"), i, lldp)
                json_array_foreach(json_object_get(lldp, "interface"), k, ifc) {
                        const json_t *port = json_array_get(json_object_get(ifc, "port"), 0);
                        const char *name = json_string_value(json_object_get(ifc, "name"));
                        const char *sys = first_value(json_array_get(json_object_get(ifc, "chassis"), 0), "name");
                        const char *p = port_name(port);

                        if (!name || !sys || !p || !*sys || !*p || n >= max || strlen(name) >= LLDP_NAME_MAX)
                                continue;
                        copy(ret[n].ifname, name);
                        copy(ret[n].system, sys);
                        copy(ret[n].port, p);
                        n++;
                }
        json_decref(root);
        *ret_n = n;
        return 0;
}

int lldp_parse_lldptool(const char *text, char *buf, size_t size)
{
        const char *line = strchr(text, '\n'), *end, *colon;

        if (!line || !strstr(text, "TLV"))
                return -ENOENT;
        while (*line == '\n' || *line == '\t' || *line == ' ')
                line++;
        end = line + strcspn(line, "\n");
        colon = memchr(line, ':', (size_t)(end - line));
        /* "Ifname: swp1", "Local: Ethernet0": the subtype, then the name */
        if (colon && colon[1] == ' ' && !memchr(line, ' ', (size_t)(colon - line)))
                line = colon + 2;
        while (end > line && isspace((unsigned char)end[-1]))
                end--;
        if (end == line || (size_t)(end - line) >= size)
                return -ENOENT;
        memcpy(buf, line, (size_t)(end - line));
        buf[end - line] = '\0';
        return 0;
}

static int from_lldpd(const char *socket, struct lldp_neighbour *ret, unsigned max, unsigned *ret_n)
{
        const char *with[] = { "lldpcli", "-u", socket, "-f", "json0", "show", "neighbors", NULL };
        const char *plain[] = { "lldpcli", "-f", "json0", "show", "neighbors", NULL };
        _cleanup_free_ char *out = NULL;
        struct errbuf e;
        int status, r;

        r = subproc_run(socket && *socket ? with : plain, LLDP_TIMEOUT_MS, LLDP_OUT_MAX, &out, &status);
        if (r < 0 || status != 0)
                return r < 0 ? r : -ECONNREFUSED;      /* not installed, or no lldpd to ask */
        return lldp_parse_lldpcli(out, ret, max, ret_n, &e);
}

static int lldptool_value(const char *ifname, const char *tlv, char *buf, size_t size)
{
        const char *argv[] = { "lldptool", "-t", "-n", "-i", ifname, "-V", tlv, NULL };
        _cleanup_free_ char *out = NULL;
        int status, r = subproc_run(argv, LLDP_TIMEOUT_MS, 64 * 1024, &out, &status);

        if (r < 0 || status != 0)
                return -ECONNREFUSED;   /* not installed, no lldpad, or it timed out */
        return lldp_parse_lldptool(out, buf, size);
}

static void from_lldpad(const char (*ifnames)[64], unsigned n_if, struct lldp_neighbour *ret, unsigned max,
                        unsigned *ret_n)
{
        for (unsigned i = 0; i < n_if && *ret_n < max; i++) {
                struct lldp_neighbour *x = &ret[*ret_n];
                int r = lldptool_value(ifnames[i], "sysName", x->system, sizeof(x->system));

                if (r == -ECONNREFUSED)
                        return; /* no lldpad (or lldptool) here: stop asking */
                if (r < 0 || lldptool_value(ifnames[i], "portID", x->port, sizeof(x->port)) < 0)
                        continue;
                copy(x->ifname, ifnames[i]);
                (*ret_n)++;
        }
}

int lldp_neighbours(const char *lldpd_socket, const char (*ifnames)[64], unsigned n_if,
                    struct lldp_neighbour *ret, unsigned max, unsigned *ret_n)
{
        *ret_n = 0;
        if (from_lldpd(lldpd_socket, ret, max, ret_n) >= 0 && *ret_n)
                return 0;
        *ret_n = 0;
        from_lldpad(ifnames, n_if, ret, max, ret_n);
        return 0;
}
