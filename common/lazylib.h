/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded on first use. The agent links libssh2 (switches), libmicrohttpd
 * and GnuTLS (serve) and libibverbs (the verbs probe) lazily: a command that never
 * talks to a switch, never serves and never probes over RDMA — `apply` of an MTU on a
 * host, `plan`, `state` — does not pay for loading and relocating them (about 7
 * million cycles of the dynamic loader, more than the whole transaction).
 *
 * Each library has one file of trampolines (drivers/switch/ssh_lib.c,
 * agent/http/http_lib.c, drivers/probe/verbs_lib.c): a definition of every function
 * nettune calls, with the library's own prototype, that resolves the real symbol on
 * first call. Call sites are unchanged. The entry point of each module calls
 * lazylib_open() first, so a missing library is a clear error, never a crash:
 *
 *   ssh: cannot load libssh2.so.1 (libssh2.so.1: cannot open shared object file); nothing was changed
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"

struct lazylib {
        const char *soname;             /* "libssh2.so.1" */
        const char *what;               /* "ssh", for messages */
        bool tried;                     /* dlopen ran (under the module's lock) */
        void *handle;
        char error[200];
};

#define LAZYLIB_INIT(so, w) { .soname = (so), .what = (w) }

/* Load the library (once); -ENOENT with the loader's reason when it cannot be. */
int lazylib_open(struct lazylib *l, struct errbuf *e);

/* The address of a symbol of the library, loading it first; never NULL (a missing one aborts with its name). */
void *lazylib_sym(struct lazylib *l, const char *name);

/* A trampoline: `ret name params` calls the library's `name` with `args`. */
#define LAZYLIB_FN(lib, ret, name, params, args)                                                   \
        ret name params                                                                            \
        {                                                                                          \
                static ret(*lazy_fn_) params;                                                      \
                ret(*lazy_f_) params = __atomic_load_n(&lazy_fn_, __ATOMIC_ACQUIRE);               \
                if (!lazy_f_) {                                                                    \
                        lazy_f_ = (ret(*) params)lazylib_sym(&(lib), #name);                       \
                        __atomic_store_n(&lazy_fn_, lazy_f_, __ATOMIC_RELEASE);                    \
                }                                                                                  \
                return lazy_f_ args;                                                               \
        }

/* The same for a function that returns nothing. */
#define LAZYLIB_VOID(lib, name, params, args)                                                      \
        void name params                                                                           \
        {                                                                                          \
                static void(*lazy_fn_) params;                                                     \
                void(*lazy_f_) params = __atomic_load_n(&lazy_fn_, __ATOMIC_ACQUIRE);              \
                if (!lazy_f_) {                                                                    \
                        lazy_f_ = (void(*) params)lazylib_sym(&(lib), #name);                      \
                        __atomic_store_n(&lazy_fn_, lazy_f_, __ATOMIC_RELEASE);                    \
                }                                                                                  \
                lazy_f_ args;                                                                      \
        }
