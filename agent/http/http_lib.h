/* SPDX-License-Identifier: MIT */
/* libmicrohttpd and GnuTLS, loaded on first use (http_lib.c, common/lazylib.h). */
#pragma once

#include "common/errbuf.h"
#include "common/lazylib.h"

extern struct lazylib mhd_lib, gnutls_lib;

/* Load both; -ENOENT with the loader's reason ("https: cannot load libmicrohttpd.so.12 (...)"). */
int http_lib_open(struct errbuf *e);

/* gnutls_free(p): GnuTLS's deallocator, which is a variable of the library, not a function. */
void http_lib_gnutls_free(void *p);
