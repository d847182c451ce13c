/* SPDX-License-Identifier: MIT */
/*
 * zlib, loaded when a kernel's config.gz is first read (tc_kmod.c; common/lazylib.h):
 * nothing else reads compressed files, so `apply`, `plan` and `state` never load it.
 */
#include <zlib.h>

#include "common/lazylib.h"
#include "drivers/host/tc_kmod.h"

struct lazylib zlib_lib = LAZYLIB_INIT("libz.so.1", "zlib");

LAZYLIB_FN(zlib_lib, gzFile, gzopen, (const char *path, const char *mode), (path, mode))
LAZYLIB_FN(zlib_lib, char *, gzgets, (gzFile file, char *buf, int len), (file, buf, len))
LAZYLIB_FN(zlib_lib, int, gzclose, (gzFile file), (file))
