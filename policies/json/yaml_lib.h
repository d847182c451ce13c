/* SPDX-License-Identifier: MIT */
/*
 * libyaml, loaded when a YAML document is first read (common/lazylib.h): one
 * trampoline per function jsonv_yaml.c calls, with the library's own prototype.
 * A JSON policy never loads it.
 */
#pragma once

#include "common/errbuf.h"

/* Load libyaml (once); -ENOENT with the loader's reason when it cannot be. */
int yaml_lib_open(struct errbuf *e);
