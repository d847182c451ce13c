/* SPDX-License-Identifier: MIT */
/*
 * Shared by the switch output-parser harnesses: each defines fuzz_switch_parse() for
 * its dialect and includes this file, which turns the input into the NUL-terminated
 * show output the parsers take. s: one state per port of the harness's switch.
 */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"

static void fuzz_switch_parse(const char *text, struct state *s, struct errbuf *e);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct errbuf e;
        struct state s[2];
        char *text = malloc(size + 1);

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        state_init(&s[0]);
        state_init(&s[1]);
        fuzz_switch_parse(text, s, &e);
        free(text);
        return 0;
}
