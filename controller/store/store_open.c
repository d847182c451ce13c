/* SPDX-License-Identifier: MIT */
/* A store opened by its spec: the one place that knows every backend. */
#include "controller/store/store_internal.h"

int store_open_spec(const char *spec, const struct store_tls *tls, struct store **ret, struct errbuf *e)
{
        if (!spec || !spec[0])
                return errbuf_set(e, EINVAL, "--store", "empty store; expected sqlite:PATH or "
                                  "etcd://HOST:PORT[,HOST:PORT...]/PREFIX");
        if (!strncmp(spec, "etcd://", 7))
                return etcd_store_open(spec, tls, ret, e);
        if (!strncmp(spec, "sqlite:", 7))
                spec += 7;
        else if (strstr(spec, "://"))
                return errbuf_set(e, EINVAL, "--store", "'%s': unknown kind of store; expected sqlite:PATH or "
                                  "etcd://HOST:PORT[,HOST:PORT...]/PREFIX", spec);
        if (!spec[0])
                return errbuf_set(e, EINVAL, "--store", "sqlite: needs a file name");
        return sqlite_store_open(spec, ret, e);
}

int store_open(const char *path, struct store **ret, struct errbuf *e)
{
        return sqlite_store_open(path, ret, e);
}
