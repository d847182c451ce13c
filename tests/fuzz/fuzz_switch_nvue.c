/* SPDX-License-Identifier: MIT */
/* libFuzzer: the nvue switch output parsers on arbitrary show output. */
#include "fuzz_switch.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "swp1", "swp2" } };

        switch_nvue_parse_qos(text, "fuzz", s, e);
        switch_nvue_parse_interfaces(text, "fuzz", &sw, s, e);
}
