/* SPDX-License-Identifier: MIT */
/* libFuzzer: the sonic switch output parser on arbitrary show output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "switch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct switch_config sw = { .name = "f", .n_ports = 2, .ports = { "Ethernet0", "Ethernet4" } };
        struct errbuf e;
        struct state s;
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        state_init(&s);
        uint32_t mixed;
        json_t *db = NULL;
        if (switch_sonic_parse(text, "fuzz", &sw, &s, &mixed, &db, &e) == 0)
                json_decref(db);
        free(text);
        return 0;
}
