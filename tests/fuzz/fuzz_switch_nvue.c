/* SPDX-License-Identifier: MIT */
/* libFuzzer: the nvue switch output parsers on arbitrary show output. */
#include "tests/fuzz/fuzz_switch.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "swp1", "swp2" } };
        static const char ifs[] = "{\"swp1\": {\"link\": {\"mtu\": 9216}}, \"swp2\": {}}";
        static const char qos[] = "{\"mapping\": {\"default-global\": {}}, \"pfc\": {\"default-global\": {}},"
                                  " \"congestion-control\": {\"default-global\": {}}}";
        struct switch_nvue_roce roce;
        unsigned long left;
        bool on;

        /* The input as each of the three outputs, the others well formed. */
        switch_nvue_parse(text, ifs, ifs, "fuzz", &sw, s, e);
        switch_nvue_parse(qos, text, ifs, "fuzz", &sw, s, e);
        switch_nvue_parse(qos, ifs, text, "fuzz", &sw, s, e);
        switch_nvue_parse_roce(text, "fuzz", &roce, e);
        switch_nvue_confirm_status(text, &left);
        switch_nvue_parse_auto_save(text, &on);
}
