/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the policy parser: any input must parse or fail cleanly
 * (no crash, no leak, no undefined behaviour), and every accepted policy must
 * survive the canonical round trip: parse(to_json(p)) succeeds and prints the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct policy *p = NULL, *q = NULL;
        struct errbuf e;
        char *a, *b;

        if (policy_parse_buffer((const char *)data, size, "fuzz.json", &p, &e) < 0)
                return 0;
        a = policy_to_json(p);
        if (!a)
                abort();
        if (policy_parse_buffer(a, strlen(a), "canonical.json", &q, &e) < 0)
                abort();        /* canonical output must be valid */
        b = policy_to_json(q);
        if (!b || strcmp(a, b) != 0)
                abort();        /* and stable */
        free(a);
        free(b);
        policy_free(p);
        policy_free(q);
        return 0;
}
