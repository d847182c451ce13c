/* SPDX-License-Identifier: MIT */
/* libFuzzer: the nvue switch output parser on arbitrary show output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "switch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "swp1", "swp2" } };
        struct errbuf e;
        struct state s;
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        state_init(&s);
        switch_nvue_parse_qos(text, "fuzz", &s, &e);
        switch_nvue_parse_interfaces(text, "fuzz", &sw, &s, &e);
        free(text);
        return 0;
}
