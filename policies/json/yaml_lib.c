/* SPDX-License-Identifier: MIT */
/* libyaml's functions, resolved on first call (yaml_lib.h). */
#include <yaml.h>

#include "common/lazylib.h"
#include "policies/json/yaml_lib.h"

static struct lazylib yaml_lib = LAZYLIB_INIT("libyaml-0.so.2", "yaml");

int yaml_lib_open(struct errbuf *e)
{
        return lazylib_open(&yaml_lib, e);
}

LAZYLIB_FN(yaml_lib, int, yaml_parser_initialize, (yaml_parser_t *parser), (parser))
LAZYLIB_VOID(yaml_lib, yaml_parser_delete, (yaml_parser_t *parser), (parser))
LAZYLIB_VOID(yaml_lib, yaml_parser_set_input_string, (yaml_parser_t *parser, const unsigned char *input, size_t size),
             (parser, input, size))
LAZYLIB_FN(yaml_lib, int, yaml_parser_parse, (yaml_parser_t *parser, yaml_event_t *event), (parser, event))
LAZYLIB_VOID(yaml_lib, yaml_event_delete, (yaml_event_t *event), (event))
