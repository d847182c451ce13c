/* SPDX-License-Identifier: MIT */
/* libFuzzer: the eos switch output parser on arbitrary show output. */
#include "tests/fuzz/fuzz_switch.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "Ethernet1", "Ethernet2" } };
        switch_eos_parse(text, "fuzz", &sw, s, e);
}
