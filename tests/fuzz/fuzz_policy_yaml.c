/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for YAML policies (policies/json/jsonv_yaml.c through the policy
 * parser): any input must parse or fail cleanly (no crash, no leak, no undefined
 * behaviour, an error with a place), and every accepted YAML policy must be the
 * same policy once converted to the JSON the controller sends its agents.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct policy *p = NULL, *q = NULL;
        struct errbuf e = { .where = "" };
        char *json = NULL, *a, *b;
        size_t len;

        if (policy_parse_buffer((const char *)data, size, "fuzz.yaml", &p, &e) < 0) {
                if (!e.msg[0])
                        abort();        /* a refusal always says why */
                return 0;
        }
        if (policy_doc_json((const char *)data, size, "fuzz.yaml", &json, &len, &e) < 0 ||
            policy_parse_buffer(json, len, "converted.json", &q, &e) < 0)
                abort();                /* what was valid as YAML is valid as the JSON made of it */
        a = policy_to_json(p);
        b = policy_to_json(q);
        if (!a || !b || strcmp(a, b) != 0)
                abort();                /* and the same policy */
        free(a);
        free(b);
        free(json);
        policy_free(p);
        policy_free(q);
        return 0;
}
