/* SPDX-License-Identifier: MIT */
/* The controller configuration file: tables, defaults, relative paths. */
#include <libgen.h>
#include <limits.h>

#include "controller/cmd/ctl.h"
#include "policies/json/jsonv.h"

#define CTL_CONFIG_DOC_MAX (1u << 20)

void ctl_config_defaults(struct ctl_config *c)
{
        memset(c, 0, sizeof(*c));
        c->lease_ttl_s = 5;
        c->drift_interval_s = 60;
}

static int check_listen(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_hostport(v, "listen address", json_string_value(j));
}

static int check_store(struct jsonv *v, const json_t *j, void *obj)
{
        const char *s = json_string_value(j);

        if (strncmp(s, "sqlite:", 7) && strncmp(s, "etcd://", 7))
                return jsonv_error(v, "store '%.80s': expected sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX", s);
        return 0;
}

#define CC_STR(k, m, fn) { .key = (k), .type = JSONV_STRING, .flags = JSONV_NONEMPTY, \
                           JSONV_MEMBER(struct ctl_config, m), .parse = (fn) }

static const struct jsonv_field tls_fields[] = {
        CC_STR("ca", store_ca, NULL),
        CC_STR("cert", store_cert, NULL),
        CC_STR("key", store_key, NULL),
        { 0 },
};

static const struct jsonv_field serve_fields[] = {
        CC_STR("metrics_listen", metrics_listen, check_listen),
        JSONV_UINT("lease_ttl_s", struct ctl_config, lease_ttl_s, 2, 60),
        JSONV_UINT("drift_interval_s", struct ctl_config, drift_interval_s, 0, 86400),
        JSONV_BOOLEAN("enforce", struct ctl_config, enforce),
        { 0 },
};

static int parse_tls(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, tls_fields, obj);
}

static int parse_serve(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, serve_fields, obj);
}

static const struct jsonv_field config_fields[] = {
        CC_STR("inventory", inventory, NULL),
        CC_STR("store", store, check_store),
        JSONV_CUSTOM("store_tls", JSONV_OBJECT, 0, parse_tls),
        JSONV_CUSTOM("serve", JSONV_OBJECT, 0, parse_serve),
        { 0 },
};

/* A relative path against the file's directory; a relative sqlite: path too. */
static int resolve(const char *file, const char *dir, char *p, size_t size, struct errbuf *e)
{
        char buf[PATH_MAX + CTL_CONFIG_PATH_MAX];
        size_t skip = !strncmp(p, "sqlite:", 7) ? 7 : 0;

        if (!p[0] || p[skip] == '/' || !strncmp(p, "etcd://", 7))
                return 0;
        snprintf(buf, sizeof(buf), "%.*s%s/%s", (int)skip, p, dir, p + skip);
        if (strlen(buf) >= size)
                return errbuf_set(e, EINVAL, file, "'%s' is too long once resolved against '%s'", p, dir);
        snprintf(p, size, "%s", buf);
        return 0;
}

int ctl_config_load(const char *path, struct ctl_config *c, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL;
        char copy[PATH_MAX], dir[PATH_MAX];
        json_t *root = NULL;
        struct jsonv v;
        size_t len;
        int r = jsonv_read_file(path, CTL_CONFIG_DOC_MAX, &buf, &len, e);

        if (r >= 0)
                r = jsonv_parse(buf, len, path, CTL_CONFIG_DOC_MAX, &root, e);
        if (r >= 0) {
                jsonv_init(&v, path, e);
                r = jsonv_object(&v, root, config_fields, c);
        }
        json_decref(root);
        snprintf(copy, sizeof(copy), "%s", path);
        if (r >= 0 && !realpath(dirname(copy), dir))
                r = errbuf_set(e, errno, path, "cannot resolve its directory: %s", strerror(errno));
        if (r >= 0)
                r = resolve(path, dir, c->inventory, sizeof(c->inventory), e);
        if (r >= 0)
                r = resolve(path, dir, c->store, sizeof(c->store), e);
        if (r >= 0)
                r = resolve(path, dir, c->store_ca, sizeof(c->store_ca), e);
        if (r >= 0)
                r = resolve(path, dir, c->store_cert, sizeof(c->store_cert), e);
        if (r >= 0)
                r = resolve(path, dir, c->store_key, sizeof(c->store_key), e);
        return r;
}
