/* SPDX-License-Identifier: MIT */
/* libFuzzer: the sonic CONFIG_DB parser on arbitrary show output. */
#include "tests/fuzz/fuzz_switch.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "Ethernet0", "Ethernet4" } };
        json_t *db = NULL;

        if (switch_sonic_parse(text, "fuzz", &sw, s, &db, e) == 0)
                json_decref(db);
}
