/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for state_from_json (journal snapshots, API state bodies):
 * any input must parse or fail cleanly (no crash, leak or undefined behaviour),
 * a failure must leave *ret untouched, and every accepted state must survive the
 * round trip: state_from_json(state_to_json(s)) succeeds and prints the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies/state/state_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *text(const struct state *s)
{
        json_t *j = state_to_json(s);
        char *t;

        if (!j)
                abort();
        t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(j);
        if (!t)
                abort();
        return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static struct state s, again, guard;
        struct errbuf e = { 0 };
        json_t *j, *k;
        char *a, *b;

        j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
        if (!j)
                return 0;
        memset(&s, 0x5a, sizeof(s));
        memcpy(&guard, &s, sizeof(s));
        if (state_from_json(j, &s, &e) < 0) {
                if (memcmp(&s, &guard, sizeof(s)) != 0 || !e.msg[0])
                        abort();        /* written on failure, or no message */
                json_decref(j);
                return 0;
        }
        json_decref(j);
        a = text(&s);
        k = json_loads(a, 0, NULL);
        if (!k || state_from_json(k, &again, &e) < 0)
                abort();                /* our own output must be accepted */
        json_decref(k);
        b = text(&again);
        if (strcmp(a, b) != 0 || again.present != s.present)
                abort();                /* and stable */
        free(a);
        free(b);
        return 0;
}
