/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/lazylib.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int lazylib_open(struct lazylib *l, struct errbuf *e)
{
        pthread_mutex_lock(&lock);
        if (!l->tried) {
                const char *why;

                l->tried = true;
                l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
                why = l->handle ? NULL : dlerror();
                if (!l->handle)
                        snprintf(l->error, sizeof(l->error), "%s", why ? why : "unknown reason");
        }
        pthread_mutex_unlock(&lock);
        if (l->handle)
                return 0;
        return errbuf_set(e, ENOENT, NULL, "%s: cannot load %s (%s)", l->what, l->soname, l->error);
}

void *lazylib_sym(struct lazylib *l, const char *name)
{
        struct errbuf e;
        void *p;

        if (lazylib_open(l, &e) < 0) {
                fprintf(stderr, "nettune: %s; it is needed for %s\n", e.msg, name);
                abort();
        }
        p = dlsym(l->handle, name);
        if (!p) {
                fprintf(stderr, "nettune: %s: %s has no symbol '%s'\n", l->what, l->soname, name);
                abort();
        }
        return p;
}
